package measure

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/usage"
)

func TestAssess(t *testing.T) {
	before := CPUTimes{Busy: 100, Idle: 500, Steal: 1, CPUs: 2}
	// A single-threaded job: 9.8s of CPU in 10s, 0.1s waiting, the other
	// CPU idle: not disturbed, the idle-host wall time is 9.9s.
	quiet := Assess(10, 9.8, 0.1, before, CPUTimes{Busy: 110, Idle: 510, Steal: 1, CPUs: 2})
	if quiet.Disturbed || quiet.OthersCPU < 0.19 || quiet.OthersCPU > 0.21 || math.Abs(quiet.IdleWall-9.9) > 1e-9 {
		t.Errorf("quiet run: %+v", quiet)
	}
	// Two CPU hogs on a 2-CPU host: the job waited 4s of its 14s.
	busy := Assess(14, 9.8, 4, before, CPUTimes{Busy: 128, Idle: 500, Steal: 1, CPUs: 2})
	if !busy.Disturbed || !strings.Contains(busy.Why, "waited 4.00s") || math.Abs(busy.IdleWall-10) > 1e-9 || math.Abs(busy.OthersCPU-18.2) > 1e-9 {
		t.Errorf("busy run: %+v", busy)
	}
	// Steal: a hypervisor taking 1s of each CPU over a 10s run; 0.2s of
	// ticks over two CPUs is not a disturbance.
	if c := Assess(10, 9, 0, before, CPUTimes{Busy: 109, Idle: 510, Steal: 1.2, CPUs: 2}); c.Disturbed {
		t.Errorf("0.2s of steal over 2 CPUs in 10s flagged: %+v", c)
	}
	stolen := Assess(10, 9, 0, before, CPUTimes{Busy: 109, Idle: 510, Steal: 3, CPUs: 2})
	if !stolen.Disturbed || !strings.Contains(stolen.Why, "stole") || stolen.Cause != ByHypervisor {
		t.Errorf("stolen: %+v", stolen)
	}
	// Three 10 ms ticks of steal in a 0.5 s run are "3%", and nothing.
	if c := Assess(0.5, 0.5, 0, before, CPUTimes{Busy: 100.5, Idle: 500.5, Steal: 1.03, CPUs: 2}); c.Disturbed {
		t.Errorf("0.03s of steal in a 0.5s run flagged: %+v", c)
	}
	if busy.Cause != ByOtherWork || quiet.Cause != "" {
		t.Errorf("causes: busy %q, quiet %q", busy.Cause, quiet.Cause)
	}
	if got, want := DisturbedBy([]Contention{busy, quiet, stolen, busy}), "2 by other work on the host, 1 by the hypervisor taking CPU time (other guests, or its own work for this guest's I/O)"; got != want {
		t.Errorf("DisturbedBy: %q, want %q", got, want)
	}
	if got := DisturbedBy([]Contention{quiet}); got != "" {
		t.Errorf("DisturbedBy of an undisturbed run: %q", got)
	}
	// A wait summed over parallel processes larger than the wall time: the
	// idle-host wall time never drops below the job's CPU over the CPUs.
	par := Assess(10, 16, 12, before, CPUTimes{Busy: 120, CPUs: 2})
	if par.IdleWall != 8 {
		t.Errorf("parallel job: idle wall %g, want 16s of CPU over 2 CPUs = 8", par.IdleWall)
	}
	// A swapping run on a quiet host: it waited 0.9s of 10s, while kswapd
	// and the I/O workers used 1.5 CPU-seconds and other work 0.3. Other
	// work can account for 0.3s of the wait at most: not disturbed, and
	// the idle host would have waited the rest too. Thread 7 exited during
	// the run (not counted), thread 9 started in it (all of its time).
	k0 := map[int]float64{5: 10, 7: 40}
	k1 := map[int]float64{5: 11.2, 9: 0.3}
	swapping := Assess(10, 7, 0.9, CPUTimes{Busy: 100, CPUs: 2, Reclaim: k0}, CPUTimes{Busy: 108.8, CPUs: 2, Reclaim: k1})
	if swapping.Disturbed || math.Abs(swapping.KernelCPU-1.5) > 1e-9 || math.Abs(swapping.OthersCPU-0.3) > 1e-9 ||
		math.Abs(swapping.OthersWait-0.3) > 1e-9 || math.Abs(swapping.IdleWall-9.7) > 1e-9 {
		t.Errorf("swapping run on a quiet host: %+v", swapping)
	}
	// The same wait with a CPU hog running: other work accounts for all of
	// it.
	hog := Assess(10, 7, 0.9, CPUTimes{Busy: 100, CPUs: 2, Reclaim: k0}, CPUTimes{Busy: 118.5, CPUs: 2, Reclaim: k1})
	if !hog.Disturbed || hog.OthersWait != 0.9 || !strings.Contains(hog.Why, "waited 0.90s (9%") || !strings.Contains(hog.Why, "kernel threads 1.5") || math.Abs(hog.IdleWall-9.1) > 1e-9 {
		t.Errorf("swapping run beside a hog: %+v", hog)
	}
	// One edge without the threads (a /proc that could not be listed):
	// nothing is taken off, so a hog is still seen, not hidden behind
	// the threads' time since boot.
	if c := Assess(10, 7, 0.9, CPUTimes{Busy: 100, CPUs: 2}, CPUTimes{Busy: 118.5, CPUs: 2, Reclaim: map[int]float64{5: 500}}); c.KernelCPU != 0 || !c.Disturbed {
		t.Errorf("a missing reading of the kernel threads: %+v", c)
	}
	// Kernel threads' time counted beyond the host's busy time (a thread's
	// ticks read a moment later than /proc/stat) never makes OthersCPU
	// negative or the kernel's share larger than what the job left.
	odd := Assess(10, 9, 0.5, CPUTimes{Busy: 100, CPUs: 2, Reclaim: map[int]float64{5: 5}}, CPUTimes{Busy: 109.5, CPUs: 2, Reclaim: map[int]float64{5: 6}})
	if odd.OthersCPU != 0 || math.Abs(odd.KernelCPU-0.5) > 1e-9 || odd.OthersWait != 0 || odd.Disturbed {
		t.Errorf("kernel time beyond the host's: %+v", odd)
	}
	// A 50 ms run that waited 4 ms beside two ticks of other work: within
	// the ticks' resolution, not a disturbance.
	if c := Assess(0.05, 0.04, 0.004, CPUTimes{Busy: 100, CPUs: 2}, CPUTimes{Busy: 100.06, CPUs: 2}); c.Disturbed || c.OthersWait != 0.004 {
		t.Errorf("a 4 ms wait in a 50 ms run flagged: %+v", c)
	}
	// Exactly ten ticks of steal, a difference of floats, still flag.
	if c := Assess(1, 1, 0, CPUTimes{Busy: 100, Steal: 0.07, CPUs: 2}, CPUTimes{Busy: 101, Steal: 0.17, CPUs: 2}); !c.Disturbed {
		t.Errorf("ten ticks of steal (%.17f s) in a 1s run not flagged", c.Steal)
	}
}

func TestPairedBase(t *testing.T) {
	seq := []int{1, 5, 9}
	wall := []float64{10, 12, 0} // the last in-RAM run failed
	for _, c := range []struct {
		seq  int
		want float64
	}{{0, 10}, {3, 11}, {7, 12}, {10, 12}} {
		if got := PairedBase(c.seq, seq, wall); got != c.want {
			t.Errorf("run %d: base %g, want %g", c.seq, got, c.want)
		}
	}
	if PairedBase(3, nil, nil) != 0 {
		t.Error("no in-RAM runs: want 0")
	}
}

func TestVerdict(t *testing.T) {
	if v := Verdict(Summary{N: 3, Mean: 1.2, Lo: 1.1, Hi: 1.3}, 0.02); v != "" {
		t.Errorf("a slowdown: %q", v)
	}
	// 0.97 with an interval reaching 1: indistinguishable.
	if v := Verdict(Summary{N: 3, Mean: 0.97, Lo: 0.93, Hi: 1.01}, 0.01); !strings.HasPrefix(v, "indistinguishable from 1") {
		t.Errorf("0.97 (0.93-1.01): %q", v)
	}
	// 0.95, tight, but the in-RAM runs vary by 4%: within twice the noise.
	if v := Verdict(Summary{N: 3, Mean: 0.95, Lo: 0.94, Hi: 0.96}, 0.04); !strings.HasPrefix(v, "indistinguishable from 1") {
		t.Errorf("0.95 with 4%% noise: %q", v)
	}
	// The busy-host case of issue 13: 0.77, well outside the noise.
	if v := Verdict(Summary{N: 2, Mean: 0.77, Lo: 0.74, Hi: 0.80}, 0.03); !strings.HasPrefix(v, "not a measurement") {
		t.Errorf("0.77: %q", v)
	}
}

func TestFitPerFault(t *testing.T) {
	// 20us a fault, runs without faults ignored.
	r := FitPerFault([]float64{0, 1e5, 4e5, 2e5}, []float64{0.3, 2, 8, 4})
	if r.Runs != 3 || r.Faults != 7e5 || math.Abs(r.Slope-20e-6) > 1e-12 || r.SE != 0 {
		t.Errorf("exact: %+v", r)
	}
	// Noisy: the slope is the summed excess over the summed faults and the
	// standard error is not zero.
	r = FitPerFault([]float64{1e5, 1e5, 4e5}, []float64{1.5, 2.5, 8})
	if math.Abs(r.Slope-12.0/6e5) > 1e-12 || r.SE <= 0 {
		t.Errorf("noisy: %+v", r)
	}
	if r := FitPerFault([]float64{0, 0}, []float64{1, 2}); r.Slope != 0 || r.Runs != 0 {
		t.Errorf("no faults: %+v", r)
	}
}

func TestOptionErrorIsBadInput(t *testing.T) {
	err := fmt.Errorf("probe: %w", OptErr("fits", "fit ratio %g is out of range", 1.5))
	if !errors.Is(err, usage.ErrInput) {
		t.Errorf("%v does not match usage.ErrInput", err)
	}
	if err.Error() != "probe: --fits: fit ratio 1.5 is out of range" {
		t.Errorf("message %q", err)
	}
}
