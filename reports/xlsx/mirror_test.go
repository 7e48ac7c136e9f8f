package xlsx

import (
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
)

// TestMirroredSwapWorkbook: with options.mirror_swap the workbook prices
// both copies of every mirror, as the model does, and says the drives are
// mirrored.
func TestMirroredSwapWorkbook(t *testing.T) {
	w, err := model.ParseWorkload("w.yaml", []byte(`
name: mirror
horizon: 3y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 48h, compressibility: 1, access: sweep}
options: {mirror_swap: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := prices.Parse("c.yaml", []byte(wearTieCatalog(money.Units(60))))
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
	out := reports.NewOutput(res, reports.Options{Version: "test"})
	m := configWithSuffix(t, out, "8xD16/2xZBIG-mirror")
	if m.DrivesCost != money.Units(120) {
		t.Fatalf("test premise: two 60 USD drives, got %v", m.DrivesCost)
	}
	f, _ := writeAndOpen(t, out)
	checkAgainstModel(t, f, out)
	r := configRows(t, f)[m.ID]
	if got, _ := f.GetCellValue(sheetConfigs, cell(cSwap, r)); got != "2 drive(s) mirrored" {
		t.Errorf("swap cell %q, want 2 drive(s) mirrored", got)
	}
}
