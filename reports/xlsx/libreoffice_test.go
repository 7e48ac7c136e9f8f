package xlsx

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// csvFilter exports every sheet (-1) as UTF-8 CSV with raw values rather
// than the displayed text (so "232200", not "232,200.00 RUB").
const csvFilter = "csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,false,false,false,-1"

// TestLibreOfficeAgrees has LibreOffice Calc open the workbook, compute
// every formula itself (the file asks for a full recalculation on load, so
// the values cached with the formulas do not count) and export the
// sheets; the totals must be the model's. A second workbook with a DIMM
// price edited as a person would checks that Calc re-prices and re-ranks
// like the model re-run with that price. bench/libreoffice-check.sh does
// the same end to end through the memplan command.
func TestLibreOfficeAgrees(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		t.Skip("soffice is not on PATH; install libreoffice-calc (bench/libreoffice-check.sh does) to check the workbook in LibreOffice Calc")
	}
	if testing.Short() {
		t.Skip("LibreOffice takes seconds to start; skipped with -short")
	}
	dir := t.TempDir()
	before := intelOutput(t, 0, nil)
	plain := filepath.Join(dir, "plan.xlsx")
	if err := Write(plain, before, Options{}); err != nil {
		t.Fatal(err)
	}
	const sku, price = "DDR3-1066-RDIMM-4G", 20000
	edited := filepath.Join(dir, "edited.xlsx")
	f, err := excelize.OpenFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.GetRows(sheetDIMMs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r[catSKU-1] == sku {
			if err := f.SetCellValue(sheetDIMMs, cell(catPrice, i+1), price); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.SaveAs(edited); err != nil {
		t.Fatal(err)
	}
	f.Close()
	after := intelOutput(t, 0, dimmPrice(sku, price))

	// Power priced at 5 RUB/kWh and the ranking by TCO, with the break-even
	// and uncertainty analyses; then the electricity price raised to 50
	// RUB/kWh on the Summary, which re-ranks.
	tco := filepath.Join(dir, "tco.xlsx")
	if err := Write(tco, intelRobustOutput(t, power(5, 1.4, model.RankTCO)), Options{}); err != nil {
		t.Fatal(err)
	}
	dear := filepath.Join(dir, "dear-power.xlsx")
	f, err = excelize.OpenFile(tco)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellValue(sheetSummary, cell(colRec, sElectricity), 50); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAs(dear); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, tc := range []struct {
		name, path string
		want       reports.Output
	}{
		{"catalog prices", plain, before}, {sku + " at 20,000 RUB", edited, after},
		{"ranked by TCO at 5 RUB/kWh", tco, intelOutput(t, 0, power(5, 1.4, model.RankTCO))},
		{"electricity edited to 50 RUB/kWh", dear, intelOutput(t, 0, power(50, 1.4, model.RankTCO))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sheets := convertWithLibreOffice(t, soffice, tc.path)
			checkCalc(t, sheets, tc.want)
		})
	}
}

// convertWithLibreOffice exports every sheet of the workbook to CSV and
// returns them by sheet name: Sheets() and the extra ones named. Each run
// gets its own LibreOffice profile so that concurrent runs do not collide.
func convertWithLibreOffice(t *testing.T, soffice, path string, extra ...string) map[string][][]string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(soffice, "-env:UserInstallation="+recalcProfile(t, dir), "--headless", "--norestore",
		"--convert-to", csvFilter, "--outdir", filepath.Join(dir, "csv"), path)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	outp, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("soffice: %v\n%s", err, outp)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	sheets := map[string][][]string{}
	for _, s := range append(Sheets(), extra...) {
		fh, err := os.Open(filepath.Join(dir, "csv", base+"-"+s+".csv"))
		if err != nil {
			t.Fatalf("LibreOffice exported no %s sheet: %v\n%s", s, err, outp)
		}
		r := csv.NewReader(fh)
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range recs {
			for j, v := range rec {
				if strings.HasPrefix(v, "#") || strings.HasPrefix(v, "Err:") {
					t.Errorf("%s!%s: LibreOffice computed %s", s, cell(j+1, i+1), v)
				}
			}
		}
		sheets[s] = recs
	}
	return sheets
}

// recalcProfile makes a private LibreOffice profile under dir that
// recalculates every formula of an Excel file on load. By default
// LibreOffice trusts the values cached with the formulas (and ignores the
// workbook's request for a full recalculation), so without it Calc would
// only echo memplan's own numbers back; the price-edit cases of
// TestLibreOfficeAgrees fail without it.
func recalcProfile(t *testing.T, dir string) string {
	t.Helper()
	user := filepath.Join(dir, "profile", "user")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	const xcu = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`
	if err := os.WriteFile(filepath.Join(user, "registrymodifications.xcu"), []byte(xcu), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(filepath.Join(dir, "profile"))
}

// checkCalc compares LibreOffice's figures with the model's, printing them
// side by side.
func checkCalc(t *testing.T, sheets map[string][][]string, want reports.Output) {
	t.Helper()
	at := func(sheet string, col, row int) string {
		recs := sheets[sheet]
		if row-1 < len(recs) && col-1 < len(recs[row-1]) {
			return recs[row-1][col-1]
		}
		return ""
	}
	var lines []string
	compare := func(what string, got string, want float64) {
		x, err := number(got)
		ok := err == nil && math.Abs(x-want) < 0.011
		mark := "ok"
		if !ok {
			mark = "DIFFERS"
			t.Errorf("%s: LibreOffice %q, memplan %v", what, got, want)
		}
		lines = append(lines, fmt.Sprintf("%-46s %16.2f %16s  %s", what, want, got, mark))
	}
	if r := want.Recommended; r != nil {
		compare("recommended: cost per server", at(sheetSummary, colRec, sPerServer), r.CostPerServer.Float())
		compare("recommended: fleet cost", at(sheetSummary, colRec, sFleet), r.FleetCost.Float())
		compare("bill of materials: total for the fleet", at(sheetBOM, bExtAll, bFirst+4), r.FleetCost.Float())
		if got := at(sheetSummary, colRec, sID); got != r.ID {
			t.Errorf("LibreOffice recommends %s, memplan %s", got, r.ID)
		}
	}
	if b := want.Baseline; b != nil {
		compare("baseline: fleet cost", at(sheetSummary, colBase, sFleet), b.FleetCost.Float())
		if got := at(sheetSummary, colBase, sID); got != b.ID {
			t.Errorf("LibreOffice's baseline is %s, memplan's %s", got, b.ID)
		}
	}
	if r := want.Recommended; r != nil && want.TCO != nil && want.TCO.Priced {
		compare("recommended: power per server", at(sheetSummary, colRec, sPowerPer), r.PowerCost.Float())
		compare("recommended: TCO for the fleet", at(sheetSummary, colRec, sTCOFleet), r.TCOFleet.Float())
	}
	if s := want.Savings; s != nil && want.TCO != nil && want.TCO.Priced {
		compare("TCO savings for the fleet", at(sheetSummary, colRec, sTCOSaveFleet), s.TCOFleet.Float())
	}
	if s := want.Savings; s != nil {
		compare("savings per server", at(sheetSummary, colRec, sSavePer), s.PerServer.Float())
		compare("savings for the fleet", at(sheetSummary, colRec, sSaveFleet), s.Fleet.Float())
		compare("savings, % of the baseline", at(sheetSummary, colRec, sSavePct), s.Percent)
	}
	byID := map[string]int{}
	for i, rec := range sheets[sheetConfigs] {
		if len(rec) >= cID {
			byID[rec[cID-1]] = i + 1
		}
	}
	for _, c := range want.Configurations {
		r, ok := byID[c.ID]
		if !ok {
			t.Errorf("configuration %s missing from LibreOffice's export", c.ID)
			continue
		}
		if got, err := number(at(sheetConfigs, cFleet, r)); err != nil || !near(got, c.FleetCost.Float()) {
			t.Errorf("%s: fleet cost %q in LibreOffice, %v in memplan", c.ID, at(sheetConfigs, cFleet, r), c.FleetCost.Float())
		}
		if got, err := number(at(sheetConfigs, cTCOFleet, r)); err != nil || !near(got, c.TCOFleet.Float()) {
			t.Errorf("%s: TCO for the fleet %q in LibreOffice, %v in memplan", c.ID, at(sheetConfigs, cTCOFleet, r), c.TCOFleet.Float())
		}
		if got, err := number(at(sheetConfigs, cRank, r)); err != nil || int(got) != c.Rank {
			t.Errorf("%s: rank %q in LibreOffice, %d in memplan", c.ID, at(sheetConfigs, cRank, r), c.Rank)
		}
	}
	t.Logf("%-46s %16s %16s\n%s\n(and the fleet cost and rank of all %d configurations)", "", "memplan", "LibreOffice", strings.Join(lines, "\n"), len(want.Configurations))
}

// number parses a value LibreOffice exported: plain, or a percentage
// ("19.375%", returned as 19.375, the unit memplan's percent uses).
func number(s string) (float64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	return strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
}
