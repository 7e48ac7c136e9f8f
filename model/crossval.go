package model

import (
	"math"
	"sort"
	"strings"
)

// CrossvalRow is one leave-one-out check: a curve point predicted from
// another curve of the factor set, carried to the held-out curve's own
// device and load, with the transfer error re-estimated without the
// held-out curve.
type CrossvalRow struct {
	Class      string  `json:"class"`
	Provenance string  `json:"provenance"`
	Fit        float64 `json:"fit"`
	Actual     float64 `json:"actual"`
	From       string  `json:"from"`
	// FromInferred marks a prediction made from an inferred (one-pass)
	// curve: how far the one pass and the transfer together can be trusted.
	FromInferred bool    `json:"from_inferred,omitempty"`
	Predicted    float64 `json:"predicted"`
	Low          float64 `json:"low"`
	High         float64 `json:"high"`
	// ErrSlowdown is predicted/actual - 1; ErrExcess the same of the
	// excess (slowdown - 1).
	ErrSlowdown float64 `json:"error_slowdown"`
	ErrExcess   float64 `json:"error_excess"`
	Inside      bool    `json:"inside"`
	// Transfer is the transfer's log error the band carries, learnt from
	// the curves other than the held-out one.
	Transfer float64 `json:"transfer_log_error"`
}

// JointRow is a held-out point predicted jointly from all the other curves
// (Crossval.Joint). It carries no transfer error: its band is the spread
// over the combinations of the unknowns the other curves allow.
type JointRow struct {
	CrossvalRow
	Transfer *float64 `json:"transfer_log_error,omitempty"`
	// Consistent and Scenarios: how many combinations of the unknowns the
	// other curves allow, of how many there are. Zero means they contradict
	// each other under every one; the band then spans the combinations
	// within one tolerance of the best explanation (Misfit).
	Consistent int `json:"consistent_scenarios"`
	Scenarios  int `json:"scenarios"`
	// Misfit is the best combination's largest disagreement between the
	// other curves, in units of their combined uncertainty (at most 1:
	// they agree).
	Misfit float64 `json:"misfit"`
}

// Crossval is the leave-one-out table of a factor set.
type Crossval struct {
	Rows []CrossvalRow `json:"rows"`
	// TransferError is the log error the whole set forces (what recommend
	// uses for derived classes).
	TransferFloor float64 `json:"transfer_log_error_floor"`
	TransferSlope float64 `json:"transfer_log_error_slope"`
	Inside        int     `json:"inside"`
	// Joint predicts each held-out point from all the other curves at
	// once: the unknowns (shape, overhead, the references' ranges) are
	// limited to the combinations under which those curves agree with
	// each other, and the band is the spread of the held-out point's
	// prediction over them, widened by the source points' own
	// uncertainty. It is as wide as the other curves leave it.
	Joint       []JointRow `json:"joint"`
	JointInside int        `json:"joint_inside"`
	// Inferred lists the inferred curves: predicted from, never held out.
	Inferred []string `json:"inferred,omitempty"`
}

// CrossValidate predicts every published or measured point of fs from each
// of the other curves, inferred ones included; inferred points are not
// held out (observedClasses).
func CrossValidate(fs *Factors) Crossval {
	te := fs.TransferError()
	out := Crossval{TransferFloor: te.Floor, TransferSlope: te.Slope}
	classes := fs.transferClasses()
	for _, k := range classes {
		if fs.Curves[k].Provenance == Inferred {
			out.Inferred = append(out.Inferred, k)
		}
	}
	for _, held := range fs.observedClasses() {
		c := fs.Curves[held]
		rest := fs.without(held)
		for _, from := range classes {
			if from == held {
				continue
			}
			src := fs.Curves[from]
			ref := fs.refPath(c)
			p := rest.prepareCurve(src, true, ref.Dev, ref.Jobs, ref.Dirty, "", 0)
			for _, pt := range c.Points {
				if pt.Slowdown <= 1 {
					continue
				}
				est := p.at(pt.Fit)
				r := CrossvalRow{Class: held, Provenance: c.Provenance, Fit: pt.Fit, Actual: pt.Slowdown, From: from, FromInferred: src.Provenance == Inferred,
					Predicted: est.Slowdown, Low: est.Low, High: est.High, Transfer: p.transfer,
					ErrSlowdown: est.Slowdown/pt.Slowdown - 1, ErrExcess: (est.Slowdown-1)/(pt.Slowdown-1) - 1}
				r.Inside = est.Low <= pt.Slowdown && pt.Slowdown <= est.High
				if r.Inside {
					out.Inside++
				}
				out.Rows = append(out.Rows, r)
			}
		}
	}
	for _, held := range fs.observedClasses() {
		for _, r := range fs.jointRows(held) {
			if r.Inside {
				out.JointInside++
			}
			out.Joint = append(out.Joint, r)
		}
	}
	sortRows(out.Rows, func(i int) CrossvalRow { return out.Rows[i] })
	sortRows(out.Joint, func(i int) CrossvalRow { return out.Joint[i].CrossvalRow })
	return out
}

func sortRows[T any](rows []T, row func(int) CrossvalRow) {
	sort.SliceStable(rows, func(a, b int) bool {
		x, y := row(a), row(b)
		if x.Class != y.Class {
			return x.Class < y.Class
		}
		if x.Fit != y.Fit {
			return x.Fit > y.Fit
		}
		return x.From < y.From
	})
}

// jointRows predicts the held-out curve's points from every other curve at
// once (Crossval.Joint).
func (fs *Factors) jointRows(held string) []JointRow {
	c := fs.Curves[held]
	rest := fs.without(held)
	sources := rest.transferClasses()
	if len(sources) == 0 {
		return nil
	}
	observed := rest.observedClasses()
	grid := fs.scenarioGrid(true)
	// cost is how far the other observed curves are from agreeing under s:
	// the largest pair error in units of the two points' combined
	// uncertainty (at most 1: they agree).
	costs := make([]float64, len(grid))
	for i, s := range grid {
		for _, a := range observed {
			for _, b := range observed {
				if a != b {
					costs[i] = math.Max(costs[i], rest.pairCost(rest.Curves[a], rest.Curves[b], s))
				}
			}
		}
	}
	bestAt := 0
	for i := range grid {
		if costs[i] < costs[bestAt] {
			bestAt = i
		}
	}
	// Where the others agree, the band spans every combination under which
	// they do. Where they never do, it spans those within one tolerance of
	// the best explanation: wider, not narrower, for the contradiction.
	limit := 1.0
	if costs[bestAt] > 1 {
		limit = costs[bestAt] + 1
	}
	var kept []int
	consistent := 0
	for i := range grid {
		if costs[i] <= 1 {
			consistent++
		}
		if costs[i] <= limit {
			kept = append(kept, i)
		}
	}
	// Each source carried to the held-out curve's reference once per kept
	// combination (an inferred one also with its band's ends, its points'
	// own uncertainty then being 0); every held-out point reads them.
	type carried struct {
		src *Curve
		s   scenario
		pts []pointModel
	}
	var runs []carried
	fromInferred := false
	for _, k := range sources {
		src := rest.Curves[k]
		bands := []int{0}
		if src.Provenance == Inferred {
			fromInferred = true
			bands = []int{-1, 0, 1}
		}
		for _, i := range kept {
			for _, b := range bands {
				s := grid[i]
				s.band = b
				runs = append(runs, carried{src, s, rest.carry(src, fs.refScenario(c, s), s, false)})
			}
		}
	}
	var rows []JointRow
	for _, pt := range c.Points {
		act := pt.Slowdown - 1
		if act <= 0 {
			continue
		}
		lo, hi := math.Inf(1), 0.0
		var all []float64 // every kept combination's prediction, for the median
		for _, r := range runs {
			ex, _, _ := excessAt(r.pts, r.s.shape, pt.Fit)
			if ex <= 0 {
				continue
			}
			u := math.Log1p(pointUnc(r.src, nearestPoint(r.src, pt.Fit)))
			if len(observed) < 2 {
				// One other curve checks nothing against anything: the
				// model's own error is then the prior the transfer
				// error starts from, as for recommend.
				u = math.Hypot(u, fallbackTransferError)
			}
			lo, hi = math.Min(lo, ex*math.Exp(-u)), math.Max(hi, ex*math.Exp(u))
			if r.s.band == 0 {
				all = append(all, ex)
			}
		}
		if len(all) == 0 {
			continue
		}
		// The central figure is the median over the combinations the others
		// allow: many fit them equally well, so the single best is an
		// accident of the search.
		sort.Float64s(all)
		central := all[len(all)/2]
		r := JointRow{CrossvalRow: CrossvalRow{Class: held, Provenance: c.Provenance, Fit: pt.Fit, Actual: pt.Slowdown, From: strings.Join(sources, "+"), FromInferred: fromInferred,
			Predicted: 1 + central, Low: 1 + math.Min(lo, central), High: 1 + math.Max(hi, central),
			ErrSlowdown: (1+central)/pt.Slowdown - 1, ErrExcess: central/act - 1},
			Consistent: consistent, Scenarios: len(grid), Misfit: costs[bestAt]}
		r.Inside = r.Low <= pt.Slowdown && pt.Slowdown <= r.High
		rows = append(rows, r)
	}
	return rows
}

// minTolerance is the least combined uncertainty two points are held to
// (a factor of 1.05): a zero-width interval would otherwise make every
// disagreement infinite.
var minTolerance = math.Log(1.05)

// pairCost is how far a's curve carried to b's reference under s misses
// b's points, each error in units of the two points' combined uncertainty
// (a's nearest point and b's own).
func (fs *Factors) pairCost(a, b *Curve, s scenario) float64 {
	worst := 0.0
	for _, e := range fs.pairErrors(a, b, s) {
		tol := math.Max(minTolerance, math.Hypot(math.Log1p(pointUnc(a, nearestPoint(a, e.point.Fit))), math.Log1p(pointUnc(b, e.point))))
		worst = math.Max(worst, math.Abs(e.log)/tol)
	}
	return worst
}

// nearestPoint is c's point nearest fit f.
func nearestPoint(c *Curve, f float64) Point {
	best := c.Points[0]
	for _, p := range c.Points[1:] {
		if math.Abs(p.Fit-f) < math.Abs(best.Fit-f) {
			best = p
		}
	}
	return best
}

// without is fs less one curve, with its own transfer error.
func (fs *Factors) without(class string) *Factors {
	cp := *fs
	cp.Curves = map[string]*Curve{}
	for k, v := range fs.Curves {
		if k != class {
			cp.Curves[k] = v
		}
	}
	cp.transfer = &transferCache{}
	return &cp
}
