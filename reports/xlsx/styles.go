package xlsx

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// styles are the cell formats the sheets share.
type styles struct {
	title, section, header, text, wrap, bold int
	prose                                    int // wrap for running text (see writer.rowHeight)
	label                                    int // a bold row label that wraps
	money, moneyInput, moneyBold             int
	whole, wholeBold                         int // money in whole units, the currency in the header
	priceInput, ratioInput, textInput        int // editable parameters
	pct, ratio, hours, gib, count            int
	// conditional formats (dxf ids) for Configurations rows
	miss, risk, best int
}

const (
	headerFill = "D9E1F2"
	inputFill  = "FFF2CC" // the cells a person is meant to edit
)

// currencyFormat shows an amount with its ISO code, which reads the same in
// every locale (a "$" or "₽" format would follow the reader's settings).
func currencyFormat(cur string) string {
	code := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, cur)
	return fmt.Sprintf(`#,##0.00 "%s";-#,##0.00 "%s"`, code, code)
}

// font is the workbook's font (excelize's default). Styles name it: a bold
// font without a name prints in whatever the spreadsheet falls back to,
// often a wider serif that no longer fits the columns.
const font = "Calibri"

func newStyles(f *excelize.File, cur string) (styles, error) {
	var s styles
	top := &excelize.Alignment{Vertical: "top"}
	money := currencyFormat(cur)
	// Electricity costs fractions of a unit per kWh: four decimals.
	priceFmt := strings.Replace(money, "#,##0.00", "#,##0.0000", 2)
	defs := []struct {
		id *int
		st excelize.Style
	}{
		{&s.title, excelize.Style{Font: &excelize.Font{Bold: true, Size: 14, Family: font}}},
		{&s.section, excelize.Style{Font: &excelize.Font{Bold: true, Size: 12, Family: font}}},
		{&s.header, excelize.Style{
			Font:      &excelize.Font{Bold: true, Family: font},
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{headerFill}},
			Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"},
			Border:    []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}},
		}},
		{&s.text, excelize.Style{Alignment: &excelize.Alignment{Vertical: "top"}}},
		{&s.wrap, excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&s.prose, excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}, Font: &excelize.Font{Family: font}}},
		{&s.bold, excelize.Style{Font: &excelize.Font{Bold: true, Family: font}, Alignment: &excelize.Alignment{Vertical: "top"}}},
		{&s.label, excelize.Style{Font: &excelize.Font{Bold: true, Family: font}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&s.money, excelize.Style{CustomNumFmt: &money, Alignment: top}},
		{&s.moneyInput, excelize.Style{
			CustomNumFmt: &money,
			Alignment:    top,
			Fill:         excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{inputFill}},
			Border:       []excelize.Border{{Type: "left", Color: "BF9000", Style: 1}, {Type: "right", Color: "BF9000", Style: 1}, {Type: "top", Color: "BF9000", Style: 1}, {Type: "bottom", Color: "BF9000", Style: 1}},
			Protection:   &excelize.Protection{Locked: false},
		}},
		{&s.moneyBold, excelize.Style{CustomNumFmt: &money, Font: &excelize.Font{Bold: true, Family: font}, Alignment: top}},
		// The Configurations list prints its amounts to the unit: cents
		// on a server's price are noise there, and the narrower columns
		// let the list print across one page.
		{&s.whole, excelize.Style{CustomNumFmt: strp("#,##0;-#,##0"), Alignment: top}},
		{&s.wholeBold, excelize.Style{CustomNumFmt: strp("#,##0;-#,##0"), Font: &excelize.Font{Bold: true, Family: font}, Alignment: top}},
		{&s.priceInput, inputStyle(&priceFmt)},
		{&s.ratioInput, inputStyle(strp("0.00"))},
		{&s.textInput, inputStyle(nil)},
		{&s.pct, excelize.Style{NumFmt: 10, Alignment: top}},                    // 0.00%
		{&s.ratio, excelize.Style{CustomNumFmt: strp("0.000"), Alignment: top}}, // slowdowns
		{&s.hours, excelize.Style{CustomNumFmt: strp("0.00"), Alignment: top}},  // hours
		{&s.gib, excelize.Style{CustomNumFmt: strp("#,##0.0"), Alignment: top}}, // GiB, GB
		{&s.count, excelize.Style{CustomNumFmt: strp("#,##0"), Alignment: top}}, // counts
	}
	for _, d := range defs {
		st := d.st
		id, err := f.NewStyle(&st)
		if err != nil {
			return s, err
		}
		*d.id = id
	}
	conds := []struct {
		id         *int
		font, fill string
		bold       bool
	}{
		{&s.miss, "9C0006", "FFC7CE", false},
		{&s.risk, "9C5700", "FFEB9C", false},
		{&s.best, "006100", "C6EFCE", true},
	}
	for _, c := range conds {
		id, err := f.NewConditionalStyle(&excelize.Style{
			Font: &excelize.Font{Color: c.font, Bold: c.bold, Family: font},
			Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{c.fill}},
		})
		if err != nil {
			return s, err
		}
		*c.id = id
	}
	return s, nil
}

func strp(s string) *string { return &s }

// inputStyle marks a cell a person is meant to edit, like the unit prices.
func inputStyle(numFmt *string) excelize.Style {
	return excelize.Style{
		CustomNumFmt: numFmt,
		Fill:         excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{inputFill}},
		Border:       []excelize.Border{{Type: "left", Color: "BF9000", Style: 1}, {Type: "right", Color: "BF9000", Style: 1}, {Type: "top", Color: "BF9000", Style: 1}, {Type: "bottom", Color: "BF9000", Style: 1}},
		Protection:   &excelize.Protection{Locked: false},
		Alignment:    &excelize.Alignment{Vertical: "top"},
	}
}
