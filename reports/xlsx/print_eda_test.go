package xlsx

import (
	"regexp"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// edaPrinted is examples/eda.yaml as `memplan recommend -w
// examples/eda.yaml` runs it: the embedded current catalog, the default
// factors, the break-even analysis.
func edaPrinted(t *testing.T) reports.Output {
	t.Helper()
	w, err := model.LoadWorkload("../../examples/eda.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prices.Embedded("current")
	if err != nil {
		t.Fatal(err)
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
	opts := reports.Options{Version: "test"}
	if opts.BreakEven, err = model.BreakEven(in, res); err != nil {
		t.Fatal(err)
	}
	return reports.NewOutput(res, opts)
}

// isHeader: a header cell's style (bold on the header fill).
func isHeader(st *excelize.Style) bool {
	return st.Font != nil && st.Font.Bold && len(st.Fill.Color) > 0 && strings.EqualFold(st.Fill.Color[0], headerFill)
}

// TestPrintScaleReadable: every sheet's page setup prints its smallest
// font at 8 pt or more: a fixed scale (no fit-to-page, whose scale the
// spreadsheet picks) of at least 73% times the smallest font size on the
// sheet's printed cells.
func TestPrintScaleReadable(t *testing.T) {
	for name, out := range map[string]reports.Output{"eda": edaPrinted(t), "intel-tco": intelRobustOutput(t, power(5, 1.4, model.RankTCO))} {
		f, _ := writeAndOpen(t, out)
		for _, sh := range Sheets() {
			props, err := f.GetSheetProps(sh)
			if err != nil {
				t.Fatal(err)
			}
			if props.FitToPage != nil && *props.FitToPage {
				t.Errorf("%s: %s fits to the page; its scale would be the spreadsheet's choice", name, sh)
			}
			pl, err := f.GetPageLayout(sh)
			if err != nil {
				t.Fatal(err)
			}
			if pl.AdjustTo == nil {
				t.Fatalf("%s: %s sets no print scale", name, sh)
			}
			scale := float64(*pl.AdjustTo) / 100
			rows, err := f.GetRows(sh)
			if err != nil {
				t.Fatal(err)
			}
			smallest := 0.0
			for r, row := range rows {
				for c, v := range row {
					if v == "" || (sh == sheetCharts) {
						continue // the Charts sheet prints its charts, not its helper cells
					}
					if sh == sheetConfigs && c+1 > cPrintLast {
						continue
					}
					id, _ := f.GetCellStyle(sh, cell(c+1, r+1))
					st, err := f.GetStyle(id)
					if err != nil {
						t.Fatal(err)
					}
					size := float64(bodyPt)
					if st.Font != nil && st.Font.Size > 0 {
						size = st.Font.Size
					}
					if smallest == 0 || size < smallest {
						smallest = size
					}
				}
			}
			if eff := smallest * scale; smallest > 0 && eff < minPt {
				t.Errorf("%s: %s prints at %.0f%%: its %.0f pt text at %.1f pt, below %d pt", name, sh, 100*scale, smallest, eff, minPt)
			}
		}
	}
}

// TestEDAWorkbookPrints prints examples/eda.yaml's workbook with
// LibreOffice and reads the pages back as a person holding them would:
// fewer than 15 pages, each sheet on the pages it needs, every word at 8
// pt or more, Rank and Configuration on every Configurations page, each
// chart whole on its page, no word of a header or a wrapped text broken
// across lines, and each
// slowdown basis stated once.
func TestEDAWorkbookPrints(t *testing.T) {
	out := edaPrinted(t)
	f, path := writeAndOpen(t, out)
	p := printWorkbook(t, path)
	counts := map[string]int{}
	for _, pg := range p.pages {
		counts[pg.sheet]++
	}
	t.Logf("%d pages: %v", len(p.pages), counts)
	if len(p.pages) >= 15 {
		t.Errorf("eda.yaml's workbook prints on %d pages, want fewer than 15", len(p.pages))
	}
	most := map[string]int{sheetSummary: 2, sheetConfigs: 3, sheetBOM: 1, sheetSensitivity: 1, sheetDIMMs: 1,
		sheetDrives: 1, sheetPlatforms: 1, sheetSlowdown: 2, sheetCharts: 2}
	for _, sh := range Sheets() {
		if counts[sh] < 1 || counts[sh] > most[sh] {
			t.Errorf("%s prints on %d pages, want 1 to %d", sh, counts[sh], most[sh])
		}
	}

	// Word boxes are 1.3 times the font size tall in Carlito (11 pt
	// prints 14.3 pt tall at 100%).
	for _, pg := range p.pages {
		small := 0
		for _, w := range pg.body() {
			if h := w.yMax - w.yMin; h < 0.99*1.3*minPt {
				small++
				if small == 1 {
					t.Errorf("page %d (%s): %q prints at %.1f pt, below %d pt", pg.n, pg.sheet, w.text, h/1.3, minPt)
				}
			}
		}
	}

	for _, pg := range p.sheetPages(sheetConfigs) {
		text := " " + pg.text() + " "
		if !strings.Contains(text, " Rank ") || !strings.Contains(text, " Configuration ") {
			t.Errorf("Configurations page %d lacks the Rank or Configuration column: %.200s", pg.n, text)
		}
		// Each row starts with its rank and label: "12 768GiB (24 x ...".
		if !regexp.MustCompile(`\b\d+ \d+(GiB|TiB)\b`).MatchString(text) {
			t.Errorf("Configurations page %d: no row shows its rank and configuration: %.200s", pg.n, text)
		}
	}

	titles := []string{"Fleet cost against runtime", "Slowdown against the share of memory"}
	for i, pg := range p.sheetPages(sheetCharts) {
		if text := pg.text(); i < len(titles) && (!strings.Contains(text, titles[i]) || len(pg.body()) < 10) {
			t.Errorf("Charts page %d does not hold chart %q whole: %.200s", i+1, titles[i], text)
		}
	}

	// Every word of a header or a wrapped text prints whole (or broken
	// after a hyphen or slash): a word broken inside across lines prints
	// as two fragments, neither of them the word, and a word cut off at
	// the page's edge not at all.
	for _, sh := range Sheets() {
		if sh == sheetCharts {
			continue
		}
		words := map[string]bool{}
		for _, pg := range p.sheetPages(sh) {
			for _, w := range pg.body() {
				words[w.text] = true
			}
		}
		rows, err := f.GetRows(sh)
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range rows {
			for c, v := range row {
				if v == "" || (sh == sheetConfigs && c+1 > cPrintLast) {
					continue
				}
				id, _ := f.GetCellStyle(sh, cell(c+1, r+1))
				st, err := f.GetStyle(id)
				if err != nil {
					t.Fatal(err)
				}
				if !isHeader(st) && (st.Alignment == nil || !st.Alignment.WrapText) {
					continue
				}
				for _, word := range strings.Fields(v) {
					if !printsWhole(word, words) {
						t.Errorf("%s!%s %.60q: the word %q does not print whole", sh, cell(c+1, r+1), v, word)
					}
				}
			}
		}
	}

	// The Slowdown sheet states each basis once; the points refer to it
	// by key.
	rows, err := f.GetRows(sheetSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	keys := 0
	for r, row := range rows {
		for c, v := range row {
			if len([]rune(v)) > 150 {
				if at, ok := seen[v]; ok {
					t.Errorf("Slowdown: the text at %s repeats %s: %.80s", cell(c+1, r+1), at, v)
				}
				seen[v] = cell(c+1, r+1)
			}
		}
		if r > 0 && len(row) >= pBasis && regexp.MustCompile(`^B\d+$`).MatchString(row[pBasis-1]) {
			keys++
		}
	}
	if keys < 10 {
		t.Errorf("Slowdown: %d points refer to a basis by key, want every point of eda.yaml's (dozens)", keys)
	}
}

// printsWhole: word is among the printed words, or breaks only after a
// hyphen or a slash, as a line may ("swap-" and "path"), into parts that
// do.
func printsWhole(word string, printed map[string]bool) bool {
	if printed[word] {
		return true
	}
	for i := 1; i < len(word); i++ {
		if (word[i-1] == '-' || word[i-1] == '/') && printed[word[:i]] && printsWhole(word[i:], printed) {
			return true
		}
	}
	return false
}
