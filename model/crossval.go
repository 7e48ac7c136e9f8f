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
	// Consistent and Scenarios (joint rows): how many combinations of the
	// unknowns the other curves allow, of how many there are. Zero allowed
	// means the other curves contradict each other under every one; the
	// band is then that of the combinations that explain them best.
	Consistent int `json:"consistent_scenarios,omitempty"`
	Scenarios  int `json:"scenarios,omitempty"`
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
	Joint       []CrossvalRow `json:"joint"`
	JointInside int           `json:"joint_inside"`
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
	sortRows(out.Rows)
	sortRows(out.Joint)
	return out
}

func sortRows(rows []CrossvalRow) {
	sort.SliceStable(rows, func(a, b int) bool {
		x, y := rows[a], rows[b]
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
func (fs *Factors) jointRows(held string) []CrossvalRow {
	c := fs.Curves[held]
	rest := fs.without(held)
	sources := rest.transferClasses()
	if len(sources) == 0 {
		return nil
	}
	observed := rest.observedClasses()
	grid := fs.scenarioGrid()
	// cost is how far the other observed curves are from agreeing under s:
	// the largest pair error in units of the two points' combined
	// uncertainty (at most 1: they agree).
	costs := make([]float64, len(grid))
	for i, s := range grid {
		for _, a := range observed {
			for _, b := range observed {
				if a == b {
					continue
				}
				ca, cb := rest.Curves[a], rest.Curves[b]
				tol := math.Hypot(math.Log1p(pointUnc(ca, ca.Points[0])), math.Log1p(pointUnc(cb, cb.Points[0])))
				for _, e := range rest.pairErrors(ca, cb, s) {
					costs[i] = math.Max(costs[i], math.Abs(e)/tol)
				}
			}
		}
	}
	best, bestAt := math.Inf(1), 0
	for i, s := range grid {
		// On a tie the combination nearest the stated figures wins.
		if k := costs[i] + 1e-9*s.distance(fs); k < best {
			best, bestAt = k, i
		}
	}
	limit := math.Max(1, best*1.1)
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
	var rows []CrossvalRow
	for _, pt := range c.Points {
		act := pt.Slowdown - 1
		if act <= 0 {
			continue
		}
		lo, hi := math.Inf(1), 0.0
		logSum, n := 0.0, 0
		fromInferred := false
		predict := func(s scenario, src *Curve) float64 {
			pts := rest.carry(src, fs.refScenario(c, s), s, false)
			ex, _, _ := excessAt(pts, s.shape, pt.Fit)
			return ex
		}
		for _, k := range sources {
			src := rest.Curves[k]
			fromInferred = fromInferred || src.Provenance == Inferred
			u := math.Log1p(pointUnc(src, src.Points[0]))
			for _, i := range kept {
				ex := predict(grid[i], src)
				if ex <= 0 {
					continue
				}
				lo, hi = math.Min(lo, ex*math.Exp(-u)), math.Max(hi, ex*math.Exp(u))
			}
			if ex := predict(grid[bestAt], src); ex > 0 {
				logSum += math.Log(ex)
				n++
			}
		}
		if n == 0 {
			continue
		}
		central := math.Exp(logSum / float64(n))
		r := CrossvalRow{Class: held, Provenance: c.Provenance, Fit: pt.Fit, Actual: pt.Slowdown, From: strings.Join(sources, "+"), FromInferred: fromInferred,
			Predicted: 1 + central, Low: 1 + math.Min(lo, central), High: 1 + math.Max(hi, central),
			ErrSlowdown: (1+central)/pt.Slowdown - 1, ErrExcess: central/act - 1, Consistent: consistent, Scenarios: len(grid)}
		r.Inside = r.Low <= pt.Slowdown && pt.Slowdown <= r.High
		rows = append(rows, r)
	}
	return rows
}

// distance is how far s is from the stated figures (the nominal shape and
// overhead, every range at its stated point), to break ties.
func (s scenario) distance(fs *Factors) float64 {
	d := math.Abs(s.dirtyPos) + math.Abs(s.writePos) + math.Abs(s.localityPos)
	if s.shape.Name != NominalShape {
		d++
	}
	if s.overhead != fs.FaultOverhead.D() {
		d++
	}
	return d
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
