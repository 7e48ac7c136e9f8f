package xlsx

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// How a sheet is printed.
type pageKind int

const (
	// pageSheet: landscape, as large as the page width allows but never
	// smaller than minScale, as many pages down as the rows need.
	pageSheet pageKind = iota
	// pageCharts: landscape at full size, one chart per page (the chart
	// sheet breaks the page between them and prints only the charts).
	pageCharts
	// pageList: landscape at minScale, a long list as many rows a page
	// as is readable.
	pageList
)

// Print sizes. Every sheet is set in 11 pt (excelize's default font size,
// the body text of every style but the titles); a page printed at
// minScale shows it at 11 x 0.73 = 8.03 pt, the smallest the printed
// workbook uses. A sheet wider than the page at that scale goes on to a
// second page across rather than shrinking further.
const (
	bodyPt   = 11
	minPt    = 8
	minScale = 73 // percent
	// printWidth is the width the cells may take on a page in points:
	// US Letter landscape (792 pt; A4's 842 pt is wider) less the 0.5 inch
	// margins, with 2% to spare for the spreadsheet's rounding.
	printWidth = (792 - 72) * 0.98
)

// columnPoints is the printed width of a column width characters wide at
// 100%. Excel's width unit is the width of a digit of the default font
// (7 pixels in Calibri 11) plus 5 pixels of padding, at 0.75 pt a pixel;
// LibreOffice prints the unit a little wider, 5.55 pt (measured on its
// PDFs of these sheets). The wider of the two.
func columnPoints(width float64) float64 { return max((math.Round(width*7)+5)*0.75, 5.55*width) }

// printScale is the scale (percent) at which columns of the given widths
// fill the page width: at most 100, at least minScale.
func printScale(widths ...float64) int {
	pts := 0.0
	for _, w := range widths {
		pts += columnPoints(w)
	}
	if pts <= 0 {
		return 100
	}
	return max(minScale, min(100, int(math.Floor(100*printWidth/pts))))
}

// pageSetup sets orientation, the scale (see printScale) and the header
// and footer that name the plan, the sheet and the date on every printed
// page. It must run before the sheet is streamed (see writer).
func (b *book) pageSetup(sheet string, kind pageKind, scale int) error {
	f := b.f
	landscape := "landscape"
	adjust := uint(max(minScale, min(100, scale)))
	switch kind {
	case pageCharts:
		adjust = 100
	case pageList:
		adjust = minScale
	}
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Orientation: &landscape, AdjustTo: &adjust}); err != nil {
		return err
	}
	fit := false
	if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	margin, edge := 0.5, 0.3
	if err := f.SetPageMargins(sheet, &excelize.PageLayoutMarginsOptions{
		Left: &margin, Right: &margin, Top: &margin, Bottom: &margin, Header: &edge, Footer: &edge,
	}); err != nil {
		return err
	}
	return f.SetHeaderFooter(sheet, &excelize.HeaderFooterOptions{
		OddHeader: b.header(),
		OddFooter: "&L" + hfText("made "+b.made+" by memplan "+b.out.MemplanVersion, 120) + "&RPage &P of &N",
	})
}

// printTitles repeats the first cols columns and the first rows rows on
// every printed page (either may be 0), so that a continuation page to
// the right still says which row is which.
func (b *book) printTitles(sheet string, cols, rows int) error {
	var refs []string
	if cols > 0 {
		refs = append(refs, fmt.Sprintf("%s!$A:$%s", sheetRef(sheet), colName(cols)))
	}
	if rows > 0 {
		refs = append(refs, fmt.Sprintf("%s!$1:$%d", sheetRef(sheet), rows))
	}
	return b.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", Scope: sheet, RefersTo: strings.Join(refs, ",")})
}

// printArea limits what prints to columns 1..cols of rows 1..rows.
func (b *book) printArea(sheet string, cols, rows int) error {
	return b.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", Scope: sheet,
		RefersTo: fmt.Sprintf("%s!$A$1:$%s$%d", sheetRef(sheet), colName(cols), rows)})
}

// headerWidth is the width a column needs for its bold header to wrap at
// spaces only: its longest word and a character's margin. (A bold
// letter of Carlito, Calibri's metric twin, averages 0.9 of the width
// unit: "Deadlines" takes 44.9 pt, the unit 5.55 pt.)
func headerWidth(header string) float64 {
	w := 0.0
	for _, word := range strings.Fields(header) {
		w = max(w, float64(utf8.RuneCountInString(word))+1)
	}
	return w
}

// header is "memplan plan: <workload>" on the left and the sheet's name
// on the right of every printed page.
func (b *book) header() string {
	return `&L&"-,Bold"` + hfText("memplan plan: "+b.out.Workload, 150) + `&R&A`
}

// hfText escapes s for a header or footer (where & starts a code) and
// keeps it within the 255 characters a header may hold.
func hfText(s string, most int) string {
	if r := []rune(s); len(r) > most {
		s = string(r[:most-1]) + "…"
	}
	return strings.ReplaceAll(s, "&", "&&")
}
