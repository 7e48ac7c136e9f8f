package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
)

// inputOptions are the flags every command that runs the model shares.
type inputOptions struct {
	Workload   string
	Prices     []string
	Factors    []string
	Rates      []string // --rate EUR=1.08USD
	RatesFiles []string // --rates FILE
}

// loadInputs reads the workload, the catalogs it names plus --prices files
// (which extend or override them), and the default factors plus --factors
// files (later ones override curves of the same class).
func loadInputs(o inputOptions) (model.Input, error) {
	var in model.Input
	if o.Workload == "" {
		return in, usagef("--workload FILE is required (see examples/ for a starting point)")
	}
	w, err := model.LoadWorkload(o.Workload)
	if err != nil {
		return in, err
	}
	in.Workload = w
	names := w.Catalogs
	if len(names) == 0 {
		names = []string{prices.DefaultCatalog}
	}
	var cats []*prices.Catalog
	for i, n := range names {
		c, err := prices.Embedded(n)
		if err != nil {
			return in, w.ErrorAt(fmt.Sprintf("catalogs[%d]", i), "", "%v", err)
		}
		cats = append(cats, c)
	}
	for _, p := range o.Prices {
		c, err := prices.Load(p)
		if err != nil {
			return in, err
		}
		cats = append(cats, c)
	}
	set, err := prices.Merge(cats...)
	if err != nil {
		return in, err
	}
	// Rates given explicitly win over those in catalogs; flags over files.
	for _, p := range o.RatesFiles {
		r, err := prices.LoadRates(p)
		if err != nil {
			return in, err
		}
		for cur, m := range r.Rates {
			set.AddRate(cur, m, fmt.Sprintf("rates file %s (%s, %s)", p, r.Source, r.Date))
		}
	}
	for _, x := range o.Rates {
		cur, m, err := prices.ParseRate(x)
		if err != nil {
			return in, err
		}
		set.AddRate(cur, m, "--rate "+x)
	}
	in.Prices = set
	files := []*model.FactorFile{model.DefaultFactors()}
	for _, p := range o.Factors {
		f, err := model.LoadFactors(p)
		if err != nil {
			return in, err
		}
		files = append(files, f)
	}
	warnSameClass(warnings, files[1:])
	if in.Factors, err = model.MergeFactors(files...); err != nil {
		return in, err
	}
	for i, j := range w.Jobs {
		if j.Profile == "" {
			continue
		}
		f, err := model.LoadFactors(j.Profile)
		if err != nil {
			if os.IsNotExist(err) || isNotExist(err) {
				return in, w.ErrorAt(fmt.Sprintf("jobs[%d].profile", i), "run `memplan profile` to create it, or remove the field", "no such file %s", j.Profile)
			}
			return in, err
		}
		jf, err := model.MergeProfile(files, f)
		if err != nil {
			return in, err
		}
		if in.JobFactors == nil {
			in.JobFactors = map[string]*model.Factors{}
		}
		in.JobFactors[j.Name] = jf
	}
	return in, nil
}

func isNotExist(err error) bool {
	for e := err; e != nil; {
		if os.IsNotExist(e) {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so a failure never leaves a partial file.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
