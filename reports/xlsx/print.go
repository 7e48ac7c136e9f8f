package xlsx

import (
	"strings"

	"github.com/xuri/excelize/v2"
)

// How a sheet is printed.
type pageKind int

const (
	// pageSummary: the whole sheet on one landscape page, which is what
	// goes into a purchase request.
	pageSummary pageKind = iota
	// pageWide: landscape, every column on the page width, as many pages
	// down as the rows need.
	pageWide
	// pageCharts: landscape at full size, one chart per page (the chart
	// sheet breaks the page between them and prints only the charts).
	pageCharts
	// pageList: landscape at full size; the Configurations list has more
	// columns than any page holds, so its header row repeats on every page.
	pageList
)

// pageSetup sets orientation, scaling and the header and footer that name
// the plan, the sheet and the date on every printed page. It must run
// before the sheet is streamed (see writer).
func (b *book) pageSetup(sheet string, kind pageKind) error {
	f := b.f
	landscape := "landscape"
	opts := &excelize.PageLayoutOptions{Orientation: &landscape}
	fit := false
	switch kind {
	case pageSummary:
		one := 1
		opts.FitToWidth, opts.FitToHeight, fit = &one, &one, true
	case pageWide:
		one, any := 1, 0
		opts.FitToWidth, opts.FitToHeight, fit = &one, &any, true
	}
	if err := f.SetPageLayout(sheet, opts); err != nil {
		return err
	}
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
