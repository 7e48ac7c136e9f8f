package quote

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// mergedPriceXLSX is a quote whose unit price cell D5:D6 is merged: the
// 64 GB DIMM on row 6 shows the 32 GB DIMM's 410 EUR, while its own line
// total says 12,240 = 16 x 765.
func mergedPriceXLSX(t *testing.T, formula bool) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	const s = "Sheet1"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	cells := map[string]any{
		"A1": "Angebot", "A2": "Date", "B2": "2026-03-01",
		"A4": "Part", "B4": "Description", "C4": "Qty", "D4": "Unit price (EUR)", "E4": "Total (EUR)",
		"A5": "M321R4GA3BB6", "B5": "32GB DDR5-4800 RDIMM", "C5": 16, "D5": 410.0, "E5": 6560.0,
		"A6": "M321R8GA0BB0", "B6": "64GB DDR5-4800 RDIMM", "C6": 16, "E6": 12240.0,
		"A7": "MZQL23T8HCLS", "B7": "Samsung PM9A3 3.84TB NVMe U.2 TLC 1 DWPD", "C7": 4, "D7": 310.0, "E7": 1240.0,
	}
	if formula {
		delete(cells, "D7")
	}
	for c, v := range cells {
		must(f.SetCellValue(s, c, v))
	}
	must(f.MergeCell(s, "D5", "D6"))
	if formula {
		// excelize writes a formula without calculating it: no saved value.
		must(f.SetCellFormula(s, "D7", "E7/C7"))
	}
	var buf bytes.Buffer
	must(f.Write(&buf))
	return buf.Bytes()
}

func TestImportMergedPriceTakesLineTotal(t *testing.T) {
	wb, err := ReadXLSX("angebot.xlsx", bytes.NewReader(mergedPriceXLSX(t, false)))
	if err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, wb, Options{})
	got := map[string]float64{}
	for _, d := range res.Catalog.DIMMs {
		got[d.SKU] = d.Price.Amount
	}
	if got["M321R4GA3BB6"] != 410 || got["M321R8GA0BB0"] != 765 {
		t.Errorf("DIMM prices %v, want the 32 GB at 410 and the 64 GB at 765 (12240 / 16)", got)
	}
	w := rows(res.Warnings)
	if !strings.Contains(w[6], "D6 is merged with D5") || !strings.Contains(w[6], "12240.00 / qty 16 = 765.00") {
		t.Errorf("row 6 warning %q; want it to say the merged cell was overruled by the line total", w[6])
	}
	if !strings.Contains(string(res.YAML), "row 5's 410.00") {
		t.Errorf("the catalog does not say why the price differs from the cell:\n%s", res.YAML)
	}
}

func TestImportQtyTimesPriceNotTotal(t *testing.T) {
	const quote = "Date: 2026-03-01\nSKU,Description,Qty,Unit Price (USD),Ext. Price\n" +
		"A1,64GB DDR5-5600 RDIMM,8,455.00,\"3,640.00\"\n" +
		"A2,128GB DDR5-5600 RDIMM,4,\"1,150.00\",\"4,000.00\"\n"
	read := func() *Workbook {
		wb, err := ReadCSV("q.csv", []byte(quote))
		if err != nil {
			t.Fatal(err)
		}
		return wb
	}
	_, err := Import(read(), Options{})
	inputErr(t, err, "q.csv:4:", "row 4: qty 4 x unit price 1150.00 = 4600.00, but the line total is 4000.00 (1000.00 each)", "--price-from total")
	if strings.Contains(err.Error(), "row 3") {
		t.Errorf("row 3 agrees with its total but is named: %v", err)
	}
	for from, want := range map[string]float64{"total": 1000, "unit": 1150} {
		res := mustImport(t, read(), Options{PriceFrom: from})
		if p := res.Catalog.DIMMs[1].Price.Amount; p != want {
			t.Errorf("--price-from %s: 128 GB DIMM at %g, want %g", from, p, want)
		}
		if !strings.Contains(string(res.YAML), "--price-from "+from) {
			t.Errorf("--price-from %s: the catalog does not say which figure it took:\n%s", from, res.YAML)
		}
	}
	if err := (Options{PriceFrom: "net"}).Check(); err == nil || !strings.Contains(err.Error(), `--price-from "net"`) {
		t.Errorf("--price-from net: %v", err)
	}
}

func TestImportFormulaWithoutValue(t *testing.T) {
	wb, err := ReadXLSX("angebot.xlsx", bytes.NewReader(mergedPriceXLSX(t, true)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(wb, Options{})
	inputErr(t, err, "angebot.xlsx:7:", "row 7 (D7: =E7/C7)", "formulas with no saved value", "LibreOffice")
	if res == nil || !strings.Contains(rows(res.Skipped)[7], "holds a formula (=E7/C7) with no saved value") {
		t.Errorf("row 7 not reported as a formula: %+v", res)
	}
	if strings.Contains(err.Error(), "heading or a note") {
		t.Errorf("a formula called a heading: %v", err)
	}
}
