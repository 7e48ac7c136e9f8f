//go:build linux

package onepass

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/roottest"
)

// testCgroup creates a memory cgroup for a test (v1 or v2) and returns its
// cgroup.procs; cleanup kills what is left in it and removes it.
func testCgroup(t *testing.T) string {
	t.Helper()
	base := "/sys/fs/cgroup/memory"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		base = "/sys/fs/cgroup"
	}
	dir := filepath.Join(base, fmt.Sprintf("memplan-onepass-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("creating the test cgroup: %v", err)
	}
	procs := filepath.Join(dir, "cgroup.procs")
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			pids, _ := readPIDs(procs, nil)
			if len(pids) == 0 {
				break
			}
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing the test cgroup %s: %v", dir, err)
		}
	})
	return procs
}

// inCgroup runs a shell command in the cgroup from its first instruction:
// the shell writes its own pid to cgroup.procs and then execs.
func inCgroup(procs, script string) *exec.Cmd {
	return exec.Command("/bin/sh", "-c", fmt.Sprintf("echo $$ > %s && exec %s", procs, script))
}

// sampleRun runs cmd while a sampler follows its cgroup and returns what
// the sampler gathered, the command's largest process's peak RSS and its
// wall time. heap is sampled every 200 ms to show the sampler's memory.
func sampleRun(t *testing.T, procs string, cmd *exec.Cmd, cfg Config) (Samples, int64, time.Duration, []uint64) {
	t.Helper()
	cfg.Procs = procs
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var heap []uint64
	stopHeap := make(chan struct{})
	heapDone := make(chan struct{})
	go func() {
		defer close(heapDone)
		tk := time.NewTicker(200 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stopHeap:
				return
			case <-tk.C:
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = append(heap, ms.HeapAlloc)
			}
		}
	}()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	cancel()
	close(stopHeap)
	<-heapDone
	if rerr := <-done; rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	maxrss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	return s.Samples(), maxrss, wall, heap
}

func genLines(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewSource(1))
	pad := strings.Repeat("x", 40)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%016x %s\n", r.Uint64(), pad[:10+r.Intn(30)])
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func logSamples(t *testing.T, s Samples) {
	t.Helper()
	t.Logf("method %s, split %s, DAMON vaddr %s (%s); %d reads in %d sweeps (%d skipped) in %v, %d processes seen (%d at once), peak rss %d MiB, read %.1f ms, clear %.1f ms, %.2f%% of the time",
		s.Method, s.Split, s.DAMON.Vaddr, s.DAMON.Evidence, s.Windows, s.Sweeps, s.Skipped, s.Elapsed.Round(time.Millisecond), s.Processes, s.MaxProcesses,
		s.PeakRss>>20, 1e3*s.Cost.Mean, 1e3*s.ClearCost.Mean, 100*s.CostShare)
	for _, r := range s.Rungs {
		if r.Ref.N > 0 {
			t.Logf("  %7v (%.3fs): n %2d  referenced %6.1f MiB (anon %6.1f)  new %6.1f  reuse %6.1f ± %.1f MiB  rss %6.1f",
				r.Window.Round(time.Millisecond), r.Actual.Mean, r.Ref.N, r.Ref.Mean/(1<<20), r.RefAnon.Mean/(1<<20), r.New.Mean/(1<<20), r.Reuse.Mean/(1<<20), r.Reuse.SE()/(1<<20), r.Rss.Mean/(1<<20))
		}
	}
}

// GNU sort with a buffer larger than its input, under a shell that also
// starts a child: the sampler follows both, the working set reaches near
// the resident peak, and the profile comes out.
func TestRootSortAndChildren(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	if _, err := exec.LookPath("sort"); err != nil {
		t.Skip("no sort")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "lines.txt")
	// 2M lines: sort runs for a few seconds. With 900k it ran 1.0 s in
	// CI, and under load the duty cycle allowed one read (5 skipped), at
	// 100 ms, which saw 39 of its 92 MiB. The duty is the 5% here
	// (the default is 2%), which the test holds the sampler to below.
	genLines(t, in, 2000000)
	procs := testCgroup(t)
	// sh forks sleep and sort; sort is the big one.
	cmd := inCgroup(procs, fmt.Sprintf("sh -c 'sleep 1 & sort -S 400M %s -o /dev/null; wait'", in))
	s, maxrss, wall, heap := sampleRun(t, procs, cmd, Config{Duty: 0.05})
	logSamples(t, s)
	if s.Processes < 3 {
		t.Errorf("%d processes seen; want at least the two shells, sleep and sort", s.Processes)
	}
	if s.MaxProcesses < 3 {
		t.Errorf("at most %d processes at once; sh, sh, sleep and sort overlap", s.MaxProcesses)
	}
	if float64(s.PeakRss) < 0.7*float64(maxrss) {
		t.Errorf("sampled peak rss %d MiB, sort's own peak %d MiB: the sampler missed the big process", s.PeakRss>>20, maxrss>>20)
	}
	var top float64
	for _, r := range s.Rungs {
		if r.Ref.N > 0 {
			top = max(top, r.Ref.Max)
		}
	}
	if top < 0.6*float64(maxrss) || top > 1.3*float64(s.PeakRss) {
		t.Errorf("largest working set %.0f MiB: want near the resident peak (%d MiB sampled, %d MiB sort's maxrss)", top/(1<<20), s.PeakRss>>20, maxrss>>20)
	}
	if s.CostShare > 0.05 {
		t.Errorf("the sampler took %.1f%% of the run; the budget is 5%%", 100*s.CostShare)
	}
	checkHeap(t, heap)
	res, err := Derive(Info{Command: []string{"sort", "-S", "400M", in}, Runtime: wall, Fits: []float64{0.9, 0.75, 0.5}}, s, DefaultCosts())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Predictions {
		if p.Class == "zram-lz4" {
			for _, pt := range p.Points {
				t.Logf("zram-lz4 fit %.2f: %.0f pages/s [%.0f, %.0f] (%s) -> slowdown %.2f [%.2f, %.2f]",
					pt.Fit, pt.Rate.Central, pt.Rate.Low, pt.Rate.High, pt.Rate.Where, pt.Slowdown, pt.Low, pt.High)
			}
		}
	}
	if _, err := res.Factors(Info{Command: []string{"sort"}, Runtime: wall}); err != nil {
		t.Fatal(err)
	}
}

// The Python dictionary workload (examples/profile/dict.py) run for a few
// seconds with short windows: many windows, and the sampler's heap does not
// grow with them.
func TestRootDictBoundedMemory(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	script, _ := filepath.Abs("../../examples/profile/dict.py")
	procs := testCgroup(t)
	cmd := inCgroup(procs, py+" "+script+" 400000 3000000 8")
	cmd.Stdout = nil
	// Short windows and a generous duty so that many windows pass in a
	// few seconds: what a job of hours does to the aggregates.
	ladder := Ladder(10*time.Millisecond, 640*time.Millisecond, 2)
	s, maxrss, wall, heap := sampleRun(t, procs, cmd, Config{Windows: ladder, Duty: 0.2})
	logSamples(t, s)
	t.Logf("python3 maxrss %d MiB, %v", maxrss>>20, wall.Round(time.Millisecond))
	if s.Windows < 20 {
		t.Errorf("%d windows in %v; want many", s.Windows, wall)
	}
	if len(s.Rungs) != len(ladder) {
		t.Errorf("%d aggregates for %d rungs", len(s.Rungs), len(ladder))
	}
	if s.Split != "per-mapping smaps" {
		t.Errorf("split %q", s.Split)
	}
	var anon, ref float64
	for _, r := range s.Rungs {
		anon += r.RefAnon.Mean
		ref += r.Ref.Mean
	}
	if ref == 0 || anon/ref < 0.5 {
		t.Errorf("anonymous share of the referenced pages %.2f: a Python dictionary is anonymous memory", anon/ref)
	}
	checkHeap(t, heap)
}

// checkHeap: the sampler's heap after GC at the end is within 2 MiB of
// what it was at the first reading.
func checkHeap(t *testing.T, heap []uint64) {
	t.Helper()
	if len(heap) < 3 {
		t.Logf("heap: only %d readings", len(heap))
		return
	}
	first, last := heap[0], heap[len(heap)-1]
	t.Logf("heap after GC: %s KiB first, %s KiB last, %d readings", strconv.FormatUint(first>>10, 10), strconv.FormatUint(last>>10, 10), len(heap))
	if last > first+2<<20 {
		t.Errorf("the heap grew from %d to %d KiB while sampling: memory is not bounded", first>>10, last>>10)
	}
}
