package quote

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"github.com/xuri/excelize/v2"
)

// vendorXLSX builds the kind of quote a US reseller sends: a cover sheet,
// a letterhead title merged across the table, a quote date, a two-row
// header with merged cells ("Price (USD)" over "Unit" and "Extended"),
// dollar amounts stored both as text with thousands separators and as
// numbers with a currency format, a section heading, a blank row, a CPU
// line, a drive that does not say its interface, and subtotal, tax,
// shipping and total lines.
func vendorXLSX(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetSheetName("Sheet1", "Cover"))
	must(f.SetCellStr("Cover", "A1", "Thank you for your interest in ACME Systems."))
	_, err := f.NewSheet("Quote")
	must(err)
	const s = "Quote"
	set := func(cell string, v any) { t.Helper(); must(f.SetCellValue(s, cell, v)) }
	merge := func(a, b string) { t.Helper(); must(f.MergeCell(s, a, b)) }

	set("A1", "ACME Systems — Quotation Q-2026-0142")
	merge("A1", "F1")
	set("A2", "Quote date")
	set("B2", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	set("A3", "Prepared for: EDA Farm Inc., attn. purchasing")

	set("A5", "Part #")
	merge("A5", "A6")
	set("B5", "Description")
	merge("B5", "B6")
	set("C5", "Qty")
	merge("C5", "C6")
	set("D5", "Price (USD)")
	merge("D5", "E5")
	set("D6", "Unit")
	set("E6", "Extended")
	set("F5", "Lead time")
	merge("F5", "F6")

	usd, err := f.NewStyle(&excelize.Style{CustomNumFmt: strPtr(`"$"#,##0.00`)})
	must(err)
	row := func(r int, sku, desc string, qty any, unit any, ext any) {
		t.Helper()
		n := strconv.Itoa(r)
		if sku != "" {
			set("A"+n, sku)
		}
		if desc != "" {
			set("B"+n, desc)
		}
		if qty != nil {
			set("C"+n, qty)
		}
		for col, v := range map[string]any{"D": unit, "E": ext} {
			if v == nil {
				continue
			}
			set(col+n, v)
			if _, isNum := v.(float64); isNum {
				must(f.SetCellStyle(s, col+n, col+n, usd))
			}
		}
	}
	row(7, "M321R8GA0BB0-CQK", "Samsung 64GB DDR5-5600 2Rx4 ECC RDIMM", 16, "$1,234.56", "$19,752.96")
	row(8, "HMCGY4MEBRB", "SK hynix 96GB DDR5 5600MT/s Registered ECC", 8, 1650.5, 13204.0)
	row(9, "MTC40F412", "Micron 128GB LRDIMM DDR5-4800 (1x128GB)", 4, "USD 2,980.00", "USD 11,920.00")
	// row 10 blank
	row(11, "Storage", "", nil, nil, nil)
	row(12, "MZXL57T6HALA", "Samsung PM1743 7.68TB NVMe PCIe Gen5 E3.S TLC 1 DWPD", 2, "$1,899.00", "$3,798.00")
	row(13, "KFL6XHUL800G", "KIOXIA FL6 800GB XL-FLASH NVMe U.3 60 DWPD", 2, 1450.0, 2900.0)
	row(14, "ST20000NM007D", "Seagate Exos X20 20TB 7.2K RPM SATA 6Gb/s 3.5in HDD", 4, "$429.00", "$1,716.00")
	row(15, "", "32GB (2x16GB) DDR4-3200 RDIMM kit", 10, "$310.00", "$3,100.00")
	row(16, "P-6430", "Intel Xeon Gold 6430 32C 2.1GHz", 2, "$2,150.00", "$4,300.00")
	row(17, "SSD-3T8", "3.84TB SSD", 1, "$399.00", "$399.00")
	set("C18", "Subtotal")
	set("E18", "$61,249.52")
	set("C19", "Sales Tax (8.25%)")
	set("E19", "$5,053.09")
	set("C20", "Shipping & Handling")
	set("E20", "$150.00")
	set("C21", "Total")
	set("E21", "$66,452.61")
	var buf bytes.Buffer
	must(f.Write(&buf))
	return buf.Bytes()
}

func strPtr(s string) *string { return &s }

// europeanCSV is a German distributor's export: semicolons, a title and a
// date above the header, 1.234,56 and 1 234,56 amounts with € before or
// after, an ambiguous "1.299 €" that the column's other cells settle as
// 1299, a blank line, and VAT and shipping lines.
const europeanCSV = `Angebot Nr. 4711 - Muster Distribution GmbH;;;;
Quote date: 2026-02-15;;;;
;;;;
P/N;Description;Quantity;Price (EUR);Amount
KSM32RD4/64HCR;Kingston 64GB DDR4-3200 ECC Registered 2Rx4;8;1.234,56 €;9.876,48 €
MTC40F2046S1RC56BR;Micron 64 GB DDR5 5600MT/s RDIMM;16;1 099,00 €;17 584,00 €
;;;;
MZQL27T6HBLA;Samsung PM9A3 7,68TB NVMe U.2 TLC 1 DWPD;2;€ 1.899,00;€ 3.798,00
MZ7L3960HCJR;Samsung PM893 960GB SATA SSD TLC 1,3 DWPD;4;1.299 €;5.196 €
SRV-1;2U server chassis, 24 bays;1;4.990,00 €;4.990,00 €
;;Zwischensumme / Subtotal;;39.440,48 €
;;VAT 19%;;7.493,69 €
;;Shipping;;25,00 €
`

func mustImport(t *testing.T, wb *Workbook, o Options) *Result {
	t.Helper()
	res, err := Import(wb, o)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	// The output must load like any hand-written catalog.
	c, err := prices.Parse("out.yaml", res.YAML)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, res.YAML)
	}
	if len(c.DIMMs) != len(res.Catalog.DIMMs) || len(c.Drives) != len(res.Catalog.Drives) {
		t.Fatalf("reparsed catalog differs")
	}
	return res
}

func rows(notes []RowNote) map[int]string {
	m := map[int]string{}
	for _, n := range notes {
		m[n.Row] = n.Reason
	}
	return m
}

func TestImportVendorXLSX(t *testing.T) {
	wb, err := ReadXLSX("quote.xlsx", bytes.NewReader(vendorXLSX(t)))
	if err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, wb, Options{Source: "ACME quote Q-2026-0142"})
	if res.Sheet != "Quote" || res.HeaderFirst != 5 || res.HeaderLast != 6 {
		t.Errorf("sheet %q header rows %d-%d, want Quote 5-6", res.Sheet, res.HeaderFirst, res.HeaderLast)
	}
	if got, want := res.Columns.String(), "sku=A,desc=B,qty=C,price=D,total=E"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	c := res.Catalog
	if c.Currency != "USD" || c.Date.String() != "2026-03-01" || c.Source != "ACME quote Q-2026-0142" || c.Name != "quote" {
		t.Errorf("catalog header: %s %s %q %q", c.Currency, c.Date, c.Source, c.Name)
	}
	type dimm struct {
		sku, gen, typ string
		gib           float64
		speed         int
		price         float64
	}
	wantD := []dimm{
		{"M321R8GA0BB0-CQK", "DDR5", "RDIMM", 64, 5600, 1234.56},
		{"HMCGY4MEBRB", "DDR5", "RDIMM", 96, 5600, 1650.5},
		{"MTC40F412", "DDR5", "LRDIMM", 128, 4800, 2980},
		{"DDR4-3200-RDIMM-16G", "DDR4", "RDIMM", 16, 3200, 155}, // kit of two at $310
	}
	if len(c.DIMMs) != len(wantD) {
		t.Fatalf("%d DIMMs, want %d:\n%s", len(c.DIMMs), len(wantD), res.YAML)
	}
	for i, w := range wantD {
		d := c.DIMMs[i]
		if d.SKU != w.sku || d.Generation != w.gen || d.Type != w.typ || d.Capacity.GiBf() != w.gib || d.Speed != w.speed || d.Price.Amount != w.price || d.Price.Currency != "USD" {
			t.Errorf("DIMM %d = %s %s %s %s %d %s, want %+v", i, d.SKU, d.Generation, d.Type, d.Capacity, d.Speed, d.Price, w)
		}
	}
	type drive struct {
		sku, class, nand string
		capacity         units.Bytes
		price, dwpd      float64
	}
	wantR := []drive{
		{"MZXL57T6HALA", "nvme-ssd", "TLC", 7.68e12, 1899, 1},
		{"KFL6XHUL800G", "nvme-ssd", "SLC", 800e9, 1450, 60},
		{"ST20000NM007D", "hdd", "", 20e12, 429, 0},
	}
	if len(c.Drives) != len(wantR) {
		t.Fatalf("%d drives, want %d:\n%s", len(c.Drives), len(wantR), res.YAML)
	}
	for i, w := range wantR {
		d := c.Drives[i]
		if d.SKU != w.sku || d.Class != w.class || d.NAND != w.nand || d.Capacity != w.capacity || d.Price.Amount != w.price || d.DWPD != w.dwpd {
			t.Errorf("drive %d = %s %s %s %s %s dwpd %g, want %+v", i, d.SKU, d.Class, d.NAND, d.Capacity.DecimalString(), d.Price, d.DWPD, w)
		}
		if d.ReadLatency <= 0 || d.ReadIOPS <= 0 || !strings.Contains(d.Source, "class default") {
			t.Errorf("drive %s: performance figures %s/%g, source %q; want class defaults, marked", d.SKU, d.ReadLatency, d.ReadIOPS, d.Source)
		}
	}
	un := rows(res.Unclassified)
	if len(un) != 2 || !strings.Contains(un[16], "CPU") || !strings.Contains(un[17], "--drive-class") {
		t.Errorf("unclassified rows: %v", un)
	}
	sk := rows(res.Skipped)
	for _, r := range []int{18, 19, 20, 21} {
		if !strings.Contains(sk[r], "total, tax, shipping") {
			t.Errorf("row %d: skipped as %q, want a total line", r, sk[r])
		}
	}
	if !strings.Contains(sk[11], "no price") {
		t.Errorf("row 11 (section heading): %q", sk[11])
	}
	if len(sk) != 5 || res.Blank != 1 {
		t.Errorf("skipped %v, blank %d", sk, res.Blank)
	}
	for _, want := range []string{"# row 7: \"Samsung 64GB DDR5-5600 2Rx4 ECC RDIMM\", qty 16", "a kit of 2", "# Rows not imported:", "row 17: \"3.84TB SSD\": not recognised"} {
		if !bytes.Contains(res.YAML, []byte(want)) {
			t.Errorf("YAML lacks %q:\n%s", want, res.YAML)
		}
	}
}

func TestImportEuropeanCSV(t *testing.T) {
	wb, err := ReadCSV("angebot.csv", []byte(europeanCSV))
	if err != nil {
		t.Fatal(err)
	}
	if wb.Sheets[0].Delimiter != ';' {
		t.Fatalf("delimiter %q, want ';'", wb.Sheets[0].Delimiter)
	}
	res := mustImport(t, wb, Options{Name: "muster"})
	c := res.Catalog
	if c.Currency != "EUR" || c.Date.String() != "2026-02-15" || c.Name != "muster" || c.Source != "angebot.csv" {
		t.Errorf("catalog header: %s %s %q %q", c.Currency, c.Date, c.Name, c.Source)
	}
	if res.HeaderFirst != 4 {
		t.Errorf("header row %d, want 4", res.HeaderFirst)
	}
	wantD := map[string][4]any{
		"KSM32RD4/64HCR":     {"DDR4", "RDIMM", 3200, 1234.56},
		"MTC40F2046S1RC56BR": {"DDR5", "RDIMM", 5600, 1099.0},
	}
	if len(c.DIMMs) != 2 {
		t.Fatalf("%d DIMMs:\n%s", len(c.DIMMs), res.YAML)
	}
	for _, d := range c.DIMMs {
		w := wantD[d.SKU]
		if d.Generation != w[0] || d.Type != w[1] || d.Speed != w[2] || d.Price.Amount != w[3] || d.Capacity != 64*units.GiB {
			t.Errorf("DIMM %s = %s %s %d %s %s, want %v", d.SKU, d.Generation, d.Type, d.Speed, d.Price, d.Capacity, w)
		}
	}
	if len(c.Drives) != 1 {
		t.Fatalf("%d drives:\n%s", len(c.Drives), res.YAML)
	}
	d := c.Drives[0]
	if d.SKU != "MZQL27T6HBLA" || d.Class != "nvme-ssd" || d.NAND != "TLC" || d.Capacity != 7.68e12 || d.Price.Amount != 1899 || d.DWPD != 1 {
		t.Errorf("drive = %s %s %s %s %s", d.SKU, d.Class, d.NAND, d.Capacity.DecimalString(), d.Price)
	}
	un := rows(res.Unclassified)
	// The SATA TLC drive has no class default in the embedded catalogs.
	if !strings.Contains(un[9], "sata-ssd-tlc") || !strings.Contains(un[9], "--drive-read-latency") {
		t.Errorf("row 9: %q", un[9])
	}
	// The chassis names no DDR generation and the quote's DIMMs are DDR4
	// and DDR5: there is no telling which it takes.
	if !strings.Contains(un[10], "names no DDR generation") || !strings.Contains(un[10], "--dimm-generation") {
		t.Errorf("row 10: %q", un[10])
	}
	sk := rows(res.Skipped)
	if len(sk) != 3 || sk[11] == "" || sk[12] == "" || sk[13] == "" {
		t.Errorf("skipped: %v", sk)
	}

	// With the figures the embedded catalogs lack, the SATA drive imports,
	// and "1.299 €" is read as 1299 because the column writes decimals
	// with a comma.
	res = mustImport(t, wb, Options{Fill: Fill{ReadLatency: units.Duration(90 * time.Microsecond), WriteLatency: units.Duration(30 * time.Microsecond), ReadIOPS: 98000, WriteIOPS: 30000}})
	var sata *prices.Drive
	for i := range res.Catalog.Drives {
		if res.Catalog.Drives[i].SKU == "MZ7L3960HCJR" {
			sata = &res.Catalog.Drives[i]
		}
	}
	if sata == nil {
		t.Fatalf("SATA drive not imported:\n%s", res.YAML)
	}
	if sata.Class != "sata-ssd" || sata.NAND != "TLC" || sata.Capacity != 960e9 || sata.Price.Amount != 1299 || sata.DWPD != 1.3 || sata.ReadIOPS != 98000 {
		t.Errorf("SATA drive = %+v", *sata)
	}
	if !strings.Contains(sata.Source, "--drive-* flags") {
		t.Errorf("source %q does not say the figures came from flags", sata.Source)
	}
}

func TestImportMap(t *testing.T) {
	// No header at all: the columns come from --map.
	csv := "M1,Samsung 64GB DDR5-4800 RDIMM,4,$450.00\nM2,Samsung 32GB DDR5-4800 RDIMM,4,$260.00\n"
	wb, err := ReadCSV("bare.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMap("sku=A,desc=2,qty=C,price=D")
	if err != nil {
		t.Fatal(err)
	}
	date, _ := units.ParseDate("2026-03-01")
	res := mustImport(t, wb, Options{Map: m, Date: date})
	if len(res.Catalog.DIMMs) != 2 || res.Catalog.DIMMs[1].Price.Amount != 260 || res.HeaderFirst != 0 {
		t.Errorf("got %+v", res.Catalog.DIMMs)
	}

	// A header whose price label is not recognised: --map names the price
	// column, the other columns are still found.
	wb, err = ReadCSV("preis.csv", []byte("Quote date: 2026-03-01\nPart,Description,Qty,Preis\nA1,64GB DDR5-4800 RDIMM,2,$400\n"))
	if err != nil {
		t.Fatal(err)
	}
	res = mustImport(t, wb, Options{Map: Columns{Price: 4}})
	if res.HeaderFirst != 2 || res.Columns.String() != "sku=A,desc=B,qty=C,price=D" || len(res.Parts) != 1 || res.Parts[0].Qty != 2 {
		t.Errorf("header %d, columns %s, parts %+v", res.HeaderFirst, res.Columns, res.Parts)
	}
}

func inputErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestImportBadInput(t *testing.T) {
	date, _ := units.ParseDate("2026-03-01")
	read := func(s string) *Workbook {
		t.Helper()
		wb, err := ReadCSV("q.csv", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return wb
	}
	t.Run("no price column", func(t *testing.T) {
		_, err := Import(read("Part;Description;Qty\nA1;64GB DDR5 RDIMM;2\n"), Options{Date: date})
		inputErr(t, err, "q.csv:1:", "no unit price column", "--map")
		if !errors.Is(err, yamlx.ErrInput) {
			t.Errorf("not an input error: %v", err)
		}
	})
	t.Run("map outside the sheet", func(t *testing.T) {
		m, _ := ParseMap("desc=B,price=Z")
		_, err := Import(read("Part;Description;Price\nA1;64GB DDR5 RDIMM;$5\n"), Options{Map: m, Date: date})
		inputErr(t, err, "--map price=Z", "the file has columns A to C only")
	})
	t.Run("map syntax", func(t *testing.T) {
		_, err := ParseMap("price")
		inputErr(t, err, "key=column")
		_, err = ParseMap("cost=F")
		inputErr(t, err, `unknown key "cost"`)
		_, err = ParseMap("price=0")
		inputErr(t, err, "start at 1")
	})
	t.Run("mixed currencies", func(t *testing.T) {
		_, err := Import(read("SKU,Description,Price\nA,64GB DDR5-4800 RDIMM,$450\nB,32GB DDR5-4800 RDIMM,€250\nC,16GB DDR5-4800 RDIMM,$150\n"), Options{Date: date})
		inputErr(t, err, "mixed currencies", "row 3 in EUR", "rows 2, 4 in USD")
	})
	t.Run("currency contradicts flag", func(t *testing.T) {
		_, err := Import(read("SKU,Description,Price\nA,64GB DDR5-4800 RDIMM,€450\n"), Options{Date: date, Currency: "USD"})
		inputErr(t, err, "--currency is USD but row 2 in EUR")
	})
	t.Run("no currency", func(t *testing.T) {
		_, err := Import(read("SKU,Description,Price\nA,64GB DDR5-4800 RDIMM,450\n"), Options{Date: date})
		inputErr(t, err, "no currency", "--currency")
		res, err := Import(read("SKU,Description,Price\nA,64GB DDR5-4800 RDIMM,450\n"), Options{Date: date, Currency: "USD"})
		if err != nil || res.Catalog.DIMMs[0].Price.Currency != "USD" {
			t.Errorf("with --currency: %v", err)
		}
	})
	t.Run("yen", func(t *testing.T) {
		q := "SKU,Description,Price\nA,64GB DDR5-4800 RDIMM,\"¥98,000\"\n"
		_, err := Import(read(q), Options{Date: date})
		inputErr(t, err, "JPY or CNY", "--currency")
		res, err := Import(read(q), Options{Date: date, Currency: "JPY"})
		if err != nil || res.Catalog.DIMMs[0].Price.Amount != 98000 || res.Catalog.Currency != "JPY" {
			t.Errorf("with --currency JPY: %v", err)
		}
	})
	t.Run("no date", func(t *testing.T) {
		_, err := Import(read("SKU,Description,Price\nA,64GB DDR5-4800 RDIMM,$450\n"), Options{})
		inputErr(t, err, "--date")
	})
	t.Run("nothing recognised", func(t *testing.T) {
		res, err := Import(read("SKU,Description,Price\nA,Intel Xeon Gold 6430,$2150\nB,Rail kit,$40\n"), Options{Date: date})
		if !errors.Is(err, ErrNoParts) || res == nil || len(res.Unclassified) != 2 {
			t.Fatalf("err %v, result %+v", err, res)
		}
	})
	t.Run("no header", func(t *testing.T) {
		_, err := Import(read("a,b,c\n1,2,3\n"), Options{Date: date})
		inputErr(t, err, "no header row", "--map")
	})
	t.Run("unknown sheet", func(t *testing.T) {
		wb, err := ReadXLSX("quote.xlsx", bytes.NewReader(vendorXLSX(t)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Import(wb, Options{Sheet: "Prices"})
		inputErr(t, err, `no sheet "Prices"`, `"Cover", "Quote"`)
	})
	t.Run("bad fill", func(t *testing.T) {
		err := Options{Fill: Fill{DIMMType: "SODIMM"}}.Check()
		inputErr(t, err, "--dimm-type", "RDIMM")
	})
}

func TestImportDuplicatesAndFill(t *testing.T) {
	date, _ := units.ParseDate("2026-03-01")
	csv := "SKU,Description,Qty,Unit Price\n" +
		"A,64GB DDR5-5600 memory module,2,$700.00\n" + // no type: needs --dimm-type
		"A,64GB DDR5-5600 memory module,2,$690.00\n" + // same part number again
		",3.84TB SSD TLC 1 DWPD,1,$480.00\n" + // no interface: needs --drive-class
		",Extended warranty 3 years,1,$99.00\n" +
		",Included: rails,1,$0.00\n" +
		",Discount,,-$50.00\n"
	wb, err := ReadCSV("q.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(wb, Options{Date: date})
	if !errors.Is(err, ErrNoParts) {
		t.Fatalf("err = %v", err)
	}
	un := rows(res.Unclassified)
	if !strings.Contains(un[2], "--dimm-type") || !strings.Contains(un[4], "--drive-class") || !strings.Contains(un[5], "service or warranty") {
		t.Errorf("unclassified: %v", un)
	}
	res = mustImport(t, wb, Options{Date: date, Fill: Fill{DIMMType: "RDIMM", DriveClass: "nvme-ssd"}})
	c := res.Catalog
	if len(c.DIMMs) != 1 || c.DIMMs[0].Type != "RDIMM" || c.DIMMs[0].Price.Amount != 700 {
		t.Errorf("DIMMs: %+v", c.DIMMs)
	}
	if len(c.Drives) != 1 || c.Drives[0].SKU != "NVME-SSD-TLC-3.84TB" || c.Drives[0].Class != "nvme-ssd" {
		t.Errorf("drives: %+v", c.Drives)
	}
	sk := rows(res.Skipped)
	if !strings.Contains(sk[3], "listed again (first at row 2") || !strings.Contains(sk[6], "zero price") || !strings.Contains(sk[7], "total, tax, shipping or discount") {
		t.Errorf("skipped: %v", sk)
	}
}

// FuzzImportCSV checks that no quote makes the importer panic, and that
// whatever it accepts loads as a catalog.
func FuzzImportCSV(f *testing.F) {
	f.Add([]byte(europeanCSV))
	f.Add([]byte("SKU,Description,Qty,Unit Price\nA,64GB DDR5-5600 RDIMM,2,$700.00\n,Subtotal,,$700\n"))
	f.Add([]byte("P/N;Description;Price (EUR)\nX;3,84TB NVMe TLC;1.234,-\n"))
	date, _ := units.ParseDate("2026-03-01")
	f.Fuzz(func(t *testing.T, data []byte) {
		wb, err := ReadCSV("fuzz.csv", data)
		if err != nil {
			return
		}
		res, err := Import(wb, Options{Date: date, Fill: Fill{DIMMType: "RDIMM", DriveClass: "nvme-ssd", NAND: "TLC"}})
		if err != nil {
			return
		}
		if _, err := prices.Parse("fuzz.yaml", res.YAML); err != nil {
			t.Fatalf("accepted output does not parse: %v\n%s", err, res.YAML)
		}
	})
}

func TestImportTotalOnly(t *testing.T) {
	// No unit price column: the line total is divided by the quantity.
	wb, err := ReadCSV("q.csv", []byte("Part No.,Item Description,Quantity,Line Total\nA,64GB DDR5-4800 RDIMM,4,\"$1,800.00\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	date, _ := units.ParseDate("2026-03-01")
	res := mustImport(t, wb, Options{Date: date})
	if d := res.Catalog.DIMMs[0]; d.Price.Amount != 450 || !strings.Contains(string(res.YAML), "unit price = line total / quantity") {
		t.Errorf("price %s:\n%s", d.Price, res.YAML)
	}
}

// TestImportDefaulted: each imported drive lists the fields taken from
// the class defaults (what `memplan prices import` counts), and none of
// those a flag gave.
func TestImportDefaulted(t *testing.T) {
	wb, err := ReadXLSX("quote.xlsx", bytes.NewReader(vendorXLSX(t)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		// The TLC and SLC drives state their DWPD; the HDD has none to state.
		"MZXL57T6HALA":  "read_latency write_latency read_iops write_iops",
		"KFL6XHUL800G":  "read_latency write_latency read_iops write_iops",
		"ST20000NM007D": "read_latency write_latency read_iops write_iops",
	}
	res := mustImport(t, wb, Options{Source: "ACME"})
	for _, p := range res.Parts {
		switch p.Kind {
		case KindDrive:
			if got := strings.Join(p.Defaulted, " "); got != want[p.SKU] {
				t.Errorf("drive %s: defaulted %q, want %q", p.SKU, got, want[p.SKU])
			}
		default:
			if len(p.Defaulted) > 0 {
				t.Errorf("%s %s: defaulted %q", p.Kind, p.SKU, p.Defaulted)
			}
		}
	}
	res = mustImport(t, wb, Options{Source: "ACME", Fill: Fill{ReadLatency: units.Duration(80 * time.Microsecond), ReadIOPS: 900000}})
	for _, p := range res.Parts {
		if p.Kind == KindDrive {
			if got := strings.Join(p.Defaulted, " "); got != "write_latency write_iops" {
				t.Errorf("drive %s with read figures given: defaulted %q, want write_latency write_iops", p.SKU, got)
			}
		}
	}
}
