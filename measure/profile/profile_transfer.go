//go:build linux

package profile

import (
	"fmt"
	"math"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// How a profile's curve is carried to another device (docs/profile.md).
const (
	// TransferRatio is the model's rule with its defaults: the excess
	// slowdown scales with the ratio of per-page service times, each the
	// model's fixed software overhead plus the device's time, one fault per
	// page.
	TransferRatio = "ratio"
	// TransferFaults is the same rule with what the profile measured: the
	// software cost of a page swapped in on this host (calibrated on the
	// profiled backend) and the command's readahead on block devices.
	// Written as the profile's fault_overhead and readahead, the model's
	// rule computes it.
	TransferFaults = "faults"
)

// DefaultTransfer is the form a profile uses when it was not validated:
// the one that predicted better on the machine docs/profile.md reports.
const DefaultTransfer = TransferFaults

// TransferSummary is what the profile measured about the cost of a page
// swapped in on its backend, and which form carries the curve to other
// devices.
type TransferSummary struct {
	// PerFault is the extra wall time per major fault: the least-squares
	// slope, over every complete constrained run, of its excess over the
	// in-RAM runs next to it on its major faults (measure.FitPerFault);
	// PerFaultSE is its standard error. 0 when the runs were not slower.
	PerFault   float64 `json:"measured_us_per_fault"`
	PerFaultSE float64 `json:"measured_us_per_fault_se,omitempty"`
	// FaultsCounted and FitRuns are the major faults and the runs the fit
	// rests on.
	FaultsCounted float64 `json:"major_faults_counted"`
	FitRuns       int     `json:"fit_runs"`
	// PerPage is the extra wall time per page swapped in, fitted the same
	// way.
	PerPage float64 `json:"measured_us_per_page"`
	// DeviceTime is the backend's own share of PerPage by the model: read
	// latency + dirty share x write latency on zram, faults per page x read
	// latency on a block device (or its IOPS bound).
	DeviceTime float64 `json:"device_us_per_page"`
	// Calibrated is the rest: the software cost of a page swapped in on
	// this host (trap, reclaim, swap cache, page tables), at least 0.
	Calibrated float64 `json:"calibrated_fault_overhead_us"`
	// ModelOverhead is the model's default software cost per fault.
	ModelOverhead float64 `json:"model_fault_overhead_us"`
	// Readahead is the command's faults and pages read on a block device
	// per page it needs back, and what it was measured on.
	Readahead       factors.Readahead `json:"readahead"`
	ReadaheadSource string            `json:"readahead_source"`
	Method          string            `json:"method"`
	Why             string            `json:"why"`
	// FaultOverhead is what the profile writes as fault_overhead.
	FaultOverhead units.Duration `json:"fault_overhead"`
}

// modelOverhead is the software cost per fault the model assumes unless a
// factor file says otherwise.
func modelOverhead() time.Duration {
	if d := model.DefaultFactors().FaultOverhead.D(); d > 0 {
		return d
	}
	return 2 * time.Microsecond
}

// phaseDevice is the model's device for a phase's reference.
func phaseDevice(ph *Phase) model.Device {
	c := factors.Curve{Class: ph.Class, Reference: ph.Reference}
	d := model.RefDevice(&c)
	d.Memory = ph.Backend == measure.BackendZram
	return d
}

// serviceTime is model.ServiceTime for one job (the profile runs one
// command at a time).
func serviceTime(ph *Phase, dirty float64, overhead time.Duration, ra factors.Readahead) float64 {
	return model.ServiceTime(phaseDevice(ph), 1, dirty, overhead, ra)
}

// pagesIn is the pages a point's runs swapped in (major faults when the
// kernel counted no swap-ins).
func pagesIn(pt *Point) float64 {
	if pt.SwapIns > 0 {
		return pt.SwapIns
	}
	return pt.MajFlt
}

// phaseTotals sums the excess wall time over the in-RAM runtime, the major
// faults and the pages swapped in over a phase's points that have them.
func phaseTotals(ph *Phase) (excess, faults, pages float64) {
	base := ph.Baseline()
	for i := range ph.Points {
		pt := &ph.Points[i]
		if pt.MajFlt > 0 && pt.Wall > 0 {
			excess += pt.Wall - base
			faults += pt.MajFlt
			pages += pagesIn(pt)
		}
	}
	return excess, faults, pages
}

// phaseReadahead is the readahead a block-device phase shows in its own
// runs: its major faults per page swapped in.
func phaseReadahead(ph *Phase) factors.Readahead {
	_, faults, pages := phaseTotals(ph)
	if ph.Backend == measure.BackendZram || pages <= 0 || faults <= 0 {
		return factors.Readahead{}
	}
	return factors.Readahead{Faults: measure.Round4(math.Min(1, faults/pages)), Pages: 1}
}

// phaseFit fits every complete constrained run's excess wall time over the
// in-RAM runs next to it on its major faults, and on its pages swapped in
// (major faults where the kernel counted no swap-ins): the cost of a fault
// and of a page over all runs, so that no single point's mean sets it.
func phaseFit(ph *Phase) (perFault, perPage measure.Regression) {
	seq, wall, _ := measure.PerRun.Series(ph.InRAMRuns)
	var faults, pages, excess []float64
	for _, pt := range ph.Points {
		for _, r := range pt.Runs {
			if r.Failed != "" || r.Censored {
				continue
			}
			b := measure.PairedBase(r.Seq, seq, wall)
			if b <= 0 {
				b = ph.Baseline()
			}
			n := float64(r.SwapIn)
			if n <= 0 {
				n = float64(r.MajFlt)
			}
			faults = append(faults, float64(r.MajFlt))
			pages = append(pages, n)
			excess = append(excess, r.Wall-b)
		}
	}
	return measure.FitPerFault(faults, excess), measure.FitPerFault(pages, excess)
}

// overheadPerPage is the software time per page swapped in: what the
// fitted cost of a page leaves after the device's time.
func overheadPerPage(a *Phase, dirty float64, ra factors.Readahead) float64 {
	_, perPage := phaseFit(a)
	if perPage.Slope <= 0 {
		return 0
	}
	return math.Max(0, perPage.Slope-serviceTime(a, dirty, 0, ra))
}

func transferSummary(a *Phase, dirty float64, rr *ReadaheadReport) TransferSummary {
	t := TransferSummary{ModelOverhead: us(modelOverhead().Seconds())}
	switch {
	case a.Backend == measure.BackendFile:
		t.Readahead = phaseReadahead(a)
		t.ReadaheadSource = "the swap file's own runs (major faults per page swapped in)"
	case rr != nil && rr.Faults > 0:
		t.Readahead = factors.Readahead{Faults: rr.Faults, Pages: rr.Pages}
		t.ReadaheadSource = "measured on " + rr.Device
	default:
		t.ReadaheadSource = "not measured: one major fault per page on block devices"
	}
	perFault, perPage := phaseFit(a)
	t.FaultsCounted, t.FitRuns = perFault.Faults, perFault.Runs
	if perFault.Slope > 0 && perPage.Slope > 0 {
		t.PerFault, t.PerFaultSE = us(perFault.Slope), us(perFault.SE)
		t.PerPage = us(perPage.Slope)
	}
	t.DeviceTime = us(serviceTime(a, dirty, 0, t.Readahead))
	t.Calibrated = us(overheadPerPage(a, dirty, t.Readahead))
	return t
}

// oneRun words the choice for a one-run profile: it has no whole runs at
// one limit to fit a cost per fault to (phaseFit finds none), which is
// not the same as having counted no faults; faults are the run's total.
func (t *TransferSummary) oneRun(faults int64) {
	if t.PerFault != 0 || t.FaultsCounted != 0 {
		return
	}
	t.Why = fmt.Sprintf("one run: its %d major faults came in slices under a changing limit, not in whole runs at one limit that a cost per fault can be fitted to; the model's service-time ratio applies", faults)
}

func us(s float64) float64 { return measure.Round4(s * 1e6) }

// choose picks the transfer form: the one that predicted the validation
// backend better, else the default.
func (t *TransferSummary) choose(v *Validation) {
	t.Method = DefaultTransfer
	t.Why = "not validated on this host; " + DefaultTransfer + " is the form that predicted better where memplan was validated (docs/profile.md)"
	if v != nil && v.Better != "" {
		t.Method = v.Better
		t.Why = fmt.Sprintf("validated on %s: mean error %.0f%% (measured overhead and readahead) vs %.0f%% (the model's %.3gus overhead, no readahead)",
			v.To, 100*v.FaultsMAE, 100*v.RatioMAE, t.ModelOverhead)
	}
	if t.PerFault == 0 {
		t.Method = TransferRatio
		if t.FaultsCounted == 0 {
			t.Why = "the constrained runs counted no major faults, so there is nothing to calibrate; the model's service-time ratio applies"
		} else {
			t.Why = fmt.Sprintf("%.0f major faults were counted over %d runs, but the runs were not slower than the in-RAM runs next to them, so there is nothing to calibrate; the model's service-time ratio applies",
				t.FaultsCounted, t.FitRuns)
		}
	}
	o := t.ModelOverhead
	if t.Method == TransferFaults {
		// Written as at least 0.01us: a zero would be read as "not set"
		// and replaced by the model's default.
		o = math.Max(t.Calibrated, 0.01)
	} else {
		t.Readahead = factors.Readahead{}
	}
	t.FaultOverhead = units.Duration(math.Round(o * 1e3))
}

// Validation compares the slowdown measured on a second backend with what
// the model predicts for it from the first, with its defaults and with what
// the profile measured.
type Validation struct {
	From      string            `json:"from"`
	To        string            `json:"to"`
	ToClass   string            `json:"to_class"`
	Reference factors.Reference `json:"to_reference"`
	Dirty     float64           `json:"dirty_share"`
	Readahead factors.Readahead `json:"readahead"`
	Rows      []ValidationRow   `json:"rows"`
	// Mean and largest absolute relative error of the predicted slowdown,
	// per form, over the rows whose runs all finished.
	RatioMAE  float64 `json:"ratio_mean_abs_error"`
	RatioMax  float64 `json:"ratio_max_abs_error"`
	FaultsMAE float64 `json:"faults_mean_abs_error"`
	FaultsMax float64 `json:"faults_max_abs_error"`
	// OwnMAE is the diagnostic's mean absolute error; it takes no part in
	// the choice.
	OwnMAE float64 `json:"own_counts_mean_abs_error"`
	Better string  `json:"better"`
}

// ValidationRow is one fit ratio: measured on both backends, predicted for
// the second from the first. Errors are (predicted - measured) / measured.
type ValidationRow struct {
	Fit          float64 `json:"fit"`
	MeasuredFrom float64 `json:"measured_from"`
	Measured     float64 `json:"measured"`
	MeasuredLo   float64 `json:"measured_ci_low"`
	MeasuredHi   float64 `json:"measured_ci_high"`
	Capped       bool    `json:"capped,omitempty"` // runs hit the time cap: measured is a lower bound
	FaultsFrom   float64 `json:"major_faults_from"`
	FaultsTo     float64 `json:"major_faults_to"`
	PagesFrom    float64 `json:"pages_in_from"`
	PagesTo      float64 `json:"pages_in_to"`

	// Ratio is the model with its defaults (the default factors' overhead per fault, one fault per
	// page); Faults the model with the profile's fault_overhead and
	// readahead: what recommend computes from the profile.
	Ratio     float64 `json:"ratio_predicted"`
	RatioLo   float64 `json:"ratio_low"`
	RatioHi   float64 `json:"ratio_high"`
	RatioErr  float64 `json:"ratio_error"`
	Faults    float64 `json:"faults_predicted"`
	FaultsLo  float64 `json:"faults_low"`
	FaultsHi  float64 `json:"faults_high"`
	FaultsErr float64 `json:"faults_error"`
	// Own predicts from the second backend's own measured counts: pages
	// swapped in x the calibrated overhead + major faults x its read
	// latency. Its error is the cost model's alone, with the counts right.
	Own    float64 `json:"own_counts_predicted"`
	OwnErr float64 `json:"own_counts_error"`
}

// validate predicts phase b's slowdowns from phase a's measurements and b's
// device, and compares them with what b measured. o is the calibrated
// overhead per page, ra the readahead the profile carries, rr the
// readahead runs (nil when not measured).
func validate(a, b *Phase, dirty float64, o time.Duration, ra factors.Readahead, rr *ReadaheadReport) Validation {
	v := Validation{From: a.Name, To: b.Name, ToClass: b.Class, Reference: b.Reference, Dirty: dirty, Readahead: ra}
	o0 := modelOverhead()
	stA0, stB0 := serviceTime(a, dirty, o0, factors.Readahead{}), serviceTime(b, dirty, o0, factors.Readahead{})
	readB := serviceTime(b, dirty, 0, factors.Readahead{})
	devB := phaseDevice(b)
	curveA := factors.Curve{Class: a.Class, Provenance: factors.Measured, Host: "this host", Reference: a.Reference}
	curveA.Points, _ = curvePoints(a, rr, true)
	fs := &model.Factors{Curves: map[string]*factors.Curve{a.Class: &curveA}, TransferFrom: a.Class,
		FaultOverhead: units.Duration(o), Readahead: ra}
	// Both forms predict the excess time; it is compared with what the
	// second backend measured over the in-RAM runtime measured alongside
	// it, so that the host getting busier or quieter between the two
	// phases does not count as an error of the model.
	baseA, base := a.Baseline(), b.Baseline()
	var n float64
	for i := range a.Points {
		pa := &a.Points[i]
		var pb *Point
		for j := range b.Points {
			if b.Points[j].Fit == pa.Fit {
				pb = &b.Points[j]
			}
		}
		if pb == nil || pa.Slowdown.N == 0 || pb.Slowdown.N == 0 || base <= 0 || baseA <= 0 {
			continue
		}
		r := ValidationRow{Fit: pa.Fit, MeasuredFrom: measure.Round4(pa.Slowdown.Mean), Measured: measure.Round4(pb.Slowdown.Mean),
			MeasuredLo: measure.Round4(pb.Slowdown.Lo), MeasuredHi: measure.Round4(pb.Slowdown.Hi), Capped: pb.Censored > 0,
			FaultsFrom: math.Round(pa.MajFlt), FaultsTo: math.Round(pb.MajFlt),
			PagesFrom: math.Round(pagesIn(pa)), PagesTo: math.Round(pagesIn(pb))}
		// The relative 95% half-width of the first backend's excess carries
		// over to both predictions.
		ex := pa.Slowdown.Mean - 1
		u := 0.0
		if ex > 0 && pa.Slowdown.N >= 2 {
			u = (pa.Slowdown.Hi - pa.Slowdown.Lo) / 2 / ex
		}
		band := func(s float64) (float64, float64) {
			e := s - 1
			return measure.Round4(1 + math.Max(0, e*(1-u))), measure.Round4(1 + e*(1+u))
		}
		excessA := math.Max(ex, 0) * baseA
		r.Ratio = measure.Round4(1 + excessA*stB0/stA0/base)
		r.RatioLo, r.RatioHi = band(r.Ratio)
		// The profile's model: what recommend computes from the curve the
		// profile writes (pages counted per fit ratio, the calibrated
		// overhead, the readahead), as excess seconds over this phase's
		// in-RAM runtime like the default model's.
		toB := func(s float64) float64 { return measure.Round4(1 + (s-1)*baseA/base) }
		if est, err := fs.Predict("validation:"+b.Class, devB, 1, dirty, pa.Fit); err == nil {
			r.Faults, r.FaultsLo, r.FaultsHi = toB(est.Slowdown), toB(est.Low), toB(est.High)
		}
		// The diagnostic: the same sum with the second backend's own
		// counts (every page swapped in costs the overhead, every fault the
		// device's read latency).
		r.Own = measure.Round4(1 + (pagesIn(pb)*o.Seconds()+pb.MajFlt*readB)/base)
		r.RatioErr = measure.Round4((r.Ratio - r.Measured) / r.Measured)
		r.FaultsErr = measure.Round4((r.Faults - r.Measured) / r.Measured)
		r.OwnErr = measure.Round4((r.Own - r.Measured) / r.Measured)
		v.Rows = append(v.Rows, r)
		if r.Capped {
			// A lower bound only: it says nothing about the error unless
			// the prediction falls below it (then the error is at least
			// that much).
			continue
		}
		v.RatioMAE += math.Abs(r.RatioErr)
		v.FaultsMAE += math.Abs(r.FaultsErr)
		v.OwnMAE += math.Abs(r.OwnErr)
		v.RatioMax = math.Max(v.RatioMax, math.Abs(r.RatioErr))
		v.FaultsMax = math.Max(v.FaultsMax, math.Abs(r.FaultsErr))
		n++
	}
	if n > 0 {
		v.RatioMAE, v.FaultsMAE = measure.Round4(v.RatioMAE/n), measure.Round4(v.FaultsMAE/n)
		v.OwnMAE = measure.Round4(v.OwnMAE / n)
		v.Better = TransferFaults
		if v.RatioMAE < v.FaultsMAE {
			v.Better = TransferRatio
		}
	}
	return v
}

// readaheadAt is the readahead run at fit f, if it swapped.
func readaheadAt(rr *ReadaheadReport, f float64) *ReadaheadPoint {
	if rr == nil {
		return nil
	}
	for i := range rr.Points {
		if p := &rr.Points[i]; p.Fit == f && p.usable() {
			return p
		}
	}
	return nil
}
