package model

import (
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/factors"
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
	// PassDown and PassUp are the check's power: the held-out point would
	// have passed with its excess (slowdown - 1) anywhere from PassDown to
	// PassUp times the real one (the band's ends over the actual).
	PassDown float64 `json:"pass_excess_down"`
	PassUp   float64 `json:"pass_excess_up"`
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
	// JointErrorRMS is the root mean square of ln(predicted/actual excess)
	// over the joint rows: how far a figure derived from the other curves
	// has really missed (what --uncertainty's draws are at least as wide
	// as). Zero without joint rows.
	JointErrorRMS float64 `json:"joint_error_rms_log_excess"`
	// Inferred lists the inferred curves: predicted from, never held out.
	Inferred []string `json:"inferred,omitempty"`
}

// CrossValidate predicts every published or measured point of fs from each
// of the other curves, inferred ones included; inferred points are not
// held out (observedClasses).
func CrossValidate(fs *Factors) Crossval {
	fs.revalidate()
	te := fs.cachedTransferError()
	out := Crossval{TransferFloor: te.Floor, TransferSlope: te.Slope}
	classes := fs.transferClasses()
	for _, k := range classes {
		if fs.Curves[k].Provenance == factors.Inferred {
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
			p := rest.prepareCurve(src, true, ref.Dev, ref.Jobs, ref.Dirty, "", 0, nil, nil)
			for _, pt := range c.Points {
				if pt.Slowdown <= 1 || pt.Source == factors.PointSampler {
					// A sampler's figure is not an observation.
					continue
				}
				est := p.at(pt.Fit)
				r := CrossvalRow{Class: held, Provenance: c.Provenance, Fit: pt.Fit, Actual: pt.Slowdown, From: from, FromInferred: src.Provenance == factors.Inferred,
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
	out.Joint, out.JointErrorRMS = fs.jointTable()
	for i := range out.Joint {
		r := &out.Joint[i]
		if r.Inside {
			out.JointInside++
		}
		if ex := r.Actual - 1; ex > 0 {
			r.PassDown, r.PassUp = (r.Low-1)/ex, (r.High-1)/ex
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

// jointRows predicts the held-out curve's points as recommend predicts a
// class without a curve of its own (Crossval.Joint): the factor set less
// the held-out curve, every other curve as the sources, the held-out
// curve's device, load and dirty share as the target, the target overhead
// recommend would give its class, and no access pattern. The band is the
// one recommend prints for that device (prepareCurve is the same call;
// TestCrossvalBandIsRecommends).
func (fs *Factors) jointRows(held string) []JointRow {
	c := fs.Curves[held]
	rest, set := fs.heldOut(held)
	if len(set.sources) == 0 {
		return nil
	}
	var names []string
	fromInferred := false
	for _, s := range set.sources {
		names = append(names, s.Class)
		fromInferred = fromInferred || s.Provenance == factors.Inferred
	}
	ref := fs.refPath(c)
	p := rest.prepareCurve(rest.Curves[rest.TransferFrom], true, ref.Dev, ref.Jobs, ref.Dirty, "", 0, &set, rest.targetOverhead(held))
	var rows []JointRow
	for _, pt := range c.Points {
		act := pt.Slowdown - 1
		if act <= 0 {
			continue
		}
		est := p.at(pt.Fit)
		if !(est.High > 1) {
			continue
		}
		r := JointRow{CrossvalRow: CrossvalRow{Class: held, Provenance: c.Provenance, Fit: pt.Fit, Actual: pt.Slowdown, From: strings.Join(names, "+"), FromInferred: fromInferred,
			Predicted: est.Slowdown, Low: est.Low, High: est.High,
			ErrSlowdown: est.Slowdown/pt.Slowdown - 1, ErrExcess: (est.Slowdown-1)/act - 1},
			Consistent: p.agreed.consistent, Scenarios: p.agreed.scenarios, Misfit: p.agreed.misfit}
		if len(p.joint) == 0 {
			// Derived from one curve: its band carries the transfer error.
			r.Transfer = &p.transfer
		}
		r.Inside = r.Low <= pt.Slowdown && pt.Slowdown <= r.High
		rows = append(rows, r)
	}
	return rows
}

// jointTable is every observed curve's joint rows (jointRows), in
// observedClasses order, and the root mean square of their log errors in
// excess (Crossval.JointErrorRMS). It is the part of CrossValidate that
// derivedSigma reads, without the table of single-source rows.
func (fs *Factors) jointTable() (rows []JointRow, rms float64) {
	var sq float64
	n := 0
	for _, held := range fs.observedClasses() {
		for _, r := range fs.jointRows(held) {
			if r.ErrExcess > -1 {
				l := math.Log1p(r.ErrExcess)
				sq += l * l
				n++
			}
			rows = append(rows, r)
		}
	}
	if n > 0 {
		rms = math.Sqrt(sq / float64(n))
	}
	return rows, rms
}

// heldOut is fs less the held-out class, as recommend would see a factor
// set without it, and the curves its joint band comes from: every other
// curve crossval checks. Its transfer_from is fs's where that is not the
// held-out class, else the first other observed curve. The set is the
// job's own (jointSet.job) when every source comes from the held-out
// curve's file: a file's curves are one workload on several devices (the
// Intel study's EDA jobs, one profile, one probe), so the held-out point
// is the sources' job, and recommend, given that file as the job's
// profile, lets their agreement set its shape.
func (fs *Factors) heldOut(held string) (*Factors, jointSet) {
	rest := fs.without(held)
	var set jointSet
	for _, k := range rest.transferClasses() {
		set.sources = append(set.sources, rest.Curves[k])
	}
	if _, ok := rest.Curves[rest.TransferFrom]; !ok || rest.TransferFrom == "" {
		rest.TransferFrom = ""
		for _, k := range rest.observedClasses() {
			rest.TransferFrom = k
			break
		}
		if rest.TransferFrom == "" && len(set.sources) > 0 {
			rest.TransferFrom = set.sources[0].Class
		}
	}
	origin := fs.Origin[held]
	set.job = true
	for _, s := range set.sources {
		set.job = set.job && fs.Origin[s.Class] == origin
	}
	return rest, set
}

// minTolerance is the least combined uncertainty two points are held to
// (a factor of 1.05): a zero-width interval would otherwise make every
// disagreement infinite.
var minTolerance = math.Log(1.05)

// pairCost is how far a's curve carried to b's reference under s misses
// b's points, each error in units of the two points' combined uncertainty
// (a's nearest point and b's own).
func (fs *Factors) pairCost(a, b *factors.Curve, s scenario) float64 {
	worst := 0.0
	for _, e := range fs.pairErrors(a, b, s) {
		tol := max(minTolerance, math.Hypot(math.Log1p(pointUnc(a, nearestPoint(a, e.point.Fit))), math.Log1p(pointUnc(b, e.point))))
		worst = max(worst, math.Abs(e.log)/tol)
	}
	return worst
}

// nearestPoint is c's point nearest fit f.
func nearestPoint(c *factors.Curve, f float64) factors.Point {
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
	cp.Curves = map[string]*factors.Curve{}
	for k, v := range fs.Curves {
		if k != class {
			cp.Curves[k] = v
		}
	}
	cp.newCaches()
	return &cp
}
