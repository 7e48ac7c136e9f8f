package model

import (
	"math"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
)

// The figures of docs/model.md's "examples/eda.yaml worked through": the
// page is a hand calculation, and this test holds its results to what the
// model computes, so a change that moves them fails here before the page
// goes stale.

// sweepEDA is examples/eda.yaml with access: sweep on both job classes,
// the pattern the published anchors agree under.
func sweepEDA(t *testing.T) Input {
	t.Helper()
	in := edaInput(t)
	w := *in.Workload
	w.Jobs = append([]JobClass(nil), w.Jobs...)
	for i := range w.Jobs {
		w.Jobs[i].Access = "sweep"
	}
	in.Workload = &w
	return in
}

// edaConfig finds the 512 GiB (16 x 32 GiB) configuration with the given
// swap kind on the given number of drives of the given SKU.
func edaConfig(t *testing.T, res *Result, kind, sku string, drives int) *Config {
	t.Helper()
	for i := range res.Configs {
		c := &res.Configs[i]
		if c.DIMMCount == 16 && c.DIMM.Capacity == 32<<30 && c.Swap.Kind == kind &&
			c.Swap.Drive != nil && c.Swap.Drive.SKU == sku && c.Swap.Drives == drives && !c.Swap.Mirrored {
			return c
		}
	}
	t.Fatalf("no 16 x 32 GiB configuration with %s on %d x %s", kind, drives, sku)
	return nil
}

// wantFigure checks one job's slowdown and band against the page's
// figures, to the three decimals it prints.
func wantFigure(t *testing.T, what string, c *Config, job string, slowdown, low, high float64) {
	t.Helper()
	for _, j := range c.Jobs {
		if j.Name != job {
			continue
		}
		e := j.Estimate
		for _, p := range []struct {
			name      string
			got, want float64
		}{{"slowdown", e.Slowdown, slowdown}, {"band low", e.Low, low}, {"band high", e.High, high}} {
			if math.Abs(p.got-p.want) > 0.0006 {
				t.Errorf("%s, %s: %s %.4f, docs/model.md says %.3f", what, job, p.name, p.got, p.want)
			}
		}
		return
	}
	t.Fatalf("%s: no job %s", what, job)
}

func TestModelDocWorkedExampleWithSweep(t *testing.T) {
	res, err := Recommend(sweepEDA(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Recommended
	if rec == nil || rec.Swap.Kind != SwapZswap || rec.Swap.Drive == nil || rec.Swap.Drive.SKU != "NVME-TLC-3T8" ||
		rec.Swap.Drives != 1 || rec.DIMMCount != 16 || rec.Cost.PerServer.String() != "18740.00" {
		t.Fatalf("recommended %+v, docs/model.md says 512 GiB + zswap + one 3.84 TB TLC NVMe at 18,740 USD", rec)
	}
	wantFigure(t, "steps 1-6, one 1.92 TB TLC", edaConfig(t, res, SwapDrive, "NVME-TLC-1T9", 1), "regression", 1.103, 1.071, 1.294)
	wantFigure(t, "step 8, one 1.92 TB TLC", edaConfig(t, res, SwapDrive, "NVME-TLC-1T9", 1), "signoff-timing", 1.089, 1.062, 1.255)
	wantFigure(t, "step 9, zswap + 3.84 TB", rec, "regression", 1.088, 1.060, 1.260)
	wantFigure(t, "step 9, zswap + 3.84 TB", rec, "signoff-timing", 1.082, 1.056, 1.242)

	// Wear (steps 7 and 9): alone, the 1.92 TB drive is replaced twice and
	// the 3.84 TB drive once; behind zswap the 1.92 TB drive is replaced
	// once and the 3.84 TB drive lasts.
	for _, w := range []struct {
		kind, sku string
		repl      int
	}{{SwapDrive, "NVME-TLC-1T9", 2}, {SwapDrive, "NVME-TLC-3T8", 1}, {SwapZswap, "NVME-TLC-1T9", 1}, {SwapZswap, "NVME-TLC-3T8", 0}} {
		c := edaConfig(t, res, w.kind, w.sku, 1)
		got := 0
		if c.Wear != nil {
			got = c.Wear.Replacements
		}
		if got != w.repl {
			t.Errorf("%s on one %s: %d replacements, docs/model.md says %d", w.kind, w.sku, got, w.repl)
		}
	}
	if c := edaConfig(t, res, SwapZswap, "NVME-TLC-3T8", 1); c.Wear == nil || math.Abs(c.Wear.LifeUsed-0.78) > 0.01 {
		t.Errorf("zswap + 3.84 TB: wear %+v, docs/model.md says 78%% of its endurance", c.Wear)
	}
}

// TestModelDocWorkedExampleWithoutAccess: step 10 and the page's opening,
// examples/eda.yaml as it is (no access:).
func TestModelDocWorkedExampleWithoutAccess(t *testing.T) {
	res, err := Recommend(edaInput(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Recommended
	if rec == nil || rec.Swap.Kind != SwapZram || rec.DIMMCount != 24 || rec.Cost.PerServer.String() != "22640.00" {
		t.Fatalf("recommended %+v, docs/model.md says 768 GiB + zram at 22,640 USD", rec)
	}
	for _, j := range rec.Jobs {
		if j.Estimate.High > 1.03+0.005 {
			t.Errorf("%s on the recommendation: band top %.4f, docs/model.md says within 1.00-1.03", j.Name, j.Estimate.High)
		}
	}
	c := edaConfig(t, res, SwapDrive, "NVME-TLC-1T9", 1)
	wantFigure(t, "step 10, one 1.92 TB TLC", c, "regression", 1.103, 1.001, 6.007)
	if !c.AtRisk {
		t.Errorf("512 GiB + one 1.92 TB TLC without access: not at risk, docs/model.md says it is")
	}
}

// TestModelDocWorkedExampleSteps3To5 follows the page's hand calculation
// through the swap path: the X25-E anchor's page rate on its own path
// (step 3), the sweep shape to fit 0.656 (step 4), and the 1.92 TB TLC
// drive under 16 jobs (step 5).
func TestModelDocWorkedExampleSteps3To5(t *testing.T) {
	sweepRA := factors.Readahead{Faults: 0.35, Pages: 1}
	ref := Path{
		Dev: Device{ReadLatency: 75 * time.Microsecond, WriteLatency: 85 * time.Microsecond,
			ReadIOPS: 35000, WriteIOPS: 3300, WriteBW: 170e6, Drives: 1},
		Jobs: 4, Dirty: 1, Overhead: 10 * time.Microsecond, RA: sweepRA,
	}
	if got := ref.IdleTime(); math.Abs(got-36.25e-6) > 0.005e-6 {
		t.Errorf("step 3: unloaded page time %.2f us, the page says 36.25", got*1e6)
	}
	p := ref.RateFor(1.12)
	if math.Abs(p-3257.6) > 0.05 {
		t.Errorf("step 3: page rate %.1f pages/s, the page says 3,257.6", p)
	}
	if tau := ref.PageTime(p); math.Abs(tau-36.84e-6) > 0.005e-6 {
		t.Errorf("step 3: page time %.2f us at the anchor, the page says 36.84", tau*1e6)
	}
	fit := 504.0 / 768 // 512 GiB less the 8 GiB reserve over 16 x 48 GiB (step 1)
	p656 := p * math.Pow((1-fit)/(1-0.52), 0.7)
	if math.Abs(p656-2578.7) > 0.05 {
		t.Errorf("step 4: page rate at fit 0.656 %.1f, the page says 2,578.7", p656)
	}
	target := Path{
		Dev:  Device{ReadLatency: 85 * time.Microsecond, ReadIOPS: 900000, WriteBW: 1e9, Drives: 1},
		Jobs: 16, Dirty: 0.5, Overhead: 10 * time.Microsecond, RA: sweepRA,
	}
	if tau := target.PageTime(p656); math.Abs(tau-39.75e-6) > 0.005e-6 {
		t.Errorf("step 5: page time %.2f us, the page says 39.75", tau*1e6)
	}
	if s := target.Slowdown(p656); math.Abs(s-1.1025) > 0.0005 {
		t.Errorf("step 5: slowdown %.4f, the page says 1.103", s)
	}
}
