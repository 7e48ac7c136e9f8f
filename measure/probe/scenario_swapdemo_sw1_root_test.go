//go:build linux

package probe

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/hosttest"
	"github.com/memplan/memplan/units"
)

// TestRootSwapdemoSwappiness1 holds swappiness 1 to the experiment's
// mechanism on every kernel: at 1 GiB (TestRootSwapdemo's 256 MiB is kept
// near 2x by a 5.8+ kernel's refault weighting) the kernel keeps evicting
// and re-reading the code, and swappiness 1 is at least 1.5 times as slow
// as swappiness 60. How much slower depends on what a re-read costs on
// the host's disk: 6.4-10.8x on an earlier machine of this kind (about
// 106 us a re-read), 4.8-6.0x on a faster one (63-87 us), 2.8x once in
// CI, where the kernel re-read less, 1.99x at 21 us a re-read
// (docs/probe.md). The experiment's >10x is a
// figure of the device and of how much the kernel re-reads, so it is
// logged, with the slowdown the same re-reads would give at a laptop SSD's
// 150 us, not asserted. Only the
// two settings run, once each (about 45-75 s): swap off would add a minute
// and is held to 5x at 256 MiB already. SWAPDEMO_LIMIT, SWAPDEMO_BUDGET and
// SWAPDEMO_SETTINGS (names, comma-separated) override the size and the
// settings for measuring.
func TestRootSwapdemoSwappiness1(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.State(host.NewOSHost())
	o := smallOptions(t)
	o.Scenarios = []string{ScenarioSwapdemo}
	o.SwapdemoSettings = []string{"swappiness 60", "swappiness 1"}
	o.Limit = 1 * units.GiB
	o.Budget = time.Minute
	o.Reps = 1
	if v := os.Getenv("SWAPDEMO_LIMIT"); v != "" {
		l, err := units.ParseBytes(v)
		if err != nil {
			t.Fatalf("SWAPDEMO_LIMIT: %v", err)
		}
		o.Limit = l
	}
	if v := os.Getenv("SWAPDEMO_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SWAPDEMO_BUDGET: %v", err)
		}
		o.Budget = d
	}
	if v := os.Getenv("SWAPDEMO_SETTINGS"); v != "" {
		o.SwapdemoSettings = strings.Split(v, ",")
	}
	start := time.Now()
	rep, err := Run(context.Background(), host.NewOSHost(), o, &hosttest.Progress{T: t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("swapdemo at %s, budget %s, took %s", o.Limit, o.Budget, time.Since(start).Round(time.Second))
	hostRestored(t, before, o.StateDir)
	sd := rep.Swapdemo
	if sd == nil || len(sd.Runs) != len(o.SwapdemoSettings) {
		t.Fatalf("swapdemo result %+v", sd)
	}
	by := map[string]SwapdemoRun{}
	for _, r := range sd.Runs {
		by[r.Setting] = r
		t.Logf("%-13s iterations %5.2f in %5.1fs  s/iter %7.3f  vs 60 %5.1f (at least %.1f)  code re-reads %8.0f  swap-ins %8.0f  oom %d %s",
			r.Setting, r.Iterations, r.Timed, r.SecPerIter, r.VsSwappiness60, r.AtLeast, r.CodeRereads, r.SwapInPages, r.OOMKilled, r.Why)
	}
	sw60, sw1 := by["swappiness 60"], by["swappiness 1"]
	if !sw60.Applied || !sw1.Applied {
		t.Fatalf("not applied: %s %s", sw60.Why, sw1.Why)
	}
	if sw60.Complete < swapdemoIterations {
		t.Fatalf("swappiness 60 finished %d of %d iterations in %s: %+v", sw60.Complete, swapdemoIterations, o.Budget, sw60)
	}
	// How much slower depends on what a code re-read costs on the host
	// (a suite run here: 21 us, from the host's cache, and 1.99x), so
	// the time is held to 1.5x and the mechanism to the counts below.
	slow := max(sw1.VsSwappiness60, sw1.AtLeast)
	if sw1.OOMKilled != 0 || slow < 1.5 {
		t.Errorf("swappiness 1 is %.1fx slower than swappiness 60 (%d OOM kills), want at least 1.5x (the experiment saw more than 10x)", slow, sw1.OOMKilled)
	}
	// The thrash is on the code: re-read per iteration several times more
	// often than at swappiness 60 (measured at 1 GiB: 3.3-21x), and more
	// than the pages swapped in.
	if sw1.Iterations == 0 || sw60.Iterations == 0 {
		t.Fatalf("a setting did no work: %+v %+v", sw60, sw1)
	}
	per1, per60 := sw1.CodeRereads/sw1.Iterations, sw60.CodeRereads/sw60.Iterations
	if !(per1 > 2.5*per60 && sw1.CodeRereads > sw1.SwapInPages) {
		t.Errorf("swappiness 1: %.0f code pages re-read per iteration (swappiness 60: %.0f), %.0f in all against %.0f swapped in: the thrash should be on the code",
			per1, per60, sw1.CodeRereads, sw1.SwapInPages)
	}
	// What a re-read cost here (all of swappiness 1's extra time charged to
	// its extra re-reads, an upper estimate), and what the same counts
	// would take where a re-read costs 150 us: every re-read of both
	// settings dearer by the difference (swap-ins left at their cost).
	if extra := per1 - per60; extra > 0 {
		cost := (sw1.SecPerIter - sw60.SecPerIter) / extra
		const laptop = 150e-6
		if d := laptop - cost; d > 0 {
			t.Logf("a code re-read cost %.0f us here (%.1fx; the experiment saw more than 10x); at %.0f us a re-read the same counts give %.1fx",
				cost*1e6, slow, laptop*1e6, (sw1.SecPerIter+per1*d)/(sw60.SecPerIter+per60*d))
		} else {
			t.Logf("a code re-read cost %.0f us here, more than %.0f us (%.1fx; the experiment saw more than 10x)", cost*1e6, laptop*1e6, slow)
		}
	}
}
