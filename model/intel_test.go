package model_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

func loadIntel(t testing.TB) model.Input {
	t.Helper()
	w, err := model.LoadWorkload("../examples/intel-eda-2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prices.Embedded("intel-2009")
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(cat)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	jf, err := model.LoadJobProfiles(w, []*factors.File{model.DefaultFactors()})
	if err != nil {
		t.Fatal(err)
	}
	return model.Input{Workload: w, Prices: set, Factors: fs, JobFactors: jf}
}

// find returns the configuration with n DIMMs of dimmSKU and the given swap.
func find(t *testing.T, res *model.Result, dimms int, dimmSKU, swapKind, driveSKU string, drives int) *model.Config {
	t.Helper()
	for i := range res.Configs {
		c := &res.Configs[i]
		if c.DIMMCount != dimms || c.DIMM.SKU != dimmSKU || c.Swap.Kind != swapKind {
			continue
		}
		if swapKind == model.SwapNone || (c.Swap.Drive.SKU == driveSKU && c.Swap.Drives == drives) {
			return c
		}
	}
	t.Fatalf("configuration %dx%s + %s %dx%s not in the result", dimms, dimmSKU, swapKind, drives, driveSKU)
	return nil
}

// TestIntelStudyPricedFromItsOwnCurves checks the pipeline after the
// slowdown model: given the Intel IT 2009 study's three figures as the
// example jobs' own curve (examples/profile/intel-eda-2009.yaml), the
// enumeration, deadline check, ranking and pricing reach the study's
// conclusion: 48 GB + X25-E (SLC) swap runs ~12% behind 96 GB and fits the
// 8-hour day, the X25-M (MLC) and HDD RAID 0 do not, and the saving per
// server follows from the catalog's RUB prices. The slowdowns it asserts
// are the figures the example feeds in, so it does not test how a curve
// is carried to another device: that is crossval's job (model/crossval.go)
// and TestIntelCarryOverFromX25E's.
func TestIntelStudyPricedFromItsOwnCurves(t *testing.T) {
	in := loadIntel(t)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	const (
		dimm4, dimm8 = "DDR3-1066-RDIMM-4G", "DDR3-1066-RDIMM-8G"
		slc, mlc     = "SSDSA2SH064G1", "SSDSA2MH080G1"
		hdd          = "ST3250310NS"
	)
	if res.Currency != "RUB" {
		t.Errorf("currency %s, want RUB", res.Currency)
	}
	// The four configurations of the study.
	allRAM := find(t, res, 12, dimm8, model.SwapNone, "", 0)
	withSLC := find(t, res, 12, dimm4, model.SwapDrive, slc, 1)
	withMLC := find(t, res, 12, dimm4, model.SwapDrive, mlc, 1)
	withHDD := find(t, res, 12, dimm4, model.SwapDrive, hdd, 2)

	if allRAM.Installed != 96*units.GiB || withSLC.Installed != 48*units.GiB {
		t.Errorf("installed RAM %s / %s, want 96GiB / 48GiB", allRAM.Installed, withSLC.Installed)
	}
	if s := allRAM.MaxSlowdown; s != 1 {
		t.Errorf("96 GB server slowdown %.3f, want 1 (no swapping)", s)
	}
	slcS := withSLC.Jobs[0].Estimate.Slowdown
	if slcS < 1.10 || slcS > 1.14 {
		t.Errorf("48 GB + X25-E slowdown %.3f, want ~1.12", slcS)
	}
	if !withSLC.Meets || withSLC.AtRisk {
		t.Errorf("48 GB + X25-E should meet the 8h deadline with margin: runtime %s, high %s", withSLC.Jobs[0].Runtime, withSLC.Jobs[0].RuntimeHigh)
	}
	for _, c := range []*model.Config{withMLC, withHDD} {
		if c.Meets {
			t.Errorf("%s meets the deadline (runtime %s); the study says it does not", c.Label, c.Jobs[0].Runtime)
		}
	}
	if m, h := withMLC.Jobs[0].Estimate.Slowdown, withHDD.Jobs[0].Estimate.Slowdown; math.Abs(m-1.46) > 0.03 || math.Abs(h-1.94) > 0.03 {
		t.Errorf("MLC / HDD RAID 0 slowdowns %.3f / %.3f, want ~1.46 / ~1.94", m, h)
	}
	// As swap devices, MLC was ~33% and SLC ~73% more effective than the
	// HDD array: the HDD configuration's runtime over theirs.
	hddRT := float64(withHDD.Jobs[0].Runtime)
	if r := hddRT/float64(withMLC.Jobs[0].Runtime) - 1; math.Abs(r-0.33) > 0.05 {
		t.Errorf("MLC is %.0f%% more effective than HDD RAID 0, want ~33%%", r*100)
	}
	if r := hddRT/float64(withSLC.Jobs[0].Runtime) - 1; math.Abs(r-0.73) > 0.05 {
		t.Errorf("SLC is %.0f%% more effective than HDD RAID 0, want ~73%%", r*100)
	}

	// The recommendation and the baseline.
	if res.Recommended == nil || res.Recommended.ID != withSLC.ID {
		got := "<nil>"
		if res.Recommended != nil {
			got = res.Recommended.Label
		}
		t.Fatalf("recommended %s, want %s", got, withSLC.Label)
	}
	if res.Baseline == nil || res.Baseline.ID != allRAM.ID {
		t.Fatalf("baseline %v, want %s", res.Baseline, allRAM.Label)
	}
	// Saving per server from the catalog: 12 x (8 GB - 4 GB DIMM) - one X25-E.
	cat, _ := prices.Embedded("intel-2009")
	price := func(sku string) float64 {
		for _, d := range cat.DIMMs {
			if d.SKU == sku {
				return d.Price.Amount
			}
		}
		for _, d := range cat.Drives {
			if d.SKU == sku {
				return d.Price.Amount
			}
		}
		t.Fatalf("no %s in catalog", sku)
		return 0
	}
	want := 12*(price(dimm8)-price(dimm4)) - price(slc)
	if res.Savings == nil || res.Savings.PerServer != money.FromFloat(want) {
		t.Fatalf("savings %+v, want %.0f RUB per server", res.Savings, want)
	}
	if want <= 50000 {
		t.Errorf("saving %.0f RUB; the study reports more than 50,000 RUB per server", want)
	}
	for _, s := range []string{"X25-E", "55,800 RUB", "96GiB"} {
		if !strings.Contains(res.Verdict, s) {
			t.Errorf("verdict lacks %q: %s", s, res.Verdict)
		}
	}
	// Published figures, not measured ones, and labelled so.
	if p := withSLC.Jobs[0].Estimate.Provenance; p != factors.Published {
		t.Errorf("SLC provenance %q, want published", p)
	}
}

// TestIntelCarryOverFromX25E gives the example jobs only the study's X25-E
// figure and lets the model carry it to the X25-M and the HDD array, the
// way a user's single measured curve is carried to the drives of a
// catalog. It asserts what the carry-over must get right (the figures are
// labelled derived, not published, and a slower device is never predicted
// faster) and logs the distance to what the study measured: on 2026-12-03
// the X25-M came out at 1.14 (1.09-1.22) against the study's 1.46, a miss
// the band does not cover (see issue 23 and `memplan factors crossval`).
func TestIntelCarryOverFromX25E(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../examples/profile/intel-eda-2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.Index(string(src), "  - class: sata-ssd-mlc")
	if cut < 0 {
		t.Fatal("examples/profile/intel-eda-2009.yaml: no sata-ssd-mlc curve to cut at")
	}
	wl, err := os.ReadFile("../examples/intel-eda-2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "profile"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profile", "intel-eda-2009.yaml"), src[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "intel-eda-2009.yaml"), wl, 0o644); err != nil {
		t.Fatal(err)
	}
	in := loadIntel(t)
	w, err := model.LoadWorkload(filepath.Join(dir, "intel-eda-2009.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jf, err := model.LoadJobProfiles(w, []*factors.File{model.DefaultFactors()})
	if err != nil {
		t.Fatal(err)
	}
	in.Workload, in.JobFactors = w, jf
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	const dimm4 = "DDR3-1066-RDIMM-4G"
	slc := find(t, res, 12, dimm4, model.SwapDrive, "SSDSA2SH064G1", 1).Jobs[0].Estimate
	mlc := find(t, res, 12, dimm4, model.SwapDrive, "SSDSA2MH080G1", 1).Jobs[0].Estimate
	hdd := find(t, res, 12, dimm4, model.SwapDrive, "ST3250310NS", 2).Jobs[0].Estimate
	if slc.Provenance != factors.Published {
		t.Errorf("X25-E provenance %q, want published (its own figure)", slc.Provenance)
	}
	for name, e := range map[string]model.Estimate{"X25-M": mlc, "HDD RAID 0": hdd} {
		if e.Provenance == factors.Published || e.Provenance == factors.Measured {
			t.Errorf("%s provenance %q: carried from the X25-E, it must not be labelled as its own figure", name, e.Provenance)
		}
	}
	if !(slc.Slowdown <= mlc.Slowdown && mlc.Slowdown <= hdd.Slowdown) {
		t.Errorf("carried slowdowns X25-E %.3f, X25-M %.3f, HDD RAID 0 %.3f: a slower device is predicted faster", slc.Slowdown, mlc.Slowdown, hdd.Slowdown)
	}
	for _, c := range []struct {
		name      string
		e         model.Estimate
		published float64
	}{{"X25-M", mlc, 1.46}, {"HDD RAID 0", hdd, 1.94}} {
		inside := c.e.Low <= c.published && c.published <= c.e.High
		t.Logf("%s carried from the X25-E: %.3f (%.3f-%.3f), the study measured %.2f (inside the band: %v)",
			c.name, c.e.Slowdown, c.e.Low, c.e.High, c.published, inside)
	}
}
