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

// TestRootSwapdemoSwappiness1 holds swappiness 1 to the experiment on every
// kernel: at least 5x slower than swappiness 60. At TestRootSwapdemo's
// 256 MiB a 5.8+ kernel's refault weighting keeps it at about 2x; at 1 GiB
// it thrashes as the experiment's did. 1 GiB with a 60 s budget is the
// smallest size measured where every run cleared 5x with margin (lowest of
// 6 runs 7.6x; 768 MiB: 3.9x; above 1 GiB swappiness 60 itself starts to
// vary; docs/probe.md). Only the two settings run, once each (about 75 s):
// swap off would add a minute and is held to 5x at 256 MiB already.
// SWAPDEMO_LIMIT, SWAPDEMO_BUDGET and SWAPDEMO_SETTINGS (names,
// comma-separated) override the size and the settings for measuring.
func TestRootSwapdemoSwappiness1(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	before := host.HostState(host.NewOSHost())
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
	slow := max(sw1.VsSwappiness60, sw1.AtLeast)
	if sw1.OOMKilled != 0 || slow < 5 {
		t.Errorf("swappiness 1 is %.1fx slower than swappiness 60 (%d OOM kills), want at least 5x (the experiment saw more than 10x)", slow, sw1.OOMKilled)
	}
	// The thrash is on the code: re-read per iteration many times more
	// often than at swappiness 60 (measured at 1 GiB: 9-16x), and most of
	// the run's faults (4-12x its swap-ins).
	if sw1.Iterations == 0 {
		t.Fatalf("swappiness 1 did no work: %+v", sw1)
	}
	per1, per60 := sw1.CodeRereads/sw1.Iterations, sw60.CodeRereads/sw60.Iterations
	if !(per1 > 4*per60 && sw1.CodeRereads > 2*sw1.SwapInPages) {
		t.Errorf("swappiness 1: %.0f code pages re-read per iteration (swappiness 60: %.0f), %.0f in all against %.0f swapped in: the thrash should be on the code",
			per1, per60, sw1.CodeRereads, sw1.SwapInPages)
	}
}
