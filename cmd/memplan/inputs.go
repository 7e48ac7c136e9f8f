package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

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
	in := model.Input{Flags: modelFlags}
	if o.Workload == "" {
		return in, usagef("--workload FILE is required (see examples/ for a starting point)")
	}
	w, err := model.LoadWorkloadContext(ctx, o.Workload)
	if err != nil {
		return in, err
	}
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
	in.Prices = set
	files := []*model.FactorFile{model.DefaultFactors()}
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
