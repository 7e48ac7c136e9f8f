package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

func newWorkloadCommand(d *deps) *cobra.Command {
	c := &cobra.Command{Use: "workload", Short: "Check workload descriptions, or write one from accounting records"}
	c.AddCommand(newWorkloadImportCommand(d))
	var factorFiles []string
	v := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check workload files and summarise what memplan understood",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files := []*factors.File{model.DefaultFactors()}
			for _, p := range factorFiles {
				f, err := model.LoadFactors(p)
				if err != nil {
					return err
				}
				files = append(files, f)
			}
			var failed []error
			for _, f := range args {
				w, err := model.LoadWorkload(f)
				if err == nil {
					err = checkWorkloadRefs(w, files)
				}
				if err != nil {
					failed = append(failed, err)
					continue
				}
				fmt.Fprintf(d.Stdout, "%s: ok: %s\n", f, describeWorkload(w))
			}
			return joinErrors(failed)
		},
	}
	v.Flags().StringArrayVar(&factorFiles, "factors", nil, "slowdown factor file whose shapes a job's access: may name; repeatable (as recommend)")
	c.AddCommand(v)
	return c
}

// checkWorkloadRefs checks the profile files a workload names and each
// job's access: against the shapes of the factor files (the defaults, then
// --factors) and the job's profile, so `validate` catches what `recommend`
// would. Catalog names need not be embedded: they may name a --prices
// catalog (describeWorkload says so).
func checkWorkloadRefs(w *model.Workload, files []*factors.File) error {
	for i, j := range w.Jobs {
		if j.Profile == "" {
			continue
		}
		if _, err := model.LoadFactors(j.Profile); err != nil {
			if isNotExist(err) {
				return w.ErrorAt(fmt.Sprintf("jobs[%d].profile", i), "create it with `memplan profile`, or remove the field", "no such file %s", j.Profile)
			}
			return err
		}
	}
	fs, err := model.MergeFactors(files...)
	if err != nil {
		return err
	}
	jobs, err := model.LoadJobProfiles(w, files)
	if err != nil {
		return err
	}
	return w.CheckAccess(fs, jobs)
}

func describeWorkload(w *model.Workload) string {
	var parts []string
	for i, j := range w.Jobs {
		s := fmt.Sprintf("%s: %d x %s%s for %s (deadline %s", j.Name, j.Concurrency, j.Footprint, decimalNote(w.Written(fmt.Sprintf("jobs[%d].footprint", i))), j.Runtime, j.Deadline)
		if j.JobsPerDay > 0 {
			s += fmt.Sprintf(", %g jobs/day", j.JobsPerDay)
		}
		parts = append(parts, s+")")
	}
	demand := fmt.Sprintf("%d server(s)", w.Demand.Servers)
	if w.Demand.Servers == 0 {
		demand = "fleet sized to the daily job volume"
	}
	cats := "your --prices files, or without them the embedded " + prices.DefaultCatalog
	if len(w.Catalogs) > 0 {
		var ns []string
		for _, n := range w.Catalogs {
			if _, err := prices.Embedded(n); err != nil {
				n += " (not embedded: give it with --prices)"
			}
			ns = append(ns, n)
		}
		cats = strings.Join(ns, ", ")
	}
	return fmt.Sprintf("%q, %s; %s; catalogs %s; horizon %.1f years", w.Name, strings.Join(parts, "; "), demand, cats, w.HorizonYears())
}

// decimalNote says what a size written in decimal units became: memory
// is counted in GiB, and "48GB" is 44.7GiB, not 48GiB.
func decimalNote(written string) string {
	t := strings.TrimSpace(written)
	for _, suf := range []string{"KB", "MB", "GB", "TB", "PB"} {
		if num, ok := strings.CutSuffix(t, suf); ok {
			if _, err := units.ParseBytes(t); err == nil {
				return fmt.Sprintf(" (written %s: decimal units, 10^%d bytes each; write %s%s for binary ones)", t, 3*(1+strings.Index("KMGTP", suf[:1])), strings.TrimSpace(num), suf[:1]+"iB")
			}
		}
	}
	return ""
}

// joinErrors reports several file errors at once, one per line.
func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}
