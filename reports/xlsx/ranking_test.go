package xlsx

import (
	"strconv"
	"testing"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/units"
)

// edaOutput runs the model on examples/eda.yaml against the current
// embedded catalog, after edits.
func edaOutput(t testing.TB, edits ...func(*prices.Catalog, *model.Workload)) (reports.Output, *model.Result) {
	t.Helper()
	return modelOutput(t, "../../examples/eda.yaml", "current", 0, false, edits...)
}

// multiClass tightens both job classes' deadlines and fixes the fleet
// small enough for some configurations to miss on capacity: misses of
// each class, of capacity, and many nearly equal (more drives shave
// fractions of a second off a runtime).
func multiClass(_ *prices.Catalog, w *model.Workload) {
	h := func(x float64) units.Duration { return units.Duration(x * float64(time.Hour)) }
	w.Demand.Servers = 22
	w.Jobs[0].Deadline = h(5.47)
	w.Jobs[1].Deadline = h(9.75)
	w.Jobs[0].Window = h(15.9)
}

// drivePrice sets the price of one drive of the catalog.
func drivePrice(sku string, usd float64) func(*prices.Catalog, *model.Workload) {
	return func(c *prices.Catalog, _ *model.Workload) {
		for i := range c.Drives {
			if c.Drives[i].SKU == sku {
				c.Drives[i].Price = units.Money{Amount: usd, Currency: "USD"}
				return
			}
		}
		panic("no drive " + sku)
	}
}

// TestMultiClassRankingMatchesModel: with several job classes and misses
// of each kind, the workbook ranks every configuration as the model does,
// at the result's prices and after a price edit.
func TestMultiClassRankingMatchesModel(t *testing.T) {
	out, res := edaOutput(t, multiClass)
	kinds := map[string]int{}
	for i, c := range out.Configurations {
		switch {
		case c.MeetsDeadlines:
			kinds["meets"]++
		case c.RuntimeHours <= c.DeadlineHours:
			kinds["capacity miss"]++
		default:
			kinds["deadline miss of "+c.CriticalJob]++
		}
		// The key the workbook rebuilds from the result is the model's.
		if got, want := c.RankKey(), res.Configs[i].RankKey(); got != want {
			t.Errorf("%s: key %+v from the result, %+v in the model", c.ID, got, want)
		}
	}
	t.Logf("%d configurations: %v", len(out.Configurations), kinds)
	for _, k := range []string{"meets", "capacity miss", "deadline miss of regression", "deadline miss of signoff-timing"} {
		if kinds[k] == 0 {
			t.Fatalf("test premise: some configurations of each kind, got %v", kinds)
		}
	}
	f, _ := writeAndOpen(t, out)
	checkAgainstModel(t, f, out)

	// A dearer TLC drive re-ranks meets and misses alike; the workbook
	// follows the model re-run at that price.
	const sku, price = "NVME-TLC-1T9", 300
	rows, err := f.GetRows(sheetDrives)
	if err != nil {
		t.Fatal(err)
	}
	row := -1
	for i, r := range rows {
		if len(r) >= catSKU && r[catSKU-1] == sku {
			row = i + 1
		}
	}
	if row < 0 {
		t.Fatalf("no %s on the Drives sheet", sku)
	}
	if err := f.SetCellValue(sheetDrives, cell(catPrice, row), price); err != nil {
		t.Fatal(err)
	}
	after, _ := edaOutput(t, multiClass, drivePrice(sku, price))
	if len(after.Configurations) != len(out.Configurations) {
		t.Fatalf("test premise: the price edit keeps the %d configurations, got %d", len(out.Configurations), len(after.Configurations))
	}
	moved, missesMoved := 0, 0
	for i, c := range after.Configurations {
		if c.ID != out.Configurations[i].ID {
			moved++
			if !c.MeetsDeadlines {
				missesMoved++
			}
		}
	}
	if missesMoved == 0 {
		t.Fatal("test premise: the price edit re-ranks some misses")
	}
	t.Logf("the price edit moves %d configurations, %d of them misses", moved, missesMoved)
	checkAgainstModel(t, f, after)
}

// TestMultiClassRankingInLibreOffice: LibreOffice, recalculating the
// multi-class workbook, ranks every configuration as the model does.
func TestMultiClassRankingInLibreOffice(t *testing.T) {
	soffice := needTool(t, "soffice", "libreoffice-calc")
	out, _ := edaOutput(t, multiClass)
	f, path := writeAndOpen(t, out)
	rows := configRows(t, f)
	sheet := convertWithLibreOffice(t, soffice, path)[sheetConfigs]
	for _, c := range out.Configurations {
		r := rows[c.ID]
		got := ""
		if r-1 < len(sheet) && cRank-1 < len(sheet[r-1]) {
			got = sheet[r-1][cRank-1]
		}
		if got != strconv.Itoa(c.Rank) {
			t.Errorf("%s: rank %q in LibreOffice, %d in the model", c.ID, got, c.Rank)
		}
	}
}
