package model_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// A platform that takes 8 DIMMs, with watts given for every part.
const powerCatalog = `
name: power
currency: USD
date: 2026-01-01
source: test
dimms:
  - {sku: D16, model: 16G, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 100 USD, watts: 5}
  - {sku: D32, model: 32G, generation: DDR5, type: RDIMM, capacity: 32GiB, speed: 4800, price: 200 USD, watts: 6}
drives:
  - {sku: HOT, model: Hungry TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: 50 USD, watts: 40,
     read_latency: 80us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 2PB}
platforms:
  - sku: P
    model: test box
    price: 1000 USD
    watts: 200
    memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}
    drive_bays: 1
    os_reserve: 0GiB
`

const powerWorkload = `
name: power
horizon: 5y
electricity: 0.5 USD/kWh
pue: 1.5
demand: {servers: 1}
jobs:
  - {name: j, footprint: 160GiB, runtime: 1h, deadline: 2h}
`

// TestTCOHandComputation: one server over 5 years (43,800 h), PUE 1.5, at
// 0.50 USD/kWh, so each watt drawn around the clock costs
// 43,800 h x 1.5 x 0.50 USD / 1000 = 32.85 USD over the horizon.
//
//	8 x 16 GiB + HOT:  capital 1000 + 8 x 100 + 50 = 1,850 USD
//	                   200 + 8 x 5 + 40 = 280 W -> 18,396 kWh -> 9,198 USD
//	                   TCO 11,048 USD
//	8 x 32 GiB:        capital 1000 + 8 x 200 = 2,600 USD
//	                   200 + 8 x 6 = 248 W -> 16,293.6 kWh -> 8,146.80 USD
//	                   TCO 10,746.80 USD
//
// By capital cost the swap configuration wins (750 USD less); over the
// horizon its hungry drive costs 1,051.20 USD more in power, so by TCO the
// all-DRAM configuration wins by 301.20 USD.
func TestTCOHandComputation(t *testing.T) {
	check := func(c *model.Config, capital, watts, kwh, power float64) {
		t.Helper()
		k := c.Cost
		if k.PerServer != money.FromFloat(capital) || !near(k.Watts, watts, 1e-9) || !near(k.EnergyKWh, kwh, 1e-6) ||
			k.Power != money.FromFloat(power) || k.TCO != money.FromFloat(capital+power) || k.TCOFleet != money.FromFloat(capital+power) {
			t.Errorf("%s: cost %+v, want capital %.2f, %.0f W, %.1f kWh, power %.2f", c.ID, k, capital, watts, kwh, power)
		}
	}
	capital := input(t, powerWorkload, powerCatalog)
	res, err := model.Recommend(capital)
	if err != nil {
		t.Fatal(err)
	}
	swap, dram := configByID(t, res, "P/8xD16/1xHOT"), configByID(t, res, "P/8xD32/noswap")
	check(swap, 1850, 280, 18396, 9198)
	check(dram, 2600, 248, 16293.6, 8146.8)
	if tc := res.TCO; tc == nil || !tc.Priced || tc.RankBy != model.RankCapital || tc.Electricity != 0.5 || tc.PUE != 1.5 || tc.Default {
		t.Errorf("TCO info %+v", res.TCO)
	}
	if res.Recommended.ID != swap.ID {
		t.Fatalf("by capital cost recommended %s, want %s", res.Recommended.ID, swap.ID)
	}
	if sv := res.Savings; sv == nil || sv.Fleet != money.Units(750) || sv.TCOFleet != money.Cents(-30120) {
		t.Errorf("savings %+v, want 750 capital and -301.20 over the horizon", res.Savings)
	}
	if strings.Contains(res.Verdict, "total cost of ownership") {
		t.Errorf("capital ranking's verdict talks about TCO: %s", res.Verdict)
	}

	tco := input(t, strings.Replace(powerWorkload, "demand:", "options: {rank_by: tco}\ndemand:", 1), powerCatalog)
	res, err = model.Recommend(tco)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended.ID != dram.ID || res.Baseline != res.Recommended {
		t.Fatalf("by TCO recommended %s, want %s", res.Recommended.ID, dram.ID)
	}
	if !strings.Contains(res.Verdict, "total cost of ownership over 5 years") || !strings.Contains(res.Verdict, "10,747 USD per server") {
		t.Errorf("verdict %q", res.Verdict)
	}
	// The ranking is by TCO: every configuration that meets the deadlines
	// is ordered by it.
	for i := 1; i < len(res.Configs); i++ {
		p, c := res.Configs[i-1], res.Configs[i]
		if p.Meets && c.Meets && !p.AtRisk && !c.AtRisk && p.Cost.TCOFleet > c.Cost.TCOFleet {
			t.Errorf("%s (TCO %v) ranked above %s (TCO %v)", p.ID, p.Cost.TCOFleet, c.ID, c.Cost.TCOFleet)
		}
	}
}

// The other way round: cheap but hungry DIMMs. 8 x 32 GiB at 50 USD and
// 20 W each: capital 1,400 USD, 360 W -> 11,826 USD of power, TCO 13,226.
// 8 x 16 GiB + a 5 W drive: capital 1,850, 245 W -> 8,048.25, TCO 9,898.25.
// By TCO the swap configuration wins by 3,327.75 USD though it costs 450
// more to buy, and the verdict says both.
func TestTCORankingCanPreferTheDearerPurchase(t *testing.T) {
	cat := strings.Replace(strings.Replace(powerCatalog, "price: 200 USD, watts: 6", "price: 50 USD, watts: 20", 1), "watts: 40", "watts: 5", 1)
	in := input(t, strings.Replace(powerWorkload, "demand:", "options: {rank_by: tco}\ndemand:", 1), cat)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended.ID != "P/8xD16/1xHOT" || res.Baseline.ID != "P/8xD32/noswap" {
		t.Fatalf("recommended %s, baseline %s", res.Recommended.ID, res.Baseline.ID)
	}
	sv := res.Savings
	if sv.Fleet != money.Units(-450) || sv.TCOFleet != money.Cents(332775) || !near(sv.TCOPercent, 3327.75/13226*100, 1e-9) {
		t.Errorf("savings %+v, want -450 capital, 3,327.75 TCO", sv)
	}
	for _, want := range []string{"costs 450 USD more to buy", "it costs 3,328 USD (25.2%) less than all-DRAM"} {
		if !strings.Contains(res.Verdict, want) {
			t.Errorf("verdict lacks %q: %s", want, res.Verdict)
		}
	}
}

func TestDefaultWatts(t *testing.T) {
	// 2 W + 0.25 W/GiB for DDR3: 4 W for an 8 GB module.
	if w := model.DIMMWatts(prices.DIMM{Generation: "DDR3", Capacity: 8 * units.GiB}); !near(w, 4, 1e-9) {
		t.Errorf("DDR3 8 GiB: %.2f W", w)
	}
	// 2.5 W + 0.1 W/GiB for DDR5: 8.9 W for 64 GB.
	if w := model.DIMMWatts(prices.DIMM{Generation: "DDR5", Capacity: 64 * units.GiB}); !near(w, 8.9, 1e-9) {
		t.Errorf("DDR5 64 GiB: %.2f W", w)
	}
	if w := model.DIMMWatts(prices.DIMM{Generation: "DDR5", Capacity: 64 * units.GiB, Watts: 11}); w != 11 {
		t.Errorf("catalog watts ignored: %.2f W", w)
	}
	for class, want := range map[string]float64{prices.ClassHDD: 8, prices.ClassSATASSD: 3, prices.ClassNVMe: 10} {
		if w := model.DriveWatts(prices.Drive{Class: class}); w != want {
			t.Errorf("%s: %.1f W, want %.1f", class, w, want)
		}
	}
	if w := model.PlatformWatts(prices.Platform{Sockets: 2}); w != 400 {
		t.Errorf("two-socket platform: %.0f W, want 400", w)
	}
	if w := model.PlatformWatts(prices.Platform{}); w != 400 {
		t.Errorf("platform without sockets: %.0f W, want 400 (two assumed)", w)
	}
}

// The Intel example is priced in RUB and gives no electricity price: the
// default (USD) cannot be converted, so power is measured but not priced,
// and the capital ranking is untouched.
func TestPowerUnpricedWithoutARate(t *testing.T) {
	in := loadIntel(t)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	tc := res.TCO
	if tc == nil || tc.Priced || !tc.Default || !strings.Contains(tc.Note, "set `electricity:`") {
		t.Fatalf("TCO info %+v", tc)
	}
	r := res.Recommended
	// 400 W platform + 12 x 3 W (4 GB DDR3) + 3 W (SATA SSD) = 439 W.
	if r.Cost.Power != 0 || r.Cost.TCO != r.Cost.PerServer || r.Cost.Watts != 439 {
		t.Errorf("cost %+v, want 439 W, no power cost, TCO = capital", r.Cost)
	}

	in.Workload.Options.RankBy = model.RankTCO
	if _, err := model.Recommend(in); err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "options.rank_by") {
		t.Errorf("rank_by tco without a RUB electricity price: %v", err)
	}
	in.Workload.Electricity = &model.EnergyPrice{Amount: 0.1, Currency: "EUR"}
	if _, err := model.Recommend(in); err == nil || !strings.Contains(err.Error(), "field electricity") {
		t.Errorf("electricity in EUR for a RUB report: %v", err)
	}
	in.Workload.Electricity = &model.EnergyPrice{Amount: 3.5, Currency: "RUB"}
	res, err = model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	// 439 W x 26,280 h x 1.4 / 1000 = 16,151.7 kWh at 3.5 RUB.
	if r := res.Recommended; r.Cost.Power != money.FromFloat(0.439*26280*1.4*3.5) {
		t.Errorf("power %v RUB", r.Cost.Power)
	}
}

func TestParseEnergyPrice(t *testing.T) {
	for in, want := range map[string]model.EnergyPrice{
		"0.15 USD/kWh":    {Amount: 0.15, Currency: "USD"},
		"0.15 USD / kWh":  {Amount: 0.15, Currency: "USD"},
		"3.5 RUB per kWh": {Amount: 3.5, Currency: "RUB"},
		"150 EUR/MWh":     {Amount: 0.15, Currency: "EUR"},
	} {
		got, err := model.ParseEnergyPrice(in)
		if err != nil || !near(got.Amount, want.Amount, 1e-12) || got.Currency != want.Currency {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"0.15", "0.15 USD", "0.15/kWh", "-1 USD/kWh", "0 USD/kWh", "cheap USD/kWh"} {
		if got, err := model.ParseEnergyPrice(in); err == nil {
			t.Errorf("%q accepted as %+v", in, got)
		}
	}
}

func TestWorkloadPowerFieldsAreChecked(t *testing.T) {
	base := "name: w\ndemand: {servers: 1}\njobs:\n  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h}\n"
	w, err := model.ParseWorkload("w.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if w.Options.RankBy != model.RankCapital || float64(w.PUE) != model.DefaultPUE || w.Electricity != nil {
		t.Errorf("defaults: rank_by %q, pue %g, electricity %v", w.Options.RankBy, float64(w.PUE), w.Electricity)
	}
	for extra, want := range map[string]string{
		"options: {rank_by: TCO}\n":            "w.yaml:5:",
		"pue: 0.9\n":                           "field pue",
		"electricity: 0.15 USD\n":              "field electricity",
		"electricity: {usd: 0.15}\n":           "field electricity",
		"electricity: 0.15 USD/kWh\n":          "",
		"options: {rank_by: tco}\n":            "",
		"pue: 1.2\nelectricity: 150 EUR/MWh\n": "",
	} {
		_, err := model.ParseWorkload("w.yaml", []byte(base+extra))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", extra, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", extra, err, want)
		}
	}
}

func TestCatalogPriceRangeAndWattsAreChecked(t *testing.T) {
	const head = "name: c\ncurrency: USD\ndate: 2026-01-01\nsource: test\ndimms:\n  - {sku: D, model: m, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 100 USD"
	good, err := prices.Parse("c.yaml", []byte(head+", price_range: [90, 120 USD], watts: 4.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := good.DIMMs[0]
	if len(d.PriceRange) != 2 || d.PriceRange[0] != (units.Money{Amount: 90, Currency: "USD"}) || d.Watts != 4.5 {
		t.Errorf("parsed %+v", d)
	}
	for extra, want := range map[string]string{
		", price_range: [110, 120]}":        "0 < low <= price <= high",
		", price_range: [80, 90]}":          "0 < low <= price <= high",
		", price_range: [80]}":              "expected two",
		", price_range: [80 EUR, 120 EUR]}": "expected the price's currency USD",
		", watts: -3}":                      "field dimms[0].watts",
	} {
		_, err := prices.Parse("c.yaml", []byte(head+extra+"\n"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "c.yaml:6") {
			t.Errorf("%s: error %v, want c.yaml:6 and %q", extra, err, want)
		}
	}
}
