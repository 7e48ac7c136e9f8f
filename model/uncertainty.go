package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/memplan/memplan/units"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Defaults of UncertaintyOptions.
const (
	DefaultRuns        = 1000
	DefaultPriceSpread = 0.10
)

// UncertaintyOptions configure Uncertainty.
type UncertaintyOptions struct {
	Runs int    // Monte Carlo runs; 0 means DefaultRuns
	Seed uint64 // the same seed (and inputs) gives the same result
	// PriceSpread is the relative half-width of a part's price range when
	// its catalog entry gives no `price_range`: 0.1 draws between 90% and
	// 110% of the quoted price. 0 means DefaultPriceSpread.
	PriceSpread float64
	// FixedPrices and FixedSlowdowns switch one source of uncertainty off,
	// to see how much each contributes.
	FixedPrices    bool
	FixedSlowdowns bool
}

// UncertaintyResult is how often each configuration came out cheapest when
// prices and slowdowns were drawn from their ranges, and the spread of the
// saving against all-DRAM.
type UncertaintyResult struct {
	Runs        int
	Seed        uint64
	Currency    string
	RankBy      string  // capital or tco: the cost compared
	PriceSpread float64 // default relative half-width used (0 with FixedPrices)
	// Met is the number of runs in which some configuration met every
	// deadline; NoneMeets the share of all runs in which none did.
	Met       int
	NoneMeets float64
	// Winners are the configurations that were cheapest in at least one
	// run, most frequent first; their shares sum to 1 over the Met runs.
	Winners []WinShare
	// The deterministic recommendation (from today's prices and central
	// slowdowns): the share of Met runs in which it was cheapest, and the
	// share of runs in which it met every deadline (over the runs in which
	// it was evaluated; a drive dominated at the drawn prices is skipped).
	Recommended      string
	RecommendedShare float64
	RecommendedMeets float64
	// Savings is each run's cheapest configuration against that run's
	// cheapest all-DRAM configuration, over the runs that have both (zero
	// when all-DRAM is itself cheapest); in Currency, for the fleet, and in
	// percent of the all-DRAM fleet cost.
	Savings        *Distribution
	SavingsPercent *Distribution
	// Method describes the draws, for the report's caveats.
	Method string
}

// WinShare is how often one configuration was cheapest.
type WinShare struct {
	ID    string
	Label string
	Runs  int
	Share float64 // Runs / UncertaintyResult.Met
}

// Distribution summarises sampled values (empirical quantiles).
type Distribution struct {
	N    int
	Mean float64
	P5   float64
	P50  float64
	P95  float64
	Min  float64
	Max  float64
}

// uncertaintyMethod is the caveat that travels with the numbers.
const uncertaintyMethod = "Each run draws every catalog price independently from a triangular distribution " +
	"(its price_range, or the quoted price +/- the default spread, with the quoted price most likely) and " +
	"one slowdown error for each set of curves the slowdowns rest on: one shared by every figure derived " +
	"from another device's curves (and by a zswap pool and its drive, which share one page rate), one for " +
	"each class measured or published directly. The error multiplies the excess slowdown (S-1) by a " +
	"log-normal factor with median 1 whose 97.5th percentile is the top of the estimate's 95% band; for a " +
	"derived figure its log sigma is at least the leave-one-out error of the factor set's joint predictions " +
	"(memplan factors crossval). Within a run the drawn slowdown is taken as true, so a configuration meets " +
	"its deadlines or not, and the cheapest that meets them wins; as in the ranking itself, one that relies on " +
	"a slowdown extrapolated beyond the measured fit ratios wins only when nothing measured meets them. " +
	"The shares are given the model and its measured error, not a probability about the world. Prices of different parts " +
	"are drawn independently; a market-wide DRAM move is what the break-even analysis covers."

// Uncertainty re-runs the ranking opts.Runs times with prices and slowdown
// factors drawn from their ranges and reports how often each configuration
// is cheapest and how the saving against all-DRAM spreads. It is
// reproducible: the draws come from one seeded stream, made before the runs
// (which then go in parallel). Its searches are lean (they evaluate only
// the configurations that can rank first), so unlike Recommend it does not
// refuse a workload whose dearest fleets cost more than MaxFleetCost: run
// Recommend first, as memplan recommend does.
func Uncertainty(in Input, opts UncertaintyOptions) (*UncertaintyResult, error) {
	revalidateInput(in)
	if opts.Runs == 0 {
		opts.Runs = DefaultRuns
	}
	if opts.Runs < 0 {
		return nil, fmt.Errorf("model: uncertainty runs %d, expected a positive number", opts.Runs)
	}
	if opts.PriceSpread == 0 {
		opts.PriceSpread = DefaultPriceSpread
	}
	if !(opts.PriceSpread > 0 && opts.PriceSpread < 1) {
		return nil, fmt.Errorf("model: price spread %g, expected a share between 0 and 1 (0.1 is +/-10%%)", opts.PriceSpread)
	}
	// Today's recommendation, by a lean search as only it is read; through
	// hooks, so that its predictions stay in the factor set for the runs
	// (evaluator.predict).
	base, err := recommend(in, &hooks{lean: true})
	if err != nil {
		return nil, err
	}
	w, _ := in.workload() // Recommend checked it
	out := &UncertaintyResult{Runs: opts.Runs, Seed: opts.Seed, Currency: base.Currency, RankBy: RankCapital, PriceSpread: opts.PriceSpread, Method: uncertaintyMethod}
	if opts.FixedPrices {
		out.PriceSpread = 0
	}
	if base.TCO != nil {
		out.RankBy = base.TCO.RankBy
	}
	if base.Recommended != nil {
		out.Recommended = base.Recommended.ID
	}

	draws := drawRuns(in, opts)
	type outcome struct {
		winner, label string
		hasSaving     bool
		saving, pct   float64
		recMeets      int // -1 not evaluated, 0 missed, 1 met
		err           error
	}
	outs := make([]outcome, opts.Runs)
	var wg sync.WaitGroup
	next := make(chan int)
	workers := min(runtime.GOMAXPROCS(0), opts.Runs)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := &outs[i]
				h := draws[i].hooks()
				h.lean, h.keep = true, out.Recommended
				res, err := recommend(in, h)
				if err != nil {
					o.err = err
					continue
				}
				o.recMeets = -1
				for _, c := range res.evaluated {
					if c.ID == out.Recommended {
						o.recMeets = 0
						if c.Meets {
							o.recMeets = 1
						}
						break
					}
				}
				r, b := res.Recommended, res.Baseline
				if r == nil {
					continue
				}
				o.winner, o.label = r.ID, r.Label
				if b != nil {
					o.hasSaving = true
					cb := rankCost(b, w)
					// Each run's saving is exact; their distribution
					// (mean, percentiles) is a statistic, in float64.
					sv := cb.Sub(rankCost(r, w))
					o.saving = sv.Float()
					if cb > 0 {
						o.pct = percentOf(sv, cb)
					}
				}
			}
		}()
	}
	for i := range outs {
		next <- i
	}
	close(next)
	wg.Wait()

	wins := map[string]*WinShare{}
	var savings, pcts []float64
	evaluated, met := 0, 0
	for i := range outs {
		o := &outs[i]
		if o.err != nil {
			return nil, fmt.Errorf("uncertainty run %d: %w", i+1, o.err)
		}
		if o.recMeets >= 0 {
			evaluated++
			met += o.recMeets
		}
		if o.winner == "" {
			continue
		}
		out.Met++
		w := wins[o.winner]
		if w == nil {
			w = &WinShare{ID: o.winner, Label: o.label}
			wins[o.winner] = w
		}
		w.Runs++
		if o.hasSaving {
			savings = append(savings, o.saving)
			pcts = append(pcts, o.pct)
		}
	}
	out.NoneMeets = float64(opts.Runs-out.Met) / float64(opts.Runs)
	for _, w := range wins {
		w.Share = float64(w.Runs) / float64(out.Met)
		out.Winners = append(out.Winners, *w)
	}
	sort.Slice(out.Winners, func(i, j int) bool {
		a, b := out.Winners[i], out.Winners[j]
		if a.Runs != b.Runs {
			return a.Runs > b.Runs
		}
		return a.ID < b.ID
	})
	if w := wins[out.Recommended]; w != nil {
		out.RecommendedShare = w.Share
	}
	if evaluated > 0 {
		out.RecommendedMeets = float64(met) / float64(evaluated)
	}
	out.Savings, out.SavingsPercent = summarise(savings), summarise(pcts)
	return out, nil
}

// runDraw is one run's drawn world: price multipliers per part and one
// standard-normal slowdown error per swap backend class.
type runDraw struct {
	price map[partKey]float64
	z     map[string]float64 // by drawKey
	// floor is the least log sigma of a derived figure, by draw key: its
	// factor set's joint leave-one-out error (derivedSigma).
	floor map[string]float64
}

type partKey struct {
	kind partKind
	sku  string
}

func (d *runDraw) hooks() *hooks {
	h := &hooks{}
	if d.price != nil {
		h.price = func(k partKind, sku string) float64 {
			if m, ok := d.price[partKey{k, sku}]; ok {
				return m
			}
			return 1
		}
	}
	if d.z != nil {
		h.slowdown = func(key string, est Estimate) Estimate {
			floor := 0.0
			if est.Provenance == Derived {
				floor = d.floor[key]
			}
			return drawSlowdown(est, d.z[key], floor)
		}
	}
	return h
}

// drawSlowdown moves an estimate to the draw z (standard normal): the
// excess S-1 times exp(sigma z), a log-normal factor with median 1 whose
// 97.5th percentile, at z = 1.96, is the top of the estimate's 95% band, or
// whose sigma is floor where that is wider. The excess stays positive, as a
// slowdown below 1 is impossible; the band's bottom comes out a little
// higher than Low. The drawn slowdown is taken as known.
func drawSlowdown(est Estimate, z, floor float64) Estimate {
	ex := est.Slowdown - 1
	if ex > 0 && z != 0 {
		sigma := 0.0
		if est.High > est.Slowdown {
			sigma = math.Log1p((est.High-est.Slowdown)/ex) / 1.96
		}
		sigma = max(sigma, floor)
		est.Slowdown = 1 + ex*math.Exp(sigma*z)
	}
	est.Low, est.High = est.Slowdown, est.Slowdown
	return est
}

// derivedKey is the draw of every figure derived from the curves of fs's
// transfer_from file: they rest on the same source curves and the same
// swap-path model, so a run that draws them high draws them all high. A
// job's own profile is another source, with a draw of its own.
func derivedKey(fs *Factors) string {
	return "derived:" + fs.Origin[fs.TransferFrom]
}

// drawKey is the slowdown error an estimate of class from factor set fs
// takes in a run: derivedKey(fs) for a derived figure, its own class for
// one read off the class's own curve.
func drawKey(fs *Factors, class string, est Estimate) string {
	if est.Provenance == Derived {
		return derivedKey(fs)
	}
	return class
}

// derivedSigma is the root mean square of the log error in excess of the
// factor set's joint leave-one-out predictions (Crossval.Joint): how far a
// figure derived from the other curves has really missed. Zero when the
// set has fewer than two curves to check against each other.
func derivedSigma(fs *Factors) float64 {
	if fs == nil {
		return 0
	}
	fs.revalidate()
	_, rms := fs.jointTable()
	return rms
}

// drawRuns makes every run's draws from one stream, in a fixed order
// (parts in catalog order, then classes sorted), so that a seed fixes the
// result however the runs are then scheduled.
func drawRuns(in Input, opts UncertaintyOptions) []runDraw {
	src := rand.NewPCG(opts.Seed, 0x6d656d706c616e) // "memplan"
	type priced struct {
		key partKey
		tri *distuv.Triangle // nil: the price is fixed (a range of one point)
	}
	var parts []priced
	add := func(k partKind, sku string, price float64, rng []float64) {
		lo, hi := 1-opts.PriceSpread, 1+opts.PriceSpread
		if len(rng) == 2 && price > 0 {
			lo, hi = rng[0]/price, rng[1]/price
		}
		p := priced{key: partKey{k, sku}}
		if hi > lo {
			t := distuv.NewTriangle(lo, hi, 1, src)
			p.tri = &t
		}
		parts = append(parts, p)
	}
	if !opts.FixedPrices {
		for _, d := range in.Prices.Platforms {
			add(kindPlatform, d.SKU, d.Price.Amount, moneyAmounts(d.PriceRange))
		}
		for _, d := range in.Prices.DIMMs {
			add(kindDIMM, d.SKU, d.Price.Amount, moneyAmounts(d.PriceRange))
		}
		for _, d := range in.Prices.Drives {
			add(kindDrive, d.SKU, d.Price.Amount, moneyAmounts(d.PriceRange))
		}
	}
	var classes []string
	if !opts.FixedSlowdowns {
		seen := map[string]bool{}
		for _, d := range in.Prices.Drives {
			seen[d.FactorClass()] = true
		}
		for _, fs := range append([]*Factors{in.Factors}, jobFactors(in)...) {
			for name := range fs.Software {
				seen[name] = true
			}
			seen[derivedKey(fs)] = true
		}
		for c := range seen {
			classes = append(classes, c)
		}
		sort.Strings(classes)
	}
	floor := map[string]float64{}
	if !opts.FixedSlowdowns {
		for _, fs := range append([]*Factors{in.Factors}, jobFactors(in)...) {
			if k := derivedKey(fs); floor[k] == 0 {
				floor[k] = derivedSigma(fs)
			}
		}
	}
	normal := distuv.Normal{Mu: 0, Sigma: 1, Src: src}
	draws := make([]runDraw, opts.Runs)
	for i := range draws {
		d := &draws[i]
		if !opts.FixedPrices {
			d.price = make(map[partKey]float64, len(parts))
			for _, p := range parts {
				m := 1.0
				if p.tri != nil {
					m = p.tri.Rand()
				}
				d.price[p.key] = m
			}
		}
		if !opts.FixedSlowdowns {
			d.floor = floor
			d.z = make(map[string]float64, len(classes))
			for _, c := range classes {
				d.z[c] = normal.Rand()
			}
		}
	}
	return draws
}

func moneyAmounts(ms []units.Money) []float64 {
	if len(ms) != 2 {
		return nil
	}
	return []float64{ms[0].Amount, ms[1].Amount}
}

func jobFactors(in Input) []*Factors {
	names := make([]string, 0, len(in.JobFactors))
	for n, f := range in.JobFactors {
		if f != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]*Factors, 0, len(names))
	for _, n := range names {
		out = append(out, in.JobFactors[n])
	}
	return out
}

func summarise(xs []float64) *Distribution {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return &Distribution{
		N:    len(s),
		Mean: stat.Mean(s, nil),
		P5:   stat.Quantile(0.05, stat.Empirical, s, nil),
		P50:  stat.Quantile(0.50, stat.Empirical, s, nil),
		P95:  stat.Quantile(0.95, stat.Empirical, s, nil),
		Min:  s[0],
		Max:  s[len(s)-1],
	}
}
