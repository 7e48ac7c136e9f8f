package xlsx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
)

// wearTieCatalog prices two drives that are the same device but for
// endurance: TINY wears out under the workload below and is bought
// again, ZBIG lasts any horizon. ZBIG's SKU sorts after TINY's, so that
// the ID would put TINY first on a tie.
func wearTieCatalog(zbig money.Amount) string {
	return fmt.Sprintf(`
name: small
currency: USD
date: 2026-01-01
source: test
dimms:
  - {sku: D16, model: 16G, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 100 USD}
drives:
  - {sku: TINY, model: Tiny TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: 50 USD,
     read_latency: 80us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 20TB}
  - {sku: ZBIG, model: Big TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: %s USD,
     read_latency: 80us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 100000TB}
platforms:
  - sku: P
    model: test box
    price: 1000 USD
    memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}
    drive_bays: 2
    os_reserve: 0GiB
    software_swap: [zram, zswap]
`, zbig)
}

func wearTieOutput(t *testing.T, zbig money.Amount) reports.Output {
	t.Helper()
	return wearTieCatalogOutput(t, `
name: wear
horizon: 5y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 24h, compressibility: 1}
options: {dram_only: false}
`, zbig)
}

// wearTieCatalogOutput recommends workload (YAML) from wearTieCatalog(zbig)
// and the default factors.
func wearTieCatalogOutput(t *testing.T, workload string, zbig money.Amount) reports.Output {
	t.Helper()
	w, err := model.ParseWorkload("w.yaml", []byte(workload))
	if err != nil {
		t.Fatal(err)
	}
	c, err := prices.Parse("c.yaml", []byte(wearTieCatalog(zbig)))
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
	res, err := model.Recommend(model.Input{Workload: w, Prices: set, Factors: fs})
	if err != nil {
		t.Fatal(err)
	}
	return reports.NewOutput(res, reports.Options{Version: "test"})
}

func configWithSuffix(t *testing.T, out reports.Output, suffix string) reports.Configuration {
	t.Helper()
	for _, c := range out.Configurations {
		if strings.HasSuffix(c.ID, suffix) {
			return c
		}
	}
	t.Fatalf("no configuration ending %q", suffix)
	return reports.Configuration{}
}

// TestPriceEditToATiePrefersDrivesThatLast: ZBIG starts a dollar dearer
// than TINY with its replacements, so TINY ranks first. Edited on the
// Drives sheet down to the tie, the workbook's live ranking puts ZBIG,
// which needs no replacement, first, as the model re-run at that price
// does.
func TestPriceEditToATiePrefersDrivesThatLast(t *testing.T) {
	probe := wearTieOutput(t, money.Units(1000))
	tiny := configWithSuffix(t, probe, "8xD16/1xTINY")
	if tiny.Wear == nil || tiny.Wear.ReplacementsPerServer < 1 {
		t.Fatalf("test premise: TINY wears out, wear %+v", tiny.Wear)
	}
	tie := tiny.DrivesCost.Add(tiny.ReplacementsCost)

	out := wearTieOutput(t, tie.Add(money.Units(1)))
	if a, b := configWithSuffix(t, out, "8xD16/1xTINY"), configWithSuffix(t, out, "8xD16/1xZBIG"); a.Rank > b.Rank {
		t.Fatalf("test premise: a dollar dearer, ZBIG ranks after TINY (#%d, #%d)", b.Rank, a.Rank)
	}
	f, _ := writeAndOpen(t, out)
	rows, err := f.GetRows(sheetDrives)
	if err != nil {
		t.Fatal(err)
	}
	row := -1
	for i, r := range rows {
		if len(r) >= catSKU && r[catSKU-1] == "ZBIG" {
			row = i + 1
		}
	}
	if row < 0 {
		t.Fatal("no ZBIG on the Drives sheet")
	}
	if err := f.SetCellValue(sheetDrives, cell(catPrice, row), tie.Float()); err != nil {
		t.Fatal(err)
	}
	after := wearTieOutput(t, tie)
	a, b := configWithSuffix(t, after, "8xD16/1xTINY"), configWithSuffix(t, after, "8xD16/1xZBIG")
	if a.CostPerServer != b.CostPerServer || a.MaxSlowdown != b.MaxSlowdown {
		t.Fatalf("test premise: a tie on cost and slowdown, got %v/%v and %v/%v", a.CostPerServer, a.MaxSlowdown, b.CostPerServer, b.MaxSlowdown)
	}
	if b.Rank != a.Rank-1 {
		t.Errorf("model: at equal cost ZBIG, which lasts, should rank just before TINY: #%d, #%d", b.Rank, a.Rank)
	}
	ids := configRows(t, f)
	rt, rz := calcNum(t, f, sheetConfigs, cell(cRank, ids[a.ID])), calcNum(t, f, sheetConfigs, cell(cRank, ids[b.ID]))
	if rz != rt-1 {
		t.Errorf("workbook: after the price edit ZBIG should rank just before TINY: #%v, #%v", rz, rt)
	}
	checkAgainstModel(t, f, after)
}
