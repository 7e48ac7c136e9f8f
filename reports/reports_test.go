package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	mon "github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// intelInput loads the Intel EDA study as `memplan recommend --workload
// examples/intel-eda-2009.yaml` does; edit may change the workload first.
func intelInput(t testing.TB, edit func(*model.Workload)) model.Input {
	t.Helper()
	w, err := model.LoadWorkload("../examples/intel-eda-2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(w)
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
	// memplan's flag names, as cmd/memplan gives them: the warnings suggest them.
	flags := model.Flags{Rate: "--rate", Rates: "--rates", Prices: "--prices", WithEmbedded: "--with-embedded", MaxPriceAge: "--max-price-age"}
	return model.Input{Workload: w, Prices: set, Factors: fs, JobFactors: jf, Flags: flags}
}

// intelResult runs the model on the Intel EDA study.
func intelResult(t testing.TB) *model.Result {
	t.Helper()
	res, err := model.Recommend(intelInput(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended == nil || res.Baseline == nil || res.Savings == nil {
		t.Fatalf("the Intel study should yield a recommendation, a baseline and savings; got verdict %q", res.Verdict)
	}
	return res
}

// intelQuoteResult prices the Intel study from a user's quote together
// with the embedded list prices: the quote's X25-E replaces the list
// price (same SKU), its 4 GB DIMM costs more than the list price (which
// wins, and a warning says so), and the platform comes only from the list.
func intelQuoteResult(t testing.TB) *model.Result {
	t.Helper()
	in := intelInput(t, nil)
	q, err := prices.Parse("quote.yaml", []byte(`name: my-quote
currency: RUB
date: 2009-10-15
source: "vendor quote 77"
dimms:
  - {sku: Q-4G, model: 4 GB DDR3-1066 RDIMM (quoted), generation: DDR3, type: RDIMM, capacity: 4GiB, speed: 1066, price: 5200}
drives:
  - {sku: SSDSA2SH064G1, model: Intel X25-E 64GB (SLC) quoted, class: sata-ssd, nand: SLC, capacity: 64GB, price: 25500,
     read_latency: 75us, write_latency: 85us, read_iops: 35000, write_iops: 3300, tbw: 2PB}
`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(append(in.Prices.Catalogs, q)...)
	if err != nil {
		t.Fatal(err)
	}
	in.Prices = set
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// intelTCO ranks the Intel study by total cost of ownership with power at
// 5 RUB/kWh (the default electricity price is in USD, which the RUB
// catalog cannot convert).
func intelTCO(w *model.Workload) {
	w.Electricity = &model.EnergyPrice{Amount: 5, Currency: "RUB"}
	w.Options.RankBy = model.RankTCO
}

// robustCase is a result with its break-even and uncertainty analyses, as
// `recommend --uncertainty --runs 200 --seed 7` computes them.
func robustCase(t testing.TB, edit func(*model.Workload), top int) reportCase {
	t.Helper()
	in := intelInput(t, edit)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	be, err := model.BreakEven(in, res)
	if err != nil {
		t.Fatal(err)
	}
	u, err := model.Uncertainty(in, model.UncertaintyOptions{Runs: 200, Seed: 7, PriceSpread: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	return reportCase{res: res, opts: Options{Top: top, Version: "test", BreakEven: be, Uncertainty: u}}
}

// noMeetResult is a hand-made result in which nothing meets the deadlines:
// the timing job is longer than its deadline even fully in RAM.
func noMeetResult() *model.Result {
	h := func(s string) units.Duration {
		d, err := units.ParseDuration(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	usd := func(v float64) units.Money { return units.Money{Amount: v, Currency: "USD"} }
	platform := model.Part{SKU: "2S-DDR5-16DIMM", Model: "Two-socket 1U server, 16 DIMM slots", Catalog: "current-2026", Price: mon.Units(9000), Quoted: usd(9000)}
	d32 := model.Part{SKU: "DDR5-5600-RDIMM-32G", Model: "32 GB DDR5-5600 RDIMM", Catalog: "current-2026", Price: mon.Cents(45550), Quoted: usd(455.5), Capacity: 32 * units.GiB}
	d64 := model.Part{SKU: "DDR5-5600-RDIMM-64G", Model: "64 GB DDR5-5600 RDIMM", Catalog: "current-2026", Price: mon.Units(700), Quoted: usd(700), Capacity: 64 * units.GiB}
	tlc := &model.Part{SKU: "NVME-TLC-1T9", Model: "1.92 TB enterprise TLC NVMe", Catalog: "current-2026", Price: mon.Units(310), Quoted: usd(310), Capacity: 1920 * 1000 * 1000 * 1000}
	job := func(name string, touched, inRAM units.Bytes, s, lo, hi float64, prov string, basis model.Basis, extra bool, runtime, deadline string) model.JobResult {
		rt := float64(h(runtime))
		return model.JobResult{
			Name: name, Touched: touched, InRAM: inRAM, Fit: float64(inRAM) / float64(touched),
			Estimate: model.Estimate{Slowdown: s, Low: lo, High: hi, Provenance: prov, Basis: &basis, Extrapolated: extra},
			Runtime:  units.Duration(rt * s), RuntimeHigh: units.Duration(rt * hi), Deadline: h(deadline),
			Meets: rt*s <= float64(h(deadline)),
		}
	}
	// nvmeBasis: derived from a measured NVMe curve taken where a page
	// cost 88us unloaded, for a target where it costs idle seconds.
	nvmeBasis := func(idle float64) model.Basis {
		return model.Basis{Kind: model.BasisDerived, Provenance: factors.Measured, From: "nvme-ssd-tlc", Idle: idle, RefIdle: 88e-6}
	}
	inRAM := func(name string, touched units.Bytes, runtime, deadline string) model.JobResult {
		return job(name, touched, touched, 1, 1, 1, model.InRAM, model.Basis{Kind: model.BasisInRAM}, false, runtime, deadline)
	}
	cost := func(dimms, drives, repl float64) model.Cost {
		d, dr, r := mon.FromFloat(dimms), mon.FromFloat(drives), mon.FromFloat(repl)
		per := mon.Sum(mon.Units(9000), d, dr, r)
		return model.Cost{Platform: mon.Units(9000), DIMMs: d, Drives: dr, Replacements: r, PerServer: per, Fleet: per.Mul(4)}
	}
	configs := []model.Config{
		{
			Rank: 1, ID: "2S-DDR5-16DIMM/16xDDR5-5600-RDIMM-64G/noswap", Label: "1TiB (16 x 64GiB), no swap",
			Platform: platform, DIMM: d64, DIMMCount: 16, Swap: model.Swap{Kind: model.SwapNone},
			Installed: 1024 * units.GiB, Usable: 1016 * units.GiB,
			Jobs:    []model.JobResult{inRAM("synth", 640*units.GiB, "6h", "10h"), inRAM("timing", 128*units.GiB, "4h30m", "4h")},
			Servers: 4, Cost: cost(16*700, 0, 0), MaxSlowdown: 1,
		},
		{
			Rank: 2, ID: "2S-DDR5-16DIMM/16xDDR5-5600-RDIMM-32G/zswap-lz4+2xNVME-TLC-1T9", Label: "512GiB (16 x 32GiB) + zswap + 2 x 1.92 TB enterprise TLC NVMe RAID 0",
			Platform: platform, DIMM: d32, DIMMCount: 16,
			Swap:      model.Swap{Kind: model.SwapZswap, Drive: tlc, Drives: 2, Class: "nvme-ssd-tlc", Algorithm: "lz4", Capacity: 2 * tlc.Capacity},
			Installed: 512 * units.GiB, Usable: 504 * units.GiB,
			Jobs: []model.JobResult{
				job("synth", 640*units.GiB, 380*units.GiB, 1.9, 1.5, 2.4, factors.Measured, model.Basis{Kind: model.BasisCurve, Provenance: factors.Measured, Host: "eval-01"}, true, "6h", "10h"),
				job("timing", 128*units.GiB, 128*units.GiB, 1.1, 1.05, 1.2, model.Derived, nvmeBasis(95e-6), false, "4h30m", "4h"),
			},
			Servers: 4, Cost: cost(16*455.5, 620, 620), MaxSlowdown: 1.9, Extrapolated: true,
			Wear:  &model.Wear{WritesPerDay: 900 * units.GiB, HorizonWrites: 4100 * 1000 * 1000 * 1000 * 1000, Endurance: 3500 * 1000 * 1000 * 1000 * 1000, LifeUsed: 1.17, WearsOut: true, Replacements: 2},
			Notes: []string{"swap writes wear out the 1.92 TB enterprise TLC NVMe 1.2 times over the horizon: 2 replacement drive(s) per server priced in", "slowdown extrapolated below the lowest measured fit ratio"},
		},
		{
			Rank: 3, ID: "2S-DDR5-16DIMM/16xDDR5-5600-RDIMM-32G/zram-lz4-50pct", Label: "512GiB (16 x 32GiB) + zram 50% (lz4)",
			Platform: platform, DIMM: d32, DIMMCount: 16,
			Swap:      model.Swap{Kind: model.SwapZram, ZramShare: 0.5, Algorithm: "lz4", Capacity: 256 * units.GiB},
			Installed: 512 * units.GiB, Usable: 504 * units.GiB,
			Jobs: []model.JobResult{
				job("synth", 640*units.GiB, 300*units.GiB, 2.1, 1.6, 2.6, model.Derived, nvmeBasis(3.7e-6), false, "6h", "10h"),
				inRAM("timing", 128*units.GiB, "4h30m", "4h"),
			},
			Servers: 4, Cost: cost(16*455.5, 0, 0), MaxSlowdown: 2.1,
		},
	}
	// Meets stays false everywhere: the timing job misses on every configuration.
	return &model.Result{
		Workload: "Nightly synthesis and timing", WorkloadFile: "testdata/nightly.yaml", Currency: "USD", HorizonYears: 5,
		Catalogs: []model.CatalogInfo{{Name: "current-2026", File: "embedded:current", Currency: "USD", Date: "2026-02-15", Source: "distributor quotes, February 2026"}},
		Factors: []model.FactorInfo{
			{Name: "eval-01 probe", File: "probe-eval-01.json", Date: "2026-03-02", Source: "memplan probe", Host: "eval-01", Curves: map[string]string{"nvme-ssd-tlc": factors.Measured, "zram-lz4": factors.Measured}},
			{Name: "memplan-defaults", File: "embedded:factors", Date: "2026-11-29", Source: "published results", Curves: map[string]string{"sata-ssd-slc": factors.Published, "hdd": factors.Published}},
		},
		Evaluated: 3,
		Rejected:  map[model.Reject]int{{Code: model.RejectNoFitWithoutSwap}: 2, {Code: model.RejectSwapTooSmall}: 1},
		Configs:   configs,
		Verdict:   "No configuration meets every deadline.",
		Advice: []string{
			"closest: 1TiB (16 x 64GiB), no swap runs timing in 4h30m (deadline 4h); a deadline of 4h31m would be met",
			"timing takes 4h30m even fully in RAM, longer than its 4h deadline: no memory configuration helps; shorten the job or relax the deadline",
		},
		Warnings: []string{"catalog current-2026 quotes DRAM prices from 2026-02-15; DDR5 contract prices moved by more than 50% per quarter recently"},
	}
}

type reportCase struct {
	name string
	res  *model.Result
	opts Options
}

func cases(t *testing.T) []reportCase {
	robust := robustCase(t, nil, 5)
	robust.name = "intel-robust"
	tco := robustCase(t, intelTCO, 5)
	tco.name = "intel-tco"
	big := intelResult(t)
	return []reportCase{
		{"intel-quote", intelQuoteResult(t), Options{Top: 5, Version: "test"}},
		{"intel-eda-2009", intelResult(t), Options{Top: 5, Version: "test"}},
		{"nothing-meets", noMeetResult(), Options{Version: "test"}},
		robust,
		tco,
		{"break-even-skipped", big, Options{Top: 3, Version: "test", BreakEvenNote: "not computed: the search evaluated 12,000 configurations; add --break-even to compute it (it re-runs the ranking a few dozen times)"}},
		edaCase(t),
	}
}

var goldenExt = map[string]string{"table": "txt", "json": "json", "yaml": "yaml", "csv": "csv", "markdown": "md"}

func render(t *testing.T, format string, res *model.Result, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, format, res, opts); err != nil {
		t.Fatalf("Render(%s): %v", format, err)
	}
	return buf.String()
}

// TestGolden renders every case in every format, and the table and
// Markdown also with --explain (name.explain.txt, name.explain.md).
func TestGolden(t *testing.T) {
	type variant struct {
		format, suffix string
		explain        bool
	}
	var vs []variant
	for _, f := range Formats() {
		vs = append(vs, variant{f, "", false})
	}
	vs = append(vs, variant{"table", ".explain", true}, variant{"markdown", ".explain", true})
	for _, tc := range cases(t) {
		for _, v := range vs {
			f := v.format
			t.Run(tc.name+v.suffix+"/"+f, func(t *testing.T) {
				opts := tc.opts
				opts.Explain = v.explain
				got := render(t, f, tc.res, opts)
				path := filepath.Join("testdata", "golden", tc.name+v.suffix+"."+goldenExt[f])
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run `go test ./reports -update` to create it)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from the rendered output (if the change is intended, run `go test ./reports -update` and review the diff)\n--- got\n%s", path, got)
				}
			})
		}
	}
}

func lineWith(lines []string, prefix string, parts ...string) string {
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return l
		}
	}
	return ""
}

func TestTableFitsEightyColumns(t *testing.T) {
	intel := intelResult(t)
	// Varying fleet sizes add the servers column; several platforms prefix
	// the memory column. Both must still fit.
	vary := intelResult(t)
	for i := range vary.Configs {
		vary.Configs[i].Servers = 1 + i%3
		vary.Configs[i].Cost.Fleet = vary.Configs[i].Cost.PerServer.Mul(int64(vary.Configs[i].Servers) * 1000)
		if i%2 == 1 {
			vary.Configs[i].Platform.SKU = "2S-X5570-2U-LONG-PLATFORM-NAME"
		}
	}
	for _, tc := range append([]reportCase{
		{"intel all", intel, Options{}},
		{"intel top 3", intel, Options{Top: 3}},
		{"varying servers and platforms", vary, Options{}},
		{"nothing meets", noMeetResult(), Options{}},
	}, cases(t)...) {
		out := render(t, "table", tc.res, tc.opts)
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > termWidth {
				t.Errorf("%s: line %d is %d columns wide:\n%s", tc.name, i+1, n, l)
			}
		}
	}
	out := render(t, "table", vary, Options{})
	if !strings.Contains(out, "servers") || !strings.Contains(out, "RUB fleet") || !strings.Contains(out, "P2 = ") {
		t.Errorf("varying fleet sizes and platforms should add a servers column, fleet costs and a platform key:\n%s", out)
	}
}

func TestTableIntelContent(t *testing.T) {
	res := intelResult(t)
	out := render(t, "table", res, Options{Top: 1, Explain: true})
	lines := strings.Split(out, "\n")

	if !strings.HasPrefix(lines[0], "Buy: 1 server: ") || !strings.Contains(flatText(out), "1 x Intel X25-E 64GB (SLC, SSDSA2SH064G1) for swap") {
		t.Errorf("the table should open with the verdict naming the X25-E as a part to buy:\n%s", out)
	}
	rec := lineWith(lines, "*", "X25-E 64GB", "12x4GiB DDR3", "yes", amount(res.Recommended.Cost.PerServer.Float()))
	if rec == "" {
		t.Errorf("no recommended row (*) with 12x4GiB DDR3, X25-E 64GB, yes and its cost:\n%s", out)
	}
	if !strings.Contains(rec, "1.12") {
		t.Errorf("the recommended row should show the study's ~12%% slowdown: %q", rec)
	}
	base := lineWith(lines, "B", strconv.Itoa(res.Baseline.Rank), "12x8GiB DDR3", "none", "1.00")
	if base == "" {
		t.Errorf("the baseline (rank %d) must be shown even outside --top 1:\n%s", res.Baseline.Rank, out)
	}
	if lineWith(lines, "", "...") == "" || !strings.Contains(out, "Showing 2 of "+strconv.Itoa(len(res.Configs))) {
		t.Errorf("skipped ranks should be marked and counted:\n%s", out)
	}
	saving := model.Money(res.Savings.PerServer.Float(), "RUB")
	if !strings.Contains(saving, "RUB") || lineWith(lines, "  Savings", saving+" per server") == "" || lineWith(lines, "Saves: "+saving+" per server") == "" {
		t.Errorf("no savings line with %s per server:\n%s", saving, out)
	}
	if lineWith(lines, "  intel-2009 (2009-10-01, RUB") == "" || !strings.Contains(out, "\nPrices:\n") {
		t.Errorf("the price catalog and its date should be listed:\n%s", out)
	}
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Basis of each slowdown: Slowdown factors memplan-defaults (") ||
		!strings.Contains(flat, "embedded:factors): published: hdd, sata-ssd-mlc, sata-ssd-slc") {
		t.Errorf("the factor file and its curves' provenance should be listed:\n%s", out)
	}
	if lineWith(lines, "Not evaluated:") == "" || lineWith(lines, "  15 configurations were dropped before ranking:") == "" {
		t.Errorf("rejected configurations should be counted:\n%s", out)
	}

	// The study's other devices miss the 8-hour workday.
	all := strings.Split(render(t, "table", res, Options{}), "\n")
	for _, dev := range []string{"  X25-M 80GB  ", "  2x 250GB 7200rpm", "  250GB 7200rpm"} {
		if l := lineWith(all, "", "12x4GiB DDR3", dev); !strings.Contains(l, "MISS") {
			t.Errorf("%s on 12x4GiB should be marked MISS: %q", strings.TrimSpace(dev), l)
		}
	}
	// Narrowing the swap column drops model details, never the device kind.
	if l := lineWith(all, "", "12x4GiB DDR3", "  4x 250GB"); !strings.Contains(l, "HDD") || strings.Contains(l, "..") {
		t.Errorf("the 4-drive HDD label should keep \"HDD\" by dropping words: %q", l)
	}
	// 24 GiB servers hold a quarter of what the jobs touch, half the
	// lowest fit the curves stand on: not predicted, and counted.
	if l := lineWith(all, "", "6x4GiB DDR3"); l != "" {
		t.Errorf("24GiB configurations are far below the published fit ratio and must not be ranked: %q", l)
	}
	if !strings.Contains(out, "fit ratio far below any measured point") {
		t.Errorf("the configurations refused for their fit ratio should be counted:\n%s", out)
	}
}

// Jobs of 26 GiB put the 48 GiB servers at fit 0.44, below the study's
// 0.52: marked extrapolated. Over 30 years the swap writes wear the drives
// out: said in words under the table, not marked on the cost.
func TestTableMarksExtrapolationAndWear(t *testing.T) {
	res, err := model.Recommend(intelInput(t, func(w *model.Workload) {
		w.Jobs[0].Footprint = 26 * units.GiB
		w.Jobs[0].Deadline = units.Duration(24 * time.Hour)
		w.Jobs[0].Window = units.Duration(24 * time.Hour)
		w.Horizon = units.Duration(30 * 365 * 24 * time.Hour)
	}))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(render(t, "table", res, Options{}), "\n")
	if l := lineWith(all, "", "12x4GiB DDR3", "  X25-M 80GB  "); !strings.Contains(l, "^") {
		t.Errorf("fit 0.44 is below the published 0.52 and must be marked extrapolated: %q", l)
	}
	// Over 30 years the X25-M's swap writes wear it out many times over.
	l := lineWith(all, "", "12x8GiB DDR3", "  X25-M 80GB  ")
	if strings.HasSuffix(l, "w") || l == "" {
		t.Errorf("the cost of a configuration that wears its drives out should be a plain number: %q", l)
	}
	// Its wear is said in words under the table, with its rank.
	rank := strings.Fields(strings.TrimLeft(l, "*B~ "))[0]
	flat := flatText(strings.Join(all, "\n"))
	if !strings.Contains(flat, "Wear #"+rank+": the X25-M 80GB wears out under swap writes and is replaced") ||
		!strings.Contains(flat, "over 30 years") || !strings.Contains(flat, "per server, included in the cost.") {
		t.Errorf("the wear of row #%s should be said in words:\n%s", rank, strings.Join(all, "\n"))
	}
}

func TestTableNothingMeets(t *testing.T) {
	out := render(t, "table", noMeetResult(), Options{Explain: true})
	lines := strings.Split(out, "\n")
	for _, want := range []string{"No configuration meets every deadline: there is nothing to buy yet", "What would work:", "Baseline: none", "Warning: catalog current-2026"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Savings") || lineWith(lines, "*") != "" {
		t.Errorf("with nothing meeting the deadlines there is no recommendation and no saving:\n%s", out)
	}
	for _, swap := range []string{"none", "zswap+2x 1.92TB TLC NVMe", "zram 50% lz4"} {
		if l := lineWith(lines, "", swap); !strings.Contains(l, "MISS") {
			t.Errorf("row with %s should say MISS: %q", swap, l)
		}
	}
	if l := lineWith(lines, "", "zswap+"); !strings.Contains(l, "1.10^") || !strings.HasSuffix(l, " 17,528") {
		t.Errorf("the zswap row should show its extrapolated slowdown and wear-inclusive cost: %q", l)
	}
	if !strings.Contains(flatText(out), "Wear #2: the 2 x 1.92TB TLC NVMe wear out under swap writes and each is replaced once over 5 years, 620 USD per server, included in the cost.") {
		t.Errorf("the zswap row's wear should be said in words:\n%s", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "eval-01 probe (2026-03-02, probe-eval-01.json, host eval-01): measured: nvme-ssd-tlc, zram-lz4") {
		t.Errorf("measured factors should name their host:\n%s", out)
	}
	if !strings.Contains(out, "every configuration needs 4 servers") || !strings.Contains(out, "closest to its deadline") {
		t.Errorf("fleet size and the multi-job convention should be explained:\n%s", out)
	}
	if !strings.Contains(flatText(out), `2 listed rows' slowdowns are carried over from another device's curve by the swap-path model`) {
		t.Errorf("derived slowdowns should be counted:\n%s", out)
	}
}

// TestRobustnessBlocks: the TCO paragraph always appears (saying so when
// power cannot be priced), the break-even block when it was computed, the
// uncertainty block when it ran; each says what a reader needs to act on.
func TestRobustnessBlocks(t *testing.T) {
	plain := flatText(render(t, "table", intelResult(t), Options{Explain: true}))
	for _, absent := range []string{"Break-even", "Uncertainty:"} {
		if strings.Contains(plain, absent) {
			t.Errorf("without analyses, the table should not mention %q", absent)
		}
	}
	mdOut := flatText(render(t, "markdown", intelResult(t), Options{Explain: true}))
	for _, s := range []string{plain, mdOut} {
		if !strings.Contains(s, "Total cost of ownership: power not priced: the default electricity price 0.15 USD/kWh cannot be converted to RUB") {
			t.Errorf("power that cannot be priced must be said in the table and markdown:\n%s", s)
		}
	}
	tc := robustCase(t, intelTCO, 0)
	tc.opts.Explain = true
	out := flatText(render(t, "table", tc.res, tc.opts))
	for _, want := range []string{
		"Total cost of ownership over 3 years: purchase plus power, the average draw around the clock at 5 RUB/kWh and PUE 1.4. The ranking follows it.",
		"Recommended: 232,200 RUB to buy + 80,758 RUB power (439 W, 16,152 kWh) = 312,958 RUB per server.",
		"Baseline: 288,000 RUB to buy + 82,414 RUB power (448 W, 16,483 kWh) = 370,414 RUB per server.",
		"(by total cost of ownership):",
		"- Cheapest in: 48GiB (12 x 4GiB) + Intel X25-E 64GB (SLC) (the recommendation) 98%",
		"Method: Each run draws every catalog price independently",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The block order: the verdict, the ranking and the uncertainty run
	// asked for, then what --explain adds.
	for _, pair := range [][2]string{{"Legend:", "Uncertainty:"}, {"Uncertainty:", "Savings of the recommended"}, {"Savings of the recommended", "Total cost of ownership over"}, {"Total cost of ownership over", "Break-even prices:"}, {"Break-even prices:", "Basis of each slowdown:"}} {
		if i, j := strings.Index(out, pair[0]), strings.Index(out, pair[1]); i < 0 || j < i {
			t.Errorf("%q should come before %q", pair[0], pair[1])
		}
	}
	md := render(t, "markdown", tc.res, tc.opts)
	for _, want := range []string{"## Total cost of ownership", "## How robust is the answer", "### Break-even prices", "### Uncertainty",
		"| DRAM (every DIMM) | any configuration | 0.3061 | falls | 96GiB (12 x 8GiB), no swap |", "TCO per server (RUB) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// The CSV has each configuration's share of the uncertainty runs.
	recs, err := csv.NewReader(strings.NewReader(render(t, "csv", tc.res, tc.opts))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	sum := 0.0
	for _, r := range recs[1:] {
		if r[col["uncertainty_share"]] == "" {
			t.Fatalf("row %s: empty uncertainty_share after an uncertainty run", r[col["id"]])
		}
		v, _ := strconv.ParseFloat(r[col["uncertainty_share"]], 64)
		sum += v
		if r[col["recommended"]] == "true" {
			if tco, _ := strconv.ParseFloat(r[col["tco_per_server"]], 64); tco != 312958.44 {
				t.Errorf("recommended tco_per_server %v, want 312958.44", tco)
			}
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("the listed configurations' shares sum to %v; all winners are listed here", sum)
	}
}

func flatText(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestJSONRoundTrip(t *testing.T) {
	for _, tc := range cases(t) {
		data := render(t, "json", tc.res, tc.opts)
		got, err := ReadOutput(strings.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := NewOutput(tc.res, tc.opts)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: JSON does not round-trip:\ngot  %+v\nwant %+v", tc.name, got, want)
		}
		// Rendering what was read back gives the same report.
		var again bytes.Buffer
		if err := RenderOutput(&again, "json", got); err != nil || again.String() != data {
			t.Errorf("%s: re-rendered JSON differs (err %v)", tc.name, err)
		}
	}
	out := NewOutput(intelResult(t), Options{Top: 5, Version: "v1.2.3"})
	if out.SchemaVersion != 1 || out.MemplanVersion != "v1.2.3" || len(out.Configurations) != 5 || out.ConfigurationsTotal <= 5 {
		t.Errorf("header or Top wrong: version %d %q, %d of %d configurations", out.SchemaVersion, out.MemplanVersion, len(out.Configurations), out.ConfigurationsTotal)
	}
	r := out.Recommended
	if r == nil || !strings.Contains(r.Label, "X25-E") || r.ID != out.RecommendedID || !r.Recommended || r.UsableRAMGiB != 46 ||
		r.Slowdown < 1.10 || r.Slowdown > 1.14 || !r.MeetsDeadlines || r.RuntimeHours >= r.DeadlineHours || r.DeadlineHours != 8 {
		t.Errorf("recommended configuration wrong: %+v", r)
	}
	if b := out.Baseline; b == nil || !b.AllDRAM || b.Swap.Kind != "none" || b.InstalledRAMGiB != 96 || !b.Baseline {
		t.Errorf("baseline should be 96 GiB all-DRAM: %+v", b)
	}
	if s := out.Savings; s == nil || s.PerServer <= 50000 || s.PerServer != out.Baseline.CostPerServer-r.CostPerServer {
		t.Errorf("savings should exceed 50,000 RUB per server as in the study: %+v", s)
	}
}

func TestYAMLMatchesJSON(t *testing.T) {
	// Every field has the same name in both encodings.
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			if j, y := f.Tag.Get("json"), f.Tag.Get("yaml"); j == "" || j != y || strings.Contains(j, ",") {
				t.Errorf("%s.%s: json tag %q and yaml tag %q must be equal, plain names", ty.Name(), f.Name, j, y)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(Output{}))

	big := intelResult(t)
	big.Configs[0].Cost.Fleet = mon.Units(232200000)
	if y := render(t, "yaml", big, Options{Top: 1}); !strings.Contains(y, "fleet_cost: 232200000\n") || strings.Contains(y, "e+") {
		t.Errorf("YAML should write large amounts as plain numbers:\n%s", y)
	}

	for _, tc := range cases(t) {
		data := render(t, "yaml", tc.res, tc.opts)
		dec := yaml.NewDecoder(strings.NewReader(data))
		dec.KnownFields(true)
		var got Output
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := NewOutput(tc.res, tc.opts); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: YAML does not decode to the same Output", tc.name)
		}
	}
}

func TestReadOutputRejects(t *testing.T) {
	good := render(t, "json", intelResult(t), Options{Top: 2, Version: "test"})
	var generic map[string]any
	if err := json.Unmarshal([]byte(good), &generic); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(good), &m)
		f(m)
		b, _ := json.MarshalIndent(m, "", "  ")
		return string(b)
	}
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"unknown top-level field", edit(func(m map[string]any) { m["colour"] = "blue" }), []string{`unknown field "colour"`, "line "}},
		{"unknown nested field", strings.Replace(good, `"dimm_count": 12,`, `"dimm_count": 12, "price_eur": 1,`, 1),
			[]string{`unknown field "price_eur"`, "line " + strconv.Itoa(lineOf(good, `"dimm_count": 12,`)) + ":"}},
		{"newer schema", edit(func(m map[string]any) { m["schema_version"] = 2 }), []string{"schema_version is 2", "reads version 1"}},
		{"no schema", edit(func(m map[string]any) { delete(m, "schema_version") }), []string{"no schema_version"}},
		{"not JSON", "currency: RUB\n", []string{"line 1"}},
		{"trailing data", good + "{}", []string{"after the result"}},
		{"wrong type", strings.Replace(good, `"servers": 1,`, `"servers": "one",`, 1), []string{"servers", "line "}},
		{"contradictory ids", edit(func(m map[string]any) { m["recommended_id"] = "something-else" }), []string{`recommended_id is "something-else"`}},
	} {
		_, err := ReadOutput(strings.NewReader(tc.data))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !errors.Is(err, ErrSchema) {
			t.Errorf("%s: error does not wrap ErrSchema: %v", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
}

func lineOf(text, sub string) int {
	return strings.Count(text[:strings.Index(text, sub)], "\n") + 1
}

func TestCSV(t *testing.T) {
	res := intelResult(t)
	recs, err := csv.NewReader(strings.NewReader(render(t, "csv", res, Options{}))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], csvColumns) {
		t.Errorf("header %v", recs[0])
	}
	if len(recs)-1 != len(res.Configs) {
		t.Fatalf("%d rows for %d configurations", len(recs)-1, len(res.Configs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	rec := recs[1]
	if rec[col["recommended"]] != "true" || !strings.Contains(rec[col["label"]], "X25-E") || rec[col["currency"]] != "RUB" {
		t.Errorf("first row should be the recommended X25-E configuration: %v", rec)
	}
	if v, err := strconv.ParseFloat(rec[col["cost_per_server"]], 64); err != nil || v != res.Recommended.Cost.PerServer.Float() {
		t.Errorf("cost_per_server %q, want %v", rec[col["cost_per_server"]], res.Recommended.Cost.PerServer)
	}
	for i, r := range recs[1:] {
		if r[col["rank"]] != strconv.Itoa(i+1) {
			t.Errorf("row %d has rank %s", i+1, r[col["rank"]])
		}
	}

	// With --top the recommended and baseline rows are still there.
	recs, err = csv.NewReader(strings.NewReader(render(t, "csv", res, Options{Top: 2}))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[3][col["baseline"]] != "true" || recs[3][col["rank"]] != strconv.Itoa(res.Baseline.Rank) {
		t.Errorf("top 2 should list ranks 1, 2 and the baseline: %v", recs)
	}
}

func TestMarkdown(t *testing.T) {
	res := intelResult(t)
	out := render(t, "markdown", res, Options{Top: 5, Explain: true})
	for _, want := range []string{
		"# memplan: Intel IT EDA batch (2009)", "## Verdict", "## Ranked configurations",
		"| \\* | 1 | 48GiB (12 x 4GiB) + Intel X25-E 64GB (SLC) |",
		"Savings with the recommended configuration: **" + model.Money(res.Savings.PerServer.Float(), "RUB") + " per server**",
		"| 4 GB DDR3-1066 registered ECC | DDR3-1066-RDIMM-4G | intel-2009 | 12 | 4,600 | 4600.00 RUB | 55,200 |",
		"| **Per server** | | | | | | **" + amount(res.Recommended.Cost.PerServer.Float()) + "** |",
		"| intel-2009 | 2009-10-01 | RUB |", "### Not evaluated",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	out = render(t, "markdown", noMeetResult(), Options{Explain: true})
	for _, want := range []string{"### What would work", "### Warnings", "| `probe-eval-01.json` | eval-01 probe | 2026-03-02 | eval-01 |", "**no**"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	var buf bytes.Buffer
	err := Render(&buf, "xlsx", intelResult(t), Options{})
	if err == nil {
		t.Fatal("unknown format accepted")
	}
	for _, f := range append(Formats(), `"xlsx"`) {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q should list %s", err, f)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes for an unknown format", buf.Len())
	}
	if got := Formats(); got[0] != "table" || len(got) != 5 {
		t.Errorf("Formats() = %v", got)
	}
	if render(t, "", intelResult(t), Options{}) != render(t, "table", intelResult(t), Options{}) {
		t.Error(`format "" should be the table`)
	}
}

func TestLabels(t *testing.T) {
	for in, want := range map[string]string{
		"Intel X25-E 64GB (SLC)":           "X25-E 64GB",
		"250 GB 7200 rpm SATA HDD":         "250GB 7200rpm SATA HDD",
		"1.92 TB enterprise TLC NVMe":      "1.92TB TLC NVMe",
		"800 GB SLC-class NVMe (XL-Flash)": "800GB SLC-class NVMe",
		"Intel":                            "Intel",
	} {
		if got := compactDrive(in); got != want {
			t.Errorf("compactDrive(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{55800, "55,800"}, {389.5, "389.50"}, {-1234.25, "-1,234.25"}, {0.999, "1"}} {
		if got := amount(tc.v); got != tc.want {
			t.Errorf("amount(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, l := range Wrap("see /a/very/long/path/that/does/not/fit/in/a/narrow/column/at/all and more words here", 20, "  ") {
		if utf8.RuneCountInString(l) > 20 {
			t.Errorf("wrapped line %q is longer than 20", l)
		}
	}
}

// TestSchemaDocumented keeps docs/result-json.md in step with the structs:
// every JSON field and CSV column must be described there.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/result-json.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			if name := f.Tag.Get("json"); !strings.Contains(text, "`"+name+"`") {
				t.Errorf("docs/result-json.md does not document %s.%s (`%s`)", ty.Name(), f.Name, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(Output{}))
	csvDoc := text[strings.Index(text, "## CSV columns"):]
	for _, c := range csvColumns {
		if !strings.Contains(csvDoc, c) {
			t.Errorf("docs/result-json.md does not list CSV column %s", c)
		}
	}
}
