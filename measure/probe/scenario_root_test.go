//go:build linux

package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure/host/hosttest"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// The source experiments at quick sizes, on the real host (root only).

// kernelAtLeast reports whether the running kernel is major.minor or newer.
func kernelAtLeast(t *testing.T, major, minor int) bool {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	var ma, mi int
	if _, err := fmt.Sscanf(string(b), "%d.%d", &ma, &mi); err != nil {
		t.Fatalf("kernel release %q: %v", b, err)
	}
	return ma > major || (ma == major && mi >= minor)
}

// hostRestored checks that a probe left the host as before and its
// journal empty.
func hostRestored(t *testing.T, before, stateDir string) {
	t.Helper()
	hosttest.Unchanged(t, before)
	if left := host.PendingChanges(host.NewOSHost(), stateDir); len(left) != 0 {
		t.Errorf("journal still lists %q", left)
	}
}

func TestRootSwapdemo(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := smallOptions(t)
	o.Scenarios = []string{ScenarioSwapdemo}
	o.Limit = 256 * units.MiB
	o.Budget = 10 * time.Second
	o.Reps = 3
	if v := os.Getenv("SWAPDEMO_PASSES"); v != "" {
		o.CodePasses, _ = strconv.ParseFloat(v, 64)
	}
	start := time.Now()
	rep, err := Run(context.Background(), host.NewOSHost(), o, &hosttest.Progress{T: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("swapdemo took %s", time.Since(start).Round(time.Second))
	hostRestored(t, before, o.StateDir)
	sd := rep.Swapdemo
	if sd == nil || len(sd.Runs) != len(swapdemoSettings()) {
		t.Fatalf("swapdemo result %+v", sd)
	}
	by := map[string]SwapdemoRun{}
	for _, r := range sd.Runs {
		by[r.Setting] = r
		t.Logf("%-26s runs %d iterations %5.2f  s/iter %7.3f (sd %.3f)  vs 60 %6.1f (at least %.1f)  code misses %7.0f rereads %7.0f  data misses %7.0f swapped in %7.0f  oom %d  min limit %s zram %s %s",
			r.Setting, len(r.Runs), r.Iterations, r.SecPerIter, r.PerIter.SD, r.VsSwappiness60, r.AtLeast, r.CodeMisses, r.CodeRereads, r.DataMisses, r.SwapInPages, r.OOMKilled, r.MinLimit, r.ZramUsed, r.Why)
	}
	if sd.Plan.Data != sd.Plan.Limit*14/16 || sd.Plan.Code != sd.Plan.Limit*3/16 {
		t.Errorf("proportions: data %s code %s for limit %s, want 14/16 and 3/16", sd.Plan.Data, sd.Plan.Code, sd.Plan.Limit)
	}
	sw60 := by["swappiness 60"]
	if sw60.Complete < swapdemoIterations {
		t.Fatalf("swappiness 60 finished %d of %d iterations in %s: %+v", sw60.Complete, swapdemoIterations, o.Budget, sw60)
	}
	slow := func(r SwapdemoRun) float64 { return max(r.VsSwappiness60, r.AtLeast) }
	// Without swap for the anonymous data the kernel can only evict the
	// code, which every iteration reads again: the experiment's thrash.
	for _, name := range []string{"swap off", "swappiness 0"} {
		r := by[name]
		if !r.Applied {
			t.Errorf("%s not applied: %s", name, r.Why)
			continue
		}
		if r.OOMKilled == 0 && slow(r) < 5 {
			t.Errorf("%s is %.1fx slower than swappiness 60, want at least 5x (the experiment saw more than 10x)", name, slow(r))
		}
		if r.OOMKilled == 0 && !(r.CodeRereads > 10*r.SwapInPages && r.CodeRereads > 0) {
			t.Errorf("%s: %.0f code pages re-read, %.0f swapped in: the thrash should be on the code", name, r.CodeRereads, r.SwapInPages)
		}
	}
	// Swappiness 1: the experiment's kernel thrashed like swap off. Since
	// Linux 5.8 reclaim weighs swappiness by what each side's refaults cost,
	// so once the code is re-read the kernel swaps data out anyway (see
	// docs/probe.md). Older kernels are held to the experiment here; every
	// kernel is at 1 GiB, where it thrashes (TestRootSwapdemoSwappiness1).
	sw1 := by["swappiness 1"]
	if !kernelAtLeast(t, 5, 8) {
		if slow(sw1) < 5 {
			t.Errorf("swappiness 1 is %.1fx slower than swappiness 60, want at least 5x on a kernel before 5.8", slow(sw1))
		}
	} else {
		t.Logf("swappiness 1 on a 5.8+ kernel: %.1fx slower than swappiness 60 (the experiment saw >10x); %.0f code pages re-read, %.0f data pages swapped in", slow(sw1), sw1.CodeRereads, sw1.SwapInPages)
		// What holds on every 5.8+ kernel at this size is that data is
		// swapped all the same: reclaim weighs swappiness by what each
		// side's refaults cost. Whether code is also re-read, and so
		// what it costs in time, depends on the order of reclaim and
		// faults: one CI run re-read no code page at swappiness 1 (2,331
		// at 60), others ten times as many as at 60, and the two times
		// overlap on a shared host. So the re-reads and the time are
		// logged; the thrash is held at 1 GiB
		// (TestRootSwapdemoSwappiness1).
		if !(sw1.SwapInPages > sw60.SwapInPages/4) {
			t.Errorf("swappiness 1: %.0f pages swapped in (swappiness 60: %.0f): a 5.8+ kernel should swap data out despite swappiness 1", sw1.SwapInPages, sw60.SwapInPages)
		}
	}
	zz, zr, fz := by["zram + swap, zero data"], by["zram + swap, random data"], by["swap file, zero data"]
	if !zz.Applied || !zr.Applied {
		t.Fatalf("zram not available: %s %s", zz.Why, zr.Why)
	}
	if !(zz.SecPerIter < sw60.SecPerIter) {
		t.Errorf("zram with zeros %.3fs per iteration is not faster than the swap file's %.3fs", zz.SecPerIter, sw60.SecPerIter)
	}
	// "No better" in time is NOT asserted, openly: the experiment saw ~2 min
	// against 1m55s on a laptop disk; here the swap file is a virtual disk
	// answering from the host's cache, nearly as fast as zram, and single
	// runs vary by up to 50% on a shared 2-core host, so zram with random data
	// came out from 0.6x to 2.4x of the swap file's time in repeated runs
	// (docs/probe.md). What is asserted is why zram is worth nothing for
	// random data: it stores it uncompressed, and that memory came out of the
	// workload's limit, while zeros cost zram nothing.
	t.Logf("zram with random data: %.3fs per iteration (best %.3fs), the swap file %.3fs (best %.3fs)", zr.SecPerIter, zr.PerIter.Min, sw60.SecPerIter, sw60.PerIter.Min)
	// How much the workload pushes out varies from run to run (22.6 to
	// 34.4 MiB of the zram disk in five runs on one day): what is held
	// is that a fair amount went in uncompressed and that the limit came
	// down by as much (to a MiB, the step the limit moves in).
	if !(zr.ZramRatio > 0 && zr.ZramRatio < 1.2 && zr.ZramUsed > sd.Plan.ZramSize/8 && sd.Plan.Limit-zr.MinLimit+units.MiB >= zr.ZramUsed) {
		t.Errorf("zram with random data: ratio %.2f, %s used, limit down to %s from %s: want it stored uncompressed and taken out of the limit", zr.ZramRatio, zr.ZramUsed, zr.MinLimit, sd.Plan.Limit)
	}
	// Zero pages are kept as same-filled entries without a compressed copy;
	// what zram still reports is its allocator's few pages for the rest of
	// the process's memory (CI saw 1.3 MiB against random data's 64 MiB,
	// and the limit follow it down by that much). Asserted against the
	// random run, not an absolute size that depends on the kernel. The
	// limit and the zram figure are sampled at different moments, and the
	// limit moves in steps of a MiB or more: it may lead by up to one.
	if !(zz.ZramUsed*16 < zr.ZramUsed && sd.Plan.Limit-zz.MinLimit <= zz.ZramUsed+units.MiB) {
		t.Errorf("zram with zeros: %s used (random data %s), limit down to %s from %s: zero pages should cost zram almost nothing", zz.ZramUsed, zr.ZramUsed, zz.MinLimit, sd.Plan.Limit)
	}
	t.Logf("control: the swap file with zero data %.3fs per iteration (zero pages are not written to any swap device on 6.12+)", fz.SecPerIter)
	if !strings.Contains(zr.Runs[0].Backend, "random") {
		t.Errorf("run labels %q", zr.Runs[0].Backend)
	}
}

func TestRootPageCacheRemedies(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := smallOptions(t)
	o.Workload.DataSize = 64 * units.MiB
	o.Scenarios = []string{ScenarioPageCache}
	o.Reps = 2 // one run per point
	o.PageCacheSizes = []float64{0, 4}
	o.PageCacheRemedies = []string{RemedyNone, RemedyWriterCgroup}
	if v := os.Getenv("PAGECACHE_REMEDIES"); v != "" {
		o.PageCacheRemedies = strings.Split(v, ",")
	}
	start := time.Now()
	rep, err := Run(context.Background(), host.NewOSHost(), o, &hosttest.Progress{T: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page-cache scenario took %s", time.Since(start).Round(time.Second))
	hosttest.Unchanged(t, before)
	loss := map[string]float64{}
	for _, c := range rep.PageCache {
		t.Logf("%-14s %gx (%s): %.0f visits/s, loss %.1f%%, %.0f swap-outs, %.0f major faults, wrote %.0fMiB %s",
			c.Remedy, c.Multiple, c.FileSize, c.Rate.Mean, 100*c.Loss, c.SwapOuts, c.MajFlt, c.Written, c.Runs[0].WriterError)
		if c.Rate.N != 1 {
			t.Errorf("%s %gx: %d good runs of 1", c.Remedy, c.Multiple, c.Rate.N)
		}
		if c.Multiple > 0 {
			loss[c.Remedy] = c.Loss
			if c.Written < float64(c.FileSize/units.MiB)*0.5 && c.Remedy != RemedyWriterCgroup {
				t.Errorf("%s: the writer wrote %.0fMiB of %s", c.Remedy, c.Written, c.FileSize)
			}
		}
	}
	if len(rep.PageCache) != 1+len(o.PageCacheRemedies) {
		t.Fatalf("%d page-cache points, want %d", len(rep.PageCache), 1+len(o.PageCacheRemedies))
	}
	// The source's finding: a writer's page cache costs the application
	// throughput, and a page-cache limit keeps it flat.
	//
	// What is asserted is the mechanism, which does not depend on how busy
	// the shared host is: without a remedy the writer's dirty pages push the
	// application's pages to swap and it faults them back; in the writer's
	// own cgroup it does not. The throughput loss is one 6 s run per point on
	// a host where single runs vary by 20-40%: it came out 9.5-40% in CI and
	// local runs, so it is held to a margin noise cannot flip (a loss of at
	// least 3%) rather than to the source's 40%, and only where no run was
	// disturbed.
	byRemedy := map[string]PageCacheResult{}
	for _, c := range rep.PageCache {
		if c.Multiple > 0 {
			byRemedy[c.Remedy] = c
		}
	}
	none, own := byRemedy[RemedyNone], byRemedy[RemedyWriterCgroup]
	if !(none.SwapOuts > 0 && none.MajFlt > 0) {
		t.Errorf("no remedy: %.0f swap-outs, %.0f major faults: the writer's page cache should push the application's pages out and back", none.SwapOuts, none.MajFlt)
	}
	if !(own.MajFlt <= none.MajFlt/10 && own.SwapOuts <= none.SwapOuts/10) {
		t.Errorf("the writer's own cgroup: %.0f swap-outs, %.0f major faults against %.0f and %.0f without a remedy: want a tenth or less", own.SwapOuts, own.MajFlt, none.SwapOuts, none.MajFlt)
	}
	// The throughput figures are single runs: where the probe recorded
	// that other work disturbed one of them (CI once ran the writer-less
	// run while other packages' tests held both CPUs, and the "loss" came
	// out -32%), the comparison says nothing and is only logged.
	disturbed, recorded := false, 0
	for _, c := range rep.PageCache {
		for _, r := range c.Runs {
			if r.Contention != nil {
				recorded++
				disturbed = disturbed || r.Contention.Disturbed
			}
		}
	}
	// The baseline (no writer) is itself one run: where the run with the
	// writer in its own cgroup, which still competes for CPU and disk,
	// came out more than 3% faster than it, the baseline was slowed by
	// something the probe did not record (a local run with another job's
	// builds on the other CPU: -21%), and the losses say nothing either.
	if l, ok := loss[RemedyWriterCgroup]; ok && l < -0.03 {
		t.Logf("the writer-cgroup run was %.1f%% faster than the baseline without a writer: the baseline was disturbed", -100*l)
		disturbed = true
	}
	t.Logf("contention recorded for %d runs, disturbed: %v", recorded, disturbed)
	check := t.Errorf
	if disturbed {
		check = func(format string, args ...any) {
			t.Logf("not asserted, the runs were disturbed by other work on the host: "+format, args...)
		}
	}
	if !(loss[RemedyNone] > 0.03) {
		check("no remedy: throughput loss %.1f%%, want a visible loss (above 3%%; the source saw almost 40%%)", 100*loss[RemedyNone])
	}
	// The remedy's throughput against no remedy is logged, not asserted:
	// the writer still takes CPU and disk from the application in its own
	// cgroup, so the remedy's single run lost 3.7-27% against 9.6-29%
	// without one, a gap of 2-6 points that one run's noise can flip. That
	// the remedy keeps the application's pages is asserted above.
	t.Logf("throughput loss: %.1f%% without a remedy, %.1f%% with the writer in its own cgroup", 100*loss[RemedyNone], 100*loss[RemedyWriterCgroup])
}

func TestRootCopyWorkloads(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := smallOptions(t)
	o.Scenarios = []string{ScenarioCopy}
	o.CopyRuns = 4
	start := time.Now()
	rep, err := Run(context.Background(), host.NewOSHost(), o, &hosttest.Progress{T: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("copy workloads took %s", time.Since(start).Round(time.Second))
	hosttest.Unchanged(t, before)
	if _, err := os.Stat(rep.Plan.Copy.Dir); !os.IsNotExist(err) {
		t.Errorf("%s is left behind (%v)", rep.Plan.Copy.Dir, err)
	}
	c := rep.Copy
	if c == nil || len(c.Workloads) != 3 {
		t.Fatalf("copy result %+v", c)
	}
	for _, w := range c.Workloads {
		t.Logf("%-15s %6d files %s: %.3fs trimmed (mean %.3fs, min %.3f, max %.3f), %.0f MB/s, %.0f files/s",
			w.Name, w.Files, w.Bytes, w.Seconds.Trimmed, w.Seconds.Mean, w.Seconds.Min, w.Seconds.Max, w.MBps, w.FilesPerSec)
		if w.Seconds.N != o.CopyRuns || w.Failed != 0 {
			t.Errorf("%s: %d good runs of %d", w.Name, w.Seconds.N, o.CopyRuns)
			continue
		}
		for _, r := range w.Runs {
			if r.Files != w.Files || r.Copied != w.Bytes {
				t.Errorf("%s run %d copied %d files, %s; want %d, %s", w.Name, r.Rep, r.Files, r.Copied, w.Files, w.Bytes)
			}
		}
		// The trimmed mean drops the best and the worst run.
		if !(w.Seconds.Trimmed >= w.Seconds.Min && w.Seconds.Trimmed <= w.Seconds.Max) || w.MBps <= 0 {
			t.Errorf("%s: summary %+v, %.1f MB/s", w.Name, w.Seconds, w.MBps)
		}
	}
	if c.Workloads[0].Files != copySmallFiles/10 {
		t.Errorf("quick small-file tree has %d files, want %d", c.Workloads[0].Files, copySmallFiles/10)
	}
}

// An interrupt in the middle of the swapdemo experiment's zram runs undoes
// everything: the zram device, both swap areas, the cgroups, the files.
func TestRootSwapdemoInterrupted(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := smallOptions(t)
	o.Scenarios = []string{ScenarioSwapdemo, ScenarioCopy}
	o.Limit = 128 * units.MiB
	o.Budget = 3 * time.Second
	o.Reps = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prog := &hosttest.Progress{T: t}
	zramSeen := false
	prog.OnRun = func(r measure.RunResult) {
		if strings.HasSuffix(r.Backend, "swap off") {
			// The zram run with zeros starts next: stop it once zram is swap.
			go func() {
				for i := 0; i < 200; i++ {
					if swaps, _ := os.ReadFile("/proc/swaps"); strings.Contains(string(swaps), "zram") {
						time.Sleep(300 * time.Millisecond)
						zramSeen = true
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				cancel()
			}()
		}
	}
	_, err := Run(ctx, host.NewOSHost(), o, prog)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if !zramSeen {
		t.Log("zram never became swap before the cancel (zram unavailable?)")
	}
	hostRestored(t, before, o.StateDir)
	if m, _ := filepath.Glob(filepath.Join(o.SwapDir, "memplan-*")); len(m) != 0 {
		t.Errorf("left in the swap directory: %q", m)
	}
}
