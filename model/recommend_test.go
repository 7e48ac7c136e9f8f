package model_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

const smallCatalog = `
name: small
currency: USD
date: 2026-01-01
source: test
dimms:
  - {sku: D16, model: 16G, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 100 USD}
  - {sku: D32, model: 32G, generation: DDR5, type: RDIMM, capacity: 32GiB, speed: 4800, price: 400 USD}
drives:
  - {sku: TINY, model: Tiny TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: 50 USD,
     read_latency: 80us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 20TB}
platforms:
  - sku: P
    model: test box
    price: 1000 USD
    memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}
    drive_bays: 2
    os_reserve: 0GiB
    software_swap: [zram, zswap]
`

func input(t *testing.T, workload, catalog string) model.Input {
	t.Helper()
	w, err := model.ParseWorkload("w.yaml", []byte(workload))
	if err != nil {
		t.Fatal(err)
	}
	c, err := prices.Parse("c.yaml", []byte(catalog))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return model.Input{Workload: w, Prices: set, Factors: fs}
}

func configByID(t *testing.T, res *model.Result, suffix string) *model.Config {
	t.Helper()
	for i := range res.Configs {
		if strings.HasSuffix(res.Configs[i].ID, suffix) {
			return &res.Configs[i]
		}
	}
	var ids []string
	for _, c := range res.Configs {
		ids = append(ids, c.ID)
	}
	t.Fatalf("no configuration ending %q among %s", suffix, strings.Join(ids, ", "))
	return nil
}

func TestZramMemoryBalance(t *testing.T) {
	// 8 x 16 GiB = 128 GiB usable; jobs touch 160 GiB compressing 2:1.
	// zram's slot table takes 16 bytes per 4 KiB of its 96 GiB disk (75% of
	// RAM): 0.375 GiB, leaving R = 127.625 GiB. zsmalloc's packing loss
	// (10%) makes the effective ratio c = 2/1.1. Resident M and compressed
	// overflow (F-M)/c fill R: M = (cR - F)/(c - 1) = 88.055 GiB, fit 0.5503.
	in := input(t, `
name: z
demand: {servers: 1}
jobs:
  - {name: j, footprint: 160GiB, runtime: 1h, deadline: 2h, compressibility: 2}
options: {zram_sizes: ["50%", "75%"]}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	c := configByID(t, res, "8xD16/zram-lz4-75pct")
	j := c.Jobs[0]
	cr := 2 / 1.1
	M := (cr*127.625 - 160) / (cr - 1)
	if !near(j.InRAM.GiBf(), M, 1e-6) || !near(j.Fit, M/160, 1e-9) {
		t.Errorf("zram resident %s fit %.4f, want %.3fGiB and %.4f", j.InRAM, j.Fit, M, M/160)
	}
	if j.Estimate.Slowdown <= 1 || j.Estimate.Slowdown > 1.1 {
		t.Errorf("zram slowdown %.4f, want small but above 1", j.Estimate.Slowdown)
	}
	if c.Wear != nil || c.Cost.Drives != 0 {
		t.Errorf("zram has no drives to buy or wear: %+v %+v", c.Wear, c.Cost)
	}
	// A 50% zram disk (64 GiB) cannot take the 72 GiB overflow.
	for _, c := range res.Configs {
		if strings.Contains(c.ID, "8xD16/zram-lz4-50pct") {
			t.Errorf("50%% zram should be rejected as too small")
		}
	}
}

// TestZramMemLimit: zram's mem_limit caps the compressed pool. The 75%
// disk above holds 160 - 88.055 = 71.945 GiB of overflow compressed at
// 2/1.1: 39.57 GiB of pool. A limit of 30% of the 128 GiB installed
// (38.4 GiB) cannot take it; 35% (44.8 GiB) can.
func TestZramMemLimit(t *testing.T) {
	run := func(limit string) *model.Result {
		t.Helper()
		in := input(t, `
name: z
demand: {servers: 1}
jobs:
  - {name: j, footprint: 160GiB, runtime: 1h, deadline: 2h, compressibility: 2}
options: {zram_sizes: ["75%"], zram_mem_limit: "`+limit+`"}
`, smallCatalog)
		res, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	reason := model.Reject{Code: model.RejectZramMemLimit}
	tight := run("30%")
	for _, c := range tight.Configs {
		if strings.HasSuffix(c.ID, "8xD16/zram-lz4-75pct") {
			t.Errorf("with a 38.4 GiB mem_limit the 39.57 GiB pool was accepted: %s", c.Label)
		}
	}
	if tight.Rejected[reason] == 0 {
		t.Errorf("rejections %v lack %q", tight.Rejected, reason)
	}
	roomy := run("35%")
	c := configByID(t, roomy, "8xD16/zram-lz4-75pct")
	if cr := 2 / 1.1; !near(c.Jobs[0].Fit, (cr*127.625-160)/(cr-1)/160, 1e-9) {
		t.Errorf("a limit that holds the pool changed the fit: %.4f", c.Jobs[0].Fit)
	}
}

func TestIncompressibleDataGetsNothingFromZram(t *testing.T) {
	in := input(t, `
name: z
demand: {servers: 1}
jobs:
  - {name: j, footprint: 160GiB, runtime: 1h, deadline: 2h, compressibility: 1}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Configs {
		if c.Swap.Kind == model.SwapZram && c.Installed < 160*units.GiB {
			t.Errorf("zram offered for incompressible data: %s", c.Label)
		}
	}
	if res.Rejected[model.Reject{Code: model.RejectZramIncompressible}] == 0 {
		t.Errorf("rejections %v lack the incompressible reason", res.Rejected)
	}
	// zswap rejects pages that do not compress: its pool holds nothing
	// (it held them at 0.91:1, paying RAM for nothing), and the drive alone
	// is the same configuration.
	for _, c := range res.Configs {
		if c.Swap.Kind == model.SwapZswap {
			t.Errorf("zswap offered for incompressible data: %s", c.Label)
		}
	}
	if res.Rejected[model.Reject{Code: model.RejectZswapIncompressible}] == 0 {
		t.Errorf("rejections %v lack zswap's incompressible reason", res.Rejected)
	}
}

func TestZswapSplitsOverflowBetweenPoolAndDrive(t *testing.T) {
	in := input(t, `
name: z
demand: {servers: 1}
jobs:
  - {name: j, footprint: 200GiB, runtime: 1h, deadline: 2h, compressibility: 2}
options: {zswap_pool: "20%"}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	z := configByID(t, res, "8xD16/zswap-lz4+1xTINY")
	d := configByID(t, res, "8xD16/1xTINY")
	// Pool = 20% of 128 GiB; RAM left for pages = 102.4 GiB.
	if want := 0.8 * 128 / 200; !near(z.Jobs[0].Fit, want, 1e-9) {
		t.Errorf("zswap fit %.4f, want %.4f", z.Jobs[0].Fit, want)
	}
	if !(z.Jobs[0].Estimate.Slowdown < d.Jobs[0].Estimate.Slowdown) {
		t.Errorf("zswap (%.4f) should beat the bare drive (%.4f) when the pool absorbs part of the overflow",
			z.Jobs[0].Estimate.Slowdown, d.Jobs[0].Estimate.Slowdown)
	}
	if b := z.Jobs[0].Estimate.Basis; b.Kind != model.BasisZswap || b.Pool == nil || b.Drive == nil || !(b.DriveShare > 0 && b.DriveShare < 1) {
		t.Errorf("basis %q does not explain the split", z.Jobs[0].Estimate.Basis)
	}
}

func TestWornOutDrivesArePricedForReplacement(t *testing.T) {
	// A long, heavily swapping job on a 20 TBW drive over 5 years.
	in := input(t, `
name: wear
horizon: 5y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 24h, compressibility: 1}
options: {dram_only: false}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	c := configByID(t, res, "8xD16/1xTINY")
	if c.Wear == nil || !c.Wear.WearsOut || c.Wear.Replacements < 1 {
		t.Fatalf("wear %+v: expected the drive to wear out", c.Wear)
	}
	if want := money.Units(50).Mul(int64(c.Wear.Replacements)); c.Cost.Replacements != want {
		t.Errorf("replacement cost %v, want %v", c.Cost.Replacements, want)
	}
	if c.Cost.PerServer != money.Units(1000+8*100+50).Add(c.Cost.Replacements) {
		t.Errorf("per-server cost %v does not include the replacements", c.Cost.PerServer)
	}
	joined := strings.Join(c.Notes, " ")
	if !strings.Contains(joined, "wear out") {
		t.Errorf("notes %q do not flag the wear", joined)
	}
}

func TestServersFollowDailyDemand(t *testing.T) {
	// 100 GiB per job fits 8 x 16 GiB; 3h jobs, 24h window: 8 waves a day of
	// one job each -> 8 jobs per server-day; 50 jobs -> 7 servers.
	in := input(t, `
name: d
jobs:
  - {name: j, footprint: 100GiB, runtime: 3h, deadline: 4h, jobs_per_day: 50}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	c := configByID(t, res, "8xD16/noswap")
	if c.Jobs[0].JobsPerServer != 8 || c.Servers != 7 {
		t.Errorf("jobs/server-day %.1f servers %d, want 8 and 7", c.Jobs[0].JobsPerServer, c.Servers)
	}
	if c.Cost.Fleet != c.Cost.PerServer.Mul(7) {
		t.Errorf("fleet cost %v != 7 x %v", c.Cost.Fleet, c.Cost.PerServer)
	}
	if res.Recommended == nil || res.Recommended.ID != c.ID || res.Baseline != res.Recommended {
		t.Errorf("all-DRAM 128 GiB should be both recommended and baseline")
	}
	if !strings.Contains(res.Verdict, "All-DRAM is the cheapest") {
		t.Errorf("verdict %q", res.Verdict)
	}
}

func TestNothingMeetsTheDeadlineSaysWhatWould(t *testing.T) {
	in := input(t, `
name: late
demand: {servers: 2}
jobs:
  - {name: slow, footprint: 200GiB, concurrency: 2, runtime: 3h, deadline: 3h}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended != nil {
		t.Fatalf("recommended %s though nothing should meet 3h with swap", res.Recommended.Label)
	}
	if !strings.Contains(res.Verdict, "No configuration meets") {
		t.Errorf("verdict %q", res.Verdict)
	}
	adv := strings.Join(res.Advice, "\n")
	for _, want := range []string{"closest:", "400GiB usable RAM", "at most 1 job"} {
		if !strings.Contains(adv, want) {
			t.Errorf("advice lacks %q:\n%s", want, adv)
		}
	}
}

func TestFootprintBeyondEveryConfigurationIsAnInputError(t *testing.T) {
	w, err := model.ParseWorkload("huge.yaml", []byte(`name: huge
demand: {servers: 1}
jobs:
  - name: j
    footprint: 64TiB
    runtime: 1h
    deadline: 2h
`))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := prices.Parse("c.yaml", []byte(smallCatalog))
	set, _ := prices.Merge(c)
	fs, _ := model.MergeFactors(model.DefaultFactors())
	_, err = model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs})
	if err == nil {
		t.Fatal("expected an error")
	}
	msg := err.Error()
	for _, want := range []string{"huge.yaml:5:", "jobs[0].footprint", "64TiB", "exceeds every configuration"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestRankingIsDeterministicAndTiered(t *testing.T) {
	in := loadIntel(t)
	a, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := model.Recommend(in)
	if len(a.Configs) != len(b.Configs) {
		t.Fatal("different counts")
	}
	tier := func(c model.Config) int {
		switch {
		case c.Meets && !c.AtRisk:
			return 0
		case c.Meets:
			return 1
		}
		return 2
	}
	for i := range a.Configs {
		if a.Configs[i].ID != b.Configs[i].ID {
			t.Fatalf("rank %d differs: %s vs %s", i+1, a.Configs[i].ID, b.Configs[i].ID)
		}
		if a.Configs[i].Rank != i+1 {
			t.Errorf("rank field %d at index %d", a.Configs[i].Rank, i)
		}
		if i > 0 {
			p, c := a.Configs[i-1], a.Configs[i]
			if tier(p) > tier(c) {
				t.Errorf("%s (tier %d) ranked above %s (tier %d)", p.ID, tier(p), c.ID, tier(c))
			}
			if tier(p) == tier(c) && tier(c) < 2 && c.Cost.Fleet.Less(p.Cost.Fleet) {
				t.Errorf("%s costs more than %s but ranks above it", p.ID, c.ID)
			}
		}
	}
	if !a.Configs[0].Cost.Fleet.Valid() {
		t.Error("NaN cost")
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// cliFlags are memplan's flag names, as cmd/memplan gives them.
var cliFlags = model.Flags{Rate: "--rate", Rates: "--rates", Prices: "--prices", WithEmbedded: "--with-embedded", MaxPriceAge: "--max-price-age"}

func TestStalePricesWarn(t *testing.T) {
	in := loadIntel(t)
	in.Flags = cliFlags
	in.Now = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	in.MaxPriceAge = 90 * 24 * time.Hour
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "intel-2009") || !strings.Contains(res.Warnings[0], "list prices of 2009-10") || !strings.Contains(res.Warnings[0], "--prices FILE") {
		t.Fatalf("warnings %q, want one naming the 2009 catalog, its date and what to do", res.Warnings)
	}
	in.MaxPriceAge = 0
	if res, _ := model.Recommend(in); len(res.Warnings) != 0 {
		t.Errorf("check off, yet warnings %q", res.Warnings)
	}
}

func TestFixedFleetMustCarryDailyVolume(t *testing.T) {
	// Two servers, 100 jobs a day of 3h each: 8 a server-day, 16 in all.
	in := input(t, `
name: f
demand: {servers: 2}
jobs:
  - {name: j, footprint: 100GiB, runtime: 3h, deadline: 4h, jobs_per_day: 100}
`, smallCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended != nil {
		t.Fatalf("recommended %s, but 2 servers cannot run 100 jobs a day", res.Recommended.Label)
	}
	c := configByID(t, res, "8xD16/noswap")
	if c.Meets || !strings.Contains(strings.Join(c.Notes, " "), "cannot carry the daily job volume") {
		t.Errorf("meets=%v notes=%q", c.Meets, c.Notes)
	}
}

func TestWrittenZeroIsNotADefault(t *testing.T) {
	for field, src := range map[string]string{
		"jobs[0].concurrency":     "  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h, concurrency: 0}",
		"horizon":                 "  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h}\nhorizon: 0s",
		"options.zswap_pool":      "  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h}\noptions: {zswap_pool: 0}",
		"jobs[0].compressibility": "  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h, compressibility: 0}",
	} {
		_, err := model.ParseWorkload("z.yaml", []byte("name: z\ndemand: {servers: 1}\njobs:\n"+src+"\n"))
		if err == nil || !strings.Contains(err.Error(), "field "+field) {
			t.Errorf("%s: 0 accepted or error elsewhere: %v", field, err)
		}
	}
	// A dirty share of 0 is a real value (jobs that never dirty a page).
	w, err := model.ParseWorkload("z.yaml", []byte("name: z\ndemand: {servers: 1}\njobs:\n  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h, dirty_share: 0}\n"))
	if err != nil || w.Jobs[0].DirtyShare != 0 {
		t.Errorf("dirty_share 0: %v %v", err, w)
	}
}

// With more concurrent jobs than the platform has cores, a job waiting for
// a page lets another compute: the device's latency is partly hidden and
// the basis says so. The same platform without a core count keeps a core
// per job.
func TestJobsOutnumberingCoresHideTheDevice(t *testing.T) {
	wl := `
name: c
demand: {servers: 1}
jobs:
  - {name: j, footprint: 12GiB, concurrency: 16, runtime: 1h, deadline: 3h}
`
	withCores := strings.Replace(smallCatalog, "    drive_bays: 2\n", "    drive_bays: 2\n    cores: 4\n", 1)
	if withCores == smallCatalog {
		t.Fatal("catalog edit did not apply")
	}
	run := func(cat string) *model.Config {
		res, err := model.Recommend(input(t, wl, cat))
		if err != nil {
			t.Fatal(err)
		}
		return configByID(t, res, "8xD16/1xTINY")
	}
	own, shared := run(smallCatalog), run(withCores)
	o, s := own.Jobs[0].Estimate, shared.Jobs[0].Estimate
	t.Logf("a core each %.4f (%.4f-%.4f); 16 jobs on 4 cores %.4f (%.4f-%.4f)", o.Slowdown, o.Low, o.High, s.Slowdown, s.Low, s.High)
	if !(s.Slowdown > 1 && s.Slowdown < o.Slowdown) {
		t.Errorf("16 jobs on 4 cores: %.4f, want above 1 and below the core-each %.4f", s.Slowdown, o.Slowdown)
	}
	if s.Basis.Jobs != 16 || s.Basis.Cores != 4 || o.Basis.Jobs != 0 {
		t.Errorf("bases: %q / %q", s.Basis, o.Basis)
	}
}

func TestCatalogCoresBelowSocketsIsAnInputError(t *testing.T) {
	bad := strings.Replace(smallCatalog, "    drive_bays: 2\n", "    drive_bays: 2\n    sockets: 2\n    cores: 1\n", 1)
	_, err := prices.Parse("c.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:") || !strings.Contains(err.Error(), "platforms[0].cores") || !strings.Contains(err.Error(), "got 1 for 2 sockets") {
		t.Fatalf("error %v", err)
	}
}

// A cheaper drive that writes slower does not hide the dearer drives that
// write faster: pruning compares every figure the swap-path model reads, so
// adding a 40 MB/s TLC drive at 250 USD to the list prices leaves the
// recommendation for eda.yaml with access: sweep where it was (512 GiB +
// 1.92 TB TLC, 18,520 USD; with the old pruning both TLC drives were
// dropped and QLC at 18,980 USD won). The jobs state dirty_share: 0.5, at
// which the 1.92 TB drive lasts the horizon (at the 0.75-1 the anchors
// imply it wears out and the 3.84 TB drive is cheaper: a matter of wear,
// not of pruning).
func TestPruneKeepsDrivesThatWriteFaster(t *testing.T) {
	eda := edaSweep(t)
	w, fs := eda.Workload, eda.Factors
	for i := range w.Jobs {
		w.Jobs[i].DirtyShare, w.Jobs[i].DirtyStated = 0.5, true
	}
	recommend := func(cur *prices.Catalog) *model.Result {
		t.Helper()
		set, err := prices.Merge(cur)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	cur, err := prices.Embedded(prices.DefaultCatalog)
	if err != nil {
		t.Fatal(err)
	}
	before := recommend(cur)
	var slow prices.Drive
	for _, d := range cur.Drives {
		if d.SKU == "NVME-TLC-1T9" {
			slow = d
		}
	}
	if slow.SKU == "" {
		t.Fatal("the current catalog has no NVME-TLC-1T9")
	}
	slow.SKU, slow.Model = "NVME-TLC-SLOWW", "1.92 TB TLC NVMe, 40 MB/s sustained writes"
	slow.Price.Amount, slow.WriteBandwidth, slow.DWPD = 250, units.Bytes(40e6), 2*slow.DWPD
	cur.Drives = append(cur.Drives, slow)
	after := recommend(cur)
	if before.Recommended == nil || after.Recommended == nil {
		t.Fatalf("no recommendation: before %v, after %v", before.Recommended, after.Recommended)
	}
	if before.Recommended.ID != after.Recommended.ID || !strings.Contains(after.Recommended.ID, "NVME-TLC-1T9") {
		t.Errorf("recommended %s with the slow-writing drive in the catalog, %s without; want the 1.92 TB TLC configuration both times", after.Recommended.ID, before.Recommended.ID)
	}
	var slowEvaluated bool
	for _, c := range after.Configs {
		if c.Swap.Drive != nil && c.Swap.Drive.SKU == "NVME-TLC-SLOWW" {
			slowEvaluated = true
		}
	}
	if !slowEvaluated {
		t.Error("the slow-writing drive was not evaluated at all; it is the cheapest TLC drive and must be")
	}
}

// zswap's pool catches the faults an LRU stack extended by the pool would:
// the drive gets (its byte share)^exponent of them. For eda.yaml's
// regression jobs at 512 GiB, 36.5% of the overflow is on the drive
// (printed 36%): uniform sends it that share of the faults (the byte
// share), sweep (exponent 0.7) 49%, cold-tail (2.3) 10%.
func TestZswapDriveShareFollowsTheShape(t *testing.T) {
	const id = "2S-DDR5-32DIMM/16xDDR5-5600-RDIMM-32G/zswap-lz4+1xNVME-TLC-1T9"
	slowdown := map[string]float64{}
	for _, c := range []struct {
		shape string
		share float64 // percent of the faults on the drives, as printed
	}{{"uniform", 36}, {"sweep", 49}, {"cold-tail", 10}} {
		in := edaSweep(t)
		for i := range in.Workload.Jobs {
			in.Workload.Jobs[i].Access = c.shape
		}
		res, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		cfg := configByID(t, res, id)
		j := cfg.Jobs[0]
		b := j.Estimate.Basis
		if b.Kind != model.BasisZswap || math.Round((1-b.DriveShare)*100) != 64 {
			t.Errorf("%s: basis %q, want 64%% of the overflow compressed in RAM", c.shape, b)
		}
		if math.Round(b.DriveFaults*100) != c.share || b.Shape != c.shape {
			t.Errorf("%s: basis %q, want %.0f%% of the faults on the drives under %s", c.shape, b, c.share, c.shape)
		}
		if !(j.Estimate.Low <= j.Estimate.Slowdown && j.Estimate.Slowdown <= j.Estimate.High) {
			t.Errorf("%s: %.4f outside its band %.4f-%.4f", c.shape, j.Estimate.Slowdown, j.Estimate.Low, j.Estimate.High)
		}
		slowdown[c.shape] = j.Estimate.Slowdown
	}
	t.Logf("regression on zswap + 1.92 TB TLC: %v", slowdown)
}

// TestWearIsPricedAtTheDirtyShareTheCurvesImply: a job that states no
// dirty_share is derived from the Intel curves, which agree only with
// their jobs rewriting 0.75-1 of what they read back; its swap writes are
// priced at that share, not the workload default of 0.5. A drive rated
// for 1.3 times what the job writes at 0.5 lasts when the workload states
// 0.5 and wears out when it states nothing.
func TestWearIsPricedAtTheDirtyShareTheCurvesImply(t *testing.T) {
	job := func(dirty string) string {
		return `
name: wear
horizon: 5y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 160GiB, runtime: 10h, deadline: 24h, compressibility: 1` + dirty + `}
`
	}
	catalog := func(tbw string) string {
		return strings.Replace(smallCatalog, "tbw: 20TB", "tbw: "+tbw, 1)
	}
	run := func(workload, cat string) *model.Config {
		t.Helper()
		res, err := model.Recommend(input(t, workload, cat))
		if err != nil {
			t.Fatal(err)
		}
		return configByID(t, res, "8xD16/1xTINY")
	}
	// At 0.5 stated, on a drive that never wears out: what 0.5 writes.
	at05 := run(job(", dirty_share: 0.5"), catalog("100PB"))
	j := at05.Jobs[0]
	if j.WearDirty != 0.5 || !strings.Contains(j.WearDirtyFrom, "workload's dirty_share") {
		t.Fatalf("stated 0.5: wear priced at %g (%s)", j.WearDirty, j.WearDirtyFrom)
	}
	perDrive := float64(at05.Wear.HorizonWrites)
	if perDrive <= 0 {
		t.Fatalf("no swap writes at fit %.2f", j.Fit)
	}
	tbw := units.Bytes(1.3 * perDrive).String()
	stated := run(job(", dirty_share: 0.5"), catalog(tbw))
	if stated.Wear.WearsOut {
		t.Errorf("stated 0.5 on a drive rated for %s: life used %.2f, want it to last", tbw, stated.Wear.LifeUsed)
	}
	implied := run(job(""), catalog(tbw))
	ij := implied.Jobs[0]
	if !(ij.WearDirty >= 0.62 && ij.WearDirty <= 1) {
		t.Errorf("no dirty_share: wear priced at %g, want the 0.62-1 the Intel curves imply", ij.WearDirty)
	}
	for _, want := range []string{"implied by the", "sata-ssd-slc", "0.62-1", "workload states none"} {
		if !strings.Contains(ij.WearDirtyFrom, want) {
			t.Errorf("where the dirty share comes from: %q lacks %q", ij.WearDirtyFrom, want)
		}
	}
	if !implied.Wear.WearsOut || implied.Wear.Replacements < 1 {
		t.Errorf("no dirty_share on a drive rated for %s: life used %.2f, want it worn out and replaced", tbw, implied.Wear.LifeUsed)
	}
	// The slowdown is the same: only the writes change.
	if implied.Jobs[0].Estimate.Slowdown != stated.Jobs[0].Estimate.Slowdown {
		t.Errorf("slowdown %.4f vs %.4f: the dirty share for wear moved the speed", implied.Jobs[0].Estimate.Slowdown, stated.Jobs[0].Estimate.Slowdown)
	}
}
