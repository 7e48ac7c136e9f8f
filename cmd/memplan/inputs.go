package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/whatif"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// inputOptions are the flags every command that runs the model shares.
type inputOptions struct {
	Workload   string
	Prices     []string
	Factors    []string
	Rates      []string // --rate EUR=1.08USD
	RatesFiles []string // --rates FILE
	// WithEmbedded adds the embedded list prices (the default catalog) to
	// --prices catalogs, which are otherwise the only ones priced from.
	WithEmbedded bool
	// Sets (--set PATH=VALUE) and Scales (--scale KIND=FACTOR) are
	// what-ifs applied to the workload and the merged catalogs.
	Sets   []string
	Scales []string
	// warn gets what loadInputs does not refuse but a person should know
	// (nil: nobody is told).
	warn io.Writer
}

// catalogsFor decides what the plan is priced from. A quote is the
// catalog: with --prices files, only they price the plan, unless the
// workload names embedded catalogs too (catalogs: [current, my-quote]) or
// --with-embedded adds the list prices. Without --prices, the workload's
// catalogs, or the default embedded one. Embedded catalogs come first so a
// quoted part with the same SKU replaces the list price.
func catalogsFor(ctx context.Context, w *model.Workload, o inputOptions) ([]*prices.Catalog, error) {
	var quotes []*prices.Catalog
	quoted := map[string]bool{}
	for _, p := range o.Prices {
		c, err := prices.LoadContext(ctx, p)
		if err != nil {
			return nil, err
		}
		quotes = append(quotes, c)
		quoted[c.Name] = true
	}
	var cats []*prices.Catalog
	embedded := map[string]bool{}
	for i, n := range w.Catalogs {
		if quoted[n] {
			continue // named in the workload and given with --prices
		}
		c, err := prices.Embedded(n)
		if err != nil {
			return nil, w.ErrorAt(fmt.Sprintf("catalogs[%d]", i), "name a catalog given with --prices FILE (its `name:`) or an embedded one",
				"no catalog %q: embedded catalogs are %s%s", n, strings.Join(prices.EmbeddedNames(), ", "), quoteNames(quotes))
		}
		cats = append(cats, c)
		embedded[n] = true
	}
	if (len(w.Catalogs) == 0 && len(quotes) == 0) || (o.WithEmbedded && !embedded[prices.DefaultCatalog]) {
		c, err := prices.Embedded(prices.DefaultCatalog)
		if err != nil {
			return nil, err
		}
		cats = append([]*prices.Catalog{c}, cats...)
	}
	return append(cats, quotes...), nil
}

// quoteNames lists the --prices catalogs' names for an error message.
func quoteNames(qs []*prices.Catalog) string {
	if len(qs) == 0 {
		return "; no --prices file was given"
	}
	var ns []string
	for _, q := range qs {
		ns = append(ns, fmt.Sprintf("%s (%s)", q.Name, q.File))
	}
	return "; --prices catalogs are " + strings.Join(ns, ", ")
}

// loadInputs reads the workload, the catalogs it names plus --prices files
// (which extend or override them), and the default factors plus --factors
// files (later ones override curves of the same class).
// modelFlags are the flags the hints and warnings of model and prices may
// suggest.
var modelFlags = model.Flags{Rate: "--rate", Rates: "--rates", Prices: "--prices", WithEmbedded: "--with-embedded", MaxPriceAge: "--max-price-age"}

func loadInputs(ctx context.Context, o inputOptions) (model.Input, error) {
	in, _, err := loadInputsWhatIf(ctx, o)
	return in, err
}

// whatIfs are the --set and --scale a run applied.
type whatIfs struct {
	notes []string      // one line each, for the result's warnings
	lines *whatif.Lines // maps the edited workload's lines to the file's
}

// fix points an error about the workload at the file's own line.
func (w *whatIfs) fix(err error) error {
	if w == nil {
		return err
	}
	return w.lines.Fix(err)
}

// loadInputsWhatIf is loadInputs that also applies --set and --scale and
// says what they changed.
func loadInputsWhatIf(ctx context.Context, o inputOptions) (model.Input, *whatIfs, error) {
	in := model.Input{Flags: modelFlags}
	if o.Workload == "" {
		return in, nil, usagef("--workload FILE is required (see examples/ for a starting point)")
	}
	var sets []whatif.Set
	for _, a := range o.Sets {
		s, err := whatif.ParseSet(a)
		if err != nil {
			return in, nil, err
		}
		sets = append(sets, s)
	}
	var scales []whatif.Scale
	for _, a := range o.Scales {
		s, err := whatif.ParseScale(a)
		if err != nil {
			return in, nil, err
		}
		scales = append(scales, s)
	}
	w, notes, lines, err := loadWorkloadWhatIf(ctx, o.Workload, sets)
	if err != nil {
		return in, nil, err
	}
	in, err = loadRest(ctx, o, in, w, scales, &notes)
	return in, &whatIfs{notes: notes, lines: lines}, lines.Fix(err)
}

// loadRest reads what the workload names (catalogs, factor files, job
// profiles) and applies --scale.
func loadRest(ctx context.Context, o inputOptions, in model.Input, w *model.Workload, scales []whatif.Scale, notes *[]string) (model.Input, error) {
	in.Workload = w
	cats, err := catalogsFor(ctx, w, o)
	if err != nil {
		return in, err
	}
	set, err := prices.MergeWith(modelFlags, cats...)
	if err != nil {
		return in, err
	}
	// Rates given explicitly win over those in catalogs; flags over files.
	for _, p := range o.RatesFiles {
		r, err := prices.LoadRatesContext(ctx, p)
		if err != nil {
			return in, err
		}
		for cur, m := range r.Rates {
			set.AddRate(cur, m, fmt.Sprintf("rates file %s (%s, %s)", p, r.Source, r.Date))
		}
	}
	given := map[[2]string]string{} // (from, to) -> the --rate flag that set it
	rate := map[[2]string]float64{}
	for _, x := range o.Rates {
		cur, m, err := prices.ParseRate(x)
		if err != nil {
			return in, err
		}
		// Two flags for one pair (either way round) that disagree leave
		// no way to tell which one the user meant: refuse rather than let
		// the later one win silently. Inverses within 0.5% agree (a rate
		// and its inverse are each rounded when written).
		pair, inv := [2]string{cur, m.Currency}, [2]string{m.Currency, cur}
		if prev, ok := given[pair]; ok && prices.RatesDisagree(cur, units.Money{Amount: rate[pair], Currency: m.Currency}, cur, m) {
			return in, usagef("--rate %s and --rate %s disagree on what one %s buys in %s; give one of them", prev, x, cur, m.Currency)
		}
		if prev, ok := given[inv]; ok && prices.RatesDisagree(m.Currency, units.Money{Amount: rate[inv], Currency: cur}, cur, m) {
			return in, usagef("--rate %s and --rate %s disagree: the first means one %s buys %.4g %s, the second %g; give one of them", prev, x, cur, 1/rate[inv], m.Currency, m.Amount)
		}
		given[pair], rate[pair] = x, m.Amount
		set.AddRate(cur, m, "--rate "+x)
	}
	scaled, err := whatif.ApplyScales(set, scales)
	if err != nil {
		return in, err
	}
	*notes = append(*notes, scaled...)
	in.Prices = set
	files := []*factors.File{model.DefaultFactors()}
	for _, p := range o.Factors {
		f, err := model.LoadFactorsContext(ctx, p)
		if err != nil {
			return in, err
		}
		files = append(files, f)
	}
	warnSameClass(o.warn, files[1:])
	if in.Factors, err = model.MergeFactors(files...); err != nil {
		return in, err
	}
	if in.JobFactors, err = model.LoadJobProfiles(w, files); err != nil {
		return in, err
	}
	return in, nil
}

// loadWorkloadWhatIf reads the workload; with --set, the file as written
// must load first, then the edited text is loaded in its place.
func loadWorkloadWhatIf(ctx context.Context, path string, sets []whatif.Set) (*model.Workload, []string, *whatif.Lines, error) {
	if len(sets) == 0 {
		w, err := model.LoadWorkloadContext(ctx, path)
		return w, nil, nil, err
	}
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading workload: %w", err)
	}
	name := inputfile.Name(path)
	if _, err := model.ParseWorkload(name, data); err != nil {
		return nil, nil, nil, err
	}
	edited, notes, lines, err := whatif.Apply(name, data, reflect.TypeOf(model.Workload{}), sets)
	if err != nil {
		return nil, nil, nil, err
	}
	w, err := model.ParseWorkload(name, edited)
	if err != nil {
		return nil, nil, nil, whatif.Explain(err, sets)
	}
	// As model.LoadWorkloadContext does: profiles are relative to the file.
	for i := range w.Jobs {
		if p := w.Jobs[i].Profile; p != "" && !filepath.IsAbs(p) {
			w.Jobs[i].Profile = filepath.Join(filepath.Dir(path), p)
		}
	}
	return w, notes, lines, nil
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
