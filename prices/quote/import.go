package quote

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"github.com/xuri/excelize/v2"
)

// Options say how to read a quote and what to fill in that its lines
// cannot tell.
type Options struct {
	Sheet    string     // worksheet to read (xlsx); default: the first with a recognisable header
	Map      Columns    // columns given by --map; they override detected ones
	Currency string     // ISO code for prices that carry none
	Date     units.Date // when the prices were quoted; default: a "Date" cell in the quote
	Source   string     // where the prices come from; default: the file name
	Name     string     // catalog name; default: the file name without extension
	OutName  string     // name the written catalog will have, for validation messages
	// PriceFrom settles a row whose quantity x unit price is not its line
	// total: "unit" or "total" takes that column's figure; "" refuses the
	// import, naming the rows.
	PriceFrom string
	Fill      Fill
}

// Fill supplies what quote lines cannot tell; zero fields fill nothing.
// DIMM and drive kinds fill only lines that do not state them; the
// performance figures replace the class defaults for every drive.
type Fill struct {
	DIMMGeneration string // DDR4, DDR5; also for server lines that do not say
	DIMMType       string // RDIMM, LRDIMM, UDIMM, MRDIMM
	DriveClass     string // nvme-ssd, sata-ssd, hdd
	NAND           string // SLC, MLC, TLC, QLC
	ReadLatency    units.Duration
	WriteLatency   units.Duration
	ReadIOPS       float64
	WriteIOPS      float64
	DWPD           float64
}

// Result is what an import found. Row numbers are the sheet's (1-based).
type Result struct {
	File         string
	Sheet        string // "" for CSV
	HeaderFirst  int    // header rows; 0 when there is no header (--map without one)
	HeaderLast   int
	Columns      Columns
	Delimiter    rune   // CSV only
	Encoding     string // CSV only: the text encoding when not UTF-8
	Currency     string
	CurrencyFrom string // "--currency", "price cells", `header "Price (USD)"`
	Date         units.Date
	DateFrom     string
	Parts        []Part
	Skipped      []RowNote // totals, tax, shipping, notes, zero prices, duplicates
	Unclassified []RowNote // priced lines that are not a DIMM, drive or server memplan can describe
	Warnings     []RowNote // imported rows the reviewer should look at
	// FillByHand lists, per imported platform, the fields its catalog
	// entry holds placeholders for: a quote line never states them.
	FillByHand []RowNote
	Blank      int // blank rows inside the table
	Catalog    *prices.Catalog
	YAML       []byte // the catalog as written, with comments; it passed prices.Parse
}

// Part is one imported catalog entry and where it came from.
type Part struct {
	Row   int
	Kind  Kind
	SKU   string
	Text  string   // the description as quoted
	Qty   float64  // 0 when the quote gives none
	Notes []string // what was assumed or filled in
	// Defaulted names the catalog fields (read_latency, dwpd, ...) filled
	// from the class defaults rather than taken from the quote or a flag;
	// for a platform, the fields copied from a template platform.
	Defaulted []string
}

// RowNote is a row that was not imported, and why.
type RowNote struct {
	Row    int
	Text   string
	Reason string
}

// ErrNoParts is returned (wrapped, with the Result) when not one line of the
// quote became a catalog entry.
var ErrNoParts = errors.New("no DIMM, drive or server was imported")

// mapHint is the suggestion every column-finding error ends with.
const mapHint = `tell memplan which columns hold what with --map "sku=B,desc=C,qty=D,price=F", in letters or 1-based numbers`

// Import reads a quote and builds a catalog from it. On ErrNoParts the
// Result is returned too, so the caller can show what was skipped and why.
func Import(wb *Workbook, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	t, h, err := pickSheet(wb, o)
	if err != nil {
		return nil, err
	}
	res := &Result{File: wb.File, Sheet: t.Sheet, Delimiter: t.Delimiter, Encoding: t.Encoding, HeaderFirst: h.first, HeaderLast: h.last}
	cols := h.cols
	for _, rc := range o.Map.list() {
		if rc.col > 0 {
			*cols.ptr(rc.key) = rc.col
		}
	}
	sheet, grid := "", "the file"
	if t.Sheet != "" {
		sheet, grid = fmt.Sprintf("sheet %q: ", t.Sheet), "the sheet"
	}
	width := t.Width()
	for _, rc := range o.Map.list() {
		if rc.col > width {
			return nil, &yamlx.InputError{File: wb.File, Msg: fmt.Sprintf("%s--map %s=%s: %s has columns A to %s only", sheet, rc.key, ColumnName(rc.col), grid, ColumnName(width)), Hint: "check the column letters against the spreadsheet"}
		}
	}
	if cols.Price == 0 && (cols.Total == 0 || cols.Qty == 0) {
		return nil, &yamlx.InputError{File: wb.File, Msg: sheet + "no unit price column found", Hint: mapHint}
	}
	if cols.Desc == 0 && cols.SKU == 0 {
		return nil, &yamlx.InputError{File: wb.File, Msg: sheet + "no description or part number column found", Hint: mapHint}
	}
	res.Columns = cols
	start := h.last + 1
	if h.last == 0 {
		start = firstPricedRow(t, cols)
	}
	def := styleDotDecimal
	if t.Delimiter == ';' {
		def = styleCommaDecimal
	}
	priceCol := cols.Price
	if priceCol == 0 {
		priceCol = cols.Total
	}
	style := columnStyle(column(t, priceCol, start), def)
	qtyStyle := columnStyle(column(t, cols.Qty, start), style)

	defaults, err := ClassDefaults()
	if err != nil {
		return nil, err
	}
	im := importer{t: t, cols: cols, o: o, defaults: defaults, style: style, qtyStyle: qtyStyle, res: res, skus: map[string]int{}}
	for r := start; r <= len(t.Text); r++ {
		im.row(r)
	}
	im.resolvePlatforms()
	im.checkDIMMs()
	if len(im.dimms)+len(im.drives)+len(im.platforms) == 0 {
		from := wb.File
		if t.Sheet != "" {
			from += fmt.Sprintf(", sheet %q", t.Sheet)
		}
		return res, fmt.Errorf("%w from %s: %d rows skipped, %d not recognised; fill what the rows cannot tell with flags (see memplan prices import --help) or check the columns (%s)",
			ErrNoParts, from, len(res.Skipped), len(res.Unclassified), cols)
	}
	if err := im.refuse(sheet); err != nil {
		return res, err
	}
	if err := im.resolveCurrency(); err != nil {
		return res, err
	}
	res.Date, res.DateFrom = o.Date, "--date"
	if o.Date.IsZero() {
		d, from, ok := findDate(t, start)
		if !ok {
			return res, &yamlx.InputError{File: wb.File, Msg: "no quote date given or found", Hint: "add --date 2026-03-01 (when the prices were quoted; prices go stale)"}
		}
		res.Date, res.DateFrom = d, from
	}
	cat := &prices.Catalog{
		Name:      o.Name,
		Currency:  res.Currency,
		Date:      res.Date,
		Source:    o.Source,
		DIMMs:     im.dimms,
		Drives:    im.drives,
		Platforms: im.platforms,
	}
	base := filepath.Base(wb.File)
	if cat.Name == "" {
		cat.Name = nameFromFile(base)
	}
	if cat.Source == "" {
		cat.Source = base
		if t.Sheet != "" {
			cat.Source += ", sheet " + t.Sheet
		}
	}
	for i := range cat.DIMMs {
		cat.DIMMs[i].Price.Currency = res.Currency
	}
	for i := range cat.Drives {
		cat.Drives[i].Price.Currency = res.Currency
	}
	for i := range cat.Platforms {
		cat.Platforms[i].Price.Currency = res.Currency
	}
	sort.SliceStable(res.Warnings, func(i, j int) bool { return res.Warnings[i].Row < res.Warnings[j].Row })
	data, err := render(res, cat)
	if err != nil {
		return res, err
	}
	out := o.OutName
	if out == "" {
		out = "imported catalog"
	}
	parsed, err := prices.Parse(out, data)
	if err != nil {
		return res, fmt.Errorf("the catalog built from %s does not validate, which is a bug in memplan: %w", wb.File, err)
	}
	res.Catalog, res.YAML = parsed, data
	return res, nil
}

// Check validates the options that come from flags. Its errors are bad
// input (usage.ErrInput).
func (o Options) Check() (err error) {
	defer func() { err = usage.Wrap(err) }()
	bad := func(flag, v string, set []string) error {
		for _, s := range set {
			if v == s {
				return nil
			}
		}
		return fmt.Errorf("--%s %q: expected one of %s", flag, v, strings.Join(set, ", "))
	}
	if o.Currency != "" && !units.IsCurrencyCode(o.Currency) {
		return fmt.Errorf("--currency %q: expected a three-letter ISO code such as USD, EUR or RUB", o.Currency)
	}
	f := o.Fill
	if f.DIMMGeneration != "" {
		if err := bad("dimm-generation", f.DIMMGeneration, []string{"DDR3", "DDR4", "DDR5"}); err != nil {
			return err
		}
	}
	if f.DIMMType != "" {
		if err := bad("dimm-type", f.DIMMType, []string{"RDIMM", "LRDIMM", "UDIMM", "MRDIMM"}); err != nil {
			return err
		}
	}
	if f.DriveClass != "" {
		if err := bad("drive-class", f.DriveClass, []string{prices.ClassNVMe, prices.ClassSATASSD, prices.ClassHDD}); err != nil {
			return err
		}
	}
	if f.NAND != "" {
		if err := bad("nand", f.NAND, []string{"SLC", "MLC", "TLC", "QLC"}); err != nil {
			return err
		}
	}
	switch o.PriceFrom {
	case "", "unit", "total":
	default:
		return fmt.Errorf("--price-from %q: expected unit (the unit price column) or total (the line total / quantity)", o.PriceFrom)
	}
	if f.ReadLatency < 0 || f.WriteLatency < 0 || f.ReadIOPS < 0 || f.WriteIOPS < 0 || f.DWPD < 0 {
		return fmt.Errorf("--drive-* figures cannot be negative")
	}
	return nil
}

// pickSheet chooses the worksheet and finds its header.
func pickSheet(wb *Workbook, o Options) (*Table, header, error) {
	names := make([]string, 0, len(wb.Sheets))
	for _, t := range wb.Sheets {
		names = append(names, fmt.Sprintf("%q", t.Sheet))
	}
	var cands []*Table
	if o.Sheet != "" {
		for _, t := range wb.Sheets {
			if t.Sheet == o.Sheet {
				cands = []*Table{t}
			}
		}
		if cands == nil {
			for _, t := range wb.Sheets {
				if strings.EqualFold(t.Sheet, o.Sheet) {
					cands = []*Table{t}
				}
			}
		}
		if cands == nil {
			return nil, header{}, &yamlx.InputError{File: wb.File, Msg: fmt.Sprintf("no sheet %q", o.Sheet), Hint: "the sheets are " + strings.Join(names, ", ")}
		}
	} else {
		cands = wb.Sheets
	}
	for _, t := range cands {
		if h, ok := detectHeader(t); ok {
			return t, h, nil
		}
	}
	if o.Map.Price > 0 || o.Map.Total > 0 {
		// The price header was not recognised, but the others may be.
		// A row of labels below the first amount would be data, not header.
		h, _ := partialHeader(cands[0])
		if h.first >= firstPricedRow(cands[0], o.Map) {
			h = header{}
		}
		return cands[0], h, nil
	}
	// Say what was found, so the person can tell a missing price column
	// from a layout memplan does not understand.
	t := cands[0]
	where := ""
	switch {
	case len(cands) > 1:
		where = "sheets " + strings.Join(quoted(cands), ", ") + ": "
	case t.Sheet != "":
		where = fmt.Sprintf("sheet %q: ", t.Sheet)
	}
	if h, labels := partialHeader(t); h.first > 0 {
		return nil, header{}, &yamlx.InputError{File: wb.File, Line: h.first, Msg: fmt.Sprintf("%sthe header names %s but no unit price column", where, labels), Hint: mapHint}
	}
	return nil, header{}, &yamlx.InputError{File: wb.File, Msg: fmt.Sprintf("%sno header row naming a unit price and a description or part number in the first %d rows", where, headerScanRows), Hint: mapHint}
}

func quoted(ts []*Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, strconv.Quote(t.Sheet))
	}
	return out
}

// partialHeader finds a row that labels columns but has no price: with
// --map naming the price column it is the header, otherwise it makes the
// error message say what was found.
func partialHeader(t *Table) (header, string) {
	for r := 1; r <= len(t.Text) && r <= headerScanRows; r++ {
		var found []string
		h := header{first: r, last: r}
		for c := 1; c <= min(len(t.Text[r-1]), headerMaxCols); c++ {
			rl, _ := matchRole(t.cell(r, c))
			var p *int
			switch rl {
			case roleSKU:
				p, found = &h.cols.SKU, append(found, "a part number ("+ColumnName(c)+")")
			case roleDesc:
				p, found = &h.cols.Desc, append(found, "a description ("+ColumnName(c)+")")
			case roleQty:
				p, found = &h.cols.Qty, append(found, "a quantity ("+ColumnName(c)+")")
			}
			if p != nil && *p == 0 {
				*p = c
			}
		}
		if len(found) >= 2 {
			return h, strings.Join(found, ", ")
		}
	}
	return header{}, ""
}

// firstPricedRow is where a table without a recognisable header starts:
// the first row whose price cell holds an amount.
func firstPricedRow(t *Table, cols Columns) int {
	c := cols.Price
	if c == 0 {
		c = cols.Total
	}
	for r := 1; r <= len(t.Text); r++ {
		if v, _, err := parseMoney(t.cell(r, c), styleUnknown); err == nil && v > 0 {
			return r
		}
	}
	return len(t.Text) + 1
}

func column(t *Table, col, start int) []string {
	if col == 0 {
		return nil
	}
	var out []string
	for r := start; r <= len(t.Text); r++ {
		if v := t.cell(r, col); v != "" {
			out = append(out, v)
		}
	}
	return out
}

type importer struct {
	t               *Table
	cols            Columns
	o               Options
	defaults        map[string]ClassDefault
	style, qtyStyle numberStyle
	res             *Result
	dimms           []prices.DIMM
	drives          []prices.Drive
	skus            map[string]int // SKU -> row
	priced          []pricedRow
	platforms       []prices.Platform
	pending         []pendingPlatform
	cpus            []cpuRow
	mismatches      []string // rows whose qty x unit price is not their total
	mismatchRows    []int
	formulaParts    []string // part rows whose price is a formula without a value
	formulaRows     []int
}

// cpuRow is a CPU line: its price belongs in the platform's.
type cpuRow struct {
	row       int
	label     string
	unit, qty float64
}

type pendingPlatform struct {
	rec   Recognised
	part  Part
	sku   string
	desc  string
	price units.Money
}

type pricedRow struct {
	row      int
	cell     string // the currency as written in the row ("" if none)
	text     string
	imported bool
}

var reSummary = lazy(`\b(sub ?total|total|totals|grand total|net total|order total|sum|tax|taxes|vat|gst|hst|pst|sales tax|estimated tax|shipping|freight|delivery|handling|s h|discount|rebate|rounding|insurance|surcharge|fee|fees|customs|duty|duties|environmental fee|eco fee)\b`)

func (im *importer) skip(r int, text, reason string) {
	im.res.Skipped = append(im.res.Skipped, RowNote{Row: r, Text: text, Reason: reason})
}

func (im *importer) unclassified(r int, text, reason string) {
	im.res.Unclassified = append(im.res.Unclassified, RowNote{Row: r, Text: text, Reason: reason})
}

func (im *importer) row(r int) {
	t, c := im.t, im.cols
	if blankRow(t, r) {
		im.res.Blank++
		return
	}
	sku, desc := t.cell(r, c.SKU), clean(t.cell(r, c.Desc))
	label := desc
	if label == "" {
		label = sku
	}
	if label == "" {
		for _, v := range t.Text[r-1] {
			if v = strings.TrimSpace(v); v != "" {
				label = clean(v)
				break
			}
		}
	}
	// A header repeated at a page break.
	if pr, _ := matchRole(t.cell(r, c.Price)); (pr == rolePrice || pr == roleTotal) && c.Price > 0 {
		if dr, _ := matchRole(t.cell(r, c.Desc)); dr == roleDesc || c.Desc == 0 {
			im.skip(r, label, "a repeated header row")
			return
		}
	}
	// A total line has no part number of its own and names a total, tax,
	// shipping or discount somewhere (often in the quantity column, next
	// to the amount); a line that describes a DIMM or drive is never one.
	if sku == "" || reSummary.MatchString(normalizeLabel(sku)) {
		for _, v := range t.Text[r-1] {
			if n := normalizeLabel(v); n != "" && reSummary.MatchString(n) && Recognise(desc).Kind == KindUnknown {
				im.skip(r, clean(v), "a total, tax, shipping or discount line")
				return
			}
		}
	}
	amount, cur, perr := im.price(r)
	switch {
	case errors.Is(perr, errNoPrice):
		if cell, fx, ok := im.unsavedFormula(r); ok {
			why := fmt.Sprintf("the price cell %s holds a formula (=%s) with no saved value: the program that wrote the file did not calculate it; open the file in Excel or LibreOffice and save it, or type the value in", cell, fx)
			text := desc
			if text == "" {
				text = sku
			}
			if Recognise(text).Kind != KindUnknown {
				im.formulaParts = append(im.formulaParts, fmt.Sprintf("row %d (%s: =%s)", r, cell, fx))
				im.formulaRows = append(im.formulaRows, r)
			}
			im.skip(r, label, why)
			return
		}
		im.skip(r, label, "no price (a heading or a note)")
		return
	case errors.Is(perr, errTwoCurrencies):
		im.unclassified(r, label, fmt.Sprintf("price %q names two currencies", im.priceText(r)))
		return
	case perr != nil:
		im.skip(r, label, fmt.Sprintf("price %q is not an amount", im.priceText(r)))
		return
	case amount == 0:
		im.skip(r, label, "zero price (an included or free item)")
		return
	case amount < 0:
		im.skip(r, label, "negative price (a discount or credit)")
		return
	}
	if desc == "" && sku == "" {
		im.skip(r, label, "a price without description or part number")
		return
	}
	if c.Currency > 0 {
		cc, _, err := splitCurrency(t.cell(r, c.Currency), false)
		switch {
		case err != nil || cc != "" && cur != "" && cc != cur:
			im.unclassified(r, label, fmt.Sprintf("currency column says %q, price cell %q", t.cell(r, c.Currency), im.priceText(r)))
			return
		case cc != "":
			cur = cc
		}
	}
	pr := pricedRow{row: r, cell: cur, text: label}
	defer func() { im.priced = append(im.priced, pr) }()
	var qty float64
	if c.Qty > 0 {
		qty, _ = parseQuantity(t.cell(r, c.Qty), im.qtyStyle)
	}
	text := desc
	if text == "" {
		text = sku
	}
	rec := Recognise(text)
	if rec.Kind == KindUnknown {
		if rec.CPU {
			im.cpus = append(im.cpus, cpuRow{row: r, label: label, unit: amount, qty: qty})
		}
		im.unclassified(r, label, rec.Reason)
		return
	}
	if prev, ok := im.skus[sku]; ok && sku != "" {
		im.skip(r, label, fmt.Sprintf("part number %s is listed again (first at row %d, which is imported)", sku, prev))
		return
	}
	part := Part{Row: r, Kind: rec.Kind, Text: text, Qty: qty}
	if note := im.checkTotal(r, label, &amount, qty); note != "" {
		part.Notes = append(part.Notes, note)
	}
	price := units.Money{Amount: round(amount, 4)}
	if rec.KitOf > 1 {
		price.Amount = round(amount/float64(rec.KitOf), 4)
		part.Notes = append(part.Notes, fmt.Sprintf("a kit of %d: the quoted %s is divided by %d", rec.KitOf, strconv.FormatFloat(amount, 'f', 2, 64), rec.KitOf))
	}
	if c.Price == 0 {
		part.Notes = append(part.Notes, "unit price = line total / quantity (the quote has no unit price column)")
	}
	part.Notes = append(part.Notes, rec.Notes...)
	var reason string
	switch rec.Kind {
	case KindDIMM:
		reason = im.dimm(rec, &part, sku, desc, price)
	case KindDrive:
		reason = im.drive(rec, &part, sku, desc, price)
	case KindPlatform:
		// Settled after every row is read: the quote's DIMMs tell the
		// generation a server line leaves out.
		if sku != "" {
			im.skus[sku] = r
		}
		pr.imported = true
		im.pending = append(im.pending, pendingPlatform{rec, part, sku, desc, price})
		return
	}
	if reason != "" {
		im.unclassified(r, label, reason)
		return
	}
	if sku != "" {
		im.skus[sku] = r
	}
	pr.imported = true
	im.res.Parts = append(im.res.Parts, part)
}

var errNoPrice = errors.New("no price")

func (im *importer) priceText(r int) string {
	if im.cols.Price > 0 {
		return im.t.cell(r, im.cols.Price)
	}
	return im.t.cell(r, im.cols.Total)
}

// price reads the unit price of row r: from the unit price column, or the
// line total divided by the quantity when the quote has no unit price.
// Amounts come from the raw cell value when the workbook stores a number
// (number formats can round), the currency from the displayed text.
func (im *importer) price(r int) (float64, string, error) {
	t, c := im.t, im.cols
	read := func(col int) (float64, string, error) { return im.amount(r, col) }
	if c.Price > 0 {
		return read(c.Price)
	}
	v, cur, err := read(c.Total)
	if err != nil {
		return v, cur, err
	}
	q, ok := parseQuantity(t.cell(r, c.Qty), im.qtyStyle)
	if !ok || q <= 0 {
		return 0, "", fmt.Errorf("no quantity to divide the line total by")
	}
	return v / q, cur, nil
}

// amount reads the amount in a cell of row r.
func (im *importer) amount(r, col int) (float64, string, error) {
	t := im.t
	text := t.cell(r, col)
	if text == "" {
		return 0, "", errNoPrice
	}
	if raw := t.raw(r, col); t.Raw != nil {
		if v, err := strconv.ParseFloat(raw, 64); err == nil {
			cur, _, cerr := splitCurrency(text, false)
			if cerr != nil {
				return 0, "", cerr
			}
			return v, cur, nil
		}
	}
	return parseMoney(text, im.style)
}

// unsavedFormula says whether the price cell of row r (or, without a unit
// price column, its total or quantity) holds a formula with no saved value.
func (im *importer) unsavedFormula(r int) (cell, formula string, ok bool) {
	for _, col := range []int{im.cols.Price, im.cols.Total, im.cols.Qty} {
		if col == 0 {
			continue
		}
		if fx, ok := im.t.Formulas[[2]int{r, col}]; ok {
			return fmt.Sprintf("%s%d", ColumnName(col), r), fx, true
		}
		if col == im.cols.Price {
			break // the unit price decides; the total is not read
		}
	}
	return "", "", false
}

// checkTotal cross-checks quantity x unit price against the line total
// when the quote has both columns and the row fills them in. A unit price
// cell merged with the row above shows that row's price: the total is
// then the row's own figure and *unit becomes total / quantity. Any other
// disagreement is settled by --price-from, or refused (recorded here,
// reported by refuse). The note says what was done.
func (im *importer) checkTotal(r int, label string, unit *float64, qty float64) string {
	c := im.cols
	if c.Price == 0 || c.Total == 0 || qty <= 0 {
		return ""
	}
	total, _, err := im.amount(r, c.Total)
	if err != nil || total <= 0 {
		return ""
	}
	want := qty * *unit
	// Unit prices are rounded to the cent, and so is each total: allow
	// half a cent per unit and a cent for the total's rounding.
	if math.Abs(want-total) <= 0.005*qty+0.01+1e-9*total {
		return ""
	}
	q := strconv.FormatFloat(qty, 'f', -1, 64)
	each := total / qty
	what := fmt.Sprintf("qty %s x unit price %s = %s, but the line total is %s (%s each)", q, amountText(*unit), amountText(want), amountText(total), amountText(each))
	priceCell := fmt.Sprintf("%s%d", ColumnName(c.Price), r)
	if from, ok := im.t.Merged[[2]int{r, c.Price}]; ok {
		if _, totalMerged := im.t.Merged[[2]int{r, c.Total}]; !totalMerged {
			note := fmt.Sprintf("unit price cell %s is merged with %s%d and shows row %d's %s; the row's own line total %s / qty %s = %s is used", priceCell, ColumnName(from[1]), from[0], from[0], amountText(*unit), amountText(total), q, amountText(each))
			im.res.Warnings = append(im.res.Warnings, RowNote{Row: r, Text: label, Reason: note})
			*unit = each
			return note
		}
	}
	switch im.o.PriceFrom {
	case "total":
		*unit = each
		return what + "; --price-from total takes " + amountText(each)
	case "unit":
		return what + "; --price-from unit keeps " + amountText(*unit)
	}
	im.mismatches = append(im.mismatches, fmt.Sprintf("row %d: %s", r, what))
	im.mismatchRows = append(im.mismatchRows, r)
	return ""
}

func amountText(v float64) string { return strconv.FormatFloat(round(v, 4), 'f', 2, 64) }

// refuse reports the rows the import cannot price truthfully: a quantity x
// unit price that is not the line total, or a part whose price is a
// formula without a saved value.
func (im *importer) refuse(sheet string) error {
	if len(im.mismatches) > 0 {
		return &yamlx.InputError{File: im.res.File, Line: im.mismatchRows[0], Msg: sheet + "quantity x unit price is not the line total: " + strings.Join(im.mismatches, "; "),
			Hint: "correct the quote; or, if the line total is what is paid (a discount applied after the unit price), add --price-from total; if the unit price is right, --price-from unit"}
	}
	if len(im.formulaParts) > 0 {
		return &yamlx.InputError{File: im.res.File, Line: im.formulaRows[0], Msg: sheet + "prices are formulas with no saved value: " + strings.Join(im.formulaParts, ", "),
			Hint: "the program that wrote the file did not calculate them; open the file in Excel or LibreOffice and save it, or type the values in"}
	}
	return nil
}

func (im *importer) newSKU(base string, r int) string {
	if _, ok := im.skus[base]; !ok {
		im.skus[base] = r
		return base
	}
	s := fmt.Sprintf("%s-R%d", base, r)
	im.skus[s] = r
	return s
}

func (im *importer) dimm(rec Recognised, p *Part, sku, desc string, price units.Money) string {
	d := rec.DIMM
	f := im.o.Fill
	var why []string
	if rec.missing("generation") {
		if f.DIMMGeneration == "" {
			why = append(why, "DDR generation not stated; add --dimm-generation DDR5 (or DDR4) if every such row is the same")
		} else {
			d.Generation = f.DIMMGeneration
			p.Notes = append(p.Notes, "generation from --dimm-generation")
		}
	}
	if rec.missing("type") {
		if f.DIMMType == "" {
			why = append(why, "DIMM type (RDIMM, LRDIMM, UDIMM, MRDIMM) not stated; add --dimm-type RDIMM if every such row is the same")
		} else {
			d.Type = f.DIMMType
			p.Notes = append(p.Notes, "type from --dimm-type")
		}
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	if rec.missing("speed") {
		p.Notes = append(p.Notes, "speed not stated (left 0; set it if a platform needs a minimum)")
	}
	gen := fmt.Sprintf("%s-%d-%s-%gG", d.Generation, d.Speed, d.Type, d.Capacity.GiBf())
	if d.Speed == 0 {
		gen = fmt.Sprintf("%s-%s-%gG", d.Generation, d.Type, d.Capacity.GiBf())
	}
	if sku == "" {
		sku = im.newSKU(gen, p.Row)
		p.Notes = append(p.Notes, "sku made up from the description (the quote gives no part number)")
	}
	if desc == "" {
		desc = strings.ReplaceAll(gen, "-", " ")
	}
	d.SKU, d.Model, d.Price = sku, desc, price
	p.SKU = sku
	im.dimms = append(im.dimms, d)
	return ""
}

// checkDIMMs flags an imported DIMM that no embedded or imported platform
// takes: recommend refuses a DIMM no platform in its catalogs takes.
func (im *importer) checkDIMMs() {
	all := append(append([]prices.Platform{}, embeddedPlatforms()...), im.platforms...)
	for _, d := range im.dimms {
		takes := false
		for _, p := range all {
			if ok, _ := p.Accepts(d); ok {
				takes = true
				break
			}
		}
		if takes {
			continue
		}
		w := fmt.Sprintf("no embedded or imported platform takes a %s %s %s; recommend refuses a DIMM no platform in its catalogs takes, so add a platform to this catalog (or a --prices file) or delete the entry", d.Capacity, d.Generation, d.Type)
		for i := range im.res.Parts {
			if p := &im.res.Parts[i]; p.SKU == d.SKU && p.Kind == KindDIMM {
				p.Notes = append(p.Notes, w)
				im.res.Warnings = append(im.res.Warnings, RowNote{Row: p.Row, Text: p.Text, Reason: w})
			}
		}
	}
}

func (im *importer) drive(rec Recognised, p *Part, sku, desc string, price units.Money) string {
	d := rec.Drive
	f := im.o.Fill
	var why []string
	if rec.missing("class") {
		if f.DriveClass == "" {
			why = append(why, "drive interface not stated (NVMe, SATA or SAS SSD, or HDD); add --drive-class nvme-ssd (or sata-ssd, hdd) if every such row is the same")
		} else {
			d.Class = f.DriveClass
			p.Notes = append(p.Notes, "class from --drive-class")
		}
	}
	if d.Class == prices.ClassHDD {
		d.NAND, d.DWPD, d.TBW = "", 0, 0
	} else if rec.missing("nand") {
		if f.NAND == "" {
			why = append(why, "NAND type (SLC, MLC, TLC, QLC) not stated; add --nand TLC (or the right one) if every such row is the same")
		} else {
			d.NAND = f.NAND
			p.Notes = append(p.Notes, "NAND from --nand")
		}
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	class := d.FactorClass()
	def, hasDef := im.defaults[class]
	perf := []struct {
		flag, field string
		set         bool
	}{{"--drive-read-latency", "read_latency", f.ReadLatency > 0}, {"--drive-write-latency", "write_latency", f.WriteLatency > 0},
		{"--drive-read-iops", "read_iops", f.ReadIOPS > 0}, {"--drive-write-iops", "write_iops", f.WriteIOPS > 0}}
	var need, defaulted []string
	for _, x := range perf {
		if !x.set {
			need, defaulted = append(need, x.flag), append(defaulted, x.field)
		}
	}
	if !hasDef && len(need) > 0 {
		return fmt.Sprintf("a %s drive, but the embedded catalogs have no %s drive to take latency and IOPS from; give %s", class, class, strings.Join(need, ", "))
	}
	d.ReadLatency, d.WriteLatency, d.ReadIOPS, d.WriteIOPS = def.ReadLatency, def.WriteLatency, def.ReadIOPS, def.WriteIOPS
	if f.ReadLatency > 0 {
		d.ReadLatency = f.ReadLatency
	}
	if f.WriteLatency > 0 {
		d.WriteLatency = f.WriteLatency
	}
	if f.ReadIOPS > 0 {
		d.ReadIOPS = f.ReadIOPS
	}
	if f.WriteIOPS > 0 {
		d.WriteIOPS = f.WriteIOPS
	}
	var src []string
	switch {
	case len(need) == len(perf):
		src = append(src, fmt.Sprintf("latency and IOPS: class default (%s), not from the quote", def.From))
	case len(need) > 0:
		src = append(src, fmt.Sprintf("latency and IOPS: from the --drive-* flags, the rest class default (%s), not from the quote", def.From))
	default:
		src = append(src, "latency and IOPS: from the --drive-* flags, not from the quote")
	}
	if d.Class != prices.ClassHDD {
		switch {
		case rec.Endurance != "" && !rec.EnduranceClass:
			src = append(src, "endurance: "+rec.Endurance)
		case f.DWPD > 0:
			d.DWPD, d.TBW = f.DWPD, 0
			src = append(src, "endurance: from --drive-dwpd, not from the quote")
		case rec.Endurance != "":
			src = append(src, "endurance: "+rec.Endurance)
		case hasDef && def.DWPD > 0:
			d.DWPD = def.DWPD
			defaulted = append(defaulted, "dwpd")
			if d.Warranty == 0 {
				d.Warranty = def.Warranty
				defaulted = append(defaulted, "warranty_years")
			}
			src = append(src, fmt.Sprintf("endurance: class default (%s), not from the quote", def.From))
		default:
			return fmt.Sprintf("a %s drive with no endurance stated (DWPD or TBW) and no class default; add --drive-dwpd", class)
		}
	}
	if rec.RPM > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d rpm", rec.RPM))
	}
	d.Source = strings.Join(src, "; ")
	p.Notes = append(p.Notes, src...)
	p.Defaulted = defaulted
	gen := strings.ToUpper(class) + "-" + d.Capacity.DecimalString()
	if sku == "" {
		sku = im.newSKU(gen, p.Row)
		p.Notes = append(p.Notes, "sku made up from the description (the quote gives no part number)")
	}
	if desc == "" {
		desc = d.Capacity.DecimalString() + " " + class
	}
	d.SKU, d.Model, d.Price = sku, desc, price
	p.SKU = sku
	im.drives = append(im.drives, d)
	return ""
}

// resolveCurrency settles one currency for the catalog: --currency, or the
// one the price cells or the price header name. Two currencies, or a cell
// that contradicts --currency, is an error naming the rows.
func (im *importer) resolveCurrency() error {
	o, res := im.o, im.res
	headerCur := ""
	if hc := im.headerLabel(); hc != "" {
		if c, _, err := splitCurrency(hc, true); err == nil {
			headerCur = c
		}
	}
	var yenRows []int
	resolve := func(c string) string {
		switch {
		case c == dollar && dollarCurrencies[o.Currency]:
			return o.Currency
		case c == dollar:
			return "USD"
		case c == yen && (o.Currency == "JPY" || o.Currency == "CNY"):
			return o.Currency
		}
		return c
	}
	byCur := map[string][]int{}
	cellRows := 0
	for _, p := range im.priced {
		if p.cell != "" {
			cellRows++
		}
		c := resolve(p.cell)
		if c == "" {
			c = resolve(headerCur)
		}
		switch c {
		case "":
			// Neither the cell nor the header says: --currency or an error.
		case yen:
			yenRows = append(yenRows, p.row)
		default:
			byCur[c] = append(byCur[c], p.row)
		}
	}
	if len(yenRows) > 0 {
		what := "rows " + joinInts(yenRows) + " are"
		if len(yenRows) == 1 {
			what = fmt.Sprintf("row %d is", yenRows[0])
		}
		return &yamlx.InputError{File: res.File, Msg: what + " priced in ¥, which is JPY or CNY", Hint: "add --currency JPY or --currency CNY"}
	}
	if o.Currency != "" {
		delete(byCur, o.Currency)
		if len(byCur) > 0 {
			return &yamlx.InputError{File: res.File, Msg: fmt.Sprintf("--currency is %s but %s", o.Currency, describeCurrencies(byCur)), Hint: "a catalog has one currency; split the quote or convert the prices"}
		}
		res.Currency, res.CurrencyFrom = o.Currency, "--currency"
		return nil
	}
	switch len(byCur) {
	case 0:
		return &yamlx.InputError{File: res.File, Msg: "no currency in the price cells or the price column's header", Hint: "add --currency USD (or the quote's ISO currency code)"}
	case 1:
		for c := range byCur {
			res.Currency = c
		}
		switch {
		case headerCur == "":
			res.CurrencyFrom = "price cells"
		case cellRows == 0:
			res.CurrencyFrom = fmt.Sprintf("header %q", im.headerLabel())
		default:
			res.CurrencyFrom = fmt.Sprintf("price cells and header %q", im.headerLabel())
		}
		return nil
	}
	return &yamlx.InputError{File: res.File, Msg: "mixed currencies in one quote: " + describeCurrencies(byCur), Hint: "a catalog has one currency; split the quote into one file per currency, or convert the prices"}
}

func (im *importer) headerLabel() string {
	col := im.cols.Price
	if col == 0 {
		col = im.cols.Total
	}
	if im.res.HeaderLast == 0 || col == 0 {
		return ""
	}
	var parts []string
	for r := im.res.HeaderFirst; r <= im.res.HeaderLast; r++ {
		if v := im.t.cell(r, col); v != "" && (len(parts) == 0 || parts[len(parts)-1] != v) {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

func describeCurrencies(byCur map[string][]int) string {
	curs := make([]string, 0, len(byCur))
	for c := range byCur {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	var out []string
	for _, c := range curs {
		rows := byCur[c]
		word := "rows"
		if len(rows) == 1 {
			word = "row"
		}
		out = append(out, fmt.Sprintf("%s %s in %s", word, joinInts(rows), c))
	}
	return strings.Join(out, ", ")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	if len(s) > 8 {
		s = append(s[:8], fmt.Sprintf("and %d more", len(v)-8))
	}
	return strings.Join(s, ", ")
}

var reDateLabel = lazy(`^(?:(?:quote|quotation|offer|proposal|order|document|issue|issued|price list|pricing)\s+)?dated?\b`)

var dateLayouts = []string{"2006-01-02", "2006/01/02", "02.01.2006", "2.1.2006", "2 January 2006", "2 Jan 2006", "January 2, 2006", "Jan 2, 2006", "02-Jan-2006", "2-Jan-2006", "2006-01-02 15:04:05", "2006-01-02T15:04:05"}

// findDate looks above the table for a "Date" or "Quote date" cell and
// reads the date beside it (or after its colon). Only unambiguous layouts
// are accepted: 03/01/2026 is March in one country and January in another.
func findDate(t *Table, start int) (units.Date, string, bool) {
	for r := 1; r < start && r <= len(t.Text); r++ {
		for c := 1; c <= len(t.Text[r-1]); c++ {
			v := t.cell(r, c)
			n := normalizeLabel(v)
			if !reDateLabel.MatchString(n) || strings.Contains(n, "valid") || strings.Contains(n, "expir") || strings.Contains(n, "deliver") {
				continue
			}
			type cand struct {
				text, raw string
				col       int // the cell the date is read from
			}
			var cands []cand
			if _, after, ok := strings.Cut(v, ":"); ok && strings.TrimSpace(after) != "" {
				cands = append(cands, cand{strings.TrimSpace(after), "", c})
			}
			for cc := c + 1; cc <= len(t.Text[r-1]); cc++ {
				if x := t.cell(r, cc); x != "" && x != v {
					cands = append(cands, cand{x, t.raw(r, cc), cc})
					break
				}
			}
			for _, cd := range cands {
				if d, ok := parseDate(cd.text, cd.raw, t.Dates); ok {
					return d, fmt.Sprintf("cell %s%d", ColumnName(cd.col), r), true
				}
			}
		}
	}
	return units.Date{}, "", false
}

func parseDate(text, raw string, serial bool) (units.Date, bool) {
	if serial && raw != "" {
		if v, err := strconv.ParseFloat(raw, 64); err == nil && v > 20000 && v < 80000 {
			if tm, err := excelize.ExcelDateToTime(v, false); err == nil {
				return units.Date{Time: time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC)}, true
			}
		}
	}
	for _, l := range dateLayouts {
		if tm, err := time.Parse(l, text); err == nil {
			return units.Date{Time: time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC)}, true
		}
	}
	return units.Date{}, false
}

func nameFromFile(base string) string {
	n := strings.TrimSuffix(base, filepath.Ext(base))
	n = strings.Join(strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == ' ' || r == '_' }), "-")
	if n == "" {
		return "imported-quote"
	}
	return n
}

// clean collapses the whitespace of a cell (line breaks in wrapped cells).
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
