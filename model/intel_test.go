package model_test

import (
	"math"
	"strings"
	"testing"

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
	jf, err := model.LoadJobProfiles(w, []*model.FactorFile{model.DefaultFactors()})
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

// TestIntelEDAStudy reproduces Intel IT's 2009 EDA study: 48 GB + X25-E
// (SLC) swap runs ~12% behind 96 GB, still fits the 8-hour day, while the
// X25-M (MLC) and HDD RAID 0 do not; the saving per server follows from the
// catalog's RUB prices.
func TestIntelEDAStudy(t *testing.T) {
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
	if p := withSLC.Jobs[0].Estimate.Provenance; p != model.Published {
		t.Errorf("SLC provenance %q, want published", p)
	}
}
