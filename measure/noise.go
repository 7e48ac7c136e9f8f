package measure

import (
	"fmt"
	"math"
	"strings"
)

// The measurement design both the probe and the profiler follow on a
// shared, noisy host (docs/probe.md, "Busy hosts"):
//
//   - every run records what the rest of the host did meanwhile
//     (Contention): the job's own CPU time, the host's busy and stolen CPU
//     time, the kernel threads' share of it, and how long the job's
//     processes waited for a CPU;
//   - the part of that wait other work can account for is at most the CPU
//     time other work used (the host's busy time less the job's and the
//     reclaim and I/O kernel threads': kswapd, kcompactd and kworkers work
//     for the job's swapping as much as for anything else, and run on an
//     idle host too);
//     a run where that part exceeds DisturbedWait of its wall time, or
//     that lost more than DisturbedSteal to the hypervisor, is flagged as
//     disturbed;
//   - next to the wall-clock slowdown, the slowdown the job would have had
//     on an idle host is estimated from the run's wall time less the wait
//     other work accounts for (IdleWall);
//   - a constrained run is compared with the in-RAM runs next to it in
//     time (PairedBase), not with an average over the whole session;
//   - a slowdown below one is reported as "indistinguishable from 1" or as
//     a disturbed measurement (Verdict), never as a speed-up.

// CPUTimes is the host's CPU time so far, in seconds summed over CPUs.
// Reclaim is the CPU time so far of each kernel thread that reclaims,
// compacts or does block I/O work (kswapd, kcompactd, kworker), by PID;
// nil when it could not be read.
type CPUTimes struct {
	Busy, Idle, Steal float64
	CPUs              int
	Reclaim           map[int]float64
}

// reclaimDelta is the CPU time the reclaim and I/O kernel threads used
// between two readings: per thread present at both, plus all of a thread
// started in between. A thread that exited in between is not counted, so
// it is a lower estimate; it is 0 unless both readings have the threads.
func reclaimDelta(before, after CPUTimes) float64 {
	if before.Reclaim == nil || after.Reclaim == nil {
		return 0
	}
	var d float64
	for pid, t := range after.Reclaim {
		if b, ok := before.Reclaim[pid]; ok {
			d += math.Max(0, t-b)
		} else {
			d += t
		}
	}
	return d
}

// Thresholds of a disturbed run.
const (
	// DisturbedWait is the share of a run's wall time its processes may
	// wait for a CPU other work held before the run counts as disturbed:
	// an idle host answers a runnable task within the scheduler's latency
	// (a few ms per second of run time).
	DisturbedWait = 0.05
	// DisturbedSteal is the share of the run's wall time the hypervisor
	// may steal from each CPU.
	DisturbedSteal = 0.02
	// MinSteal is the least steal, in seconds over all CPUs, that flags a
	// run: /proc/stat counts in 10 ms ticks, and two ticks of a 0.5 s run
	// were "2%" (the probe's quick baseline runs were flagged for 0.02 s).
	MinSteal = 0.1
	// MinOthersWait is the least wait other work must account for to flag
	// a run: other work's CPU is the host's busy time, in 10 ms ticks, less
	// the job's, so it is known to a few ticks (the probe's quick baseline
	// runs of 50 ms were flagged for a 4 ms wait against "0.02 s" of
	// other work). It matters only for runs under a second.
	MinOthersWait = 0.05
)

// Contention is what the rest of the host did during one run.
type Contention struct {
	JobCPU   float64 `json:"job_cpu_s"`   // user + system time of the job
	HostBusy float64 `json:"host_busy_s"` // busy CPU time of the whole host
	// KernelCPU is what the reclaim and I/O kernel threads (kswapd,
	// kcompactd, kworker) used: the work the job's swapping makes as much
	// as anything else's. Other kernel threads (network, other tenants'
	// filesystems) count as other work.
	KernelCPU float64 `json:"kernel_threads_cpu_s"`
	// OthersCPU is HostBusy - JobCPU - KernelCPU: other work (processes,
	// other kernel threads and interrupts).
	OthersCPU float64 `json:"others_cpu_s"`
	Steal     float64 `json:"steal_s,omitempty"`
	CPUWait   float64 `json:"cpu_wait_s"` // time the job's processes waited for a CPU
	// OthersWait is the part of CPUWait other work can account for: at
	// most OthersCPU. The rest is the job's own processes and the kernel
	// threads working for its swapping, or wake-up latency, which an idle
	// host has too. CPUWait is summed over the job's threads, and several
	// of them can queue behind one other task at once, so for a parallel
	// job this is a lower estimate.
	OthersWait float64 `json:"others_wait_s"`
	// IdleWall is the wall time the run would have taken on an idle host:
	// the wall time less OthersWait (never below the job's CPU time spread
	// over the host's CPUs). For a job of parallel processes the summed
	// wait overstates what its critical path lost, so IdleWall is a lower
	// estimate there.
	IdleWall  float64 `json:"idle_host_wall_s"`
	Disturbed bool    `json:"disturbed,omitempty"`
	// Cause is what disturbed the run: ByOtherWork or ByHypervisor.
	Cause string `json:"disturbed_by,omitempty"`
	Why   string `json:"disturbed_why,omitempty"`
}

// What disturbed a run.
const (
	// ByOtherWork: the job waited for CPUs other work held.
	ByOtherWork = "other work"
	// ByHypervisor: the hypervisor took CPU time from the host's CPUs.
	// Idle virtual CPUs accrue no steal, so it came mostly out of the
	// job's; whether other guests took it or the hypervisor's own work for
	// this guest's I/O (a swap file on a virtual disk: steal grew with the
	// swapping on a quiet host here) cannot be told apart from inside.
	ByHypervisor = "hypervisor"
)

// DisturbedBy says how many of the disturbed runs among cs each cause
// disturbed ("2 by other work on the host, 1 by the hypervisor taking CPU
// time ..."), or "" when none was.
func DisturbedBy(cs []Contention) string {
	var work, hv int
	for _, c := range cs {
		switch {
		case !c.Disturbed:
		case c.Cause == ByHypervisor:
			hv++
		default:
			work++
		}
	}
	var parts []string
	if work > 0 {
		parts = append(parts, fmt.Sprintf("%d by other work on the host", work))
	}
	if hv > 0 {
		parts = append(parts, fmt.Sprintf("%d by the hypervisor taking CPU time (other guests, or its own work for this guest's I/O)", hv))
	}
	return strings.Join(parts, ", ")
}

// Assess works out a run's Contention from its wall time, the job's CPU
// time and wait, and the host's CPU times at the run's edges.
func Assess(wall, jobCPU, wait float64, before, after CPUTimes) Contention {
	c := Contention{JobCPU: jobCPU, CPUWait: math.Max(0, wait)}
	c.HostBusy = math.Max(0, after.Busy-before.Busy)
	c.KernelCPU = math.Min(reclaimDelta(before, after), math.Max(0, c.HostBusy-jobCPU))
	c.OthersCPU = math.Max(0, c.HostBusy-jobCPU-c.KernelCPU)
	c.OthersWait = math.Min(c.CPUWait, c.OthersCPU)
	c.Steal = math.Max(0, after.Steal-before.Steal)
	floor := 0.0
	if n := max(after.CPUs, 1); jobCPU > 0 {
		floor = jobCPU / float64(n)
	}
	c.IdleWall = math.Max(wall-c.OthersWait, math.Min(wall, floor))
	if wall <= 0 {
		return c
	}
	switch {
	case c.OthersWait > DisturbedWait*wall && c.OthersWait >= MinOthersWait-1e-9:
		c.Disturbed, c.Cause = true, ByOtherWork
		c.Why = fmt.Sprintf("waited %.2fs (%.0f%% of its %.1fs) for CPUs other work held (%.2fs in all; other work used %.1f CPU-seconds, reclaim and I/O kernel threads %.1f more)", c.OthersWait, 100*c.OthersWait/wall, wall, c.CPUWait, c.OthersCPU, c.KernelCPU)
	case jobCPU > 0 && c.Steal/float64(max(after.CPUs, 1)) > DisturbedSteal*wall && c.Steal >= MinSteal-1e-9:
		// Steal is counted over all CPUs; a job on one of them loses its
		// share.
		c.Disturbed, c.Cause = true, ByHypervisor
		c.Why = fmt.Sprintf("the hypervisor stole %.2fs of CPU time over the host's %d CPUs", c.Steal, max(after.CPUs, 1))
	}
	return c
}

// PairedBase is the in-RAM time a constrained run at position seq is
// compared with: the mean of the good in-RAM runs immediately before and
// after it in the session's order (one of them at the ends). baseSeq and
// baseWall list the in-RAM runs in order. It returns 0 when there is none.
func PairedBase(seq int, baseSeq []int, baseWall []float64) float64 {
	prev, next := -1, -1
	for i, s := range baseSeq {
		if baseWall[i] <= 0 {
			continue
		}
		if s < seq {
			prev = i
		} else if next < 0 {
			next = i
		}
	}
	switch {
	case prev >= 0 && next >= 0:
		return (baseWall[prev] + baseWall[next]) / 2
	case prev >= 0:
		return baseWall[prev]
	case next >= 0:
		return baseWall[next]
	}
	return 0
}

// Verdict says what a point's slowdown summary means when its mean is
// below one. noise is the in-RAM runs' relative spread (SD over mean).
// Below one within the point's interval or within twice the noise, the job
// was not measurably slower: "indistinguishable from 1". Further below,
// the in-RAM runs were slower than the constrained ones: the host was busier
// during them, and the figure is not a measurement of swapping. An empty
// verdict means the mean is a slowdown.
func Verdict(s Summary, noise float64) string {
	if s.N == 0 || s.Mean >= 1 {
		return ""
	}
	if s.Hi >= 1 || s.Mean >= 1-2*noise {
		return fmt.Sprintf("indistinguishable from 1: %.3f is within the noise (interval %.3f-%.3f, in-RAM runs vary by %.1f%%)", s.Mean, s.Lo, s.Hi, 100*noise)
	}
	return fmt.Sprintf("not a measurement: %.3f is below 1 beyond the noise (interval %.3f-%.3f, in-RAM runs vary by %.1f%%), so the in-RAM runs were disturbed; it is recorded as 1", s.Mean, s.Lo, s.Hi, 100*noise)
}

// Regression is a line through the origin of runs' excess time (over
// their paired in-RAM time) on their major faults, fitted over all runs:
// the cost of one fault with its standard error. Fitting all runs rather
// than one point's mean keeps one disturbed run from setting it.
type Regression struct {
	Slope, SE float64 // seconds per fault
	Runs      int
	Faults    float64 // summed over the runs
}

// FitPerFault fits excess = slope x faults over the runs (pairs of equal
// length) by weighted least squares with the variance of a run's excess
// proportional to its faults (each fault costs a random time): the slope
// is then the summed excess over the summed faults. Runs without faults
// carry no information on the slope and are left out; Slope is 0 when no
// run had faults.
func FitPerFault(faults, excess []float64) Regression {
	var sf, se float64
	var r Regression
	for i, f := range faults {
		if f <= 0 {
			continue
		}
		sf += f
		se += excess[i]
		r.Runs++
	}
	r.Faults = sf
	if sf == 0 {
		return r
	}
	r.Slope = se / sf
	if r.Runs > 1 {
		var chi float64
		for i, f := range faults {
			if f > 0 {
				d := excess[i] - r.Slope*f
				chi += d * d / f
			}
		}
		r.SE = math.Sqrt(chi / float64(r.Runs-1) / sf)
	}
	return r
}
