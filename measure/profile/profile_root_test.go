//go:build linux

package profile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure/host/hosttest"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
)

// These tests change the real host (swap, zram, cgroups) and put it back;
// CI runs them as root. The real programs' profiles (GNU sort, a Python
// dictionary) run end to end in cmd/memplan's tests.

// memHog is a command that holds size MiB for a while, then exits with
// code: a stand-in for a real job that needs no input files.
func memHog(t *testing.T, mib, seconds, code int) []string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "hog.py")
	src := `import sys, time
mib, seconds, code = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
data = bytearray(mib << 20)
for i in range(0, len(data), 4096):
    data[i] = i % 251
end = time.time() + seconds
s = 0
while time.time() < end:
    for i in range(0, len(data), 4096 * 7):
        s += data[i]
print(s)
sys.exit(code)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"python3", script, strconv.Itoa(mib), strconv.Itoa(seconds), strconv.Itoa(code)}
}

// memWork is a job of fixed work (unlike memHog, whose loop runs for a
// fixed time): it fills mib MiB, then reads visits pages chosen at random
// (a fixed seed), so a busy host stretches it rather than shrinking its
// work.
func memWork(t *testing.T, mib, visits int) []string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "work.py")
	src := `import random, sys
mib, visits = int(sys.argv[1]), int(sys.argv[2])
data = bytearray(mib << 20)
pages = len(data) // 4096
for i in range(0, len(data), 4096):
    data[i] = i % 251
rng = random.Random(1)
s = 0
for _ in range(visits):
    s += data[rng.randrange(pages) * 4096]
print(s)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"python3", script, strconv.Itoa(mib), strconv.Itoa(visits)}
}

func profileOptions(t *testing.T, cmd []string) Options {
	o := DefaultOptions()
	o.Command = cmd
	o.StateDir = t.TempDir()
	o.Runs = 1
	o.Fits = []float64{0.75}
	o.Invocation = t.Name()
	o.StdoutFile = filepath.Join(t.TempDir(), "stdout")
	o.StderrFile = filepath.Join(t.TempDir(), "stderr")
	return o
}

// TestRootProfileBadCommands: a command that fails, one too short to
// measure, one that does not exist and bad fit ratios get clear errors,
// and the host is exactly as before.
func TestRootProfileBadCommands(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	var ce *CommandError
	var oe *measure.OptionError
	for _, c := range []struct {
		name  string
		cmd   []string
		mod   func(*Options)
		check func(error) bool
		want  string
	}{
		{"exits 1", []string{"sh", "-c", "echo broken >&2; exit 1"}, nil,
			func(err error) bool { return errors.As(err, &ce) && ce.ExitCode == 1 }, "exit status 1"},
		{"stderr kept", []string{"sh", "-c", "echo 'no such design' >&2; exit 7"}, nil,
			func(err error) bool { return errors.As(err, &ce) && strings.Contains(ce.Stderr, "no such design") }, "no such design"},
		{"killed", []string{"sh", "-c", "kill -TERM $$"}, nil,
			func(err error) bool { return errors.As(err, &ce) && ce.Signal != "" }, "killed by signal 15"},
		{"too short", []string{"true"}, nil,
			func(err error) bool { return errors.Is(err, ErrTooShort) }, "too fast to measure"},
		{"too little memory", []string{"sleep", "1"}, func(o *Options) { o.MinRuntime = 100 * time.Millisecond },
			func(err error) bool { return errors.Is(err, ErrTooLittle) }, "nothing to swap"},
		{"not found", []string{"./memplan-no-such-script.sh"}, nil,
			func(err error) bool { return errors.As(err, &oe) }, "not found"},
		{"fit out of range", []string{"true"}, func(o *Options) { o.Fits = []float64{0.9, 0} },
			func(err error) bool { return errors.As(err, &oe) }, "out of range"},
		{"no command", nil, nil,
			func(err error) bool { return errors.As(err, &oe) }, "no command given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := profileOptions(t, c.cmd)
			if c.mod != nil {
				c.mod(&o)
			}
			_, err := Profile(context.Background(), host.NewOSHost(), o, &hosttest.Progress{T: t})
			if err == nil || !c.check(err) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
			t.Logf("%v", err)
			hosttest.Unchanged(t, before)
			if left := host.PendingChanges(host.NewOSHost(), o.StateDir); len(left) != 0 {
				t.Errorf("the journal still lists %q", left)
			}
		})
	}
	// The command's own output still went where it was sent.
	o := profileOptions(t, []string{"sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 2"})
	_, err := Profile(context.Background(), host.NewOSHost(), o, nil)
	out, _ := os.ReadFile(o.StdoutFile)
	errOut, _ := os.ReadFile(o.StderrFile)
	if !errors.As(err, &ce) || string(out) != "to-stdout\n" || string(errOut) != "to-stderr\n" {
		t.Errorf("err %v, stdout %q, stderr %q", err, out, errOut)
	}
	hosttest.Unchanged(t, before)
}

// TestRootProfileInterrupted cancels a profile while the command runs
// under a memory limit with zram as swap: every change is undone.
func TestRootProfileInterrupted(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := profileOptions(t, memHog(t, 96, 2, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prog := &hosttest.Progress{T: t}
	prog.OnRun = func(r measure.RunResult) {
		if strings.HasPrefix(r.Backend, "zram") {
			// The next run is the limited one: cancel while it runs.
			go func() {
				time.Sleep(time.Second)
				swaps, _ := os.ReadFile("/proc/swaps")
				if !strings.Contains(string(swaps), "zram") {
					t.Errorf("zram is not swap mid-run:\n%s", swaps)
				}
				cancel()
			}()
		}
	}
	_, err := Profile(ctx, host.NewOSHost(), o, prog)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	hosttest.Unchanged(t, before)
	if left := host.PendingChanges(host.NewOSHost(), o.StateDir); len(left) != 0 {
		t.Errorf("the journal still lists %q", left)
	}
}

// TestRootProfileSmall profiles a small memory hog on zram end to end: the
// footprint is its resident peak, the limited run swaps and is slower, and
// the factor file has the measured curve.
func TestRootProfileSmall(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := profileOptions(t, memHog(t, 128, 2, 0))
	o.Fits = []float64{0.9, 0.5}
	rep, err := Profile(context.Background(), host.NewOSHost(), o, &hosttest.Progress{T: t})
	if err != nil {
		t.Fatal(err)
	}
	hosttest.Unchanged(t, before)
	if rep.Footprint < 128<<20 || rep.Footprint > 256<<20 {
		t.Errorf("footprint %s for a 128MiB hog", rep.Footprint)
	}
	ph := rep.Phases[0]
	// One round and the closing in-RAM run: two in-RAM runs.
	if ph.Name != "zram-lz4" || ph.InRAM.N != 2 || len(ph.Points) != 2 {
		t.Fatalf("phase %+v", ph)
	}
	lo := ph.Points[1]
	if lo.Slowdown.N != 1 || lo.SwapOuts == 0 || lo.MajFlt == 0 {
		t.Errorf("fit 0.5: %+v", lo)
	}
	ff := rep.Factors("test")
	if len(ff.Curves) != 1 || ff.Curves[0].Class != "zram-lz4" || ff.TransferFrom != "zram-lz4" || ff.FaultOverhead <= 0 {
		t.Errorf("factor file curves %+v, transfer_from %q, fault_overhead %s", ff.Curves, ff.TransferFrom, ff.FaultOverhead)
	}
	// The readahead runs swapped through a loop device over zram (gone
	// again: hostUnchanged above) and counted faults and pages at both
	// fit ratios.
	ra := rep.Readahead
	if ra == nil || len(ra.Points) != 2 || !strings.Contains(ra.Device, "/dev/loop") || ra.Points[1].SwapIns == 0 || ra.Points[1].MajFlt == 0 {
		t.Fatalf("readahead %+v", ra)
	}
	if ra.Faults <= 0 || ra.Faults > 1 || ra.Pages < ra.Faults || ff.Readahead == nil || *ff.Readahead != (factors.Readahead{Faults: ra.Faults, Pages: ra.Pages}) {
		t.Errorf("readahead %g faults, %g pages per page; profile %+v", ra.Faults, ra.Pages, ff.Readahead)
	}
	if p := ff.Curves[0].Points[1]; p.PageRate <= 0 || p.BlockFaultRate <= 0 {
		t.Errorf("fit 0.5 point without counts: %+v", p)
	}
}

// TestRootProfileBusyHost profiles the same small job on a quiet host and
// while CPU hogs this test starts (one per CPU, stopped by PID) compete
// with it: the busy runs are flagged as disturbed, the slowdowns stay
// within the quiet run's intervals (each run is compared with the in-RAM
// runs next to it), and nothing below 1 is reported as a slowdown.
func TestRootProfileBusyHost(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	cmd := memWork(t, 96, 500000)
	opts := func() Options {
		o := profileOptions(t, cmd)
		// The work runs 0.5-0.8 s here; on a quiet host it once took
		// 0.48 s, under the 0.5 s default floor. (Twice the visits made
		// the quiet and busy intervals at fit 0.6 part: 6.8 against 8.6.)
		o.MinRuntime = 250 * time.Millisecond
		o.Fits = []float64{0.9, 0.6}
		o.Runs = 3
		o.DeviceProfile, o.Readahead = false, false
		return o
	}
	quiet, err := Profile(context.Background(), host.NewOSHost(), opts(), &hosttest.Progress{T: t})
	if err != nil {
		t.Fatal(err)
	}
	var hogs []*exec.Cmd
	for i := 0; i < runtime.NumCPU(); i++ {
		h := exec.Command("sh", "-c", "while :; do :; done")
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		hogs = append(hogs, h)
	}
	stopHogs := func() {
		for _, h := range hogs {
			_ = h.Process.Kill()
			_, _ = h.Process.Wait()
		}
		hogs = nil
	}
	defer stopHogs()
	busy, err := Profile(context.Background(), host.NewOSHost(), opts(), &hosttest.Progress{T: t})
	stopHogs()
	if err != nil {
		t.Fatal(err)
	}
	hosttest.Unchanged(t, before)

	count := func(rep *Report) (disturbed, byWork, runs int) {
		ph := rep.Phases[0]
		all := append([]measure.RunResult(nil), ph.InRAMRuns...)
		for _, pt := range ph.Points {
			all = append(all, pt.Runs...)
		}
		for _, r := range all {
			runs++
			if r.Contention != nil && r.Contention.Disturbed {
				disturbed++
				if r.Contention.Cause == measure.ByOtherWork {
					byWork++
				}
			}
		}
		return disturbed, byWork, runs
	}
	for _, rep := range []*Report{quiet, busy} {
		ph := rep.Phases[0]
		for _, r := range append(append([]measure.RunResult(nil), ph.InRAMRuns...), ph.Points[len(ph.Points)-1].Runs...) {
			var c measure.Contention
			if r.Contention != nil {
				c = *r.Contention
			}
			t.Logf("  fit %g rep %d: wall %.2fs, cpu %.2fs, wait %.2fs, others %.1f CPU-s, idle-host wall %.2fs, disturbed %v",
				r.Fit, r.Rep, r.Wall, c.JobCPU, c.CPUWait, c.OthersCPU, c.IdleWall, c.Disturbed)
		}
	}
	qd, _, qn := count(quiet)
	bd, byWork, bn := count(busy)
	t.Logf("disturbed runs: quiet %d of %d, busy %d of %d", qd, qn, bd, bn)
	if bd*2 < bn {
		t.Errorf("with %d CPU hogs only %d of %d runs were flagged as disturbed", runtime.NumCPU(), bd, bn)
	}
	// The hogs are other work: that is the cause the flags give, not the
	// hypervisor.
	if byWork*2 < bn {
		t.Errorf("with %d CPU hogs only %d of %d runs were flagged as disturbed by other work", runtime.NumCPU(), byWork, bn)
	}
	for i := range quiet.Phases[0].Points {
		q, b := quiet.Phases[0].Points[i], busy.Phases[0].Points[i]
		t.Logf("fit %g: quiet %.3f (%.3f-%.3f), idle-host %.3f; busy %.3f (%.3f-%.3f), idle-host %.3f (%.3f-%.3f); verdicts %q %q",
			q.Fit, q.Slowdown.Mean, q.Slowdown.Lo, q.Slowdown.Hi, q.IdleHost.Mean,
			b.Slowdown.Mean, b.Slowdown.Lo, b.Slowdown.Hi, b.IdleHost.Mean, b.IdleHost.Lo, b.IdleHost.Hi, q.Verdict, b.Verdict)
		// The hogs do not only take CPU time from the job: on zram the
		// fault path compresses in the job's own context and in kswapd,
		// and under contention the job spent 8.9 CPU-s at fit 0.6 against
		// 4.7 s quiet (CI, 2026-12). No correction for waiting recovers
		// work the job really did, so a busy host's figure may lie outside
		// the quiet one. What the profiler owes the user then is a warning
		// on that very fit, which is asserted; the gap is logged.
		if b.Slowdown.Lo > q.Slowdown.Hi || b.Slowdown.Hi < q.Slowdown.Lo {
			t.Logf("fit %g: busy %.3f (%.3f-%.3f) is outside the quiet run's %.3f (%.3f-%.3f); idle-host %.3f",
				q.Fit, b.Slowdown.Mean, b.Slowdown.Lo, b.Slowdown.Hi, q.Slowdown.Mean, q.Slowdown.Lo, q.Slowdown.Hi, b.IdleHost.Mean)
			if !noteFor(busy.Notes, fmt.Sprintf("at fit %g: ", q.Fit), "runs were disturbed") {
				t.Errorf("fit %g: busy %.3f lies outside the quiet %.3f (%.3f-%.3f) and no note warns that its runs were disturbed; notes %q",
					q.Fit, b.Slowdown.Mean, q.Slowdown.Mean, q.Slowdown.Lo, q.Slowdown.Hi, busy.Notes)
			}
		}
		for _, pt := range []Point{q, b} {
			if pt.Slowdown.Mean < 1 && pt.Verdict == "" {
				t.Errorf("fit %g: %.3f is reported as a slowdown without a verdict", pt.Fit, pt.Slowdown.Mean)
			}
		}
	}
	for _, rep := range []*Report{quiet, busy} {
		for _, c := range rep.Factors("test").Curves {
			for _, p := range c.Points {
				if p.Slowdown < 1 {
					t.Errorf("the factor file records %g at fit %g", p.Slowdown, p.Fit)
				}
			}
		}
	}
}

// TestRootProfileOnePass runs a one-pass profile end to end: one run, the
// sampler following the command in its cgroup, an inferred curve written
// as a profile with method one-pass, and the host as it was.
func TestRootProfileOnePass(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := profileOptions(t, memWork(t, 128, 1500000))
	o.OnePass = true
	o.Fits = []float64{0.9, 0.75, 0.5}
	// The pages are priced with a fault overhead measured elsewhere on
	// the host (here: the example sort profile's 32.78us).
	o.OverheadFrom = "../../examples/profile/sort.profile.json"
	prog := &hosttest.Progress{T: t}
	rep, err := Profile(context.Background(), host.NewOSHost(), o, prog)
	if err != nil {
		t.Fatal(err)
	}
	hosttest.Unchanged(t, before)
	if len(rep.Phases) != 0 || rep.OnePass == nil || rep.Sizing.Wall <= 0 {
		t.Fatalf("phases %d, one pass %v, sizing %+v", len(rep.Phases), rep.OnePass, rep.Sizing)
	}
	sm := rep.OnePass.Result.Samples
	if sm.Windows == 0 || sm.Method == "" || sm.Processes == 0 {
		t.Errorf("samples: %d reads, method %q, %d processes", sm.Windows, sm.Method, sm.Processes)
	}
	ff := rep.Factors("test")
	if len(ff.Curves) == 0 || len(ff.Curves[0].Points) != 3 {
		t.Fatalf("curves %+v", ff.Curves)
	}
	prof, _ := ff.Extra["profile"].(map[string]any)
	if prof == nil || prof["method"] != "one-pass" {
		t.Errorf("extra.profile %v, want method one-pass", ff.Extra["profile"])
	}
	if c := rep.OnePass.Result.Costs; ff.FaultOverhead.D() != 32780*time.Nanosecond || c.Overhead != 32780*time.Nanosecond || !strings.Contains(c.OverheadSource, "sort.profile.json") {
		t.Errorf("fault overhead %v in the file, %v from %q in the costs; want 32.78us from sort.profile.json", ff.FaultOverhead, c.Overhead, c.OverheadSource)
	}
	for _, p := range ff.Curves[0].Points {
		t.Logf("fit %g: %.3f (%v)", p.Fit, p.Slowdown, p.CI)
		if p.Slowdown < 1 || len(p.CI) != 2 || p.CI[0] > p.Slowdown || p.CI[1] < p.Slowdown {
			t.Errorf("fit %g: %+v", p.Fit, p)
		}
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "inferred") {
		t.Errorf("no note says the curve is inferred: %q", rep.Notes)
	}
}

// noteFor reports whether one of notes contains every part.
func noteFor(notes []string, parts ...string) bool {
	for _, n := range notes {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n, p)
		}
		if all {
			return true
		}
	}
	return false
}
