package model

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// Input is everything a recommendation depends on.
type Input struct {
	Workload *Workload
	Prices   *prices.Set
	Factors  *Factors
	// JobFactors optionally gives a job class its own curves (from a
	// measured profile); they take precedence over Factors for that class.
	JobFactors map[string]*Factors
	// Now and MaxPriceAge make Recommend warn about stale prices: a part of
	// a ranked configuration quoted more than MaxPriceAge before Now. Zero
	// values turn the check off (the model never reads the clock itself).
	Now         time.Time
	MaxPriceAge time.Duration
	// RankBy, when set, replaces the workload's options.rank_by for this
	// run (RankCapital or RankTCO): the caller's choice, such as a command
	// line flag. An error it causes is a *yamlx.InputError whose Field is
	// FieldRankBy, so the caller can say it was its choice.
	RankBy string
	// MirrorSwap, when true, puts swap on mirrored drives only, as the
	// workload's options.mirror_swap does (a command line flag).
	MirrorSwap bool
	// Top, when positive, lets Recommend skip the configurations that
	// cannot rank among the first Top, nor before the all-DRAM baseline,
	// at any slowdown (their cost at no slowdown is already higher), when
	// there are more than TopSearchMin: Result.Skipped counts them. The first Top configurations, the
	// recommendation, the baseline and the savings are those of the full
	// search; Configs, Evaluated and Rejected hold only what was
	// evaluated. Zero evaluates every configuration.
	Top int
	// Flags are the caller's flags for what hints and warnings suggest.
	Flags Flags
}

// FieldRankBy is the workload field Input.RankBy stands in for.
const FieldRankBy = "options.rank_by"

// workload is the workload as this run ranks it: Input.RankBy applied to
// a copy, the caller's workload left as it was.
func (in Input) workload() (*Workload, error) {
	w := in.Workload
	if (in.RankBy == "" && !in.MirrorSwap) || w == nil {
		return w, nil
	}
	c := *w
	if in.RankBy != "" {
		if in.RankBy != RankCapital && in.RankBy != RankTCO {
			return nil, &yamlx.InputError{File: w.File, Field: FieldRankBy, Msg: fmt.Sprintf("got %q, expected %s or %s", in.RankBy, RankCapital, RankTCO)}
		}
		c.Options.RankBy = in.RankBy
	}
	if in.MirrorSwap {
		c.Options.MirrorSwap = true
	}
	return &c, nil
}

// CatalogInfo records a catalog's identity for the report.
type CatalogInfo struct {
	Name     string
	File     string
	Currency string
	Date     string
	Source   string
}

// FactorInfo records a factor file's identity and its curves' provenance.
type FactorInfo struct {
	Name         string
	TransferFrom string // class this file names to derive others from
	File         string
	Date         string
	Source       string
	Host         string
	Curves       map[string]string          // class -> provenance
	Methods      map[string]string          // class -> method, where one is given (OneRunMethod)
	Points       map[string][]factors.Point // class -> the curve's points as given
	// Extra is the file's extra as written (a probe's raw results), for
	// reports to show; the model does not read it.
	Extra map[string]any
}

// Savings compares the recommendation with the all-DRAM baseline.
type Savings struct {
	PerServer money.Amount
	Fleet     money.Amount
	Percent   float64 // of the baseline fleet cost
	// The same over the total cost of ownership (purchase + power over the
	// horizon); zero when power could not be priced (see Result.TCO).
	TCOPerServer money.Amount
	TCOFleet     money.Amount
	TCOPercent   float64
}

// Result is the outcome of Recommend. Configs are ranked in three tiers, each
// by fleet cost: those that meet every deadline even at the upper end of the
// slowdown's uncertainty band and without extrapolation; those that meet it
// only on the central estimate or by extrapolating (at risk); those that miss
// (closest first).
type Result struct {
	Workload     string
	WorkloadFile string
	// Jobs are the workload's job classes as read (window defaulted), so
	// that a result records the inputs it was made from.
	Jobs         []JobClass
	Currency     string
	HorizonYears float64
	Catalogs     []CatalogInfo
	Factors      []FactorInfo
	Evaluated    int
	Rejected     map[Reject]int // reason -> configurations not evaluated further
	// RejectedNotes gives a reason the specific case behind it, when the
	// reason alone cannot say what to do: for a fit ratio far below the
	// curves, the refused configuration nearest to what was measured and
	// the memplan profile --fits run that would let memplan evaluate it.
	RejectedNotes map[Reject]string
	Configs       []Config
	Recommended   *Config
	Baseline      *Config // cheapest all-DRAM configuration meeting every deadline
	Savings       *Savings
	TCO           *TCOInfo // how power was priced and what the ranking is by
	Verdict       string
	Advice        []string // what would make it work, when nothing does
	Warnings      []string
	Rates         []prices.RateUsed // exchange rates behind the conversions made
	// Mirror is the recommendation with its swap drives mirrored, when it
	// puts swap on drives that are not: a dead drive there kills every job
	// with pages on it, and the mirror is what it costs not to. Nil when
	// the recommendation has no swap drive or is mirrored already.
	Mirror *MirrorOffer

	// Skipped counts the configurations a search with Input.Top did not
	// evaluate: at any slowdown they rank after the first Top (and after
	// the baseline), or one run of their band proves them out of tier 1
	// once the first Top of tier 1 are found (provenNotTier1), and the
	// verdict's note cannot be about them. They are in no count or reason
	// above. RanksExact is
	// then how many of Configs hold the rank they would have among all
	// of them (at least Top, unless fewer meet every deadline); the ranks
	// after it are positions among those evaluated. Both zero when
	// every configuration was evaluated.
	Skipped    int
	RanksExact int

	// evaluated: a lean search's configurations, unordered (rankLean);
	// Configs is then empty.
	evaluated []*Config
}

const pageSize = 4096

// zram and zswap bookkeeping that comes out of RAM (docs/model.md): zram's
// slot table entry per 4 KiB of disk size (a handle and a flags word on
// 64-bit kernels), and the space zsmalloc loses packing compressed pages
// into its size classes (assumed 10% of the compressed size).
const (
	zramSlotBytes    = 16
	zsmallocOverhead = 1.10
)

type pricedDIMM struct {
	prices.DIMM
	price money.Amount
}

type pricedDrive struct {
	prices.Drive
	price money.Amount
	class string // FactorClass, computed once
}

// CatalogDevice is a catalog drive of factor class class as the transfer
// model sees it, drives of it striped: its latencies and IOPS, its write
// bandwidth (the class default when the catalog gives none) and the
// latency of a read that follows on from the one before.
func CatalogDevice(d prices.Drive, class string, drives int) Device {
	dev := Device{Name: d.Model, ReadLatency: d.ReadLatency.D(), WriteLatency: d.WriteLatency.D(), ReadIOPS: d.ReadIOPS, WriteIOPS: d.WriteIOPS,
		WriteBW: float64(d.WriteBandwidth), Drives: drives}
	if dev.WriteBW <= 0 {
		dev.WriteBW = DefaultWriteBandwidth(class)
	}
	dev.SeqReadLatency = DefaultSeqReadLatency(class, dev.ReadLatency)
	return dev
}

// Recommend enumerates, evaluates and ranks configurations.
func Recommend(in Input) (*Result, error) {
	revalidateInput(in)
	return recommend(in, nil)
}

// scaled is a unit price times a trial factor (break-even, uncertainty),
// rounded half to even to the cent: a trial price is a price like any
// other, in cents, so the totals built from it are exact.
func scaled(p money.Amount, k float64) money.Amount {
	if k == 1 {
		return p
	}
	if math.IsNaN(k) || math.IsInf(k, 0) {
		return money.Invalid
	}
	return p.MulRat(new(big.Rat).SetFloat64(k))
}

// population is one memory population of a platform (DIMM model and
// count): a configuration without its swap.
type population struct {
	base Config
	pl   prices.Platform
}

// hooks let the robustness analyses (BreakEven, Uncertainty) re-run the
// ranking with other prices and slowdowns without re-reading any input. A
// nil *hooks is Recommend's own behaviour.
type hooks struct {
	// price returns the multiplier on a part's catalog price.
	price func(kind partKind, sku string) float64
	// slowdown replaces an estimate; key (drawKey) names the error it
	// shares with other estimates. A Monte Carlo draw collapses the band
	// onto the drawn value (the slowdown is then known), so only
	// extrapolation still puts a configuration at risk.
	slowdown func(key string, est Estimate) Estimate
	// lean: the caller reads only the recommendation, the baseline and
	// each configuration's ID and Meets (Uncertainty, BreakEven): the
	// search skips the configurations' notes, the full ranking and the
	// verdict, and stops evaluating where nothing left can be cheaper
	// than a configuration that meets every deadline (leanSearch), so
	// Result.Evaluated and Rejected count only what it evaluated.
	lean bool
	// keep is the ID of a configuration a lean search evaluates however
	// dear it is (Uncertainty asks whether the recommendation met the
	// deadlines in every run).
	keep string
}

type partKind int

const (
	kindPlatform partKind = iota
	kindDIMM
	kindDrive
)

func (h *hooks) scale(k partKind, sku string) float64 {
	if h == nil || h.price == nil {
		return 1
	}
	return h.price(k, sku)
}

// adjust is est as the run's draw moves it; the draw is the one of
// class's figures from fs (drawKey), named only when there is a draw.
func (h *hooks) adjust(fs *Factors, class string, est Estimate) Estimate {
	return h.adjustAs(est, est, fs, class)
}

// adjustAs is adjust for est under the draw of key's figures (a zswap
// pair: its pool and drive take the draw of the drive's).
func (h *hooks) adjustAs(est, key Estimate, fs *Factors, class string) Estimate {
	if h == nil || h.slowdown == nil {
		return est
	}
	return h.slowdown(drawKey(fs, class, key), est)
}

func recommend(in Input, h *hooks) (*Result, error) {
	w, err := in.workload()
	if err != nil {
		return nil, err
	}
	if w == nil || in.Prices == nil || in.Factors == nil {
		return nil, errors.New("model: workload, prices and factors are all required")
	}
	if err := w.CheckAccess(in.Factors, in.JobFactors); err != nil {
		return nil, err
	}
	cur, err := reportCurrency(w, in.Prices, in.Flags)
	if err != nil {
		return nil, err
	}
	res := &Result{Workload: w.Name, WorkloadFile: w.File, Jobs: append([]JobClass(nil), w.Jobs...), Currency: cur, HorizonYears: w.HorizonYears(), Rejected: map[Reject]int{}}
	for _, c := range in.Prices.Catalogs {
		res.Catalogs = append(res.Catalogs, CatalogInfo{Name: c.Name, File: c.File, Currency: c.Currency, Date: c.Date.String(), Source: c.Source})
	}
	files := append([]*factors.File{}, in.Factors.Files...)
	for _, j := range w.Jobs {
		// A job's profile is its own curve: list it with the rest.
		if jf := in.JobFactors[j.Name]; jf != nil && len(jf.Files) > 0 {
			if p := jf.Files[len(jf.Files)-1]; !slices.Contains(files, p) {
				files = append(files, p)
			}
		}
	}
	for _, f := range files {
		fi := FactorInfo{Name: f.Name, TransferFrom: f.TransferFrom, File: f.File, Date: f.Date.String(), Source: f.Source, Curves: map[string]string{}, Extra: f.Extra}
		if f.Host != nil {
			fi.Host = f.Host.Hostname
		}
		fi.Points = map[string][]factors.Point{}
		for _, c := range f.Curves {
			fi.Curves[c.Class] = c.Provenance
			fi.Points[c.Class] = c.Points
			if c.Method != "" {
				if fi.Methods == nil {
					fi.Methods = map[string]string{}
				}
				fi.Methods[c.Class] = c.Method
			}
		}
		res.Factors = append(res.Factors, fi)
	}

	platforms, err := selectPlatforms(w, in.Prices)
	if err != nil {
		return nil, err
	}
	if err := checkDIMMsUsable(in.Prices); err != nil {
		return nil, err
	}
	// Converted prices are rounded to the cent once, here (half to even,
	// prices.Set.Convert), so that every total (in the report, the JSON and
	// the workbook) is built exactly from the same unit prices a person sees.
	conv := func(m units.Money) (money.Amount, error) {
		v, err := in.Prices.Convert(m, cur)
		if err == nil && !v.Valid() {
			err = fmt.Errorf("%w: the price %s is beyond what memplan counts when converted to %s: check the exchange rates for extra digits", yamlx.ErrInput, m, cur)
		}
		return v, err
	}
	tco, elecRat, err := powerPricing(w, in.Prices, cur)
	if err != nil {
		return nil, err
	}
	elec := money.NewPerUnit(elecRat)
	res.TCO = tco

	var drives []pricedDrive
	for _, d := range in.Prices.Drives {
		p, err := conv(d.Price)
		if err != nil {
			return nil, err
		}
		drives = append(drives, pricedDrive{Drive: d, price: scaled(p, h.scale(kindDrive, d.SKU)), class: d.FactorClass()})
	}
	drives, dominated := pruneDrives(drives, w.Jobs)
	if dominated > 0 {
		res.Rejected[reject(RejectDriveDominated)] += dominated
	}

	// Converted once per DIMM, not once per platform that takes it: the
	// exact conversion allocates, and a large catalog has many DIMMs.
	dimmPrices := make(map[string]money.Amount, len(in.Prices.DIMMs))
	dimmPrice := func(d prices.DIMM) (money.Amount, error) {
		if p, ok := dimmPrices[d.SKU]; ok {
			return p, nil
		}
		p, err := conv(d.Price)
		if err != nil {
			return 0, err
		}
		p = scaled(p, h.scale(kindDIMM, d.SKU))
		dimmPrices[d.SKU] = p
		return p, nil
	}
	var pops []population
	for _, pl := range platforms {
		plPrice, err := conv(pl.Price)
		if err != nil {
			return nil, err
		}
		plPrice = scaled(plPrice, h.scale(kindPlatform, pl.SKU))
		dimms, dom, err := dimmsFor(pl, in.Prices.DIMMs, dimmPrice)
		if err != nil {
			return nil, err
		}
		if dom > 0 {
			res.Rejected[reject(RejectDIMMDominated)] += dom
		}
		for _, dm := range dimms {
			for count := pl.Memory.Channels; count <= pl.Memory.Slots; count += pl.Memory.Channels {
				installed := units.Bytes(count) * dm.Capacity
				if pl.Memory.MaxCapacity > 0 && installed > pl.Memory.MaxCapacity {
					res.Rejected[reject(RejectAboveMaxMemory)]++
					continue
				}
				base := Config{
					Platform:        Part{SKU: pl.SKU, Model: pl.Model, Catalog: pl.Catalog, Price: plPrice, Quoted: pl.Price, Watts: PlatformWatts(pl)},
					Cores:           pl.Cores,
					DIMM:            Part{SKU: dm.SKU, Model: dm.Model, Catalog: dm.Catalog, Price: dm.price, Quoted: dm.Price, Capacity: dm.Capacity, Watts: DIMMWatts(dm.DIMM)},
					DIMMCount:       count,
					MemorySpeed:     pl.MemorySpeed(dm.DIMM, count),
					DIMMsPerChannel: count / pl.Memory.Channels,
					Installed:       installed,
					Usable:          installed - pl.Reserve,
				}
				if base.Usable <= 0 {
					res.Rejected[reject(RejectReserveExceedsRAM)]++
					continue
				}
				pops = append(pops, population{base, pl})
			}
		}
	}
	if h != nil && h.lean && leanPruning {
		configs, _, _, _ := leanSearch(in, w, res, h, elec, pops, drives, leanOptions{top: 1})
		if len(configs) == 0 {
			ev := &evaluator{in: in, w: w, res: res, h: h, elec: elec}
			return nil, ev.nothingFits(platforms)
		}
		rankLean(res, configs, w)
		return res, nil
	}
	ev := &evaluator{in: in, w: w, res: res, h: h, elec: elec}
	var bound money.Amount
	searched := false
	if in.Top > 0 && h.plain() && leanPruning {
		ev.configs, res.Skipped, bound, searched = leanSearch(in, w, res, h, elec, pops, drives, leanOptions{top: in.Top, withBase: true, minCands: TopSearchMin})
	}
	if !searched {
		ev.configs = searchAll(in, w, res, h, elec, pops, drives)
	}
	if len(ev.configs) == 0 {
		return nil, ev.nothingFits(platforms)
	}
	if h != nil && h.lean {
		rankLean(res, ev.configs, w)
		return res, nil
	}
	rank(res, ev.configs, w)
	if res.Skipped > 0 {
		res.RanksExact = exactRanks(res.Configs, w, bound)
	}
	res.Mirror = ev.mirrorOffer(res.Recommended, platforms, drives)
	if err := checkMoneyRange(res, w); h.plain() && err != nil {
		return nil, err
	}
	if r := restsOn(res, in); r != "" {
		res.Verdict += " " + r
	}
	if r := shapeNote(res, w); r != "" {
		res.Verdict += " " + r
	}
	res.Warnings = append(res.Warnings, staleWarnings(in, res)...)
	res.Warnings = append(res.Warnings, inputWarnings(in)...)
	res.Warnings = append(res.Warnings, footprintWarnings(in)...)
	res.Warnings = append(res.Warnings, quoteWarnings(in, res)...)
	if curs := in.Prices.Currencies(); len(curs) > 1 || (len(curs) == 1 && curs[0] != cur) {
		res.Rates = in.Prices.RatesUsed(append(curs, cur)...)
	}
	return res, nil
}

// searchAll evaluates every configuration. Memory populations are
// independent: contiguous chunks of them are evaluated on every core, then
// concatenated in order so the result does not depend on scheduling.
func searchAll(in Input, w *Workload, res *Result, h *hooks, elec money.PerUnit, pops []population, drives []pricedDrive) []*Config {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(pops)/8))
	evs := make([]*evaluator, workers)
	var wg sync.WaitGroup
	for i := range evs {
		ev := &evaluator{in: in, w: w, res: res, h: h, elec: elec, rejected: map[Reject]int{}, notes: map[Reject]rejectNote{}}
		evs[i] = ev
		lo, hi := i*len(pops)/workers, (i+1)*len(pops)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range pops[lo:hi] {
				ev.options(p.base, p.pl, drives)
			}
		}()
	}
	wg.Wait()
	var configs []*Config
	for _, x := range evs {
		configs = append(configs, x.configs...)
	}
	addCounts(res, evs)
	return configs
}

// exactRanks is how many of the ranked configurations cs (a search that
// skipped some) hold their rank among all of them: the tier-1 ones that
// cost no more than the search's bound. Every skipped configuration costs
// more than the bound at any slowdown, so it ranks after those; where
// the others would stand among the skipped is not known.
func exactRanks(cs []Config, w *Workload, bound money.Amount) int {
	n := 0
	for i := range cs {
		c := &cs[i]
		if !c.Meets || c.AtRisk || bound.Less(rankCost(c, w)) {
			break
		}
		n++
	}
	return n
}

func reportCurrency(w *Workload, s *prices.Set, f Flags) (string, error) {
	curs := s.Currencies()
	if w.Currency != "" {
		// The workload names the report currency: every catalog's prices
		// must convert to it, or the mix is refused at the workload's
		// currency line, naming the catalog.
		for _, c := range curs {
			if _, ok := s.Rate(c, w.Currency); ok {
				continue
			}
			var in []string
			for _, cat := range s.Catalogs {
				if cat.Currency == c {
					in = append(in, fmt.Sprintf("%s (%s)", cat.Name, cat.File))
				}
			}
			hint := f.RateHint(c, w.Currency, false) + fmt.Sprintf("add `rates: {%s: <amount> %s}` to a catalog, or leave `currency:` out to report in the catalogs' currency", c, w.Currency)
			if len(curs) > 1 {
				// Leaving currency: out would not help: the catalogs'
				// own currencies need a rate between them too.
				hint = f.RateHint(c, w.Currency, false) + fmt.Sprintf("add `rates: {%s: <amount> %s}` to a catalog; the catalogs are in %s, so leaving `currency:` out would need a rate between them too", c, w.Currency, strings.Join(curs, " and "))
			}
			return "", w.ErrorAt("currency", hint, "got %s, but the prices of catalog %s are in %s and no exchange rate connects the two", w.Currency, strings.Join(in, ", "), c)
		}
		return w.Currency, nil
	}
	if len(curs) == 1 {
		return curs[0], nil
	}
	// Prefer the currency of the first platform's catalog if rates connect the rest.
	target := s.Platforms[0].Price.Currency
	for _, c := range curs {
		if _, ok := s.Rate(c, target); ok {
			continue
		}
		msg := fmt.Sprintf("prices in %s cannot be compared with prices in %s: no exchange rate", c, target)
		hint := f.RateHint(c, target, false) + fmt.Sprintf("add `rates: {%s: <amount> %s}` to a catalog, or set `currency:` in %s and give rates for it", c, target, w.File)
		for _, cat := range s.Catalogs {
			if cat.Currency == c {
				return "", cat.ErrorAt("currency", hint, "%s", msg)
			}
		}
		return "", fmt.Errorf("%w: %s (%s)", yamlx.ErrInput, msg, hint)
	}
	return target, nil
}

func selectPlatforms(w *Workload, s *prices.Set) ([]prices.Platform, error) {
	if len(w.Options.Platforms) == 0 {
		return s.Platforms, nil
	}
	var out []prices.Platform
	for i, sku := range w.Options.Platforms {
		found := false
		for _, p := range s.Platforms {
			if p.SKU == sku {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			var have []string
			for _, p := range s.Platforms {
				have = append(have, p.SKU)
			}
			return nil, w.ErrorAt(fmt.Sprintf("options.platforms[%d]", i), "catalog platforms: "+strings.Join(have, ", "), "no platform with sku %q in the price catalogs", sku)
		}
	}
	return out, nil
}

// checkDIMMsUsable rejects a catalog DIMM that no platform in the set can
// take: it is almost always a typo in generation or type.
func checkDIMMsUsable(s *prices.Set) error {
	for _, c := range s.Catalogs {
		for i, d := range c.DIMMs {
			ok := false
			var why []string
			for _, p := range s.Platforms {
				if a, r := p.Accepts(d); a {
					ok = true
					break
				} else {
					why = append(why, r)
				}
			}
			if !ok {
				return c.ErrorAt(fmt.Sprintf("dimms[%d]", i), "fix the DIMM's generation/type/capacity or add a platform that takes it",
					"DIMM %s (%s %s %s) is not allowed on any platform: %s", d.SKU, d.Generation, d.Type, d.Capacity, strings.Join(why, "; "))
			}
		}
	}
	return nil
}

// dimmsFor returns, for each DIMM capacity the platform accepts, the
// cheapest module (others of that capacity can only cost more).
func dimmsFor(pl prices.Platform, all []prices.DIMM, price func(prices.DIMM) (money.Amount, error)) ([]pricedDIMM, int, error) {
	best := map[units.Bytes]pricedDIMM{}
	n := 0
	for _, d := range all {
		if ok, _ := pl.Accepts(d); !ok {
			continue
		}
		p, err := price(d)
		if err != nil {
			return nil, 0, err
		}
		n++
		if b, ok := best[d.Capacity]; !ok || p < b.price || (p == b.price && d.SKU < b.SKU) {
			best[d.Capacity] = pricedDIMM{d, p}
		}
	}
	out := make([]pricedDIMM, 0, len(best))
	for _, d := range best {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Capacity < out[j].Capacity })
	return out, n - len(out), nil
}

// pruneDrives drops drives that another drive of the same class beats or
// matches on everything the model reads of a drive for this workload:
// price, usable capacity (capacity beyond what the largest job class
// touches buys nothing), endurance, and, for the device as the transfer
// model sees it (CatalogDevice): the random read's time (Device.randomRead:
// the latency, at least 1/IOPS), the follow-on read latency, the random
// read's time per unit (latency x IOPS units, at least one: 1/IOPS where
// IOPS are given), the write latency, write
// IOPS and the sustained write bandwidth (the class default where the
// catalog gives none). Such a drive can only make a configuration costlier
// or slower. A figure the model does not read cannot keep a drive, and
// every figure it does read can: a cheaper drive that writes slower does
// not hide a dearer one that writes faster.
func pruneDrives(ds []pricedDrive, jobs []JobClass) ([]pricedDrive, int) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].price != ds[j].price {
			return ds[i].price < ds[j].price
		}
		return ds[i].SKU < ds[j].SKU
	})
	var maxTouched units.Bytes
	for _, j := range jobs {
		if t := touched(j); t > maxTouched {
			maxTouched = t
		}
	}
	// Each figure is oriented so that smaller is better.
	measure := func(d pricedDrive) []float64 {
		endurance := math.Inf(1)
		if e := d.Endurance(); e > 0 {
			endurance = float64(e)
		}
		dev := CatalogDevice(d.Drive, d.class, 1)
		random, units := dev.randomRead(), 1.0
		if dev.ReadIOPS > 0 {
			units = max(1, dev.ReadLatency.Seconds()*dev.ReadIOPS)
		}
		seq := random // a flash drive's follow-on read is a random one
		if dev.SeqReadLatency > 0 {
			seq = dev.SeqReadLatency.Seconds()
		}
		inv := func(x float64) float64 {
			if x <= 0 {
				return math.Inf(1)
			}
			return 1 / x
		}
		return []float64{
			-float64(min(d.Capacity, maxTouched)), -endurance,
			random, seq, random / units,
			dev.WriteLatency.Seconds(), inv(dev.WriteIOPS), inv(dev.WriteBW),
		}
	}
	beats := func(k, d []float64) bool {
		for i := range k {
			if k[i] > d[i] {
				return false
			}
		}
		return true
	}
	var kept []pricedDrive
	var km [][]float64
	for _, d := range ds {
		m := measure(d)
		dominated := false
		for i, k := range kept {
			if k.class == d.class && k.price <= d.price && beats(km[i], m) {
				dominated = true
				break
			}
		}
		if !dominated {
			kept, km = append(kept, d), append(km, m)
		}
	}
	return kept, len(ds) - len(kept)
}

// evaluator searches part of the configuration space; each goroutine has its
// own, so nothing in it is shared or locked.
type evaluator struct {
	configs []*Config
	preps   map[prepKey]prepEntry
	// Reused and block storage for addDrive (see keepJobs).
	jobBuf      []JobResult
	jobBlock    []JobResult
	configBlock []Config
	wearBlock   []Wear
	ests        map[localEst]Estimate
	zswaps      map[[2]int]zswapEntry // by the parts' preparations' numbers (prepEntry)
	zfigs       map[localZFig]zswapFigure
	// runEx are the run excesses of the last jointly derived prediction
	// (runExKey), for the zswap figure that splits the same runs.
	runEx    []float64
	runSc    runScratch // runExcess's buffers
	runExKey localEst
	runExOK  bool
	// probing: a lean search proves configurations out of tier 1 with
	// one run's figure (provenNotTier1); topRun is, by the first run of a
	// set, the run whose excess was the largest in the last full
	// prediction from it, and probeEx that run's excess.
	probing   bool
	topRun    map[*runDef]int
	probeEx   []float64
	wearFrom  map[wearFromKey]string
	rejected  map[Reject]int // reason -> count, merged into Result.Rejected
	notes     map[Reject]rejectNote
	evaluated int
	in        Input
	w         *Workload
	res       *Result
	h         *hooks
	elec      money.PerUnit // electricity per kWh in the result currency, exact; zero when not priced
}

type prepKey struct {
	fs          *Factors
	class       string
	dev         Device
	concurrency int
	cores       int
	dirty       float64
	shape       string
}

// cachedPrepare is prepare through the factor set's own cache, which every
// search over it shares (an evaluator's map needs no lock; this one does).
func (fs *Factors) cachedPrepare(k prepKey) (prepared, error) {
	c := fs.preps
	if c != nil {
		c.mu.Lock()
		p, ok := c.m[k]
		c.mu.Unlock()
		if ok {
			return p, nil
		}
	}
	p, err := fs.prepare(k.class, k.dev, k.concurrency, k.cores, k.dirty, k.shape)
	if err != nil || c == nil {
		return p, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[prepKey]prepared{}
	}
	c.m[k] = p
	c.mu.Unlock()
	return p, nil
}

// estKey is one prediction: a prepared curve at one fit ratio. Many
// configurations share both (DIMM kits of the same capacity at different
// prices, the same drive in several bays' worth of options).
type estKey struct {
	prep prepKey
	fit  float64
}

// prepEntry is a preparation in an evaluator's cache and its number
// there, which its estimates are kept by (localEst).
type prepEntry struct {
	p  prepared
	id int
}

// localEst is an estKey within one evaluator: the preparation by its
// number, so that a lookup hashes two words rather than a device's name
// and classes (the search looks up hundreds of thousands of estimates).
type localEst struct {
	prep int
	fit  float64
}

// prepFor is the fit-independent part of a prediction for job j on dev,
// from the evaluator's cache or the factor set's, with its number in the
// evaluator's cache.
func (e *evaluator) prepFor(fs *Factors, class string, dev Device, j JobClass, cores int) (prepared, prepKey, int, error) {
	k := prepKey{fs, class, dev, j.Concurrency, cores, float64(j.DirtyShare), j.Access}
	pe, ok := e.preps[k]
	if !ok {
		p, err := fs.cachedPrepare(k)
		if err != nil {
			return prepared{}, k, 0, err
		}
		if e.preps == nil {
			e.preps = map[prepKey]prepEntry{}
		}
		pe = prepEntry{p, len(e.preps)}
		e.preps[k] = pe
	}
	return pe.p, k, pe.id, nil
}

// predict is Factors.Predict with the fit-independent part cached, and each
// figure cached too: the search asks the same device and load about many
// memory sizes, and about the same size many times.
func (e *evaluator) predict(fs *Factors, class string, dev Device, j JobClass, f float64, cores int) (Estimate, error) {
	if constantEstimate != nil {
		return *constantEstimate, nil // the speed benchmarks' limit (speedlimit.go)
	}
	p, k, id, err := e.prepFor(fs, class, dev, j, cores)
	if err != nil {
		return Estimate{}, err
	}
	lk := localEst{id, f}
	if est, ok := e.ests[lk]; ok {
		return est, nil
	}
	var est Estimate
	if why := p.unsupportedAt(f); why != "" {
		// job refuses the configuration and reads the reason alone:
		// nothing is solved for it.
		est = Estimate{Provenance: p.provenance, Unsupported: why}
		if e.ests == nil {
			e.ests = map[localEst]Estimate{}
		}
		e.ests[lk] = est
		return est, nil
	}
	if c := fs.preps; e.h != nil && c != nil {
		// A repeated search (uncertainty, break-even) asks every run the
		// same questions: the factor set keeps the answers for all of
		// them. The hooks adjust an estimate after it is predicted, so
		// the shared one is the model's own.
		ek := estKey{k, f}
		c.mu.Lock()
		cached, ok := c.ests[ek]
		c.mu.Unlock()
		if ok {
			est = cached
		} else {
			est = e.at(p, lk)
			c.mu.Lock()
			if c.ests == nil {
				c.ests = map[estKey]Estimate{}
			}
			c.ests[ek] = est
			c.mu.Unlock()
		}
	} else {
		est = e.at(p, lk)
	}
	if e.ests == nil {
		e.ests = map[localEst]Estimate{}
	}
	e.ests[lk] = est
	return est, nil
}

// at is p.at(k.fit). A jointly derived class's run excesses are kept
// until the next prediction: a zswap configuration asks for its drive's
// estimate and then splits the same runs at the same fit (zswapAt).
func (e *evaluator) at(p prepared, k localEst) Estimate {
	runs := p.runs()
	if len(runs) == 0 {
		return p.at(k.fit)
	}
	e.runEx = runExcess(runs, k.fit, e.runEx[:0], &e.runSc)
	e.runExKey, e.runExOK = k, true
	if e.probing {
		e.noteTopRun(runs, e.runEx)
	}
	return p.atEx(k.fit, e.runEx)
}

// shapeOf is shape name ("": the nominal one), uniform where fs has no
// such shape.
func (e *evaluator) shapeOf(fs *Factors, name string) factors.Shape {
	if sh, ok := fs.shape(cmp.Or(name, NominalShape)); ok {
		return sh
	}
	return factors.Shape{Name: NominalShape, Exponent: 1}
}

// shapesOf are the shapes job j may have: its stated access, or every
// shape.
func (e *evaluator) shapesOf(fs *Factors, j JobClass) []factors.Shape {
	shapes, _ := fs.shapesFor(j.Access)
	return shapes
}

// driveShare is the share of the faults beyond RAM (fit f) that get past
// a zswap pool and reach the drive, which holds a share wd of the
// overflow: the shape's page rate at 1 - wd(1-f) over its rate at f
// (wd^exponent without a knee).
func driveShare(sh factors.Shape, wd, f float64) float64 {
	return shapeRateRatio(sh, poolEdge(wd, f), f)
}

// poolEdge is the fit ratio RAM and a zswap pool reach together at fit f
// with a share wd of the overflow on the drive.
func poolEdge(wd, f float64) float64 { return 1 - wd*(1-f) }

// driveShares keeps driveShare at one wd and f for the runs of a
// prediction: at(sh, f) is driveShare(sh, wd, f).
func driveShares(wd, f float64) *rateRatios { return &rateRatios{f: poolEdge(wd, f)} }

func (e *evaluator) factorsFor(job string) *Factors {
	if f, ok := e.in.JobFactors[job]; ok && f != nil {
		return f
	}
	return e.in.Factors
}

// touched is the memory the concurrent jobs of a class touch together.
func touched(j JobClass) units.Bytes { return units.Bytes(j.Concurrency) * j.Footprint }

// fitsInRAM reports whether every job class fits without swap.
func (e *evaluator) fitsInRAM(usable units.Bytes) bool {
	for _, j := range e.w.Jobs {
		if touched(j) > usable {
			return false
		}
	}
	return true
}

func (e *evaluator) options(base Config, pl prices.Platform, drives []pricedDrive) {
	e.arrangements(base, pl, drives, func(s Swap, d *pricedDrive) { e.addDrive(base, s, d) })
}

// arrangements calls add with each swap arrangement the search evaluates
// on the memory population base of platform pl, in the search's order:
// none when every job fits in RAM; else each zram share, then each drive
// model in each stripe count, alone and behind zswap.
func (e *evaluator) arrangements(base Config, pl prices.Platform, drives []pricedDrive, add func(Swap, *pricedDrive)) {
	if e.fitsInRAM(base.Usable) {
		// Swap could only add cost: every job already runs at full speed.
		add(Swap{Kind: SwapNone}, nil)
		return
	}
	e.rejected[reject(RejectNoFitWithoutSwap)]++
	if e.w.Options.NoSwap {
		return
	}
	if pl.HasSoftware("zram") {
		for _, share := range e.w.Options.ZramShares {
			add(Swap{Kind: SwapZram, ZramShare: float64(share), Algorithm: "lz4",
				Capacity: units.Bytes(float64(share) * float64(base.Installed))}, nil)
		}
	}
	maxN := pl.Bays
	if m := e.w.Options.MaxDrives; m > 0 && m < maxN {
		maxN = m
	}
	for i := range drives {
		d := &drives[i]
		if !pl.AcceptsDrive(d.Drive) {
			continue
		}
		part := &Part{SKU: d.SKU, Model: d.Model, Catalog: d.Catalog, Price: d.price, Quoted: d.Price, Capacity: d.Capacity, Watts: DriveWatts(d.Drive)}
		for n := 1; n <= maxN; n++ {
			s := driveSwap(part, d, n, false)
			if e.w.Options.MirrorSwap {
				if n%2 != 0 {
					continue
				}
				s = driveSwap(part, d, n/2, true)
			}
			add(s, d)
			if pl.HasSoftware("zswap") {
				s.Kind, s.Algorithm = SwapZswap, "lz4"
				add(s, d)
			}
		}
	}
}

// driveSwap is swap on stripes drives of one model, or, mirrored, on
// twice as many holding two copies of every page.
func driveSwap(part *Part, d *pricedDrive, stripes int, mirrored bool) Swap {
	n := stripes
	if mirrored {
		n *= 2
	}
	return Swap{Kind: SwapDrive, Drive: part, Drives: n, Mirrored: mirrored, Class: d.class, Capacity: units.Bytes(stripes) * d.Capacity}
}

// MirrorOffer is the recommended configuration with its swap drives
// mirrored: the same platform and DIMMs, twice the drives.
type MirrorOffer struct {
	Config *Config // evaluated like any configuration, not ranked; nil when there is none
	Reason string  // why there is none: no bays for the second copy, or it cannot run the jobs
}

// mirrorOffer evaluates r with its swap drives mirrored (see
// Result.Mirror).
func (e *evaluator) mirrorOffer(r *Config, platforms []prices.Platform, drives []pricedDrive) *MirrorOffer {
	if r == nil || r.Swap.Drive == nil || r.Swap.Mirrored || (r.Swap.Kind != SwapDrive && r.Swap.Kind != SwapZswap) {
		return nil
	}
	var pl *prices.Platform
	for i := range platforms {
		if platforms[i].SKU == r.Platform.SKU && platforms[i].Catalog == r.Platform.Catalog {
			pl = &platforms[i]
		}
	}
	var d *pricedDrive
	for i := range drives {
		if drives[i].SKU == r.Swap.Drive.SKU && drives[i].Catalog == r.Swap.Drive.Catalog {
			d = &drives[i]
		}
	}
	if pl == nil || d == nil {
		return nil
	}
	s := driveSwap(r.Swap.Drive, d, r.Swap.Drives, true)
	s.Kind, s.Algorithm = r.Swap.Kind, r.Swap.Algorithm
	switch m := e.w.Options.MaxDrives; {
	case s.Drives > pl.Bays:
		return &MirrorOffer{Reason: fmt.Sprintf("%s has %d drive bays for swap, and the mirror needs %d", pl.SKU, pl.Bays, s.Drives)}
	case m > 0 && s.Drives > m:
		return &MirrorOffer{Reason: fmt.Sprintf("options.max_swap_drives is %d, and the mirror needs %d", m, s.Drives)}
	}
	base := Config{Platform: r.Platform, Cores: r.Cores, DIMM: r.DIMM, DIMMCount: r.DIMMCount, MemorySpeed: r.MemorySpeed, DIMMsPerChannel: r.DIMMsPerChannel, Installed: r.Installed, Usable: r.Usable}
	x := &evaluator{in: e.in, w: e.w, res: e.res, h: e.h, elec: e.elec, rejected: map[Reject]int{}, notes: map[Reject]rejectNote{}}
	x.addDrive(base, s, d)
	if len(x.configs) == 0 {
		why := "it cannot run the jobs"
		for k := range x.rejected {
			why = k.String()
		}
		return &MirrorOffer{Reason: why}
	}
	c := x.configs[0]
	c.ID, c.Label = configID(c), configLabel(c)
	return &MirrorOffer{Config: c}
}

// stripes is how many drives' worth of capacity and writes a swap
// arrangement has: every drive, or half of them when mirrored.
func (s Swap) stripes() int {
	if s.Mirrored {
		return s.Drives / 2
	}
	return s.Drives
}

// addCounts adds the workers' evaluated and rejected counts to res, and
// for each reason the note of the configuration that came closest.
func addCounts(res *Result, evs []*evaluator) {
	notes := map[Reject]rejectNote{}
	for _, x := range evs {
		res.Evaluated += x.evaluated
		for k, v := range x.rejected {
			res.Rejected[k] += v
		}
		for k, n := range x.notes {
			if old, ok := notes[k]; !ok || n.closer(old) {
				notes[k] = n
			}
		}
	}
	for k, n := range notes {
		if res.RejectedNotes == nil {
			res.RejectedNotes = map[Reject]string{}
		}
		res.RejectedNotes[k] = n.text
	}
}

// addDrive evaluates one configuration and keeps it if every job class can
// run; d is the swap drive model, if any.
func (e *evaluator) addDrive(c Config, s Swap, d *pricedDrive) {
	c.Swap = s
	var dev Device
	if d != nil {
		dev = drivesDevice(d, s)
	}
	c.Meets = true
	c.MaxSlowdown = 1
	var needBuf [8]float64 // servers each class keeps busy in its window
	var windowBuf [8]time.Duration
	need, windows := needBuf[:0], windowBuf[:0]
	if n := len(e.w.Jobs); n > len(needBuf) {
		need, windows = make([]float64, 0, n), make([]time.Duration, 0, n)
	}
	need, windows = need[:len(e.w.Jobs)], windows[:len(e.w.Jobs)]
	var flashBuf [8]float64
	flash := flashBuf[:0]
	if len(e.w.Jobs) > len(flashBuf) {
		flash = make([]float64, 0, len(e.w.Jobs))
	}
	flash = flash[:len(e.w.Jobs)]
	// The job results are gathered in a buffer the evaluator reuses: most
	// candidates are refused on some job, and only a kept one needs its own.
	jobs := e.jobBuf[:0]
	for i, j := range e.w.Jobs {
		jr, flashWrites, reason := e.job(c, s, j, dev)
		if reason.Code != 0 {
			e.jobBuf = jobs
			e.rejected[reason]++
			return
		}
		flash[i] = flashWrites
		jobs = append(jobs, jr)
		c.Meets = c.Meets && jr.Meets
		c.AtRisk = c.AtRisk || jr.AtRisk
		c.Extrapolated = c.Extrapolated || jr.Estimate.Extrapolated
		c.MaxSlowdown = max(c.MaxSlowdown, jr.Estimate.Slowdown)
		windows[i] = j.Window.D()
		if j.JobsPerDay > 0 {
			if jr.JobsPerServer > 0 {
				need[i] = j.JobsPerDay / jr.JobsPerServer
			} else {
				need[i] = math.Inf(1)
			}
		}
	}
	e.jobBuf = jobs
	c.Jobs = e.keepJobs(jobs)
	serverDays, groups := packFleet(need, windows) // fleet.go
	switch {
	case e.w.Demand.Servers > 0:
		c.Servers = e.w.Demand.Servers
		// A fixed fleet given daily volumes as well must be able to carry them.
		if serverDays > float64(c.Servers)+1e-9 {
			c.Meets = false
			c.Notes = append(c.Notes, fmt.Sprintf("the fixed fleet of %d server(s) cannot carry the daily job volume: it would need %.1f", c.Servers, serverDays))
		}
	case math.IsInf(serverDays, 1):
		c.Servers = 0
		c.Meets = false
	default:
		c.Servers = int(math.Ceil(serverDays - 1e-9))
		if c.Servers < 1 {
			c.Servers = 1
		}
	}
	lean := e.h != nil && e.h.lean
	if c.Servers > 0 && !lean {
		c.Packing = packingNote(e.w.Jobs, groups, c.Servers)
	}
	// Swap writes follow the jobs a server actually runs each day: its share
	// of the demand, or flat out for a fixed fleet without volumes.
	var writesPerDay float64
	for i, j := range e.w.Jobs {
		load := c.Jobs[i].JobsPerServer
		if j.JobsPerDay > 0 && c.Servers > 0 {
			load = j.JobsPerDay / float64(c.Servers)
		}
		writesPerDay += flash[i] * load
	}
	c.Cost.Platform = c.Platform.Price
	c.Cost.DIMMs = c.DIMM.Price.Mul(int64(c.DIMMCount))
	if d != nil {
		c.Cost.Drives = s.Drive.Price.Mul(int64(s.Drives))
		endurance := d.Endurance()
		// A mirror writes every page to both copies.
		perDrive := writesPerDay / float64(s.stripes()) * 365 * e.w.HorizonYears()
		wr := e.newWear()
		*wr = Wear{WritesPerDay: units.Bytes(writesPerDay), HorizonWrites: units.Bytes(perDrive), Endurance: endurance}
		if endurance > 0 {
			wr.LifeUsed = perDrive / float64(endurance)
			if wr.LifeUsed > 1 {
				wr.WearsOut = true
				wr.Replacements = s.Drives * (int(math.Ceil(wr.LifeUsed)) - 1)
				if !lean {
					c.Notes = append(c.Notes, fmt.Sprintf("swap writes wear out the %s %.1f times over the horizon: %d replacement drive(s) per server priced in", d.Model, wr.LifeUsed, wr.Replacements))
				}
			}
		}
		c.Wear = wr
		c.Cost.Replacements = s.Drive.Price.Mul(int64(wr.Replacements))
	}
	// Exact integer sums and products; an overflow is money.Invalid, which
	// checkMoneyRange turns into an input error.
	c.Cost.PerServer = money.Sum(c.Cost.Platform, c.Cost.DIMMs, c.Cost.Drives, c.Cost.Replacements)
	c.Cost.Fleet = c.Cost.PerServer.Mul(int64(c.Servers))
	e.ownership(&c)
	if c.Extrapolated && !lean {
		c.Notes = append(c.Notes, "slowdown extrapolated below the lowest measured fit ratio")
	}
	// Kept by pointer: a Config is large, and sorting or growing a slice of
	// values would copy each one many times over. The pointers are into
	// blocks of configurations, one allocation per block rather than per
	// configuration.
	if len(e.configBlock) == cap(e.configBlock) {
		e.configBlock = make([]Config, 0, blockLen)
	}
	e.configBlock = append(e.configBlock, c)
	e.configs = append(e.configs, &e.configBlock[len(e.configBlock)-1])
	e.evaluated++
}

// PublishedOffload is about the largest share of memory production
// deployments report moving out of plain RAM (compressed or to flash) at a
// small cost: Meta's TMO 20-32% of memory per server (Weiner et al., "TMO:
// Transparent Memory Offloading in Datacenters", ASPLOS 2022), Google's
// zswap-based far memory about 20% of the data on average (Lagar-Cavilla
// et al., "Software-Defined Far Memory in Warehouse-Scale Computers",
// ASPLOS 2019). A prediction that a job without a curve of its own gives
// up more than a third of its memory at under BeyondPublishedSlowdown lies
// outside all of them (JobResult.BeyondPublished).
const (
	PublishedOffload        = 1.0 / 3
	BeyondPublishedSlowdown = 1.05
)

// blockLen is how many configurations (job results, wear figures) an
// evaluator allocates at once.
const blockLen = 256

// keepJobs copies a kept configuration's job results out of the reused
// buffer into a block shared with the next configurations. The slice's
// capacity is its length, so an append to it cannot reach a neighbour's.
func (e *evaluator) keepJobs(jobs []JobResult) []JobResult {
	n := len(jobs)
	if cap(e.jobBlock)-len(e.jobBlock) < n {
		e.jobBlock = make([]JobResult, 0, max(blockLen, n))
	}
	lo := len(e.jobBlock)
	e.jobBlock = append(e.jobBlock, jobs...)
	return e.jobBlock[lo : lo+n : lo+n]
}

// newWear is a zeroed Wear from the evaluator's current block.
func (e *evaluator) newWear() *Wear {
	if len(e.wearBlock) == cap(e.wearBlock) {
		e.wearBlock = make([]Wear, 0, blockLen)
	}
	e.wearBlock = append(e.wearBlock, Wear{})
	return &e.wearBlock[len(e.wearBlock)-1]
}

// job evaluates one job class. It returns the job's result, the bytes one
// job writes to flash, or a reason the configuration cannot run it.
func (e *evaluator) job(c Config, s Swap, j JobClass, dev Device) (JobResult, float64, Reject) {
	fs := e.factorsFor(j.Name)
	t := touched(j)
	jr := JobResult{Name: j.Name, Touched: t, Deadline: j.Deadline}
	R := float64(c.Usable)
	F := float64(t)
	dirty := float64(j.DirtyShare)
	var flashWrites float64
	if F <= R {
		jr.InRAM, jr.Fit = t, 1
		jr.Estimate = Estimate{Slowdown: 1, Low: 1, High: 1, Provenance: InRAM, Basis: inRAMBasis}
	} else {
		switch s.Kind {
		case SwapNone:
			return jr, 0, reject(RejectNoFitWithoutSwap)
		case SwapDrive:
			if F-R > float64(s.Capacity) {
				return jr, 0, reject(RejectSwapTooSmall)
			}
			jr.Fit = R / F
			est, err := e.predict(fs, s.Class, dev, j, jr.Fit, c.Cores)
			if err != nil {
				return jr, 0, Reject{Code: RejectNoCurve, Class: s.Class}
			}
			if est.Unsupported != "" {
				return jr, 0, e.unsupported(&c, j, jr.Fit, est.Unsupported)
			}
			est = e.h.adjust(fs, s.Class, est)
			jr.Estimate = est
			dirty = wearDirty(j, est)
			flashWrites = faultsPerJob(est, j) * pageSize * dirty
		case SwapZram:
			sw, ratio, ok := e.zram(fs, j, s.Algorithm)
			if !ok {
				return jr, 0, Reject{Code: RejectNoZramBackend, Class: s.Algorithm}
			}
			if ratio <= 1 {
				return jr, 0, reject(RejectZramIncompressible)
			}
			// zram allocates its slot table for the whole disk up front, and
			// its allocator packs compressed pages with some waste: both come
			// out of RAM. Resident part M plus the compressed overflow fill
			// what is left.
			ratio /= zsmallocOverhead
			if ratio <= 1 {
				return jr, 0, reject(RejectZramTooIncompressible)
			}
			R -= float64(s.Capacity) * zramSlotBytes / pageSize
			M := (R*ratio - F) / (ratio - 1)
			if M <= 0 {
				return jr, 0, reject(RejectZramCannotHold)
			}
			if F-M > float64(s.Capacity) {
				return jr, 0, reject(RejectZramDiskTooSmall)
			}
			// mem_limit caps the compressed pool (zsmalloc's pages, its
			// loss included; not the slot table). Beyond it zram refuses
			// writes and the jobs cannot swap.
			if lim := float64(e.w.Options.ZramMemLimit) * float64(c.Installed); lim > 0 && (F-M)/ratio > lim {
				return jr, 0, reject(RejectZramMemLimit)
			}
			jr.Fit = M / F
			est, err := e.predict(fs, "zram-"+s.Algorithm, zramDevice(sw), j, jr.Fit, c.Cores)
			if err != nil {
				return jr, 0, reject(RejectNoZramCurve)
			}
			if est.Unsupported != "" {
				return jr, 0, e.unsupported(&c, j, jr.Fit, est.Unsupported)
			}
			jr.Estimate = e.h.adjust(fs, "zram-"+s.Algorithm, est)
		case SwapZswap:
			sw, f, wd, why := e.zswapSplit(&c, s, j, fs)
			if why.Code != 0 {
				return jr, 0, why
			}
			jr.Fit = f
			pe, err1 := e.predict(fs, "zram-"+s.Algorithm, zramDevice(sw), j, f, c.Cores)
			de, err2 := e.predict(fs, s.Class, dev, j, f, c.Cores)
			if err1 != nil || err2 != nil {
				return jr, 0, reject(RejectNoZswapCurve)
			}
			if why := cmp.Or(de.Unsupported, pe.Unsupported); why != "" {
				return jr, 0, e.unsupported(&c, j, f, why)
			}
			// Which part a fault reaches depends on the shape. zswap writes
			// its least recently stored pages back to the drive, so the pool
			// extends RAM as the next stretch of an LRU stack: faults beyond
			// RAM and pool are the shape's page rate at (M + pool)/F, a share
			// (onDrive/(F-M))^exponent of those beyond RAM alone
			// (driveShare; past a knee the exponent changes). Uniform
			// (exponent 1) is the byte share; a cold tail sends more to the
			// pool, a sweep more to the drive. Each scenario the band spans
			// splits its own pool and drive figures by its own shape's
			// share (zswapPair); the figure is their median and span.
			est := Estimate{
				Provenance:   worse(pe.Provenance, de.Provenance),
				Extrapolated: pe.Extrapolated || de.Extrapolated,
				Above:        max(pe.Above, de.Above),
				FaultTime:    de.FaultTime,
				Inferred:     pe.Inferred || de.Inferred,
				ShapeUnknown: pe.ShapeUnknown || de.ShapeUnknown,
				Shape:        de.Shape,
				// Only the drive's part is written: its dirty share.
				Dirty: de.Dirty, DirtyLow: de.DirtyLow, DirtyHigh: de.DirtyHigh, DirtyFrom: de.DirtyFrom,
			}
			// The pool and the drive share the job's page rate: one error,
			// the drive's (adjustAs).
			var dc, driveEx float64
			if z, ids, ok := e.zswapPair(fs, "zram-"+s.Algorithm, zramDevice(sw), s.Class, dev, j, c.Cores); ok {
				fig := e.zswapAt(fs, z, ids, wd, f)
				est.Slowdown, est.Low, est.High = 1+fig.central, 1+fig.lo, 1+fig.hi
				est.Shape, dc, driveEx = fig.shape, fig.share, fig.driveEx
				if r := fig.driveRun; r != nil {
					// The central run's own fault time and dirty share.
					est.FaultTime = faultTime(r.pts, f)
					if d, ok := impliedDirty(r.src, r.s); ok && est.DirtyFrom != "" {
						est.Dirty = min(max(d, est.DirtyLow), est.DirtyHigh)
					}
				}
				adj := e.h.adjustAs(est, de, fs, s.Class)
				if est.Slowdown > 1 {
					driveEx *= (adj.Slowdown - 1) / (est.Slowdown - 1)
				}
				est = adj
			} else {
				// The speed benchmarks' constant stands in for both parts
				// (the same figure under every scenario).
				pe, de = e.h.adjustAs(pe, de, fs, s.Class), e.h.adjustAs(de, de, fs, s.Class)
				split := func(d, p, q float64) float64 { return (1-d)*(p-1) + d*(q-1) }
				dc = driveShare(e.shapeOf(fs, de.Shape), wd, f)
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, sh := range e.shapesOf(fs, j) {
					d := driveShare(sh, wd, f)
					lo, hi = min(lo, split(d, pe.Low, de.Low)), max(hi, split(d, pe.High, de.High))
				}
				central := split(dc, pe.Slowdown, de.Slowdown)
				est.Slowdown, est.Low, est.High = 1+central, 1+min(lo, central), 1+max(hi, central)
				driveEx = dc * (de.Slowdown - 1)
			}
			est.Basis = e.zswapBasis(wd, dc, est.Shape, pe, de)
			jr.Estimate = est
			dirty = wearDirty(j, est)
			flashWrites = faultsPerJob(Estimate{Slowdown: 1 + driveEx, FaultTime: est.FaultTime}, j) * pageSize * dirty
		}
		jr.InRAM = units.Bytes(jr.Fit * F)
	}
	// The in-RAM runtime at this configuration's memory speed; the
	// slowdown multiplies it.
	inRAM := inRAMRuntime(j, c.MemorySpeed)
	rt := inRAM * jr.Estimate.Slowdown
	jr.Runtime = units.Duration(rt)
	jr.RuntimeHigh = units.Duration(inRAM * jr.Estimate.High)
	jr.Meets = jr.Runtime <= j.Deadline
	// A deadline met only on the central estimate, or only by extrapolating
	// beyond the measured fit ratios, is not one to sign a purchase on.
	// Nearly free offload of more than production deployments report,
	// predicted for a job nobody measured, is not one to sign either.
	jr.BeyondPublished = e.unmeasuredOffload(j, jr.Fit) && jr.Estimate.Slowdown < BeyondPublishedSlowdown
	jr.AtRisk = jr.Meets && (jr.RuntimeHigh > j.Deadline || jr.Estimate.Extrapolated || jr.BeyondPublished)
	if jr.Meets {
		jr.JobsPerServer = jobsPerServer(j, rt)
	}
	jr.SwapWrites = units.Bytes(flashWrites)
	if flashWrites > 0 {
		jr.WearDirty = dirty
		if e.h == nil || !e.h.lean {
			jr.WearDirtyFrom = e.wearDirtyFrom(j, jr.Estimate)
		}
	}
	return jr, flashWrites, Reject{}
}

// jobsPerServer is how many jobs of class j a server runs in the class's
// window when each takes rt (nanoseconds): concurrency times the waves
// that fit. It never grows with rt.
func jobsPerServer(j JobClass, rt float64) float64 {
	waves := math.Floor(float64(j.Window) / rt)
	if rt > float64(day) && j.Window.D() >= day {
		// A job longer than a day runs across days, back to back on
		// servers that work on its class around the clock.
		waves = float64(day) / rt
	}
	return float64(j.Concurrency) * waves
}

// wearDirty is the dirty share job j's swap writes are priced at: the
// workload's dirty_share where it states one; else the share the curves
// behind est imply (their jobs' own, under the combinations of the
// unknowns under which those curves agree), since the central figure
// assumes the job behaves as theirs did; else the default.
func wearDirty(j JobClass, est Estimate) float64 {
	if !j.DirtyStated && est.DirtyFrom != "" {
		return est.Dirty
	}
	return float64(j.DirtyShare)
}

// wearDirtyFrom says where wearDirty's figure comes from.
// wearFromKey is what wearDirtyFrom reads.
type wearFromKey struct {
	stated    bool
	from      string
	low, high float64
}

// wearDirtyFrom is the package's wearDirtyFrom, each text made once per
// evaluator: every configuration on a device repeats its job's.
func (e *evaluator) wearDirtyFrom(j JobClass, est Estimate) string {
	k := wearFromKey{j.DirtyStated, est.DirtyFrom, est.DirtyLow, est.DirtyHigh}
	if t, ok := e.wearFrom[k]; ok {
		return t
	}
	t := wearDirtyFrom(j, est)
	if e.wearFrom == nil {
		e.wearFrom = map[wearFromKey]string{}
	}
	e.wearFrom[k] = t
	return t
}

func wearDirtyFrom(j JobClass, est Estimate) string {
	switch {
	case j.DirtyStated:
		return "the workload's dirty_share"
	case est.DirtyFrom != "":
		from := fmt.Sprintf("implied by the %s curves", est.DirtyFrom)
		if est.DirtyHigh > est.DirtyLow+1e-9 {
			from += fmt.Sprintf(" (%.2g-%.2g where they agree)", est.DirtyLow, est.DirtyHigh)
		}
		return from + "; the workload states none"
	}
	return "the default dirty_share; the workload states none"
}

// plain reports whether the hooks change nothing (none, or only the
// shared prediction cache's): the search is the user's own.
func (h *hooks) plain() bool {
	return h == nil || (h.price == nil && h.slowdown == nil && !h.lean)
}

// zswapEntry is a cached zswapPair; ok false where none can be formed.
type zswapEntry struct {
	z  zswapPair
	ok bool
}

// zswapPair prepares a zswap job's pool (poolClass on poolDev) and drive
// (driveClass on dev) together, once per evaluator.
func (e *evaluator) zswapPair(fs *Factors, poolClass string, poolDev Device, driveClass string, dev Device, j JobClass, cores int) (zswapPair, [2]int, bool) {
	if constantEstimate != nil {
		return zswapPair{}, [2]int{}, false
	}
	pp, pk, pid, err1 := e.prepFor(fs, poolClass, poolDev, j, cores)
	dp, dk, did, err2 := e.prepFor(fs, driveClass, dev, j, cores)
	if err1 != nil || err2 != nil {
		return zswapPair{}, [2]int{}, false
	}
	ids := [2]int{pid, did}
	if z, ok := e.zswaps[ids]; ok {
		return z.z, ids, z.ok
	}
	key := [2]prepKey{pk, dk}
	var ent zswapEntry
	c := fs.joint
	if c != nil {
		c.zmu.Lock()
		ent, ok := c.zswaps[key]
		c.zmu.Unlock()
		if ok {
			e.storeZswap(ids, ent)
			return ent.z, ids, ent.ok
		}
	}
	ent.z, ent.ok = fs.pairZswap(pp, dp)
	ent.z.key = key
	if c != nil {
		c.zmu.Lock()
		if c.zswaps == nil {
			c.zswaps = map[[2]prepKey]zswapEntry{}
		}
		c.zswaps[key] = ent
		c.zmu.Unlock()
	}
	e.storeZswap(ids, ent)
	return ent.z, ids, ent.ok
}

func (e *evaluator) storeZswap(ids [2]int, ent zswapEntry) {
	if e.zswaps == nil {
		e.zswaps = map[[2]int]zswapEntry{}
	}
	e.zswaps[ids] = ent
}

// zswapFigKey is one zswap figure: a pair at one split and fit ratio.
type zswapFigKey struct {
	pair  [2]prepKey
	wd, f float64
}

// localZFig is a zswapFigKey within one evaluator, the pair by its
// preparations' numbers (localEst).
type localZFig struct {
	pair  [2]int
	wd, f float64
}

// zswapAt is z.at, kept in the factor set for a repeated search (which
// asks every run the same questions), as predict keeps its estimates.
// Within one search the evaluator keeps them, as it keeps its estimates:
// many configurations share a drive, a split and a fit ratio.
func (e *evaluator) zswapAt(fs *Factors, z zswapPair, ids [2]int, wd, f float64) zswapFigure {
	lk := localZFig{ids, wd, f}
	if fig, ok := e.zfigs[lk]; ok {
		return fig
	}
	k := zswapFigKey{z.key, wd, f}
	c := fs.joint
	var fig zswapFigure
	ok := false
	if e.h != nil && c != nil {
		c.zmu.Lock()
		fig, ok = c.figs[k]
		c.zmu.Unlock()
	}
	if !ok {
		var driveEx []float64
		if e.runExOK && e.runExKey == (localEst{ids[1], f}) && len(e.runEx) == len(z.drive.runs()) {
			driveEx = e.runEx
		}
		fig = z.atEx(wd, f, driveEx)
		if e.h != nil && c != nil {
			c.zmu.Lock()
			if c.figs == nil {
				c.figs = map[zswapFigKey]zswapFigure{}
			}
			c.figs[k] = fig
			c.zmu.Unlock()
		}
	}
	if e.zfigs == nil {
		e.zfigs = map[localZFig]zswapFigure{}
	}
	e.zfigs[lk] = fig
	return fig
}

// drivesDevice is the device swap s makes of d's drives: s.Drives of
// them striped, each written twice when mirrored.
func drivesDevice(d *pricedDrive, s Swap) Device {
	dev := CatalogDevice(d.Drive, d.class, s.Drives)
	if s.Mirrored {
		dev.Copies = 2
	}
	return dev
}

// inRAMRuntime is job j's runtime in RAM at memory speed speed: what its
// slowdown multiplies.
func inRAMRuntime(j JobClass, speed int) float64 {
	return float64(j.Runtime) * j.MemorySpeed.RuntimeFactor(speed)
}

// unmeasuredOffload reports whether job j at fit ratio fit keeps more of
// its memory out of plain RAM than production deployments report
// (PublishedOffload) on a figure nobody measured for it: with a slowdown
// below BeyondPublishedSlowdown it is BeyondPublished.
func (e *evaluator) unmeasuredOffload(j JobClass, fit float64) bool {
	return fit < 1-PublishedOffload && j.Profile == "" && e.in.JobFactors[j.Name] == nil
}

// zswapSplit is where job j's pages stand on configuration c with zswap
// swap s: the zram software (its compressor) the pool runs, the share f of
// the footprint resident in RAM (the fit ratio both parts are predicted
// at) and the share wd of what is swapped out that the pool passes on to
// the drives; or why c cannot run j. job and the lean search's proofs
// (provenNotTier1) both read it.
func (e *evaluator) zswapSplit(c *Config, s Swap, j JobClass, fs *Factors) (sw factors.Software, f, wd float64, why Reject) {
	R, F := float64(c.Usable), float64(touched(j))
	sw, ratio, ok := e.zram(fs, j, s.Algorithm)
	if !ok {
		return sw, 0, 0, Reject{Code: RejectNoZramBackend, Class: s.Algorithm}
	}
	// max_pool_percent is a share of all of RAM, not of what is left
	// after the OS reserve.
	pool := float64(e.w.Options.ZswapPool) * float64(c.Installed)
	ratio /= zsmallocOverhead
	if ratio <= 1 {
		// zswap rejects a page that does not compress below a page,
		// and one that barely does costs more RAM than it frees: the
		// pool stays empty and this is the drive alone.
		return sw, 0, 0, reject(RejectZswapIncompressible)
	}
	var M, inPool float64
	if (F-R)*ratio/(ratio-1) <= pool*ratio {
		// Everything that overflows fits the compressed pool.
		M = (R*ratio - F) / (ratio - 1)
		inPool = F - M
	} else {
		M = R - pool
		inPool = min(pool*ratio, F-M)
	}
	onDrive := F - M - inPool
	// A page zswap holds keeps its slot on the swap device, so the
	// drives must hold everything swapped out, pooled or not.
	if F-M > float64(s.Capacity) {
		return sw, 0, 0, reject(RejectSwapTooSmall)
	}
	if onDrive <= 0 {
		return sw, 0, 0, reject(RejectZswapPoolHoldsAll)
	}
	return sw, M / F, onDrive / (F - M), Reject{}
}

// zswapBasis is a zswap estimate's basis: the pool's and the drive's,
// the share of the overflow on the drives (wd) and of the faults that
// reach them (dc). A lean search reads no basis and gets an empty one
// (keeping both parts' would allocate for every configuration).
func (e *evaluator) zswapBasis(wd, dc float64, shape string, pe, de Estimate) *Basis {
	if e.h != nil && e.h.lean {
		return leanBasis
	}
	return &Basis{Kind: BasisZswap, Pool: pe.Basis, Drive: de.Basis, DriveShare: wd, DriveFaults: dc, Shape: shape}
}

// inRAMBasis is every in-RAM estimate's basis, and leanBasis a lean
// search's zswap estimates' (which nothing reads); neither is changed.
var (
	inRAMBasis = &Basis{Kind: BasisInRAM}
	leanBasis  = &Basis{}
)

// rejectNote is one refused configuration's own account of a reason.
type rejectNote struct {
	fit  float64
	text string
}

// closer reports whether n is nearer to what was measured than o: the
// higher fit ratio, the smaller step below the curve (ties: by text, so
// the note does not depend on which goroutine saw which configuration).
func (n rejectNote) closer(o rejectNote) bool {
	if n.fit != o.fit {
		return n.fit > o.fit
	}
	return n.text < o.text
}

// unsupported records why the model refused c for job j at fit ratio fit
// and returns the reject reason. The reason is generic so configurations
// count under one line; the note keeps the specific advice (which curve,
// how far below it, which memplan profile --fits run) of the refused
// configuration nearest to the curve: measuring there lets memplan
// evaluate it and every refused configuration with more of the job in RAM.
func (e *evaluator) unsupported(c *Config, j JobClass, fit float64, why string) Reject {
	n := rejectNote{fit: fit, text: fmt.Sprintf("nearest: %s, job %s: %s", configLabel(c), j.Name, why)}
	if e.notes == nil {
		e.notes = map[Reject]rejectNote{}
	}
	r := reject(RejectUnsupportedFit)
	if old, ok := e.notes[r]; !ok || n.closer(old) {
		e.notes[r] = n
	}
	return r
}

// faultsPerJob turns excess runtime into a count of major faults: each fault
// costs the device's service time.
func faultsPerJob(est Estimate, j JobClass) float64 {
	if est.FaultTime <= 0 {
		return 0
	}
	return (est.Slowdown - 1) * j.Runtime.Seconds() / est.FaultTime
}

// zram returns the compressor's parameters and the ratio it reaches on the
// job's data (the workload gives lz4's; other compressors scale by their
// published ratio relative to lz4).
func (e *evaluator) zram(fs *Factors, j JobClass, alg string) (factors.Software, float64, bool) {
	sw, ok := fs.Software["zram-"+alg]
	if !ok {
		sw, ok = e.in.Factors.Software["zram-"+alg]
	}
	if !ok {
		return sw, 0, false
	}
	ratio := float64(j.Compressibility)
	if lz, ok := fs.Software["zram-lz4"]; ok && lz.Ratio > 0 && alg != "lz4" {
		ratio *= sw.Ratio / lz.Ratio
	}
	return sw, ratio, true
}

func zramDevice(sw factors.Software) Device {
	w := sw.CompressLatency
	if w <= 0 {
		w = sw.Latency
	}
	return Device{Name: sw.Name, ReadLatency: sw.Latency.D(), WriteLatency: w.D(), Memory: true}
}

var provenanceOrder = map[string]int{InRAM: 0, factors.Measured: 1, factors.Emulated: 2, factors.Inferred: 3, factors.Published: 4, Derived: 5}

func worse(a, b string) string {
	if provenanceOrder[a] >= provenanceOrder[b] {
		return a
	}
	return b
}

func configID(c *Config) string {
	// Appended into one buffer: a string per configuration, not one per
	// piece.
	var buf [128]byte
	b := append(buf[:0], c.Platform.SKU...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(c.DIMMCount), 10)
	b = append(b, 'x')
	b = append(b, c.DIMM.SKU...)
	switch c.Swap.Kind {
	case SwapNone:
		b = append(b, "/noswap"...)
	case SwapZram:
		b = append(b, "/zram-"...)
		b = append(b, c.Swap.Algorithm...)
		b = append(b, '-')
		b = strconv.AppendFloat(b, c.Swap.ZramShare*100, 'f', 0, 64)
		b = append(b, "pct"...)
	case SwapZswap:
		b = append(b, "/zswap-"...)
		b = append(b, c.Swap.Algorithm...)
		b = append(b, '+')
		b = appendDrivesID(b, c.Swap)
	default:
		b = append(b, '/')
		b = appendDrivesID(b, c.Swap)
	}
	return string(b)
}

// appendDrivesID appends the swap drives' part of an ID: count, SKU and
// "-mirror" when mirrored.
func appendDrivesID(b []byte, s Swap) []byte {
	b = strconv.AppendInt(b, int64(s.Drives), 10)
	b = append(b, 'x')
	b = append(b, s.Drive.SKU...)
	return append(b, mirrorID(s)...)
}

func configLabel(c *Config) string {
	var buf [160]byte
	b := c.Installed.AppendString(buf[:0])
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(c.DIMMCount), 10)
	b = append(b, " x "...)
	b = c.DIMM.Capacity.AppendString(b)
	b = append(b, ')')
	switch c.Swap.Kind {
	case SwapNone:
		b = append(b, ", no swap"...)
	case SwapZram:
		b = append(b, " + zram "...)
		b = strconv.AppendFloat(b, c.Swap.ZramShare*100, 'f', 0, 64)
		b = append(b, "% ("...)
		b = append(b, c.Swap.Algorithm...)
		b = append(b, ')')
	case SwapZswap:
		b = append(b, " + zswap + "...)
		b = appendDriveLabel(b, c.Swap)
	default:
		b = append(b, " + "...)
		b = appendDriveLabel(b, c.Swap)
	}
	return string(b)
}

func mirrorID(s Swap) string {
	if s.Mirrored {
		return "-mirror"
	}
	return ""
}

// appendDriveLabel appends the swap drives as a label names them: the
// model, or "N x model RAID".
func appendDriveLabel(b []byte, s Swap) []byte {
	if s.Drives == 1 {
		return append(b, s.Drive.Model...)
	}
	b = strconv.AppendInt(b, int64(s.Drives), 10)
	b = append(b, " x "...)
	b = append(b, s.Drive.Model...)
	b = append(b, ' ')
	return append(b, s.RAID()...)
}

// RAID names how the swap drives are combined: RAID 0 (striped), RAID 1
// (two drives, mirrored) or RAID 10 (mirrored pairs, striped); "" for
// one drive.
func (s Swap) RAID() string {
	switch {
	case s.Mirrored && s.Drives == 2:
		return "RAID 1"
	case s.Mirrored:
		return "RAID 10"
	case s.Drives > 1:
		return "RAID 0"
	}
	return ""
}

// rank orders the evaluated configurations into res.Configs by the
// ranking rule (rank.go) and picks the recommendation and baseline.
func rank(res *Result, ps []*Config, w *Workload) {
	less := rankOrder(ps, w)
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return less(order[i], order[j]) })
	cs := make([]Config, len(ps))
	inParallel(len(cs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cs[i] = *ps[order[i]]
			cs[i].Rank = i + 1
			cs[i].Label = configLabel(&cs[i])
		}
	})
	res.Configs = cs
	for i := range cs {
		if cs[i].AllDRAM() && cs[i].Meets {
			res.Baseline = &cs[i]
			break
		}
	}
	if len(cs) > 0 && cs[0].Meets {
		res.Recommended = &cs[0]
	}
	if r, b := res.Recommended, res.Baseline; r != nil && b != nil && r != b {
		sv := Savings{PerServer: b.Cost.PerServer.Sub(r.Cost.PerServer), Fleet: b.Cost.Fleet.Sub(r.Cost.Fleet)}
		if b.Cost.Fleet > 0 {
			sv.Percent = percentOf(sv.Fleet, b.Cost.Fleet)
		}
		if res.TCO != nil && res.TCO.Priced {
			sv.TCOPerServer, sv.TCOFleet = b.Cost.TCO.Sub(r.Cost.TCO), b.Cost.TCOFleet.Sub(r.Cost.TCOFleet)
			if b.Cost.TCOFleet > 0 {
				sv.TCOPercent = percentOf(sv.TCOFleet, b.Cost.TCOFleet)
			}
		}
		res.Savings = &sv
	}
	res.Verdict = verdict(res)
	res.Advice = advise(res, w)
}

// rankOrder sets each configuration's ID and returns the ranking's order
// over ps by index (RankLess on keys computed once, in parallel).
func rankOrder(ps []*Config, w *Workload) (less func(i, j int) bool) {
	type key struct {
		RankKey
		cost, per money.Amount
	}
	keys := make([]key, len(ps))
	inParallel(len(ps), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := ps[i]
			c.ID = configID(c)
			keys[i] = key{RankKey: c.RankKey(), per: c.Cost.PerServer}
			if c.Meets {
				keys[i].cost = rankCost(c, w)
			}
		}
	})
	return func(i, j int) bool {
		a, b := &keys[i], &keys[j]
		return RankLess(a.RankKey, b.RankKey, a.cost, a.per, b.cost, b.per)
	}
}

// rankLean is rank for a lean search: each configuration's ID, and the
// recommendation and the baseline found by one pass with the ranking's
// own order (RankLess ends in a total order, so the least is the one a
// full sort puts first), each labelled. Ranks, savings, the verdict and
// the advice are not computed; res.evaluated holds the configurations,
// unordered.
func rankLean(res *Result, ps []*Config, w *Workload) {
	less := rankOrder(ps, w)
	best, base := -1, -1
	for i, c := range ps {
		if best < 0 || less(i, best) {
			best = i
		}
		if c.AllDRAM() && c.Meets && (base < 0 || less(i, base)) {
			base = i
		}
	}
	if best >= 0 && ps[best].Meets {
		res.Recommended = ps[best]
		res.Recommended.Label = configLabel(res.Recommended)
	}
	if base >= 0 {
		res.Baseline = ps[base]
		res.Baseline.Label = configLabel(res.Baseline)
	}
	res.evaluated = ps
}

// oneRunCurve reports whether a job's factors have a curve measured by
// memplan profile --one-run.
func oneRunCurve(f *Factors) bool {
	if f == nil {
		return false
	}
	for _, c := range f.Curves {
		if c.Method == factors.OneRunMethod {
			return true
		}
	}
	return false
}

// restsOn says in one sentence what the recommendation's slowdowns rest
// on when it is not a curve measured for this workload and device class,
// and which command would measure it.
func restsOn(res *Result, in Input) string {
	c := res.Recommended
	if c == nil && len(res.Configs) > 0 {
		c = &res.Configs[0]
	}
	if c == nil {
		return ""
	}
	var derived, published, inferred, oneRun, sampler []string
	for _, j := range c.Jobs {
		if j.Estimate.Inferred {
			inferred = append(inferred, j.Name)
			continue
		}
		if j.Estimate.Basis.Sampler {
			sampler = append(sampler, j.Name)
		}
		if j.Estimate.Provenance == factors.Measured && oneRunCurve(in.JobFactors[j.Name]) {
			oneRun = append(oneRun, j.Name)
		}
		switch j.Estimate.Provenance {
		case Derived:
			derived = append(derived, j.Name)
		case factors.Published:
			if in.JobFactors[j.Name] == nil {
				published = append(published, j.Name)
			}
		}
	}
	class := c.Swap.Class
	if c.Swap.Kind == SwapZram || c.Swap.Kind == SwapZswap {
		class = "zram-" + c.Swap.Algorithm
	}
	if c.Swap.Kind == SwapZswap && c.Swap.Class != "" {
		// zswap is two devices: its compressed pool and the drive behind.
		class = fmt.Sprintf("zswap (its pool as %s, the drive as %s)", class, c.Swap.Class)
	}
	switch {
	case len(inferred) > 0:
		its := "its slowdown is"
		if len(inferred) > 1 {
			its = "their slowdowns are"
		}
		return fmt.Sprintf("The curve of %s was inferred from one run by sampling the pages it referenced (memplan profile --one-pass), not measured under a memory limit: %s as uncertain as the one-pass band, so read the band, not the central figure; where the job can be run a dozen times, `memplan profile -- YOUR JOB` measures it.",
			strings.Join(inferred, " and "), its)
	case len(sampler) > 0:
		return fmt.Sprintf("The one run of %s did not reach the fit ratio this configuration gives it: the slowdown there rests on the one-pass sampler's figure its profile took as a prior (memplan profile --one-run --prior), inferred, not measured, so read the band; a one run with a larger --budget, or `memplan profile -- YOUR JOB` at that fit, measures it.",
			strings.Join(sampler, " and "))
	case len(oneRun) > 0 && len(derived) == 0:
		return fmt.Sprintf("The curve of %s was measured %s, not by whole runs at each fit ratio: read its band; the fits past the job's knee or outside the run's budget were not measured.",
			strings.Join(oneRun, " and "), OneRunBasis)
	case len(derived) > 0:
		its := "its slowdown is"
		if len(derived) > 1 {
			its = "their slowdowns are"
		}
		return fmt.Sprintf("Nothing was measured for %s on %s: %s derived from another device's curve by the swap-path model, hence the wide band; measure the device with `memplan probe --swap-dir DIR` and the job with `memplan profile -- YOUR JOB`.",
			strings.Join(derived, " and "), class, its)
	case len(published) > 0:
		return fmt.Sprintf("The slowdown of %s rests on a published figure measured on other jobs, not on this workload: measure it with `memplan profile -- YOUR JOB`.", strings.Join(published, ", "))
	}
	return ""
}

// shapeNote names the cheapest configuration that meets every deadline on
// its central figures but is at risk only because a job's access pattern
// is unknown (Estimate.ShapeUnknown), when it is cheaper than the
// recommendation: what measuring the job could save.
func shapeNote(res *Result, w *Workload) string {
	r := res.Recommended
	var best *Config
	for i := range res.Configs {
		c := &res.Configs[i]
		if !noteCandidate(c) || (r != nil && rankCost(c, w) >= rankCost(r, w)) {
			continue
		}
		if best == nil || rankCost(c, w) < rankCost(best, w) {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	if j := beyondPublished(best); j != nil {
		return fmt.Sprintf("%s, at %s per server, meets every deadline on its central figures, but moves %.0f%% of %s's memory out of RAM at a slowdown of %.2f: more than production deployments report (%s), so it is at risk until the job is measured: `memplan profile -- YOUR JOB` would settle it.",
			best.Label, moneyOf(best.Cost.PerServer, res.Currency), (1-j.Fit)*100, j.Name, j.Estimate.Slowdown, PublishedOffloadResults)
	}
	return fmt.Sprintf("%s, at %s per server, meets every deadline if the jobs use memory the way the jobs behind the published curves do, but not at the top of the band over every access pattern, and no job states its pattern: `memplan profile -- YOUR JOB` (or `access:` for each job class) would settle it.",
		best.Label, moneyOf(best.Cost.PerServer, res.Currency))
}

// noteCandidate reports whether shapeNote could name c: it meets every
// deadline on its central figures, without extrapolating, and is at risk
// because a job's shape is unknown or it offloads beyond the published
// results.
func noteCandidate(c *Config) bool {
	if !c.Meets || !c.AtRisk || c.Extrapolated {
		return false
	}
	for _, j := range c.Jobs {
		if j.AtRisk && (j.Estimate.ShapeUnknown || j.BeyondPublished) {
			return true
		}
	}
	return false
}

// PublishedOffloadResults names the production results PublishedOffload
// rests on, as the verdicts cite them.
const PublishedOffloadResults = "Meta's TMO 20-32% of memory, Google's far memory about 20%"

// beyondPublished is the first job of c that is at risk because it
// offloads beyond the published results (JobResult.BeyondPublished).
func beyondPublished(c *Config) *JobResult {
	for i, j := range c.Jobs {
		if j.AtRisk && j.BeyondPublished {
			return &c.Jobs[i]
		}
	}
	return nil
}

// tier is the configuration's ranking tier (rank.go).
func tier(c *Config) int { return RankTier(c.Meets, c.AtRisk) }

// inParallel runs f over [0, n) in chunks, on every CPU when n is large
// enough for that to pay.
func inParallel(n int, f func(lo, hi int)) {
	if n < 4096 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	p := runtime.GOMAXPROCS(0)
	for i := 0; i < p; i++ {
		wg.Add(1)
		go func(lo, hi int) { defer wg.Done(); f(lo, hi) }(i*n/p, (i+1)*n/p)
	}
	wg.Wait()
}

// percentOf is part as a percentage of whole: a ratio, so a float64.
func percentOf(part, whole money.Amount) float64 {
	return float64(part.Cents()) / float64(whole.Cents()) * 100
}

// moneyOf formats an exact amount as money does (whole currency units).
func moneyOf(a money.Amount, cur string) string {
	if !a.Valid() {
		return "an amount beyond what memplan counts " + cur
	}
	return moneyText(a.Float(), cur)
}

func moneyText(v float64, cur string) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := fmt.Sprintf("%.0f", math.Round(v))
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String() + " " + cur
	if neg {
		out = "-" + out
	}
	return out
}

// Money formats an amount for people: "55,800 RUB".
func Money(v float64, cur string) string { return moneyText(v, cur) }

func verdict(res *Result) string {
	r, b := res.Recommended, res.Baseline
	if r == nil {
		return "No configuration meets every deadline."
	}
	var jobs []string
	for _, j := range r.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s %s of %s, slowdown %.2f", j.Name, j.Runtime, j.Deadline, j.Estimate.Slowdown))
	}
	s := fmt.Sprintf("Buy %s: it meets every deadline (%s) at %s per server",
		r.Label, strings.Join(jobs, "; "), moneyOf(r.Cost.PerServer, res.Currency))
	if r.Servers == 1 {
		s += "."
	} else {
		s += fmt.Sprintf(", %s for %d servers.", moneyOf(r.Cost.Fleet, res.Currency), r.Servers)
	}
	switch {
	case b == nil:
		s += " No all-DRAM configuration in the catalogs meets the deadlines, so there is no all-DRAM baseline to compare with."
	case b == r:
		s += " All-DRAM is the cheapest way to meet the deadlines here; swap would not save money."
	default:
		sv := res.Savings
		if sv.Fleet < 0 {
			// Only when ranking by TCO: it wins on power, not on purchase.
			s += fmt.Sprintf(" It costs %s more to buy than the cheapest all-DRAM configuration, %s, at %s per server.",
				moneyOf(-sv.Fleet, res.Currency), b.Label, moneyOf(b.Cost.PerServer, res.Currency))
		} else if r.Servers == 1 && b.Servers == 1 {
			s += fmt.Sprintf(" That is %s (%.1f%%) less than the cheapest all-DRAM configuration, %s, at %s.",
				moneyOf(sv.PerServer, res.Currency), sv.Percent, b.Label, moneyOf(b.Cost.PerServer, res.Currency))
		} else {
			s += fmt.Sprintf(" That is %s (%.1f%%) less for the fleet than the cheapest all-DRAM configuration, %s, at %s per server (%s per server saved).",
				moneyOf(sv.Fleet, res.Currency), sv.Percent, b.Label, moneyOf(b.Cost.PerServer, res.Currency), moneyOf(sv.PerServer, res.Currency))
		}
	}
	if r.Packing != "" {
		s += " " + r.Packing
	}
	s += tcoVerdict(res)
	if r.AtRisk {
		s += " Caution: no configuration meets the deadlines with certainty;"
		if r.Extrapolated {
			s += " this one's slowdown is extrapolated beyond the measured fit ratios (measure it with `memplan probe`)."
		} else if j := beyondPublished(r); j != nil && j.RuntimeHigh <= j.Deadline {
			s += fmt.Sprintf(" this one moves %.0f%% of %s's memory out of RAM at a slowdown of %.2f, more than production deployments report (%s); measure the job with `memplan profile -- YOUR JOB`.",
				(1-j.Fit)*100, j.Name, j.Estimate.Slowdown, PublishedOffloadResults)
		} else {
			s += " at the upper end of the slowdown's uncertainty band a job would miss its deadline."
		}
	}
	return s
}

// nothingFits builds the error for a workload no configuration can run.
func (e *evaluator) nothingFits(platforms []prices.Platform) error {
	var maxRAM units.Bytes
	for _, pl := range platforms {
		for _, d := range e.in.Prices.DIMMs {
			if ok, _ := pl.Accepts(d); ok {
				if m := units.Bytes(pl.Memory.Slots)*d.Capacity - pl.Reserve; m > maxRAM {
					maxRAM = m
				}
			}
		}
	}
	worst, wi := units.Bytes(0), 0
	for i, j := range e.w.Jobs {
		if touched(j) > worst {
			worst, wi = touched(j), i
		}
	}
	var reasons []string
	for k, v := range e.res.Rejected {
		reasons = append(reasons, fmt.Sprintf("%s: %d", k.String(), v))
	}
	sort.Strings(reasons)
	return e.w.ErrorAt(fmt.Sprintf("jobs[%d].footprint", wi), "lower the footprint or concurrency, or add larger DIMMs, drives or platforms to the catalog",
		"%d concurrent jobs x %s = %s exceeds every configuration the catalogs allow (at most %s usable RAM; rejected: %s)",
		e.w.Jobs[wi].Concurrency, e.w.Jobs[wi].Footprint, worst, maxRAM, strings.Join(reasons, "; "))
}

// staleWarnings names catalogs whose prices, used by the recommended or
// baseline configuration, are older than the allowed age.
func staleWarnings(in Input, res *Result) []string {
	if in.MaxPriceAge <= 0 || in.Now.IsZero() {
		return nil
	}
	used := map[string]bool{}
	for _, c := range []*Config{res.Recommended, res.Baseline} {
		if c == nil {
			continue
		}
		used[c.Platform.Catalog], used[c.DIMM.Catalog] = true, true
		if c.Swap.Drive != nil {
			used[c.Swap.Drive.Catalog] = true
		}
	}
	if len(used) == 0 && len(res.Configs) > 0 {
		c := res.Configs[0]
		used[c.Platform.Catalog], used[c.DIMM.Catalog] = true, true
	}
	withPrices, accept, orAge := "", "", ""
	if f := in.Flags.Prices; f != "" {
		withPrices = " with " + f + " FILE"
	}
	if f := in.Flags.MaxPriceAge; f != "" {
		accept, orAge = ", or pass "+f+" 0 to accept them", " or pass "+f
	}
	var out []string
	for _, c := range in.Prices.Catalogs {
		if !used[c.Name] || c.Date.IsZero() {
			continue
		}
		if age := in.Now.Sub(c.Date.Time); age > in.MaxPriceAge && isEmbedded(c) {
			// A list price built into memplan cannot be refreshed by the
			// user: say what to do instead.
			out = append(out, fmt.Sprintf("the embedded catalog %s holds list prices of %s, %d days old (more than %d); price your own quote%s (`memplan prices show %s` is a starting point)%s",
				c.Name, c.Date.Format("2006-01"), int(age.Hours()/24), int(in.MaxPriceAge.Hours()/24), withPrices, c.Name, accept))
		} else if age > in.MaxPriceAge {
			out = append(out, fmt.Sprintf("prices in catalog %s (%s) are from %s, %d days old (more than %d): DRAM and flash prices move quickly; refresh the quote%s",
				c.Name, c.File, c.Date, int(age.Hours()/24), int(in.MaxPriceAge.Hours()/24), orAge))
		}
	}
	return out
}

// advise explains, when nothing meets the deadlines, what would.
func advise(res *Result, w *Workload) []string {
	if res.Recommended != nil || len(res.Configs) == 0 {
		return nil
	}
	var out []string
	best := &res.Configs[0]
	for _, jr := range best.Jobs {
		if jr.Meets {
			continue
		}
		out = append(out, fmt.Sprintf("closest: %s runs %s in %s (deadline %s); a deadline of %s would be met",
			best.Label, jr.Name, jr.Runtime, jr.Deadline, units.Duration(jr.Runtime.D().Round(time.Minute)+time.Minute)))
	}
	for _, j := range w.Jobs {
		if j.Runtime > j.Deadline {
			out = append(out, fmt.Sprintf("%s takes %s even fully in RAM, longer than its %s deadline: no memory configuration helps; shorten the job or relax the deadline", j.Name, j.Runtime, j.Deadline))
			continue
		}
		var maxUsable units.Bytes
		for _, c := range res.Configs {
			if c.Usable > maxUsable {
				maxUsable = c.Usable
			}
		}
		if touched(j) > maxUsable {
			maxC := int(maxUsable / j.Footprint)
			if maxC == 0 {
				out = append(out, fmt.Sprintf("one %s job needs %s, more than the %s usable RAM of the largest configuration; add a platform with more DIMM slots or larger DIMMs", j.Name, j.Footprint, maxUsable))
				continue
			}
			out = append(out, fmt.Sprintf("%s needs %s usable RAM to run without swap, more than the %s the largest configuration offers; run at most %d job(s) per server at once, or add a platform with more DIMM slots or larger DIMMs", j.Name, touched(j), maxUsable, maxC))
		}
	}
	return out
}
