package model

import (
	"cmp"

	"github.com/memplan/memplan/units"
)

// A lean search (leanSearch) that has found the first top configurations
// of tier 1 needs no other configuration's figures: one that is not in
// tier 1 ranks after all of them. Most of what it still evaluates (to
// rank the baseline exactly) is swap configurations cheaper than the
// baseline that turn out at risk or missing (on the 10k catalog
// benchmark 33,483 of the 35,223 it evaluates), each at the price of a
// full prediction: a queue solve for each of a few dozen to a hundred
// runs. The upper end of a prediction's band is the largest of its runs'
// upper ends (jointAtFunc), so one run's upper end is a floor under it,
// and a floor over the deadline proves the configuration out of tier 1
// (JobResult.AtRisk, or it misses). provenNotTier1 solves that one run.

// provenNotTier1 reports whether configuration base with swap s on
// drive d (swap on the drives, or zswap in front of them) is proven out
// of tier 1 without evaluating it: some job's runtime at a floor under
// the upper end of its band is over its deadline, or the configuration
// is refused. It proves nothing for other
// kinds of swap, for a zswap pair whose drive leads (mixedAt) or that has
// no pair, under hooks that adjust the figures, or with the speed
// benchmarks' constant estimate.
//
// refused reports a configuration job would refuse: the refusal is
// counted (and an unsupported fit noted) in e as addDrive would count it,
// and the caller neither evaluates it nor counts it as skipped.
//
// noteSafe is false when a job of the configuration could be at risk for
// a reason shapeNote names (its shape unknown, or offload beyond the
// published results): a proven configuration may then be the one the
// verdict's note is about, so the caller skips it only where that note
// is already settled.
func (e *evaluator) provenNotTier1(base Config, s Swap, d *pricedDrive) (proven, noteSafe, refused bool) {
	if (s.Kind != SwapDrive && s.Kind != SwapZswap) || d == nil || constantEstimate != nil || (e.h != nil && e.h.slowdown != nil) {
		return false, false, false
	}
	dev := drivesDevice(d, s)
	noteSafe = true
	R := float64(base.Usable)
	for _, j := range e.w.Jobs {
		F := float64(touched(j))
		if F <= R {
			continue
		}
		fs := e.factorsFor(j.Name)
		// Once a job has proved it, the others are read for the note
		// only (every job of the configuration can make it the note's).
		var fl floor
		if s.Kind == SwapDrive {
			fl = e.driveFloor(&base, s, j, fs, dev, !proven)
		} else {
			fl = e.zswapFloor(&base, s, j, fs, dev, !proven)
		}
		if fl.refused {
			// job refuses it at this job (the first to refuse, as
			// addDrive stops there): counted and noted as addDrive
			// would, and not evaluated.
			c := base
			c.Swap = s
			r := fl.reject
			if fl.why != "" {
				r = e.unsupported(&c, j, fl.fit, fl.why)
			}
			e.rejected[r]++
			return false, false, true
		}
		if fl.unknown || e.unmeasuredOffload(j, fl.fit) {
			noteSafe = false
		}
		if !fl.ok || proven {
			continue
		}
		proven = units.Duration(inRAMRuntime(j, base.MemorySpeed)*fl.high) > j.Deadline
	}
	return proven, noteSafe, false
}

// floor is what the lean search's proof knows of one job on one
// configuration before evaluating it: refused, the configuration cannot
// run the job (job refuses it for the same reason); else the fit ratio,
// whether the job's shape is unknown (Estimate.ShapeUnknown), and with
// ok a floor under the upper end of its band (Estimate.High), which the
// floor functions solve only when asked to (solve).
type floor struct {
	refused, ok, unknown bool
	fit, high            float64
	// Why a refused configuration is refused: the reason job returns,
	// or where the fit is unsupported the reason text evaluator.unsupported
	// notes (why).
	reject Reject
	why    string
}

// driveFloor is job j's floor on configuration c with swap s on device
// dev (job's SwapDrive case).
func (e *evaluator) driveFloor(c *Config, s Swap, j JobClass, fs *Factors, dev Device, solve bool) floor {
	R, F := float64(c.Usable), float64(touched(j))
	if F-R > float64(s.Capacity) {
		return floor{refused: true, reject: reject(RejectSwapTooSmall)}
	}
	f := R / F
	p, _, id, err := e.prepFor(fs, s.Class, dev, j, c.Cores)
	if err != nil {
		return floor{refused: true, reject: Reject{Code: RejectNoCurve, Class: s.Class}}
	}
	if why := p.unsupportedAt(f); why != "" {
		return floor{refused: true, fit: f, why: why}
	}
	fl := floor{unknown: p.shapeUnknown, fit: f}
	if solve {
		fl.high, fl.ok = e.highFloor(p, id, f)
	}
	return fl
}

// zswapFloor is job j's floor on configuration c with zswap s in front
// of device dev (job's SwapZswap case): for a pair derived jointly on both
// sides, the upper end of one drive run's split figure
// (zswapPair.topOfRun); for one whose pool leads, the pool's runs summed
// with one drive run's upper end (zswapPair.mixedTopFloor).
func (e *evaluator) zswapFloor(c *Config, s Swap, j JobClass, fs *Factors, dev Device, solve bool) floor {
	sw, f, wd, why := e.zswapSplit(c, s, j, fs)
	if why.Code != 0 {
		return floor{refused: true, reject: why}
	}
	// job's checks on the pool's and the drive's predictions, in job's
	// order, read off their preparations: nothing is predicted.
	pool := "zram-" + s.Algorithm
	pp, _, _, err1 := e.prepFor(fs, pool, zramDevice(sw), j, c.Cores)
	p, _, _, err2 := e.prepFor(fs, s.Class, dev, j, c.Cores)
	if err1 != nil || err2 != nil {
		return floor{refused: true, reject: reject(RejectNoZswapCurve)}
	}
	if why := cmp.Or(p.unsupportedAt(f), pp.unsupportedAt(f)); why != "" {
		return floor{refused: true, fit: f, why: why}
	}
	fl := floor{unknown: p.shapeUnknown || pp.shapeUnknown, fit: f}
	if !solve {
		return fl
	}
	z, _, ok := e.zswapPair(fs, pool, zramDevice(sw), s.Class, dev, j, c.Cores)
	switch {
	case !ok:
	case z.poolRuns != nil && len(z.drive.joint) > 0:
		// Derived jointly on both sides: one drive run's split figure.
		runs := z.drive.joint
		i := e.topIndex(runs)
		e.probeEx = runExcess(runs[i:i+1], f, e.probeEx[:0], &e.runSc)
		fl.ok, fl.high = true, 1+z.topOfRun(wd, f, i, e.probeEx[0])
	case z.poolRuns == nil && !z.driveLeads && len(z.pool.runs()) > 0:
		// The pool leads: its runs with one drive run's upper end.
		if k, dHi, ok := e.oneRunTop(z.drive, f); ok {
			fl.ok, fl.high = true, 1+z.mixedTopFloor(wd, f, z.drive.runs()[k].s.shape.Name, dHi)
		}
	}
	return fl
}

// highFloor is a floor under the upper end of p's band at a fit f it
// supports (Estimate.High): the figure itself where this evaluator has
// predicted it, else the upper end of one run's own figure, the run whose
// excess was the largest in the last prediction from the same runs. ok
// false where there is no run to solve.
func (e *evaluator) highFloor(p prepared, id int, f float64) (high float64, ok bool) {
	if est, ok := e.ests[localEst{id, f}]; ok {
		return est.High, true
	}
	_, hi, ok := e.oneRunTop(p, f)
	return 1 + hi, ok
}

// oneRunTop is the upper end of one of p's runs alone at fit f, as
// jointAtFunc widens it (a floor under the band's upper end, the
// largest of them), and which run: the one whose excess was the largest
// in the last full prediction from the same runs. ok false where p has
// no run.
func (e *evaluator) oneRunTop(p prepared, f float64) (run int, hi float64, ok bool) {
	runs := p.runs()
	if len(runs) == 0 {
		return 0, 0, false
	}
	i := e.topIndex(runs)
	one := runs[i : i+1]
	e.probeEx = runExcess(one, f, e.probeEx[:0], &e.runSc)
	_, _, hi, _ = jointAtEx(one, f, p.runErr(), e.probeEx)
	return i, hi, true
}

// topIndex is the run of runs (at least one) a proof solves: the one
// whose excess was the largest in the last full prediction from them
// (noteTopRun), the first where there was none.
func (e *evaluator) topIndex(runs []carried) int {
	if i := e.topRun[runs[0].runDef]; i < len(runs) {
		return i
	}
	return 0
}

// noteTopRun records, for the lean search's probes (highFloor), which of
// runs had the largest excess exs in a full prediction.
func (e *evaluator) noteTopRun(runs []carried, exs []float64) {
	if e.topRun == nil {
		e.topRun = map[*runDef]int{}
	}
	top := 0
	for i, x := range exs {
		if x > exs[top] {
			top = i
		}
	}
	e.topRun[runs[0].runDef] = top
}
