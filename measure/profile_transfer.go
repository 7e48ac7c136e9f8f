package measure

import (
	"fmt"
	"math"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// How a profile's curve is carried to another device (docs/profile.md).
const (
	// TransferRatio is the model's rule as it stands: the excess slowdown
	// scales with the ratio of per-fault service times, each the model's
	// fixed software overhead plus the device's read latency plus the dirty
	// share of its write latency.
	TransferRatio = "ratio"
	// TransferFaults counts the measured major faults and charges each the
	// target's service time with the software overhead measured on the
	// profiled backend: runtime(dev) = runtime in RAM + faults x service
	// time(dev). Written as the profile's fault_overhead, the model's ratio
	// rule computes the same thing.
	TransferFaults = "faults"
)

// DefaultTransfer is the form a profile uses when it was not validated:
// the one that predicted better on the machine docs/profile.md reports.
const DefaultTransfer = TransferFaults

// TransferSummary is what the profile measured about the cost of one major
// fault on its backend, and which form carries the curve to other devices.
type TransferSummary struct {
	// PerFault is the extra wall time per major fault over all fit ratios
	// (excess runtime / major faults).
	PerFault float64 `json:"measured_us_per_fault"`
	// DeviceTime is the backend's own share of it by the model: read
	// latency + dirty share x write latency (or its IOPS bound).
	DeviceTime float64 `json:"device_us_per_fault"`
	// Calibrated is the rest: the software cost of a fault on this host
	// (trap, reclaim, swap cache, page tables), at least 0.
	Calibrated float64 `json:"calibrated_fault_overhead_us"`
	// PageOverhead is the software time per page swapped in (equal to
	// Calibrated on zram, where each page is its own fault).
	PageOverhead float64 `json:"page_overhead_us"`
	// ModelOverhead is the model's default software cost per fault.
	ModelOverhead float64 `json:"model_fault_overhead_us"`
	Method        string  `json:"method"`
	Why           string  `json:"why"`
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

// refDevice turns a curve's reference into the model's device.
func refDevice(r model.Reference) model.Device {
	return model.Device{Name: r.Device, ReadLatency: r.ReadLatency.D(), WriteLatency: r.WriteLatency.D(),
		ReadIOPS: r.ReadIOPS, WriteIOPS: r.WriteIOPS, Drives: r.Drives}
}

// serviceTime is model.ServiceTime for one job (the profile runs one
// command at a time).
func serviceTime(r model.Reference, dirty float64, overhead time.Duration) float64 {
	return model.ServiceTime(refDevice(r), 1, dirty, overhead)
}

// excessAndFaults sums the excess wall time over the in-RAM runtime and the
// major faults of a phase's points that have both.
func excessAndFaults(ph *ProfilePhase) (excess, faults float64) {
	base := ph.Baseline()
	for _, pt := range ph.Points {
		if pt.MajFlt > 0 && pt.Wall > 0 {
			excess += pt.Wall - base
			faults += pt.MajFlt
		}
	}
	return excess, faults
}

// pagesIn is the pages a point's runs swapped in (major faults when the
// kernel counted no swap-ins).
func pagesIn(pt *ProfilePoint) float64 {
	if pt.SwapIns > 0 {
		return pt.SwapIns
	}
	return pt.MajFlt
}

// pageOverhead is the software time per page swapped in: what the excess
// runtime leaves after the device's time for each fault, over all fit
// ratios.
func pageOverhead(a *ProfilePhase, dev float64) float64 {
	base := a.Baseline()
	var excess, faults, pages float64
	for i := range a.Points {
		pt := &a.Points[i]
		if pt.MajFlt > 0 && pt.Wall > 0 {
			excess += pt.Wall - base
			faults += pt.MajFlt
			pages += pagesIn(pt)
		}
	}
	if pages <= 0 {
		return 0
	}
	return math.Max(0, (excess-faults*dev)/pages)
}

func transferSummary(a *ProfilePhase, dirty float64) TransferSummary {
	t := TransferSummary{ModelOverhead: us(modelOverhead().Seconds())}
	excess, faults := excessAndFaults(a)
	if faults > 0 && excess > 0 {
		t.PerFault = us(excess / faults)
	}
	t.DeviceTime = us(serviceTime(a.Reference, dirty, 0))
	t.Calibrated = math.Max(0, round4(t.PerFault-t.DeviceTime))
	t.PageOverhead = us(pageOverhead(a, serviceTime(a.Reference, dirty, 0)))
	return t
}

func us(s float64) float64 { return round4(s * 1e6) }

// choose picks the transfer form: the one that predicted the validation
// backend better, else the default.
func (t *TransferSummary) choose(v *Validation) {
	t.Method = DefaultTransfer
	t.Why = "not validated on this host; " + DefaultTransfer + " is the form that predicted better where memplan was validated (docs/profile.md)"
	if v != nil && v.Better != "" {
		t.Method = v.Better
		t.Why = fmt.Sprintf("validated on %s: mean error %.0f%% (faults x service time) vs %.0f%% (service-time ratio with the model's %.3gus overhead)",
			v.To, 100*v.FaultsMAE, 100*v.RatioMAE, t.ModelOverhead)
	}
	if t.PerFault == 0 {
		t.Method = TransferRatio
		t.Why = "no major faults were measured, so there is nothing to calibrate; the model's service-time ratio applies"
	}
	o := t.ModelOverhead
	if t.Method == TransferFaults {
		o = t.Calibrated
	}
	t.FaultOverhead = units.Duration(math.Round(o * 1e3))
}

// Validation compares the slowdown measured on a second backend with what
// both transfer forms predict for it from the first.
type Validation struct {
	From      string          `json:"from"`
	To        string          `json:"to"`
	ToClass   string          `json:"to_class"`
	Reference model.Reference `json:"to_reference"`
	Dirty     float64         `json:"dirty_share"`
	Rows      []ValidationRow `json:"rows"`
	// Mean and largest absolute relative error of the predicted slowdown,
	// per form, over the rows whose runs all finished.
	RatioMAE  float64 `json:"ratio_mean_abs_error"`
	RatioMax  float64 `json:"ratio_max_abs_error"`
	FaultsMAE float64 `json:"faults_mean_abs_error"`
	FaultsMax float64 `json:"faults_max_abs_error"`
	// ReadsOnlyMAE is the diagnostic's mean absolute error; it takes no
	// part in the choice (the model always charges the write term).
	ReadsOnlyMAE float64 `json:"reads_only_mean_abs_error"`
	Better       string  `json:"better"`
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

	Ratio     float64 `json:"ratio_predicted"`
	RatioLo   float64 `json:"ratio_low"`
	RatioHi   float64 `json:"ratio_high"`
	RatioErr  float64 `json:"ratio_error"`
	Faults    float64 `json:"faults_predicted"`
	FaultsLo  float64 `json:"faults_low"`
	FaultsHi  float64 `json:"faults_high"`
	FaultsErr float64 `json:"faults_error"`
	// ReadsOnly is the faults form without the write term (a dirty share
	// of 0): a diagnostic of how much the synchronous write latency the
	// model charges matters; swap-outs to a block device are asynchronous.
	ReadsOnly    float64 `json:"reads_only_predicted"`
	ReadsOnlyErr float64 `json:"reads_only_error"`
}

// validate predicts phase b's slowdowns from phase a's measurements and b's
// device, both ways, and compares them with what b measured.
func validate(a, b *ProfilePhase, dirty float64) Validation {
	v := Validation{From: a.Name, To: b.Name, ToClass: b.Class, Reference: b.Reference, Dirty: dirty}
	o0 := modelOverhead()
	stA0, stB0 := serviceTime(a.Reference, dirty, o0), serviceTime(b.Reference, dirty, o0)
	devA, devB := serviceTime(a.Reference, dirty, 0), serviceTime(b.Reference, dirty, 0)
	oPage := pageOverhead(a, devA)
	devAr, devBr := serviceTime(a.Reference, 0, 0), serviceTime(b.Reference, 0, 0)
	oPageR := pageOverhead(a, devAr)
	// Both forms predict the excess time; it is compared with what the
	// second backend measured over the in-RAM runtime measured alongside
	// it, so that the host getting busier or quieter between the two
	// phases does not count as an error of the model.
	baseA, base := a.Baseline(), b.Baseline()
	var n float64
	for i := range a.Points {
		pa := &a.Points[i]
		var pb *ProfilePoint
		for j := range b.Points {
			if b.Points[j].Fit == pa.Fit {
				pb = &b.Points[j]
			}
		}
		if pb == nil || pa.Slowdown.N == 0 || pb.Slowdown.N == 0 || base <= 0 || baseA <= 0 {
			continue
		}
		r := ValidationRow{Fit: pa.Fit, MeasuredFrom: round4(pa.Slowdown.Mean), Measured: round4(pb.Slowdown.Mean),
			MeasuredLo: round4(pb.Slowdown.Lo), MeasuredHi: round4(pb.Slowdown.Hi), Capped: pb.Censored > 0,
			FaultsFrom: math.Round(pa.MajFlt), FaultsTo: math.Round(pb.MajFlt)}
		// The relative 95% half-width of the first backend's excess carries
		// over to both predictions.
		ex := pa.Slowdown.Mean - 1
		u := 0.0
		if ex > 0 && pa.Slowdown.N >= 2 {
			u = (pa.Slowdown.Hi - pa.Slowdown.Lo) / 2 / ex
		}
		band := func(s float64) (float64, float64) {
			e := s - 1
			return round4(1 + math.Max(0, e*(1-u))), round4(1 + e*(1+u))
		}
		r.Ratio = round4(1 + math.Max(ex, 0)*baseA*stB0/stA0/base)
		r.RatioLo, r.RatioHi = band(r.Ratio)
		// Every page swapped in costs the software overhead; every fault
		// that waits for the device costs the device's time. On zram each
		// page is its own fault; a block device reads ahead, and how many
		// faults that saves depends on the command's locality, which zram
		// cannot show: from zram, a block device gets one fault per page
		// (an upper bound for commands that read memory in order).
		pages, ios := pagesIn(pa), pa.MajFlt
		if b.Backend == BackendZram {
			ios = pages
		}
		r.Faults = round4(1 + (pages*oPage+ios*devB)/base)
		r.ReadsOnly = round4(1 + (pages*oPageR+ios*devBr)/base)
		r.ReadsOnlyErr = round4((r.ReadsOnly - r.Measured) / r.Measured)
		r.FaultsLo, r.FaultsHi = band(r.Faults)
		r.RatioErr = round4((r.Ratio - r.Measured) / r.Measured)
		r.FaultsErr = round4((r.Faults - r.Measured) / r.Measured)
		v.Rows = append(v.Rows, r)
		if r.Capped {
			// A lower bound only: it says nothing about the error unless
			// the prediction falls below it (then the error is at least
			// that much).
			continue
		}
		v.RatioMAE += math.Abs(r.RatioErr)
		v.FaultsMAE += math.Abs(r.FaultsErr)
		v.ReadsOnlyMAE += math.Abs(r.ReadsOnlyErr)
		v.RatioMax = math.Max(v.RatioMax, math.Abs(r.RatioErr))
		v.FaultsMax = math.Max(v.FaultsMax, math.Abs(r.FaultsErr))
		n++
	}
	if n > 0 {
		v.RatioMAE, v.FaultsMAE, v.ReadsOnlyMAE = round4(v.RatioMAE/n), round4(v.FaultsMAE/n), round4(v.ReadsOnlyMAE/n)
		v.Better = TransferFaults
		if v.RatioMAE < v.FaultsMAE {
			v.Better = TransferRatio
		}
	}
	return v
}
