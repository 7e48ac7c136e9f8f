package backtest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/workload/acct"
	"github.com/memplan/memplan/workload/backtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

const gib = 1 << 30

// testdata/history.txt is a synthetic history (generated with a seeded
// script, documented in its header), not a real cluster's.
func history(t *testing.T) acct.Source {
	t.Helper()
	f, err := os.Open("testdata/history.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s, err := acct.NewSlurm("testdata/history.txt", f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A made-up slowdown so the figures do not move with the model's curves:
// 1 + (1-fit)/fit, and no figure below a fit of 0.5.
func slow(fit float64) (float64, bool, string) {
	if fit < 0.5 {
		return 0, false, "fit ratio far below any measured point"
	}
	return 1 + (1-fit)/fit, true, ""
}

// plan is too small for the tails of both classes: sim's p95 footprint
// leaves its largest jobs swapping, sta_signoff's RAM and swap together
// hold only some of its jobs.
func plan() backtest.Plan {
	return backtest.Plan{Config: "test/config", Label: "test configuration", Classes: []backtest.Class{
		{Name: "sim", Held: 14.5 * gib, Swap: 8 * gib, Deadline: 2*time.Hour + 31*time.Minute + 40*time.Second, Footprint: 14.5 * gib, Slowdown: slow},
		{Name: "sta_signoff", Held: 300 * gib, Swap: 100 * gib, Deadline: 10 * time.Hour, Footprint: 414.1 * gib, Slowdown: slow},
		{Name: "lint", Held: 4 * gib, Deadline: time.Hour, Footprint: 2 * gib, Slowdown: slow},
	}}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *update {
		os.WriteFile(name, got, 0o644)
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update to rewrite):\n%s", name, got)
	}
}

// The replay of the synthetic history on a fixed plan matches its golden
// table and JSON.
func TestBacktestGolden(t *testing.T) {
	r, err := backtest.Run(history(t), "history.txt", "name", plan(), false)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := backtest.WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/backtest.golden.txt", table.Bytes())
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/backtest.golden.json", append(js, '\n'))
}

// The figures follow from the jobs: every replayed job is in RAM, swaps,
// does not fit or has no estimate; misses are the swapping jobs whose
// predicted time passes the deadline plus those that do not fit.
func TestBacktestCounts(t *testing.T) {
	r, err := backtest.Run(history(t), "history.txt", "name", plan(), false)
	if err != nil {
		t.Fatal(err)
	}
	sim, sta, lint := r.Classes[0], r.Classes[1], r.Classes[2]
	if sim.Completed != 117 || sim.NotReplayed["FAILED"] != 3 || r.Read != 144 {
		t.Fatalf("sim: %d completed, %v not replayed, %d read", sim.Completed, sim.NotReplayed, r.Read)
	}
	for _, c := range []backtest.ClassResult{sim, sta} {
		if c.InRAM+c.Swapped+c.NoFit+c.NoEstimate != c.Completed {
			t.Errorf("%s: %d+%d+%d+%d != %d", c.Name, c.InRAM, c.Swapped, c.NoFit, c.NoEstimate, c.Completed)
		}
		if c.Swapped == 0 {
			t.Errorf("%s: the plan is too small for its tail, yet no job swaps", c.Name)
		}
		misses := c.NoFit + c.NoEstimate + c.LateInRAM
		for _, j := range c.Jobs {
			if j.Outcome == backtest.Swaps {
				if want := j.Predicted > c.Deadline; j.Misses != want {
					t.Errorf("%s job %s: predicted %gs against %gs, misses %v", c.Name, j.ID, j.Predicted, c.Deadline, j.Misses)
				}
				if j.Misses {
					misses++
				}
				if j.Peak <= c.Held || j.Peak > c.Held+c.Swap {
					t.Errorf("%s job %s swaps at peak %g outside (%g, %g]", c.Name, j.ID, j.Peak, c.Held, c.Held+c.Swap)
				}
			}
		}
		if c.Omitted == 0 && misses != c.Missed {
			t.Errorf("%s: %d missed, the jobs add up to %d", c.Name, c.Missed, misses)
		}
	}
	if sta.NoFit == 0 {
		t.Errorf("sta_signoff: jobs over 400GiB should not fit: %+v", sta)
	}
	if lint.Completed != 0 || lint.SwapShare != 0 {
		t.Errorf("a class without jobs: %+v", lint)
	}
	// VPA: p90 of sim's peaks + 15%; largest + 10%.
	if sim.VPA <= 0 || sim.MaxPlus10 <= sim.VPA || sim.OverVPA == 0 {
		t.Errorf("sim reservations: VPA %g, max+10%% %g, over VPA %d", sim.VPA, sim.MaxPlus10, sim.OverVPA)
	}
}

// Jobs of a class the plan lacks are counted apart; a bad record stops
// the run or, with skipBad, is counted.
func TestBacktestUnplannedAndBad(t *testing.T) {
	head := "JobID|JobName|Partition|Account|State|Submit|Start|End|Elapsed|ReqMem|MaxRSS|AllocCPUS\n"
	text := head + "1|sim_1|p|a|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|20G|1\n" +
		"2|route_1|p|a|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|2G|1\n" +
		"3|sim_2|p|a|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|2Q|1\n"
	src := func() acct.Source {
		s, err := acct.NewSlurm("t.txt", strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := backtest.Run(src(), "t.txt", "name", plan(), false); err == nil || !strings.HasPrefix(err.Error(), `t.txt:4: field MaxRSS: "2Q"`) {
		t.Errorf("error %v", err)
	}
	r, err := backtest.Run(src(), "t.txt", "name", plan(), true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 1 || r.Unplanned["route"] != 1 || r.Classes[0].Swapped != 1 || r.Classes[0].Jobs[0].Fit != 0.725 {
		t.Errorf("result %+v", r)
	}
}

// With Plan.Keep every replayed job is kept, in RAM or not, and the kept
// jobs agree with the counts: as many as replayed, as many misses as
// counted. A cap below the history keeps none and says so.
func TestBacktestKeepsEveryJob(t *testing.T) {
	p := plan()
	p.Keep = 1000
	r, err := backtest.Run(history(t), "history.txt", "name", p, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.TooMany {
		t.Fatal("TooMany with room for 1000 jobs")
	}
	for _, c := range r.Classes {
		missed, inRAM := 0, 0
		for _, j := range c.All {
			if j.Misses {
				missed++
			}
			if j.Outcome == backtest.InRAM {
				inRAM++
				if j.Slowdown != 1 || j.Fit != 1 {
					t.Errorf("%s %s in RAM: slowdown %v, fit %v, want 1 and 1", c.Name, j.ID, j.Slowdown, j.Fit)
				}
			}
		}
		if len(c.All) != c.Completed || missed != c.Missed || inRAM != c.InRAM {
			t.Errorf("%s: kept %d jobs, %d missing, %d in RAM; counted %d, %d, %d", c.Name, len(c.All), missed, inRAM, c.Completed, c.Missed, c.InRAM)
		}
	}
	p.Keep = 10
	r, err = backtest.Run(history(t), "history.txt", "name", p, false)
	if err != nil {
		t.Fatal(err)
	}
	if !r.TooMany {
		t.Error("TooMany not set with room for 10 jobs")
	}
	for _, c := range r.Classes {
		if c.All != nil {
			t.Errorf("%s: %d jobs kept over the cap", c.Name, len(c.All))
		}
	}
	r, _ = backtest.Run(history(t), "history.txt", "name", plan(), false)
	if r.TooMany || r.Classes[0].All != nil {
		t.Error("jobs kept without Plan.Keep")
	}
}
