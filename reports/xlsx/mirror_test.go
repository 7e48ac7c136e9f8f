package xlsx

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/reports"
)

// TestMirroredSwapWorkbook: with options.mirror_swap the workbook prices
// both copies of every mirror, as the model does, and says the drives are
// mirrored.
func TestMirroredSwapWorkbook(t *testing.T) {
	out := wearTieCatalogOutput(t, `
name: mirror
horizon: 3y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 48h, compressibility: 1, access: sweep}
options: {mirror_swap: true}
`, money.Units(60))
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

// TestSummaryOffersMirror: when the recommendation puts swap on one
// unmirrored drive, the Summary says under the verdict what the terminal
// verdict's "Drive failure" line says: a dead drive kills the jobs on it,
// and what the mirror costs.
func TestSummaryOffersMirror(t *testing.T) {
	out := wearTieCatalogOutput(t, `
name: stripe
horizon: 3y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 48h, compressibility: 1, access: sweep}
`, money.Units(60))
	if r := out.Recommended; r == nil || r.Swap.Drives != 1 || r.Swap.Mirrored || out.Mirror == nil || out.Mirror.Configuration == nil {
		t.Fatalf("test premise: one unmirrored swap drive with a priced mirror, got %+v, mirror %+v", out.Recommended, out.Mirror)
	}
	f, _ := writeAndOpen(t, out)
	label, _ := f.GetCellValue(sheetSummary, cell(1, sFailure))
	text, _ := f.GetCellValue(sheetSummary, cell(2, sFailure))
	if !strings.HasPrefix(label, "If a swap drive dies") {
		t.Errorf("Summary A%d = %q, want the drive-failure label", sFailure, label)
	}
	for _, want := range []string{"if it dies, every job with pages on it dies too", "Mirrored (2 x ", "RAID 1", "more)"} {
		if !strings.Contains(text, want) {
			t.Errorf("Summary B%d = %q, want it to contain %q", sFailure, text, want)
		}
	}
	if text != reports.DriveFailure(out) {
		t.Errorf("Summary B%d = %q, want the terminal's line %q", sFailure, text, reports.DriveFailure(out))
	}
}
