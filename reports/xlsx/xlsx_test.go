package xlsx

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/units"
	"github.com/xuri/excelize/v2"
)

// intelOutput runs the model on the Intel EDA study as `memplan recommend
// --workload examples/intel-eda-2009.yaml` does; edit may change the
// embedded catalog and the workload first.
func intelOutput(t testing.TB, top int, edit func(*prices.Catalog, *model.Workload)) reports.Output {
	t.Helper()
	return intelOutputWith(t, top, edit, false)
}

func intelOutputWith(t testing.TB, top int, edit func(*prices.Catalog, *model.Workload), robust bool) reports.Output {
	t.Helper()
	out, _ := modelOutput(t, "../../examples/intel-eda-2009.yaml", "intel-2009", top, robust, edit)
	return out
}

// modelOutput runs the model on a workload file priced from one embedded
// catalog, after edits (nil ones skipped), and returns the result file's
// output and the model's result.
func modelOutput(t testing.TB, workload, catalog string, top int, robust bool, edits ...func(*prices.Catalog, *model.Workload)) (reports.Output, *model.Result) {
	t.Helper()
	w, err := model.LoadWorkload(workload)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prices.Embedded(catalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range edits {
		if edit != nil {
			edit(cat, w)
		}
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
	in := model.Input{Workload: w, Prices: set, Factors: fs, JobFactors: jf}
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	opts := reports.Options{Top: top, Version: "test"}
	if robust {
		if opts.BreakEven, err = model.BreakEven(in, res); err != nil {
			t.Fatal(err)
		}
		if opts.Uncertainty, err = model.Uncertainty(in, model.UncertaintyOptions{Runs: 100, Seed: 7}); err != nil {
			t.Fatal(err)
		}
	}
	return reports.NewOutput(res, opts), res
}

// intelRobustOutput is intelOutput with the break-even and uncertainty
// analyses, as `memplan recommend --uncertainty --runs 100 --seed 7` runs
// them.
func intelRobustOutput(t testing.TB, edit func(*prices.Catalog, *model.Workload)) reports.Output {
	t.Helper()
	return intelOutputWith(t, 0, edit, true)
}

// power prices electricity in RUB (the default, in USD, cannot be
// converted with the 2009 catalog) and sets what the ranking compares.
func power(rubPerKWh, pue float64, rankBy string) func(*prices.Catalog, *model.Workload) {
	return func(_ *prices.Catalog, w *model.Workload) {
		w.Electricity = &model.EnergyPrice{Amount: rubPerKWh, Currency: "RUB"}
		w.PUE = units.Ratio(pue)
		w.Options.RankBy = rankBy
	}
}

// dimmPrice sets the price of one DIMM of the catalog.
func dimmPrice(sku string, rub float64) func(*prices.Catalog, *model.Workload) {
	return func(c *prices.Catalog, _ *model.Workload) {
		for i := range c.DIMMs {
			if c.DIMMs[i].SKU == sku {
				c.DIMMs[i].Price = units.Money{Amount: rub, Currency: "RUB"}
				return
			}
		}
		panic("no DIMM " + sku)
	}
}

// writeAndOpen writes the workbook to a file and opens it again, as a
// person receiving it would.
func writeAndOpen(t testing.TB, out reports.Output) (*excelize.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.xlsx")
	if err := Write(path, out, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

func calc(t testing.TB, f *excelize.File, sheet, ref string) string {
	t.Helper()
	v, err := f.CalcCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("%s!%s: %v (formula %q)", sheet, ref, err, formulaOf(f, sheet, ref))
	}
	return v
}

func formulaOf(f *excelize.File, sheet, ref string) string {
	fm, _ := f.GetCellFormula(sheet, ref)
	return fm
}

func calcNum(t testing.TB, f *excelize.File, sheet, ref string) float64 {
	t.Helper()
	v := calc(t, f, sheet, ref)
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s!%s = %q, not a number (formula %q)", sheet, ref, v, formulaOf(f, sheet, ref))
	}
	return x
}

// near compares money to the cent (the result file is rounded to cents).
func near(a, b float64) bool { return math.Abs(a-b) < 0.011 }

// configRows maps configuration IDs to their rows on the Configurations sheet.
func configRows(t testing.TB, f *excelize.File) map[string]int {
	t.Helper()
	rows, err := f.GetRows(sheetConfigs)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for i, r := range rows[1:] {
		if len(r) < cID {
			t.Fatalf("row %d has %d cells, want %d", i+2, len(r), cID)
		}
		m[r[cID-1]] = i + 2
	}
	return m
}

// checkAgainstModel computes every formula the model's numbers can be
// compared with: each configuration's costs and rank, the Summary's
// recommended and baseline columns and savings, the bill of materials.
func checkAgainstModel(t *testing.T, f *excelize.File, want reports.Output) {
	t.Helper()
	rows := configRows(t, f)
	if len(rows) != len(want.Configurations) {
		t.Fatalf("workbook lists %d configurations, the model %d", len(rows), len(want.Configurations))
	}
	for _, c := range want.Configurations {
		r, ok := rows[c.ID]
		if !ok {
			t.Errorf("configuration %s is not in the workbook", c.ID)
			continue
		}
		for _, x := range []struct {
			col  int
			want float64
			what string
		}{
			{cPlatformPrice, c.PlatformCost.Float(), "platform"},
			{cDIMMsCost, c.DIMMsCost.Float(), "DIMMs"},
			{cDrivesCost, c.DrivesCost.Float(), "drives"},
			{cReplCost, c.ReplacementsCost.Float(), "replacements"},
			{cPerServer, c.CostPerServer.Float(), "cost per server"},
			{cFleet, c.FleetCost.Float(), "fleet cost"},
			{cPower, c.PowerCost.Float(), "power"},
			{cTCO, c.TCOPerServer.Float(), "TCO per server"},
			{cTCOFleet, c.TCOFleet.Float(), "TCO for the fleet"},
		} {
			if got := calcNum(t, f, sheetConfigs, cell(x.col, r)); !near(got, x.want) {
				t.Errorf("%s: %s = %v in the workbook, %v in the model", c.ID, x.what, got, x.want)
			}
		}
		if got := calcNum(t, f, sheetConfigs, cell(cRank, r)); int(got) != c.Rank {
			t.Errorf("%s: rank %v in the workbook, %d in the model", c.ID, got, c.Rank)
		}
	}

	for _, side := range []struct {
		col  int
		want *reports.Configuration
	}{{colRec, want.Recommended}, {colBase, want.Baseline}} {
		if side.want == nil {
			if got := calc(t, f, sheetSummary, cell(side.col, sLabel)); !strings.HasPrefix(got, "none") {
				t.Errorf("Summary column %d: %q, want none", side.col, got)
			}
			continue
		}
		if got := calc(t, f, sheetSummary, cell(side.col, sID)); got != side.want.ID {
			t.Errorf("Summary column %d names %s, the model %s", side.col, got, side.want.ID)
		}
		if got := calc(t, f, sheetSummary, cell(side.col, sLabel)); got != side.want.Label {
			t.Errorf("Summary column %d label %q, the model %q", side.col, got, side.want.Label)
		}
		if got := calcNum(t, f, sheetSummary, cell(side.col, sPerServer)); !near(got, side.want.CostPerServer.Float()) {
			t.Errorf("Summary column %d: cost per server %v, the model %v", side.col, got, side.want.CostPerServer.Float())
		}
		if got := calcNum(t, f, sheetSummary, cell(side.col, sFleet)); !near(got, side.want.FleetCost.Float()) {
			t.Errorf("Summary column %d: fleet cost %v, the model %v", side.col, got, side.want.FleetCost.Float())
		}
		if got := calcNum(t, f, sheetSummary, cell(side.col, sSlowdown)); got != side.want.Slowdown {
			t.Errorf("Summary column %d: slowdown %v, the model %v", side.col, got, side.want.Slowdown)
		}
		if got := calcNum(t, f, sheetSummary, cell(side.col, sRuntime)); got != side.want.RuntimeHours {
			t.Errorf("Summary column %d: runtime %v, the model %v", side.col, got, side.want.RuntimeHours)
		}
		if got := calcNum(t, f, sheetSummary, cell(side.col, sTCOFleet)); !near(got, side.want.TCOFleet.Float()) {
			t.Errorf("Summary column %d: TCO for the fleet %v, the model %v", side.col, got, side.want.TCOFleet.Float())
		}
		if got := calcNum(t, f, sheetSummary, cell(side.col, sPowerPer)); !near(got, side.want.PowerCost.Float()) {
			t.Errorf("Summary column %d: power per server %v, the model %v", side.col, got, side.want.PowerCost.Float())
		}
	}
	if s := want.Savings; s != nil {
		if got := calcNum(t, f, sheetSummary, cell(colRec, sSavePer)); !near(got, s.PerServer.Float()) {
			t.Errorf("savings per server %v, the model %v", got, s.PerServer.Float())
		}
		if got := calcNum(t, f, sheetSummary, cell(colRec, sSaveFleet)); !near(got, s.Fleet.Float()) {
			t.Errorf("fleet savings %v, the model %v", got, s.Fleet.Float())
		}
		if got := calcNum(t, f, sheetSummary, cell(colRec, sSavePct)); math.Abs(got*100-s.Percent) > 1e-3 {
			t.Errorf("savings %v%%, the model %v%%", got*100, s.Percent)
		}
		if want.TCO != nil && want.TCO.Priced {
			if got := calcNum(t, f, sheetSummary, cell(colRec, sTCOSaveFleet)); !near(got, s.TCOFleet.Float()) {
				t.Errorf("TCO savings for the fleet %v, the model %v", got, s.TCOFleet.Float())
			}
			if got := calcNum(t, f, sheetSummary, cell(colRec, sTCOSavePct)); math.Abs(got*100-s.TCOPercent) > 1e-3 {
				t.Errorf("TCO savings %v%%, the model %v%%", got*100, s.TCOPercent)
			}
		}
	}
	if r := want.Recommended; r != nil {
		total := bFirst + 4
		if got := calcNum(t, f, sheetBOM, cell(bExt, total)); !near(got, r.CostPerServer.Float()) {
			t.Errorf("bill of materials per server %v, the model %v", got, r.CostPerServer.Float())
		}
		if got := calcNum(t, f, sheetBOM, cell(bExtAll, total)); !near(got, r.FleetCost.Float()) {
			t.Errorf("bill of materials for the fleet %v, the model %v", got, r.FleetCost.Float())
		}
		if got := calc(t, f, sheetBOM, cell(bSKU, bFirst+1)); got != r.DIMM.SKU {
			t.Errorf("bill of materials DIMM %q, the model %q", got, r.DIMM.SKU)
		}
	}
}

func TestIntelWorkbookMatchesModel(t *testing.T) {
	out := intelOutput(t, 0, nil)
	f, _ := writeAndOpen(t, out)
	checkAgainstModel(t, f, out)
	// The study's figures, as the README states them.
	if got := calcNum(t, f, sheetSummary, cell(colRec, sSavePer)); got != 55800 {
		t.Errorf("savings per server %v RUB, want 55,800", got)
	}
	if got := calc(t, f, sheetSummary, cell(colRec, sSame)); got != "yes" {
		t.Errorf("same as memplan's recommendation: %q", got)
	}
}

// TestPriceEditFollowsModel edits a DIMM's price cell in the written
// workbook, recomputes, and compares with the model re-run on a catalog
// carrying that price: every configuration's costs and rank, the
// recommendation, the baseline and the savings.
func TestPriceEditFollowsModel(t *testing.T) {
	for _, tc := range []struct {
		name, sku string
		price     float64
		changes   bool // the recommendation changes
	}{
		// Still the X25-E with 12 x 4 GB, smaller savings.
		{"4G dearer", "DDR3-1066-RDIMM-4G", 5000, false},
		// 12 x 4 GB now costs more than 6 x 8 GB: the recommendation moves.
		{"4G scarce", "DDR3-1066-RDIMM-4G", 20000, true},
		// Cheap 8 GB modules: the all-DRAM baseline gets cheaper too.
		{"8G cheap", "DDR3-1066-RDIMM-8G", 5000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := intelOutput(t, 0, nil)
			f, _ := writeAndOpen(t, before)
			row := -1
			rows, err := f.GetRows(sheetDIMMs)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				if r[catSKU-1] == tc.sku {
					row = i + 1
				}
			}
			if row < 0 {
				t.Fatalf("no %s on the DIMMs sheet", tc.sku)
			}
			if err := f.SetCellValue(sheetDIMMs, cell(catPrice, row), tc.price); err != nil {
				t.Fatal(err)
			}
			after := intelOutput(t, 0, dimmPrice(tc.sku, tc.price))
			if changed := after.RecommendedID != before.RecommendedID; changed != tc.changes {
				t.Fatalf("test premise: recommendation changed = %v (%s -> %s)", changed, before.RecommendedID, after.RecommendedID)
			}
			checkAgainstModel(t, f, after)
			same := calc(t, f, sheetSummary, cell(colRec, sSame))
			if tc.changes != strings.HasPrefix(same, "no") {
				t.Errorf("Summary says same-as-memplan %q; recommendation changed: %v", same, tc.changes)
			}
		})
	}
}

// TestPowerEditFollowsModel edits the electricity price, the PUE and what
// the ranking compares on the Summary sheet, recomputes, and compares with
// the model re-run with those settings: power, TCO, ranks, the
// recommendation and the savings.
func TestPowerEditFollowsModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  func(*prices.Catalog, *model.Workload)
		sheet   func(t *testing.T, f *excelize.File)
		after   func(*prices.Catalog, *model.Workload)
		changes bool
	}{
		{"dearer power", power(5, 1.4, model.RankTCO), setSummary(sElectricity, 20.0), power(20, 1.4, model.RankTCO), false},
		// At 50 RUB/kWh six 8 GB DIMMs draw less than twelve 4 GB ones by
		// more than they cost to buy.
		{"power dear enough to re-rank", power(5, 1.4, model.RankTCO), setSummary(sElectricity, 50.0), power(50, 1.4, model.RankTCO), true},
		{"worse PUE", power(20, 1.4, model.RankTCO), setSummary(sPUE, 3.5), power(20, 3.5, model.RankTCO), true},
		{"rank by tco", power(50, 1.4, model.RankCapital), setSummary(sRankBy, model.RankTCO), power(50, 1.4, model.RankTCO), true},
		{"rank by capital", power(50, 1.4, model.RankTCO), setSummary(sRankBy, model.RankCapital), power(50, 1.4, model.RankCapital), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := intelOutput(t, 0, tc.before)
			f, _ := writeAndOpen(t, before)
			tc.sheet(t, f)
			after := intelOutput(t, 0, tc.after)
			if changed := after.RecommendedID != before.RecommendedID; changed != tc.changes {
				t.Fatalf("test premise: recommendation changed = %v (%s -> %s)", changed, before.RecommendedID, after.RecommendedID)
			}
			checkAgainstModel(t, f, after)
		})
	}
}

func setSummary(row int, v any) func(t *testing.T, f *excelize.File) {
	return func(t *testing.T, f *excelize.File) {
		t.Helper()
		if err := f.SetCellValue(sheetSummary, cell(colRec, row), v); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPowerNotPriced: the Intel catalog is in RUB and the default
// electricity price in USD, so memplan leaves power unpriced; the workbook
// starts at 0 per kWh (TCO = purchase) and says why.
func TestPowerNotPriced(t *testing.T) {
	out := intelOutput(t, 0, nil)
	if out.TCO == nil || out.TCO.Priced {
		t.Fatalf("test premise: power not priced: %+v", out.TCO)
	}
	f, _ := writeAndOpen(t, out)
	checkAgainstModel(t, f, out)
	if got := calcNum(t, f, sheetSummary, cell(colRec, sElectricity)); got != 0 {
		t.Errorf("electricity %v, want 0", got)
	}
	if got := calc(t, f, sheetSummary, cell(colBase, sElectricity)); !strings.Contains(got, "power not priced") {
		t.Errorf("the electricity cell should say why power is not priced: %q", got)
	}
	// Typing a price prices it, as the model would with that price.
	setSummary(sElectricity, 5.0)(t, f)
	checkAgainstModel(t, f, intelOutput(t, 0, power(5, model.DefaultPUE, model.RankCapital)))
}

// TestSensitivitySheet: the break-even points and the uncertainty run are
// on the Sensitivity sheet with the model's figures, and the live price
// column follows an edit on the DIMMs sheet.
func TestSensitivitySheet(t *testing.T) {
	out := intelRobustOutput(t, nil)
	f, _ := writeAndOpen(t, out)
	rows, err := f.GetRows(sheetSensitivity)
	if err != nil {
		t.Fatal(err)
	}
	find := func(against, direction, sku string) int {
		for i, r := range rows {
			if len(r) >= vSKU && r[vAgainst-1] == against && r[vDirection-1] == direction && r[vSKU-1] == sku {
				return i + 1
			}
		}
		t.Fatalf("no break-even row against %s, %s, for %s:\n%v", against, direction, sku, rows)
		return 0
	}
	// model/breakeven_test.go has the hand computation.
	r := find("any configuration", "falls", "DDR3-1066-RDIMM-8G")
	if got := calcNum(t, f, sheetSensitivity, cell(vFactor, r)); math.Abs(got-27000.0/82800) > 1e-6 {
		t.Errorf("DRAM break-even factor %v, want 0.3261", got)
	}
	if got := calcNum(t, f, sheetSensitivity, cell(vAtPoint, r)); got != 3750 {
		t.Errorf("8 GB DIMM at the break-even %v RUB, want 3,750", got)
	}
	if got := calcNum(t, f, sheetSensitivity, cell(vPerGB, r)); got != 468.75 {
		t.Errorf("8 GB DIMM per GB at the break-even %v RUB, want 468.75", got)
	}
	if got := calcNum(t, f, sheetSensitivity, cell(vNow, r)); got != 11500 {
		t.Errorf("live 8 GB DIMM price %v, want 11,500", got)
	}
	r = find("any configuration", "rises", "SSDSA2SH064G1")
	if got := calcNum(t, f, sheetSensitivity, cell(vAtPoint, r)); math.Abs(got-82800) > 0.01 {
		t.Errorf("X25-E at the break-even %v RUB, want 82,800", got)
	}
	if got := calc(t, f, sheetSensitivity, cell(vTakesOver, r)); !strings.Contains(got, "96GiB (12 x 8GiB), no swap") {
		t.Errorf("X25-E break-even taken over by %q", got)
	}
	r = find("the baseline alone", "rises", "SSDSA2SH064G1")
	if got := calcNum(t, f, sheetSensitivity, cell(vAtPoint, r)); math.Abs(got-82800) > 0.01 {
		t.Errorf("X25-E against all-DRAM %v RUB, want 82,800", got)
	}

	// Uncertainty: winners and their shares, which sum to 1.
	total := -1
	for i, row := range rows {
		if len(row) > 0 && row[0] == "Total" {
			total = i + 1
		}
	}
	if total < 0 {
		t.Fatal("no winners total on the Sensitivity sheet")
	}
	if got := calcNum(t, f, sheetSensitivity, cell(vPerGB, total)); math.Abs(got-1) > 1e-12 {
		t.Errorf("winner shares sum to %v", got)
	}
	if got := calcNum(t, f, sheetSensitivity, cell(vAtPoint, total)); int(got) != out.Uncertainty.RunsMet {
		t.Errorf("winner runs sum to %v, want %d", got, out.Uncertainty.RunsMet)
	}
	if !sheetHas(t, f, sheetSensitivity, out.Uncertainty.Method) || !sheetHas(t, f, sheetSensitivity, out.Uncertainty.Winners[0].ID) {
		t.Error("the uncertainty method and winners should be on the sheet")
	}

	// The live price follows an edit.
	dimms, _ := f.GetRows(sheetDIMMs)
	for i, row := range dimms {
		if row[catSKU-1] == "DDR3-1066-RDIMM-8G" {
			if err := f.SetCellValue(sheetDIMMs, cell(catPrice, i+1), 3000); err != nil {
				t.Fatal(err)
			}
		}
	}
	r = find("any configuration", "falls", "DDR3-1066-RDIMM-8G")
	if got := calcNum(t, f, sheetSensitivity, cell(vNow, r)); got != 3000 {
		t.Errorf("live 8 GB DIMM price after the edit %v, want 3,000", got)
	}

	// Without the analyses the sheet says how to get them.
	f2, _ := writeAndOpen(t, intelOutput(t, 0, nil))
	if !sheetHasPrefix(t, f2, sheetSensitivity, "Not in this result") {
		t.Error("a result without the analyses should say how to add them")
	}
}

func sheetHasPrefix(t *testing.T, f *excelize.File, sheet, prefix string) bool {
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, c := range r {
			if strings.HasPrefix(c, prefix) {
				return true
			}
		}
	}
	return false
}

func TestNothingMeets(t *testing.T) {
	out := intelOutput(t, 0, func(_ *prices.Catalog, w *model.Workload) {
		w.Jobs[0].Deadline = w.Jobs[0].Runtime / 2 // even in RAM a job misses
		w.Jobs[0].Window = w.Jobs[0].Deadline
	})
	if out.Recommended != nil || out.Baseline != nil {
		t.Fatal("test premise: nothing should meet the deadline")
	}
	f, _ := writeAndOpen(t, out)
	checkAgainstModel(t, f, out)
	if got := calc(t, f, sheetBOM, "A1"); !strings.Contains(got, "none") {
		t.Errorf("bill of materials: %q", got)
	}
	if got := calc(t, f, sheetSummary, cell(colRec, sSavePer)); !strings.HasPrefix(got, "n/a") {
		t.Errorf("savings: %q", got)
	}
}

// TestTopKeepsRecommendedAndBaseline: a result cut with --top still
// lists the recommended and baseline configurations in the workbook.
func TestTopKeepsRecommendedAndBaseline(t *testing.T) {
	out := intelOutput(t, 2, nil)
	if out.Baseline == nil || out.Baseline.Rank <= 2 {
		t.Fatal("test premise: the baseline ranks below the top 2")
	}
	f, _ := writeAndOpen(t, out)
	rows := configRows(t, f)
	if len(rows) != 3 {
		t.Errorf("%d rows, want the top 2 and the baseline", len(rows))
	}
	if got := calc(t, f, sheetSummary, cell(colBase, sID)); got != out.Baseline.ID {
		t.Errorf("baseline %s, want %s", got, out.Baseline.ID)
	}
	if got := calcNum(t, f, sheetSummary, cell(colRec, sSaveFleet)); !near(got, out.Savings.Fleet.Float()) {
		t.Errorf("fleet savings %v, want %v", got, out.Savings.Fleet.Float())
	}
	// Ranked among the listed configurations; memplan's own rank is kept.
	if got := calcNum(t, f, sheetConfigs, cell(cRank, rows[out.Baseline.ID])); got != 3 {
		t.Errorf("baseline ranks %v among the 3 listed, want 3", got)
	}
	if got := calcNum(t, f, sheetConfigs, cell(cModelRank, rows[out.Baseline.ID])); int(got) != out.Baseline.Rank {
		t.Errorf("memplan rank %v, want %d", got, out.Baseline.Rank)
	}
}

func TestWorkbookStructure(t *testing.T) {
	out := intelOutput(t, 0, nil)
	f, path := writeAndOpen(t, out)

	if got, want := strings.Join(f.GetSheetList(), ","), strings.Join(Sheets(), ","); got != want {
		t.Errorf("sheets %s, want %s", got, want)
	}
	for sheet, want := range map[string]string{sheetConfigs: "tblConfigurations", sheetDIMMs: "tblDIMMs", sheetDrives: "tblDrives", sheetPlatforms: "tblPlatforms"} {
		tables, err := f.GetTables(sheet)
		if err != nil || len(tables) != 1 || tables[0].Name != want {
			t.Errorf("%s: tables %+v (%v), want %s", sheet, tables, err, want)
		}
	}

	names := map[string]string{}
	for _, n := range f.GetDefinedName() {
		names[n.Name] = n.RefersTo
	}
	for _, n := range []string{"DimmPrices", "DrivePrices", "PlatformPrices", "CfgRank", "CfgFleet", "CfgTier"} {
		if names[n] == "" {
			t.Errorf("defined name %s missing", n)
		}
	}
	if got, want := names["CfgFleet"], absRange(sheetConfigs, cFleet, 2, 26); got != want {
		t.Errorf("CfgFleet refers to %s, want %s", got, want)
	}

	// Costs and ranks are formulas over the price cells, not values.
	for _, c := range []struct{ sheet, ref, contains string }{
		{sheetConfigs, cell(cDIMMPrice, 2), "INDEX(DimmPrices,MATCH("},
		{sheetConfigs, cell(cDrivePrice, 2), "INDEX(DrivePrices,MATCH("},
		{sheetConfigs, cell(cPlatformPrice, 2), "INDEX(PlatformPrices,MATCH("},
		{sheetConfigs, cell(cFleet, 2), "*"},
		{sheetConfigs, cell(cRank, 2), fmt.Sprintf(`COUNTIF($%[1]s$2:$%[1]s$4,"<"&%[1]s2)`, colName(cRankCost))}, // the 3 that meet with margin
		{sheetConfigs, cell(cRankCost, 2), fmt.Sprintf(`IF(RankBy="tco",%s2,%s2)`, colName(cTCOFleet), colName(cFleet))},
		{sheetConfigs, cell(cPower, 2), "*ElectricityPrice"},
		{sheetConfigs, cell(cEnergy, 2), "*HorizonHours*PUEFactor/1000"},
		{sheetSummary, cell(colRec, sSaveFleet), "-"},
		{sheetSummary, cell(colBase, sRow), "MATCH(MIN(CfgBaseRank),CfgRank,0)"},
		{sheetBOM, cell(bUnit, bFirst+1), "INDEX(DimmPrices"},
	} {
		if fm := formulaOf(f, c.sheet, c.ref); !strings.Contains(fm, c.contains) {
			t.Errorf("%s!%s: formula %q, want one containing %q", c.sheet, c.ref, fm, c.contains)
		}
	}

	// Price cells: validated numbers >= 0 in a currency format.
	for _, sheet := range []string{sheetDIMMs, sheetDrives, sheetPlatforms} {
		dvs, err := f.GetDataValidations(sheet)
		if err != nil || len(dvs) != 1 {
			t.Fatalf("%s: data validations %v (%v)", sheet, dvs, err)
		}
		dv := dvs[0]
		if dv.Type != "decimal" || dv.Operator != "greaterThanOrEqual" || dv.Formula1 != "0" || !strings.HasPrefix(dv.Sqref, "C2:C") {
			t.Errorf("%s: validation %+v", sheet, *dv)
		}
		assertNumFmt(t, f, sheet, "C2", `"RUB"`)
	}
	// The Configurations list prints amounts to the unit; its headers
	// name the currency.
	assertNumFmt(t, f, sheetConfigs, cell(cFleet, 2), `#,##0;`)
	if h, _ := f.GetCellValue(sheetConfigs, cell(cFleet, 1)); h != "Fleet cost (RUB)" {
		t.Errorf("Configurations fleet cost header %q, want it to name RUB", h)
	}
	assertNumFmt(t, f, sheetSummary, cell(colRec, sFleet), `"RUB"`)

	// Deadline misses are highlighted.
	cfs, err := f.GetConditionalFormats(sheetConfigs)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for ref, opts := range cfs {
		for _, o := range opts {
			if o.Type == "formula" && o.Criteria == "$"+colName(cTier)+"2=3" && ref == fmt.Sprintf("A2:%s26", colName(cLast)) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no conditional format for deadline misses: %+v", cfs)
	}

	for _, sheet := range []string{sheetConfigs, sheetDIMMs, sheetSlowdown} {
		p, err := f.GetPanes(sheet)
		if err != nil || !p.Freeze || p.YSplit != 1 {
			t.Errorf("%s: header row not frozen: %+v %v", sheet, p, err)
		}
	}
	cp, err := f.GetCalcProps()
	if err != nil || cp.FullCalcOnLoad == nil || !*cp.FullCalcOnLoad {
		t.Errorf("workbook not set to recalculate on load: %+v %v", cp, err)
	}

	// Two scatter charts on the Charts sheet: cost vs runtime over the
	// Configurations columns with the deadline line, and slowdown vs fit
	// per device class over the Slowdown sheet.
	charts := zipFiles(t, path, "xl/charts/chart")
	if len(charts) != 2 {
		t.Fatalf("%d charts, want 2", len(charts))
	}
	all := strings.Join(charts, "\n")
	for _, want := range []string{"<scatterChart>", absCell(sheetConfigs, cRuntime, 2) + ":", absCell(sheetConfigs, cFleet, 2) + ":",
		absRange(sheetCharts, hX, hDeadline, hDeadline+1), "Slowdown!$B$", "Slowdown!$C$"} {
		if !strings.Contains(all, want) {
			t.Errorf("charts do not contain %s", want)
		}
	}
	for _, class := range []string{"sata-ssd-slc", "sata-ssd-mlc", "hdd"} {
		if !sheetHas(t, f, sheetSlowdown, class) {
			t.Errorf("Slowdown sheet has no points for %s", class)
		}
	}
	// The deadline the chart draws is the workload's 8 hours.
	if got := calcNum(t, f, sheetCharts, cell(hX, hDeadline)); got != 8 {
		t.Errorf("deadline line at %v h, want 8", got)
	}
}

func assertNumFmt(t *testing.T, f *excelize.File, sheet, ref, contains string) {
	t.Helper()
	id, err := f.GetCellStyle(sheet, ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.CustomNumFmt == nil || !strings.Contains(*st.CustomNumFmt, contains) {
		t.Errorf("%s!%s: number format %v, want one with %s", sheet, ref, st.CustomNumFmt, contains)
	}
}

func sheetHas(t *testing.T, f *excelize.File, sheet, text string) bool {
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, c := range r {
			if c == text {
				return true
			}
		}
	}
	return false
}

// zipFiles returns the contents of the package parts whose names start
// with prefix.
func zipFiles(t *testing.T, path, prefix string) []string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var out []string
	for _, zf := range z.File {
		if !strings.HasPrefix(zf.Name, prefix) {
			continue
		}
		r, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestWriteRefusesExistingFile(t *testing.T) {
	out := intelOutput(t, 0, nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.xlsx")
	if err := os.WriteFile(path, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(path, out, Options{})
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "use --force") {
		t.Fatalf("got %v, want a refusal that mentions --force", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Fatal("the existing file was changed")
	}
	if err := Write(path, out, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := excelize.OpenFile(path); err != nil {
		t.Fatalf("overwritten file does not open: %v", err)
	}
	assertOnly(t, dir, "plan.xlsx")
}

func TestWriteFailuresLeaveNoFile(t *testing.T) {
	out := intelOutput(t, 0, nil)
	dir := t.TempDir()
	bad := out
	bad.Currency = ""
	for _, tc := range []struct {
		name, path string
		out        reports.Output
		want       string
	}{
		{"no such directory", filepath.Join(dir, "missing", "plan.xlsx"), out, "directory " + filepath.Join(dir, "missing") + " does not exist"},
		{"not .xlsx", filepath.Join(dir, "plan.xls"), out, "needs the .xlsx extension"},
		{"bad result", filepath.Join(dir, "plan.xlsx"), bad, "no currency"},
		{"empty result", filepath.Join(dir, "plan.xlsx"), reports.Output{Currency: "USD"}, "no configurations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(tc.path, tc.out, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			assertOnly(t, dir)
		})
	}
	if os.Getuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		err := Write(filepath.Join(ro, "plan.xlsx"), out, Options{})
		if err == nil || !strings.Contains(err.Error(), "no permission") {
			t.Fatalf("read-only directory: %v", err)
		}
	}
}

// assertOnly fails unless dir holds exactly the named files (no
// temporary files left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		if !e.IsDir() {
			got = append(got, e.Name())
		}
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func TestInconsistentPricesRefused(t *testing.T) {
	out := intelOutput(t, 0, nil)
	out.Configurations[3].DIMM.UnitPrice = out.Configurations[3].DIMM.UnitPrice.Add(money.Units(1))
	if out.Configurations[3].DIMM.SKU != out.Configurations[0].DIMM.SKU {
		t.Fatal("test premise: configurations 1 and 4 share a DIMM")
	}
	if _, err := Build(out); err == nil || !strings.Contains(err.Error(), "two unit prices") {
		t.Fatalf("got %v", err)
	}
}
