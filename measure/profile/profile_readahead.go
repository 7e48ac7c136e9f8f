//go:build linux

package profile

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
)

// ReadaheadReport is how the command's pages come back from a block device,
// measured on a loop device over zram (loop.go): one run per fit ratio,
// counting major faults and pages swapped in. Faults and Pages are per page
// the profiled backend swapped in, over the fit ratios where both ran; they
// become the profile's readahead.
type ReadaheadReport struct {
	Device string           `json:"device"`
	Points []ReadaheadPoint `json:"points"`
	Faults float64          `json:"faults_per_page"`
	Pages  float64          `json:"pages_per_page"`
	// Source says what Faults and Pages were measured on.
	Source string `json:"source"`
}

// ReadaheadPoint is the run at one fit ratio.
type ReadaheadPoint struct {
	Fit      float64 `json:"fit"`
	Wall     float64 `json:"wall_s"`
	MajFlt   float64 `json:"major_faults"`
	SwapIns  float64 `json:"swap_ins"`
	SwapOuts float64 `json:"swap_outs"`
	Failed   string  `json:"failed,omitempty"`
	// Capped: the run was stopped at the time cap, so its counts are
	// short; it does not count.
	Capped bool `json:"capped,omitempty"`
}

// usable reports whether the run finished and swapped.
func (p *ReadaheadPoint) usable() bool { return p.Failed == "" && !p.Capped && p.SwapIns > 0 }

// readahead runs the command once per fit ratio with swap on a loop device
// over a fresh zram device, and sets the report's readahead against the
// zram phase's page counts.
func (ps *profileSession) readahead(ctx context.Context) (err error) {
	o := ps.o
	if why := host.LoopAvailable(ps.Host); why != "" {
		ps.note("readahead not measured: %s; the profile assumes one major fault per page on block devices (conservative for commands that read their memory in order)", why)
		return nil
	}
	mark := ps.Journal.Len()
	defer func() {
		if uerr := ps.Journal.UndoTo(mark); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}()
	size := ps.zramSize()
	z, err := host.SetupZram(ps.Host, ps.Journal, o.ZramAlgorithm, size, size, true, nil)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ps.note("readahead not measured: %v; the profile assumes one major fault per page on block devices", err)
		return nil
	}
	rr := &ReadaheadReport{Device: fmt.Sprintf("%s over %s (%s, direct I/O)", z.SwapDev, z.Dev, o.ZramAlgorithm)}
	ps.prog.Stage("readahead on "+z.SwapDev+" over zram", len(o.Fits))
	timeout := ps.runTimeout()
	for _, f := range o.Fits {
		limit := limitAt(f, ps.rep.Footprint)
		r, err := ps.run(ctx, measure.RunSpec{Backend: "readahead", Fit: f, Rep: 1, Limit: limit, MemSw: ps.memsw(limit), Timeout: timeout, Zram: measure.ZramName(z.ID)})
		if err != nil {
			return err
		}
		ps.prog.RunDone(progress(r))
		rr.Points = append(rr.Points, ReadaheadPoint{Fit: f, Wall: measure.Round4(r.Wall), MajFlt: float64(r.MajFlt),
			SwapIns: float64(r.SwapIn), SwapOuts: float64(r.SwapOut), Failed: r.Failed, Capped: r.Censored})
	}
	rr.Faults, rr.Pages = readaheadRatios(&ps.rep.Phases[0], rr.Points)
	rr.Source = "a loop device over zram, against the " + ps.rep.Phases[0].Name + " runs"
	if rr.Faults == 0 {
		ps.note("readahead: no run on the loop device swapped; the profile assumes one major fault per page on block devices")
	}
	ps.rep.Readahead = rr
	return nil
}

// readaheadRatios sets the loop device's major faults and pages swapped in
// against the pages the profiled phase swapped in at the same fit ratios.
func readaheadRatios(ph *Phase, pts []ReadaheadPoint) (faults, pages float64) {
	var need, fl, pg float64
	for _, p := range pts {
		if !p.usable() {
			continue
		}
		for i := range ph.Points {
			if a := &ph.Points[i]; a.Fit == p.Fit && pagesIn(a) > 0 {
				need += pagesIn(a)
				fl += p.MajFlt
				pg += p.SwapIns
			}
		}
	}
	if need <= 0 || fl <= 0 {
		return 0, 0
	}
	faults = math.Min(1, fl/need)
	pages = math.Min(64, math.Max(faults, pg/need))
	return measure.Round4(faults), measure.Round4(pages)
}
