package model

import (
	"math"
	"strings"
	"time"

	"github.com/memplan/memplan/factors"
)

// The swap path as a closed queueing network (docs/model.md).
//
// Each of the Jobs concurrent jobs on a server alternates between computing
// and waiting for a page it needs back. Between two such pages it computes
// z = 1/rate seconds (rate: pages it needs back per second of its in-RAM
// runtime). The wait for one page is:
//
//   - software: Overhead per page read (trap, reclaim, swap cache, cgroup
//     charge), a delay every job pays on its own core;
//   - compressed RAM (zram): the read (decompression) and, since zram frees
//     a page's compressed copy when it is read back, one compression per
//     page when reclaim evicts it again, both in the task's time;
//   - a block device: Faults per page (swap readahead: fewer than one when
//     the kernel fetches neighbours the job then uses) reads, each one the
//     device's 4 KiB read latency, or 1/IOPS where that is longer. The
//     device has K = drives x max(1, latency x IOPS) units that serve reads
//     in parallel, so it serves at most drives x IOPS random reads a
//     second; when more reads are outstanding than units they queue.
//     Swap-out is written in clusters at the device's sequential write
//     bandwidth while the task goes on; the time the device spends writing
//     is time it cannot read, so it slows reads without being waited for
//     directly.
//
// The network is solved exactly (closedPair): a delay centre and the
// device, a station that serves min(j, K) of the j pages waiting at it at
// once (the machine-repairman model with K repairmen), from its
// product-form distribution; with writes taking a share u of the
// device's time, K(1-u) units are left for reads. The write occupancy is
// solved by false position. The result is the mean time a job loses per
// page it needs back, so
//
//	slowdown = 1 + rate x PageTime(rate).

// DefaultWriteBandwidth is a drive's sustained sequential write bandwidth
// (bytes per second) by class, used when a catalog does not give one.
// Sources: docs/model.md.
func DefaultWriteBandwidth(class string) float64 {
	switch {
	case strings.HasPrefix(class, "hdd"):
		return 100e6
	case strings.HasPrefix(class, "sata-ssd"):
		return 170e6
	case strings.HasSuffix(class, "-qlc"):
		return 300e6
	default:
		return 1000e6
	}
}

// DefaultSeqReadLatency is the 4 KiB read latency of a drive when the read
// follows on from the one before it (no seek), by class, given its random
// read latency; zero means no difference. A rotating disk that reads on
// along the track serves the next sectors from its own read-ahead cache:
// the command and a 4 KiB transfer (41 us at 100 MB/s), not a seek and half
// a rotation. memplan assumes 100 us (docs/model.md). A flash drive has no
// seek to save, and neither has a device of the hdd class whose random
// reads take under a millisecond (a virtual disk the kernel calls
// rotational, say): its latency is not a seek.
func DefaultSeqReadLatency(class string, random time.Duration) time.Duration {
	if strings.HasPrefix(class, "hdd") && random >= time.Millisecond {
		return 100 * time.Microsecond
	}
	return 0
}

// Path is the swap path of one job class on one server.
type Path struct {
	Dev      Device
	Jobs     int               // jobs of the class faulting at once on the server
	Dirty    float64           // share of the pages read back that must be written again on eviction (block devices)
	Overhead time.Duration     // software cost per page read
	RA       factors.Readahead // faults and pages read per page needed back (block devices)
	// Locality is the share of the reads from a block device that follow
	// on from the read before (the job needs its pages back in the order
	// they were evicted, so they sit in consecutive swap slots); they cost
	// the device's sequential read latency instead of a seek.
	Locality float64
	// Cores is the CPU cores the jobs share (zero: a core per job). With
	// more jobs than cores they queue for the CPU: a job waiting for its
	// page lets another compute, and the software cost of each page takes
	// a core (cpuBound).
	Cores int
	// soft is a prediction target's own software cost (its class's
	// target_overhead): the scenarios move it through its own range, at
	// the position they move the references' fault_overhead to. nil on a
	// reference path.
	soft *factors.TargetOverhead
}

// cpuBound reports whether the jobs outnumber the cores.
func (p *Path) cpuBound() bool { return p.Cores > 0 && p.jobs() > p.Cores }

// randomRead is the time one of the device's units spends on a random
// 4 KiB read: its rated latency, but at least 1/IOPS, so that no drive
// serves more random reads a second than it is rated for. A drive whose
// latency x IOPS is one or more has that many units (Path.units), each
// busy for the latency, and serves IOPS reads a second; one whose rated
// IOPS are below 1/latency (a disk: 8.5 ms and 110 IOPS) has one unit,
// busy 1/IOPS a read. Without an IOPS figure it is the latency.
func (d Device) randomRead() float64 {
	s := d.ReadLatency.Seconds()
	if d.ReadIOPS > 0 {
		return max(s, 1/d.ReadIOPS)
	}
	return s
}

// readLatency is the mean device time of one read on the path: a random
// read (Device.randomRead) or, for the share Locality, one that follows
// on (the IOPS rating is for random reads and does not bound these).
func (p *Path) readLatency() float64 {
	s := p.Dev.randomRead()
	if q := p.Dev.SeqReadLatency; q > 0 && p.Locality > 0 && !p.Dev.Memory {
		return (1-p.Locality)*s + p.Locality*q.Seconds()
	}
	return s
}

func (p *Path) jobs() int {
	if p.Jobs < 1 {
		return 1
	}
	return p.Jobs
}

// units is the number of reads the device serves at once.
func (p *Path) units() float64 {
	n := float64(max(p.Dev.Drives, 1))
	if p.Dev.ReadIOPS <= 0 {
		return math.Inf(1) // no ceiling given: latency only
	}
	return n * max(1, p.Dev.ReadLatency.Seconds()*p.Dev.ReadIOPS)
}

// writeTime is the device time spent writing per page needed back.
func (p *Path) writeTime() float64 {
	if p.Dev.Memory || p.Dirty <= 0 {
		return 0
	}
	bw := p.Dev.WriteBW
	if bw <= 0 {
		if p.Dev.WriteIOPS > 0 {
			// Clustered swap-out is at least as fast as random 4 KiB writes.
			bw = p.Dev.WriteIOPS * pageSize
		} else {
			return 0
		}
	}
	return p.Dirty * pageSize / (float64(max(p.Dev.Drives/max(p.Dev.Copies, 1), 1)) * bw)
}

// IdleTime is the time per page needed back when nothing queues: the
// latency bound.
func (p Path) IdleTime() float64 {
	o := p.Overhead.Seconds()
	if p.Dev.Memory {
		return o + p.Dev.ReadLatency.Seconds() + p.Dev.WriteLatency.Seconds()
	}
	faults, pages := raOrOne(p.RA)
	return o*pages + faults*p.readLatency()
}

// PageTime is the mean time a job loses per page it needs back when each of
// the Jobs jobs needs back rate pages per second of computing.
func (p Path) PageTime(rate float64) float64 { return p.pageTime(rate) }

// pageTime is PageTime without copying the path (the search asks it
// millions of times).
func (p *Path) pageTime(rate float64) float64 {
	if rate > 0 && p.cpuBound() {
		return p.sharedPageTime(rate)
	}
	in, ok := p.mvaInputs(rate)
	if !ok {
		return p.IdleTime()
	}
	z, tw, n := in.z, in.tw, in.n
	mva := in.solve
	u := 0.0
	// writeShare's root is usually the share it last evaluated: its cycle
	// is kept rather than solved again.
	lastU, lastCycle, have := 0.0, 0.0, false
	if in.qd > 0 && tw > 0 {
		u = writeShare(tw, func(u float64) float64 {
			c, x := mva(u)
			lastU, lastCycle, have = u, c, true
			return x
		})
	}
	cycle := lastCycle
	if !have || lastU != u {
		cycle, _ = mva(u)
	}
	// The writes bound the throughput on their own: the jobs cannot get
	// pages back faster than the device writes their evictions.
	cycle = max(cycle, float64(n)*tw)
	return cycle - z
}

// mvaIn is what PageTime's network needs at a page rate: the think time z
// (one over the rate), the delay a page spends away from the device, the
// device's read demand per page qd (zero: the device is a delay too) and
// its units k, the write time per page tw and the number of jobs n.
type mvaIn struct {
	z, delay, qd, k, tw float64
	n                   int
}

// solve is the network's cycle (the mean time from one page needed back
// to the next, per job) and throughput (pages a second, all jobs) with
// writes taking a share u of the device's time.
func (in mvaIn) solve(u float64) (cycle, x float64) {
	if in.qd <= 0 {
		return in.delay, float64(in.n) / in.delay
	}
	x = closedPair(in.n, in.delay, math.Inf(1), in.qd, in.k*(1-u))
	return float64(in.n) / x, x
}

// closedPair is the throughput (jobs a second) of n jobs cycling between
// two stations, exactly: station i, with j jobs at it, completes
// min(j, c_i)/d_i of them a second (d_i: a job's demand at it; c_i: its
// servers, fractional allowed; +Inf: a delay, where nobody waits). With
// exponential service at a station of finite c_i this is the closed
// product-form network, the machine-repairman model when station 1 is a
// delay; the count at station 2 is a birth-death chain whose stationary
// distribution is a product, summed here in one pass (the terms rescaled
// so that none overflows). A delay with c_2 >= n jobs queues nowhere: the
// cycle is d_1 + d_2.
func closedPair(n int, d1, c1, d2, c2 float64) float64 {
	fn := float64(n)
	if c1 >= fn && c2 >= fn {
		return fn / (d1 + d2)
	}
	r := d2 / d1
	if !(r < 1e100) { // everyone at station 2
		return min(fn, c2) / d2
	}
	if !(r > 1e-100) { // everyone at station 1
		return min(fn, c1) / d1
	}
	// t is the unnormalised probability of j jobs at station 2; s0 sums
	// it, s2 sums it times station 2's completions, min(j, c2).
	t, s0, s2 := 1.0, 1.0, 0.0
	for j := 1; j <= n; j++ {
		a1, a2 := min(float64(n-j+1), c1), min(float64(j), c2)
		t *= r * a1 / a2
		s0 += t
		s2 += t * a2
		if t > 1e150 {
			t, s0, s2 = t*1e-150, s0*1e-150, s2*1e-150
		}
	}
	return s2 / (s0 * d2)
}

// mvaInputs sets up PageTime's network at rate; false where there is none
// to solve (no rate, memory, or unlimited units with no writes): the page
// time is then the idle one. PageTime and pageTimes share it.
func (p *Path) mvaInputs(rate float64) (mvaIn, bool) {
	if rate <= 0 || p.Dev.Memory {
		return mvaIn{}, false
	}
	z := 1 / rate
	faults, pages := raOrOne(p.RA)
	s := p.readLatency()
	k := p.units()
	tw := p.writeTime()
	if math.IsInf(k, 1) && tw == 0 {
		return mvaIn{}, false
	}
	delay := z + p.Overhead.Seconds()*pages
	qd := 0.0 // the device's read demand per page
	if math.IsInf(k, 1) {
		delay += faults * s
	} else {
		qd = faults * s
	}
	return mvaIn{z: z, delay: delay, qd: qd, k: k, tw: tw, n: p.jobs()}, true
}

// writeShare is the share u of the device's time spent writing: the root
// of u = x(u) x tw, where x(u) is the jobs' throughput (pages a second)
// when writes take that share, and tw the device time to write the
// evictions of one page. x falls as u grows, so the root is unique and lies
// in [0, x(0) x tw]; Illinois false position finds it in a few rounds. The
// occupancy is solved, not iterated and capped, so the slowdown moves
// smoothly as the write bandwidth moves (an earlier fixed-point iteration
// capped at 0.95 jumped).
func writeShare(tw float64, x func(u float64) float64) float64 {
	g := func(u float64) float64 { return x(u)*tw - u }
	x0 := x(0)
	a, b := 0.0, min(x0*tw, 1-1e-9)
	fa, fb := x0*tw, g(b)
	if fa <= 0 {
		return 0
	}
	if fb >= 0 {
		return b
	}
	side := 0
	for i := 0; i < 100 && b-a > 1e-12; i++ {
		c := (fa*b - fb*a) / (fa - fb)
		fc := g(c)
		switch {
		case math.Abs(fc) < 1e-12:
			return c
		case fc < 0:
			b, fb = c, fc
			if side == -1 {
				fa /= 2
			}
			side = -1
		default:
			a, fa = c, fc
			if side == 1 {
				fb /= 2
			}
			side = 1
		}
	}
	return (a + b) / 2
}

// sharedPageTime is PageTime when the jobs outnumber the cores. The CPU
// becomes a station of Cores servers (closedPair, as the device's units)
// whose demand per page is the computing between pages plus the software
// cost of the page (and, on compressed RAM, the decompression and
// compression). The slowdown is the cycle against the cycle of the same
// jobs on the same cores with nothing swapped (n x z / Cores), so
// PageTime = z x (cycle/inRAM - 1): the time lost per page, relative.
func (p *Path) sharedPageTime(rate float64) float64 {
	z := 1 / rate
	n := p.jobs()
	c := float64(p.Cores)
	faults, pages := raOrOne(p.RA)
	cpu := z + p.Overhead.Seconds()*pages
	var dev, k, tw float64 // the device's read demand per page, its units
	if p.Dev.Memory {
		cpu = z + p.Overhead.Seconds() + p.Dev.ReadLatency.Seconds() + p.Dev.WriteLatency.Seconds()
	} else {
		dev, k, tw = faults*p.readLatency(), p.units(), p.writeTime()
	}
	// mva solves the C-server CPU and the device for n jobs, writes
	// taking a share uw of the device (none of an unlimited one).
	fn := float64(n)
	mva := func(uw float64) (cycle, x float64) {
		if dev <= 0 {
			x = min(fn, c) / cpu
		} else {
			x = closedPair(n, cpu, c, dev, k*(1-uw))
		}
		return fn / x, x
	}
	inRAM := fn * z / min(fn, c)
	u := 0.0
	if dev > 0 && !math.IsInf(k, 1) && tw > 0 {
		u = writeShare(tw, func(u float64) float64 { _, x := mva(u); return x })
	}
	cycle, _ := mva(u)
	cycle = max(cycle, fn*tw)
	return z * (cycle/inRAM - 1)
}

// Slowdown is 1 + rate x PageTime(rate).
func (p Path) Slowdown(rate float64) float64 { return 1 + rate*p.PageTime(rate) }

// RateFor is the page rate (pages needed back per second of in-RAM runtime,
// per job) at which the path gives slowdown s: the inverse of Slowdown.
func (p Path) RateFor(s float64) float64 {
	ex := s - 1
	if ex <= 0 {
		return 0
	}
	// Queueing only adds to the idle time, so the rate lies in
	// (0, ex/idle]; Slowdown grows with the rate. Jobs sharing cores
	// hide part of the wait, so there the bound is widened until it holds.
	hi := ex / p.IdleTime()
	if p.cpuBound() {
		for i := 0; i < 60 && p.Slowdown(hi) < s; i++ {
			hi *= 2
		}
	}
	if p.Slowdown(hi) <= s {
		return hi
	}
	lo := 0.0
	for i := 0; i < 64 && hi-lo > 1e-10*hi; i++ {
		mid := (lo + hi) / 2
		if p.Slowdown(mid) < s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
