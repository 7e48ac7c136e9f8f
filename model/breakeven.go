package model

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/memplan/memplan/money"
)

// ErrNoRecommendation is returned by the robustness analyses when nothing
// meets the deadlines, so there is no recommendation to test.
var ErrNoRecommendation = errors.New("no configuration meets every deadline: nothing to analyse")

// BreakEvenResult says at which prices the recommendation stops being the
// cheapest configuration that meets the deadlines. Prices are in Currency;
// the cost compared is the one configurations are ranked by (RankBy).
type BreakEvenResult struct {
	Currency         string
	RankBy           string // capital or tco
	Recommended      string
	RecommendedLabel string
	// DRAM scales every DIMM price in the catalogs by one factor (a market
	// move); Drive scales the price of the recommendation's swap drive
	// model only, and is nil when the recommendation has no swap drive.
	DRAM  PriceBreakEven
	Drive *PriceBreakEven
}

// PriceBreakEven is the break-even of one price.
type PriceBreakEven struct {
	Scaled string      // what is scaled, for people
	Parts  []PartPrice // today's prices of the parts the points below involve
	// Falls and Rises are where the recommendation stops winning as the
	// price falls or rises, against every configuration (Exists false: it
	// keeps winning in that direction, checked to 1/1000 and 1000 x today).
	Falls BreakEvenPoint
	Rises BreakEvenPoint
	// Pairwise comparisons: where the recommendation and the all-DRAM
	// baseline (or the runner-up, the next configuration in the ranking that
	// meets every deadline) cost the same. Nil when there is no such
	// configuration or it is the recommendation itself.
	VsBaseline *BreakEvenPoint
	VsRunnerUp *BreakEvenPoint
}

// BreakEvenPoint is one price at which another configuration takes over.
type BreakEvenPoint struct {
	Exists bool
	// Factor multiplies today's price: 0.33 means "at a third of today's
	// price". Direction is "falls" (the other configuration wins below the
	// point) or "rises" (above it).
	Factor         float64
	Direction      string
	TakesOver      string // configuration ID that wins beyond the point
	TakesOverLabel string
	Prices         []PartPrice // the scaled parts' prices at the point
	// Method is "analytic" (fleet costs are linear in a price, so the point
	// is where two lines cross), BreakEvenNone (no crossing: the
	// recommendation still wins at the far end of the range) or
	// "bisection" (the ranking was re-run at
	// trial prices because the set of configurations changes with the
	// price, e.g. a drive stops being dominated).
	Method string
	Note   string // why there is no point, when Exists is false
}

// PartPrice is a part's price: per unit and per nominal GB (GiB for DIMMs,
// whose "64 GB" holds 64 GiB; decimal GB for drives, as vendors rate them).
type PartPrice struct {
	SKU   string
	Model string
	Unit  money.Amount
	PerGB float64 // a ratio: not rounded to the cent
}

// BreakEvenNone is the Method of a point that does not exist because the
// recommendation keeps winning however far the price moves (checked at
// the far end of the range).
const BreakEvenNone = "none in range"

// Directions of a break-even point.
const (
	PriceFalls = "falls"
	PriceRises = "rises"
)

// Bisection and "never" checks search factors in [1/breakEvenRange, breakEvenRange].
const breakEvenRange = 1000

// BreakEven finds the DRAM and swap-drive prices at which res.Recommended
// (from Recommend(in)) stops winning. Fleet costs are linear in a price
// (cost = a + b x factor), so each point is first found where two lines
// cross; the ranking is then re-run just either side of it, and when that
// disagrees (the set of configurations changes with the price) the point
// is found by bisection on re-runs instead.
func BreakEven(in Input, res *Result) (*BreakEvenResult, error) {
	revalidateInput(in)
	if res == nil || res.Recommended == nil {
		return nil, ErrNoRecommendation
	}
	r := res.Recommended
	out := &BreakEvenResult{Currency: res.Currency, RankBy: RankCapital, Recommended: r.ID, RecommendedLabel: r.Label}
	if res.TCO != nil {
		out.RankBy = res.TCO.RankBy
	}
	w, err := in.workload()
	if err != nil {
		return nil, err
	}
	be := breakEvener{in: in, res: res, w: w}

	dram := &priceLine{
		kind: kindDIMM,
		b: func(c *Config) money.Amount {
			return c.Cost.DIMMs.Mul(int64(c.Servers))
		},
		parts: func(c *Config) []Part { return []Part{c.DIMM} },
	}
	out.DRAM = be.analyse(dram, "every DIMM price, by one common factor")

	if d := r.Swap.Drive; d != nil {
		sku := d.SKU
		drive := &priceLine{
			kind: kindDrive,
			sku:  sku,
			b: func(c *Config) money.Amount {
				if c.Swap.Drive == nil || c.Swap.Drive.SKU != sku {
					return 0
				}
				return c.Cost.Drives.Add(c.Cost.Replacements).Mul(int64(c.Servers))
			},
			parts: func(c *Config) []Part {
				if c.Swap.Drive != nil && c.Swap.Drive.SKU == sku {
					return []Part{*c.Swap.Drive}
				}
				return nil
			},
		}
		pb := be.analyse(drive, "the price of the "+d.Model)
		out.Drive = &pb
	}
	if be.err != nil {
		return nil, be.err
	}
	return out, nil
}

// priceLine describes one price being scaled: which catalog parts, and each
// configuration's slope b (its fleet cost that scales with the price).
type priceLine struct {
	kind  partKind
	sku   string // for drives: the one model scaled; empty for DIMMs (all)
	b     func(*Config) money.Amount
	parts func(*Config) []Part
}

func (p *priceLine) scale(k float64) *hooks {
	return &hooks{price: func(kind partKind, sku string) float64 {
		if kind == p.kind && (p.sku == "" || sku == p.sku) {
			return k
		}
		return 1
	}, lean: true} // winner reads only the recommendation
}

type breakEvener struct {
	in  Input
	res *Result
	w   *Workload
	err error
}

func (be *breakEvener) analyse(p *priceLine, what string) PriceBreakEven {
	r := be.res.Recommended
	out := PriceBreakEven{Scaled: what}
	seen := map[string]bool{}
	addParts := func(c *Config) {
		for _, pt := range p.parts(c) {
			if !seen[pt.SKU] {
				seen[pt.SKU] = true
				out.Parts = append(out.Parts, partPrice(p.kind, pt, 1))
			}
		}
	}
	addParts(r)

	// Lines for every configuration that competes with the recommendation:
	// those in its tier. A lower tier (at risk, or missing a deadline) cannot
	// win on price.
	var bestFall, bestRise *Config
	kFall, kRise := 0.0, math.Inf(1)
	for i := range be.res.Configs {
		c := &be.res.Configs[i]
		if c == r || !c.Meets || tier(c) != tier(r) {
			continue
		}
		k, dir, ok := be.cross(p, r, c)
		if !ok {
			continue
		}
		if dir == PriceFalls && k > kFall {
			kFall, bestFall = k, c
		}
		if dir == PriceRises && k < kRise {
			kRise, bestRise = k, c
		}
	}
	out.Falls = be.verify(p, PriceFalls, kFall, bestFall)
	out.Rises = be.verify(p, PriceRises, kRise, bestRise)
	for _, pt := range []*BreakEvenPoint{&out.Falls, &out.Rises} {
		if pt.Exists {
			if c := be.config(pt.TakesOver); c != nil {
				addParts(c)
			}
			pt.Prices = be.pricesAt(p, pt.TakesOver, pt.Factor)
		}
	}

	if b := be.res.Baseline; b != nil && b != r {
		pt := be.pair(p, r, b)
		addParts(b)
		out.VsBaseline = &pt
	}
	for i := range be.res.Configs {
		c := &be.res.Configs[i]
		if c != r && c.Meets {
			pt := be.pair(p, r, c)
			addParts(c)
			out.VsRunnerUp = &pt
			break
		}
	}
	return out
}

// cross returns the factor at which c's fleet cost equals r's, and the
// direction in which the price must move for c to win. ok is false when
// the lines do not cross at a positive factor.
func (be *breakEvener) cross(p *priceLine, r, c *Config) (k float64, dir string, ok bool) {
	br, bc := p.b(r), p.b(c)
	ar, ac := rankCost(r, be.w).Sub(br), rankCost(c, be.w).Sub(bc)
	// c - r = (ac-ar) + (bc-br) k, zero at k = (ar-ac)/(bc-br): exact, the
	// amounts being whole cents.
	db := bc.Sub(br)
	da := ar.Sub(ac)
	if db == 0 || !db.Valid() || !da.Valid() {
		return 0, "", false
	}
	k, _ = new(big.Rat).SetFrac(big.NewInt(da.Cents()), big.NewInt(db.Cents())).Float64()
	if !(k > 0) || math.IsInf(k, 0) {
		return 0, "", false
	}
	if db > 0 {
		// c carries more of this price: it gains as the price falls.
		return k, PriceFalls, true
	}
	return k, PriceRises, true
}

// pair is the pairwise break-even of r against c.
func (be *breakEvener) pair(p *priceLine, r, c *Config) BreakEvenPoint {
	pt := BreakEvenPoint{TakesOver: c.ID, TakesOverLabel: c.Label}
	if tier(c) != tier(r) {
		pt.Note = "ranks below the recommendation on deadline risk, whatever the price"
		return pt
	}
	k, dir, ok := be.cross(p, r, c)
	if !ok {
		pt.Note = "costs more at any price: the price moves both by the same amount or the lines cross only at a non-positive price"
		if rankCost(c, be.w) == rankCost(r, be.w) && p.b(c) == p.b(r) {
			pt.Note = "costs the same at every price of this part (the same parts, differently arranged); it ranks behind on the tie-break"
		}
		if p.b(c) > p.b(r) {
			pt.Direction = PriceFalls
		} else if p.b(c) < p.b(r) {
			pt.Direction = PriceRises
		}
		return pt
	}
	pt.Exists, pt.Factor, pt.Direction, pt.Method = true, k, dir, "analytic"
	pt.Prices = be.pricesAt(p, c.ID, k)
	return pt
}

// verify checks an analytic point by re-running the ranking just either
// side of it, and falls back to bisection when the re-runs disagree.
func (be *breakEvener) verify(p *priceLine, dir string, k float64, taker *Config) BreakEvenPoint {
	pt := BreakEvenPoint{Direction: dir}
	far := float64(breakEvenRange)
	step := 1 + 1e-6
	if taker != nil {
		step = 1 + be.centStep(p, k, taker)
	}
	if dir == PriceFalls {
		far, step = 1/far, 1/step
	}
	r := be.res.Recommended.ID
	if taker == nil || (dir == PriceFalls && k < 1/float64(breakEvenRange)) || (dir == PriceRises && k > breakEvenRange) {
		// No crossing in range: confirm at the far end.
		if id, _ := be.winner(p, far); id == r {
			pt.Method = BreakEvenNone
			if dir == PriceFalls {
				pt.Note = "keeps winning however far this price falls (checked to 1/1000 of today's)"
			} else {
				pt.Note = "keeps winning however far this price rises (checked to 1000 x today's)"
			}
			return pt
		}
		return be.bisect(p, dir, 1, far)
	}
	before, _ := be.winner(p, k/step)
	after, label := be.winner(p, k*step)
	if before == r && after == taker.ID {
		pt.Exists, pt.Factor, pt.TakesOver, pt.TakesOverLabel, pt.Method = true, k, taker.ID, taker.Label, "analytic"
		return pt
	}
	if before == r && after != r && after != "" {
		// Another configuration (absent at today's prices) takes over at the
		// same point.
		pt.Exists, pt.Factor, pt.TakesOver, pt.TakesOverLabel, pt.Method = true, k, after, label, "analytic"
		return pt
	}
	if before == r {
		return be.bisect(p, dir, k/step, far)
	}
	return be.bisect(p, dir, 1, k/step)
}

// centStep is the relative step either side of the factor k at which the
// ranking is re-run: 1e-6, or more when that would move the cheapest
// scaled part of the two configurations by less than two cents. Trial
// prices are whole cents (scaled), so a smaller step would re-price
// nothing and could not tell the two sides apart.
func (be *breakEvener) centStep(p *priceLine, k float64, taker *Config) float64 {
	step := 1e-6
	for _, c := range []*Config{be.res.Recommended, taker} {
		for _, pt := range p.parts(c) {
			if u := pt.Price.Cents(); u > 0 {
				step = max(step, 2/(float64(u)*k))
			}
		}
	}
	return step
}

// bisect finds, between in (where the recommendation wins) and out, the
// factor at which it stops winning, on a log scale.
func (be *breakEvener) bisect(p *priceLine, dir string, in, out float64) BreakEvenPoint {
	pt := BreakEvenPoint{Direction: dir, Method: "bisection"}
	r := be.res.Recommended.ID
	id, label := be.winner(p, out)
	if id == r {
		pt.Note = "keeps winning across the searched range"
		pt.Method = ""
		return pt
	}
	for i := 0; i < 100 && math.Abs(math.Log(out/in)) > 1e-7; i++ {
		mid := math.Sqrt(in * out)
		if w, l := be.winner(p, mid); w == r {
			in = mid
		} else {
			out, id, label = mid, w, l
		}
		if be.err != nil {
			break
		}
	}
	pt.Exists, pt.Factor, pt.TakesOver, pt.TakesOverLabel = true, math.Sqrt(in*out), id, label
	pt.Prices = be.pricesAt(p, id, pt.Factor)
	return pt
}

// winner re-runs the ranking with the price scaled by k and returns the
// recommended configuration's ID and label ("" when nothing meets).
func (be *breakEvener) winner(p *priceLine, k float64) (string, string) {
	res, err := recommend(be.in, p.scale(k))
	if err != nil {
		if be.err == nil {
			be.err = fmt.Errorf("break-even at %.4g x today's price: %w", k, err)
		}
		return "", ""
	}
	if res.Recommended == nil {
		return "", ""
	}
	return res.Recommended.ID, res.Recommended.Label
}

func (be *breakEvener) config(id string) *Config {
	for i := range be.res.Configs {
		if be.res.Configs[i].ID == id {
			return &be.res.Configs[i]
		}
	}
	return nil
}

// pricesAt lists the scaled parts of the recommendation and of the
// configuration id at factor k.
func (be *breakEvener) pricesAt(p *priceLine, id string, k float64) []PartPrice {
	var out []PartPrice
	seen := map[string]bool{}
	for _, c := range []*Config{be.res.Recommended, be.config(id)} {
		if c == nil {
			continue
		}
		for _, pt := range p.parts(c) {
			if !seen[pt.SKU] {
				seen[pt.SKU] = true
				out = append(out, partPrice(p.kind, pt, k))
			}
		}
	}
	return out
}

func partPrice(kind partKind, p Part, k float64) PartPrice {
	// The unit price at the point is a trial price: rounded half to even
	// to the cent as the re-run ranking prices it (scaled).
	pp := PartPrice{SKU: p.SKU, Model: p.Model, Unit: scaled(p.Price, k)}
	if p.Capacity > 0 {
		gb := float64(p.Capacity) / 1e9 // drives: decimal GB
		if kind == kindDIMM {
			gb = p.Capacity.GiBf() // a "64 GB" DIMM holds 64 GiB
		}
		pp.PerGB = pp.Unit.Float() / gb
	}
	return pp
}
