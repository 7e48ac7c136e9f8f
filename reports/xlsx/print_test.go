package xlsx

import (
	"archive/zip"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// The workbooks the look-and-print tests check: the Intel study as
// recommended, the same ranked by TCO with the robustness analyses (the
// fullest Summary and Sensitivity sheets), and one in which every
// configuration has nearly the same runtime, and one in which nothing
// meets the deadline (no recommendation, no bill of materials), and the
// study with a probe's factor file.
func lookWorkbooks(t *testing.T) map[string]reports.Output {
	return map[string]reports.Output{
		"intel":        intelOutput(t, 0, nil),
		"intel-tco":    intelRobustOutput(t, power(5, 1.4, model.RankTCO)),
		"same-runtime": sameRuntimeOutput(t),
		"probe":        probeOutput(t), // the Slowdown sheet's measurement tables and charts
		"nothing-meets": intelOutput(t, 0, func(_ *prices.Catalog, w *model.Workload) {
			w.Jobs[0].Deadline = w.Jobs[0].Runtime / 2 // even in RAM a job misses
			w.Jobs[0].Window = w.Jobs[0].Deadline
		}),
	}
}

// sameRuntimeOutput is a result whose configurations all run within a
// minute of one another, the recommended one among the slowest: the chart
// must still show it.
func sameRuntimeOutput(t *testing.T) reports.Output {
	out := intelOutput(t, 0, nil)
	for i := range out.Configurations {
		c := &out.Configurations[i]
		c.RuntimeHours = 7.5 + 0.001*float64(i%7)
	}
	rec := *out.Recommended
	for _, c := range out.Configurations {
		if c.ID == rec.ID {
			rec = c
		}
	}
	out.Recommended = &rec
	return out
}

// sheetXML is one worksheet of a written workbook, read straight from the
// zip as a viewer that does not calculate reads it.
type sheetXML struct {
	name, dimension string
	cells           map[string]rawCell
	maxCol, maxRow  int
}

type rawCell struct {
	t, f, v string
	hasF    bool
	hasV    bool
}

var (
	reSheet    = regexp.MustCompile(`<sheet [^>]*name="([^"]+)"[^>]*r:id="([^"]+)"`)
	reRel      = regexp.MustCompile(`<Relationship [^>]*Id="([^"]+)"[^>]*Target="([^"]+)"`)
	reRelRev   = regexp.MustCompile(`<Relationship [^>]*Target="([^"]+)"[^>]*Id="([^"]+)"`)
	reDim      = regexp.MustCompile(`<dimension ref="([^"]+)"`)
	reCell     = regexp.MustCompile(`<c r="([A-Z]+[0-9]+)"([^>]*?)(/>|>(.*?)</c>)`)
	reCellType = regexp.MustCompile(`\bt="([^"]+)"`)
	reF        = regexp.MustCompile(`<f[^>]*>(.*?)</f>|<f[^>]*/>`)
	reV        = regexp.MustCompile(`<v>(.*?)</v>`)
	reMerge    = regexp.MustCompile(`<mergeCell ref="([A-Z]+[0-9]+):([A-Z]+[0-9]+)"`)
)

// zipParts returns every part of the package at path by name.
func zipParts(t *testing.T, path string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(b)
	}
	return files
}

// relTargets lists the (Id, Target) pairs of a relationships part, with
// the attributes in either order.
func relTargets(rels string) [][2]string {
	var out [][2]string
	for _, m := range reRel.FindAllStringSubmatch(rels, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	for _, m := range reRelRev.FindAllStringSubmatch(rels, -1) {
		out = append(out, [2]string{m[2], m[1]})
	}
	return out
}

// readSheets parses every worksheet of the workbook at path.
func readSheets(t *testing.T, path string) map[string]*sheetXML {
	t.Helper()
	files := zipParts(t, path)
	targets := map[string]string{}
	for _, r := range relTargets(files["xl/_rels/workbook.xml.rels"]) {
		targets[r[0]] = r[1]
	}
	out := map[string]*sheetXML{}
	for _, m := range reSheet.FindAllStringSubmatch(files["xl/workbook.xml"], -1) {
		name, target := html.UnescapeString(m[1]), strings.TrimPrefix(targets[m[2]], "/xl/")
		body, ok := files["xl/"+target]
		if !ok {
			t.Fatalf("sheet %s: no part %s in the zip", name, target)
		}
		s := &sheetXML{name: name, cells: map[string]rawCell{}}
		if d := reDim.FindStringSubmatch(body); d != nil {
			s.dimension = d[1]
		}
		for _, c := range reCell.FindAllStringSubmatch(body, -1) {
			var rc rawCell
			if tm := reCellType.FindStringSubmatch(c[2]); tm != nil {
				rc.t = tm[1]
			}
			if fm := reF.FindStringSubmatch(c[4]); fm != nil {
				rc.hasF, rc.f = true, html.UnescapeString(fm[1])
			}
			if vm := reV.FindStringSubmatch(c[4]); vm != nil {
				rc.hasV, rc.v = true, html.UnescapeString(vm[1])
			}
			s.cells[c[1]] = rc
			col, row, err := excelize.CellNameToCoordinates(c[1])
			if err != nil {
				t.Fatal(err)
			}
			s.maxCol, s.maxRow = max(s.maxCol, col), max(s.maxRow, row)
		}
		for _, m := range reMerge.FindAllStringSubmatch(body, -1) {
			col, row, _ := excelize.CellNameToCoordinates(m[2])
			s.maxCol, s.maxRow = max(s.maxCol, col), max(s.maxRow, row)
		}
		out[name] = s
	}
	if len(out) != len(Sheets()) {
		t.Fatalf("found %d sheets in %s, want %d", len(out), path, len(Sheets()))
	}
	return out
}

// TestSheetsDeclareTheirDimension: each sheet's <dimension> is the range
// its cells occupy (viewers size their grid and scroll bars by it).
func TestSheetsDeclareTheirDimension(t *testing.T) {
	for name, out := range lookWorkbooks(t) {
		_, path := writeAndOpen(t, out)
		for _, s := range readSheets(t, path) {
			want := "A1"
			if s.maxCol > 1 || s.maxRow > 1 {
				want = "A1:" + cell(s.maxCol, s.maxRow)
			}
			if s.dimension != want {
				t.Errorf("%s: sheet %s declares <dimension ref=%q>, its cells occupy %s", name, s.name, s.dimension, want)
			}
		}
	}
}

// TestFormulasCarryValues: every formula cell has a cached value a viewer
// that does not calculate can show, typed as the formula's result.
func TestFormulasCarryValues(t *testing.T) {
	for name, out := range lookWorkbooks(t) {
		_, path := writeAndOpen(t, out)
		n := 0
		for _, s := range readSheets(t, path) {
			for ref, c := range s.cells {
				if !c.hasF {
					continue
				}
				n++
				// Only a formula that can return "" may cache nothing (an
				// empty <v> is not written); TestCachedValuesAreLibreOffices
				// checks that LibreOffice computes "" there.
				if !c.hasV && (c.t != "str" || !strings.Contains(c.f, `""`)) {
					t.Errorf("%s: %s!%s =%s has no cached value", name, s.name, ref, c.f)
				}
				if c.t == "" || c.t == "n" {
					if _, err := strconv.ParseFloat(c.v, 64); err != nil {
						t.Errorf("%s: %s!%s =%s caches %q as a number", name, s.name, ref, c.f, c.v)
					}
				}
			}
		}
		if n < 100 {
			t.Errorf("%s: only %d formula cells", name, n)
		}
	}
}

// TestCachedValuesAreLibreOffices: LibreOffice recalculates every formula
// on load (the workbook asks it to); each cached value must be what it
// computes.
func TestCachedValuesAreLibreOffices(t *testing.T) {
	soffice := needTool(t, "soffice", "libreoffice-calc")
	for name, out := range lookWorkbooks(t) {
		t.Run(name, func(t *testing.T) {
			_, path := writeAndOpen(t, out)
			calc := convertWithLibreOffice(t, soffice, path)
			checked := 0
			for _, s := range readSheets(t, path) {
				recs := calc[s.name]
				for ref, c := range s.cells {
					if !c.hasF {
						continue
					}
					col, row, _ := excelize.CellNameToCoordinates(ref)
					got := ""
					if row-1 < len(recs) && col-1 < len(recs[row-1]) {
						got = recs[row-1][col-1]
					}
					checked++
					if !sameValue(c, got) {
						t.Errorf("%s!%s =%s: cached %q (t=%q), LibreOffice computes %q", s.name, ref, c.f, c.v, c.t, got)
					}
				}
			}
			t.Logf("%d formula cells: the cached value is LibreOffice's", checked)
		})
	}
}

// sameValue compares a cached value with LibreOffice's CSV export of the
// recalculated cell: strings exactly, numbers to 1e-9 relative (the export
// prints percentages with a % sign).
func sameValue(c rawCell, calc string) bool {
	if c.t == "str" || c.t == "s" || c.t == "inlineStr" {
		return c.v == calc
	}
	want, err := strconv.ParseFloat(c.v, 64)
	if err != nil {
		return false
	}
	s := strings.ReplaceAll(strings.TrimSpace(calc), ",", "")
	scale := 1.0
	if strings.HasSuffix(s, "%") {
		s, scale = strings.TrimSuffix(s, "%"), 0.01
	}
	got, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	got *= scale
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// needTool finds a program the test drives, or skips with what to install
// (.ci/run installs them, so CI never skips).
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not on PATH; install the Debian package %s (.ci/run does) to run this test", name, pkg)
	}
	if testing.Short() {
		t.Skipf("%s takes seconds; skipped with -short", name)
	}
	return p
}

// printed is a workbook as LibreOffice prints it: the pages of the PDF
// with their words and positions.
type printed struct {
	pdf   string
	pages []page
}

type page struct {
	n             int
	sheet         string
	width, height float64
	words         []word
}

type word struct {
	text                   string
	xMin, yMin, xMax, yMax float64
}

var (
	rePage = regexp.MustCompile(`<page width="([0-9.]+)" height="([0-9.]+)">`)
	reWord = regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>`)
)

// printWorkbook has LibreOffice print the workbook to PDF and reads the
// pages back with pdftotext. Each page's sheet is the name its header
// carries on the right.
func printWorkbook(t *testing.T, path string) printed {
	t.Helper()
	soffice := needTool(t, "soffice", "libreoffice-calc")
	pdftotext := needTool(t, "pdftotext", "poppler-utils")
	dir := t.TempDir()
	cmd := exec.Command(soffice, "-env:UserInstallation="+recalcProfile(t, dir), "--headless", "--norestore",
		"--convert-to", "pdf", "--outdir", dir, path)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if outp, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, outp)
	}
	pdf := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".xlsx")+".pdf")
	bbox := filepath.Join(dir, "words.html")
	if outp, err := exec.Command(pdftotext, "-bbox", pdf, bbox).CombinedOutput(); err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, outp)
	}
	raw, err := os.ReadFile(bbox)
	if err != nil {
		t.Fatal(err)
	}
	var p printed
	p.pdf = pdf
	chunks := rePage.Split(string(raw), -1)
	dims := rePage.FindAllStringSubmatch(string(raw), -1)
	for i, d := range dims {
		pg := page{n: i + 1}
		pg.width, _ = strconv.ParseFloat(d[1], 64)
		pg.height, _ = strconv.ParseFloat(d[2], 64)
		for _, m := range reWord.FindAllStringSubmatch(chunks[i+1], -1) {
			var w word
			w.xMin, _ = strconv.ParseFloat(m[1], 64)
			w.yMin, _ = strconv.ParseFloat(m[2], 64)
			w.xMax, _ = strconv.ParseFloat(m[3], 64)
			w.yMax, _ = strconv.ParseFloat(m[4], 64)
			w.text = html.UnescapeString(m[5])
			pg.words = append(pg.words, w)
		}
		pg.sheet = pg.headerSheet()
		p.pages = append(p.pages, pg)
	}
	if keep := os.Getenv("MEMPLAN_KEEP_PAGES"); keep != "" {
		// For a person to look at: the PDF and one PNG per page, outside
		// the repository.
		pngDir := filepath.Join(keep, strings.TrimSuffix(filepath.Base(path), ".xlsx")+"-"+strings.ReplaceAll(t.Name(), "/", "-"))
		if err := os.MkdirAll(pngDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if outp, err := exec.Command("pdftoppm", "-r", "80", "-png", pdf, filepath.Join(pngDir, "page")).CombinedOutput(); err != nil {
			t.Fatalf("pdftoppm: %v\n%s", err, outp)
		}
		if b, err := os.ReadFile(pdf); err != nil || os.WriteFile(filepath.Join(pngDir, "plan.pdf"), b, 0o644) != nil {
			t.Fatalf("keeping %s: %v", pdf, err)
		}
		t.Logf("pages as PNG in %s", pngDir)
	}
	return p
}

// header and footer are the top and bottom lines of the page.
func (p page) header(w word) bool { return w.yMin < p.top()+2 }
func (p page) footer(w word) bool { return w.yMax > p.bottom()-2 }

func (p page) top() float64 {
	y := p.height
	for _, w := range p.words {
		y = math.Min(y, w.yMin)
	}
	return y
}

func (p page) bottom() float64 {
	y := 0.0
	for _, w := range p.words {
		y = math.Max(y, w.yMax)
	}
	return y
}

// headerSheet is the sheet name on the right of the page header.
func (p page) headerSheet() string {
	var line []string
	for _, w := range p.words {
		if p.header(w) && w.xMin > p.width/2 {
			line = append(line, w.text)
		}
	}
	return strings.Join(line, " ")
}

// body is the words between header and footer.
func (p page) body() []word {
	var ws []word
	for _, w := range p.words {
		if !p.header(w) && !p.footer(w) {
			ws = append(ws, w)
		}
	}
	return ws
}

func (p page) text() string {
	var s []string
	for _, w := range p.body() {
		s = append(s, w.text)
	}
	return strings.Join(s, " ")
}

func (p printed) sheetPages(sheet string) []page {
	var ps []page
	for _, pg := range p.pages {
		if pg.sheet == sheet {
			ps = append(ps, pg)
		}
	}
	return ps
}

// overlaps lists the pairs of words on a page that print over one another:
// text that runs into a neighbouring cell, or wrapped lines that a row too
// low pushes into the row below.
func (p page) overlaps() []string {
	ws := p.body()
	var out []string
	for i := range ws {
		for j := i + 1; j < len(ws); j++ {
			a, b := ws[i], ws[j]
			dx := math.Min(a.xMax, b.xMax) - math.Max(a.xMin, b.xMin)
			dy := math.Min(a.yMax, b.yMax) - math.Max(a.yMin, b.yMin)
			// The boxes of consecutive lines overlap by a quarter of their
			// height, words of one line touch; text printed over text
			// shares most of its height and more than a sliver of width.
			if dy > 0.5*math.Min(a.yMax-a.yMin, b.yMax-b.yMin) && dx > 1 {
				out = append(out, fmt.Sprintf("%q over %q at (%.0f,%.0f)", a.text, b.text, a.xMin, a.yMin))
			}
		}
	}
	return out
}

// TestPrintedWorkbook prints each workbook with LibreOffice and checks it
// as a person holding the pages would: every page names the plan, its
// sheet and the date; the Summary is one landscape page; each chart is
// whole on a page of its own; no text prints over other text.
func TestPrintedWorkbook(t *testing.T) {
	for name, out := range lookWorkbooks(t) {
		t.Run(name, func(t *testing.T) {
			_, path := writeAndOpen(t, out)
			p := printWorkbook(t, path)
			counts := map[string]int{}
			for _, pg := range p.pages {
				counts[pg.sheet]++
				all := ""
				for _, w := range pg.words {
					all += w.text + " "
				}
				if !strings.Contains(all, "memplan plan: "+out.Workload) {
					t.Errorf("page %d: the header does not name the plan %q", pg.n, out.Workload)
				}
				if !regexp.MustCompile(`made \d{4}-\d\d-\d\d`).MatchString(all) {
					t.Errorf("page %d: the footer gives no date", pg.n)
				}
				if pg.sheet == "" {
					t.Errorf("page %d: the header names no sheet", pg.n)
				}
				for _, o := range pg.overlaps() {
					t.Errorf("page %d (%s): %s", pg.n, pg.sheet, o)
				}
				// A spreadsheet prints ### for a number its column is too
				// narrow for.
				for _, w := range pg.body() {
					if strings.Contains(w.text, "###") {
						t.Errorf("page %d (%s): a number too wide for its column prints as %s at (%.0f,%.0f)", pg.n, pg.sheet, w.text, w.xMin, w.yMin)
					}
				}
			}
			t.Logf("%d pages: %v", len(p.pages), counts)

			// At 8 pt or more the Summary takes two pages: the verdict and
			// the figures first, power, TCO and the sources second.
			sum := p.sheetPages(sheetSummary)
			if len(sum) != 2 {
				t.Errorf("the Summary prints on %d pages, want 2", len(sum))
			}
			for i, pg := range sum {
				if pg.width <= pg.height {
					t.Errorf("the Summary prints on a portrait page (%.0f x %.0f pt)", pg.width, pg.height)
				}
				wants := []string{"Verdict", "Recommended", "Baseline", "Fleet cost", "Savings"}
				if i == 1 {
					wants = []string{"Power and total cost of ownership", "Where the numbers come from", "memplan version"}
				}
				for _, want := range wants {
					if !strings.Contains(pg.text(), want) {
						t.Errorf("Summary page %d lacks %q", i+1, want)
					}
				}
			}

			charts := p.sheetPages(sheetCharts)
			titles := []string{"Fleet cost against runtime", "Slowdown against the share of memory"}
			axes := []string{"Runtime", "Fit ratio"}
			if len(charts) != len(titles) {
				t.Errorf("the Charts sheet prints on %d pages, want %d (one per chart)", len(charts), len(titles))
			}
			for i, pg := range charts {
				if i >= len(titles) {
					break
				}
				text := pg.text()
				if !strings.Contains(text, titles[i]) || !strings.Contains(text, axes[i]) {
					t.Errorf("Charts page %d does not hold chart %q whole (title and x axis): %.200s", i+1, titles[i], text)
				}
				if pg.width <= pg.height {
					t.Errorf("Charts page %d is portrait", i+1)
				}
			}
		})
	}
}

// TestCostChartReadable: with every configuration at nearly the same
// runtime, the cost-against-runtime chart's axes are chosen from the data
// (not from zero), the recommendation is the last series drawn (on top of
// the points it shares a runtime with), and the tick labels are dark.
func TestCostChartReadable(t *testing.T) {
	out := sameRuntimeOutput(t)
	_, path := writeAndOpen(t, out)
	chart := zipParts(t, path)["xl/charts/chart1.xml"]
	if !strings.Contains(chart, "Fleet cost against runtime") {
		t.Fatalf("chart1.xml is not the cost chart:\n%.300s", chart)
	}
	axes := regexp.MustCompile(`(?s)<(?:c:)?valAx>(.*?)</(?:c:)?valAx>`).FindAllStringSubmatch(chart, -1)
	if len(axes) != 2 {
		t.Fatalf("%d value axes, want 2 (scatter)", len(axes))
	}
	bound := func(ax, which string) (float64, bool) {
		m := regexp.MustCompile(`<(?:c:)?` + which + ` val="([^"]+)"`).FindStringSubmatch(ax)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(m[1], 64)
		return v, err == nil
	}
	// The x axis (runtimes of 7.500 to 7.506 h, the deadline at 8 h).
	lo, okLo := bound(axes[0][1], "min")
	hi, okHi := bound(axes[0][1], "max")
	if !okLo || !okHi || lo < 6 || lo > 7.5 || hi < 8 || hi > 9 {
		t.Errorf("runtime axis from %v to %v (set: %v %v), want about 7.4 to 8.1: from the runtimes and the deadline", lo, hi, okLo, okHi)
	}
	// The cost axis starts near the cheapest fleet, not at zero.
	cheapest := math.Inf(1)
	for _, c := range out.Configurations {
		cheapest = math.Min(cheapest, c.FleetCost.Float())
	}
	if y, ok := bound(axes[1][1], "min"); !ok || y <= 0 || y > cheapest {
		t.Errorf("cost axis starts at %v (set: %v), want between 0 and the cheapest fleet cost %v", y, ok, cheapest)
	}
	for i, ax := range axes {
		if !regexp.MustCompile(`(?s)<(?:c:)?txPr>.*srgbClr val="202020"`).MatchString(ax[1]) {
			t.Errorf("axis %d: tick labels are not drawn dark (no txPr colour 202020)", i+1)
		}
	}
	names := regexp.MustCompile(`(?s)<(?:c:)?ser>.*?<(?:c:)?tx><(?:c:)?strRef><(?:c:)?f>([^<]+)</`).FindAllStringSubmatch(chart, -1)
	if len(names) == 0 {
		t.Fatal("no series names in the chart")
	}
	if last := names[len(names)-1][1]; last != absCell(sheetCharts, hName, hRec) {
		t.Errorf("the last series drawn is named by %s, want the recommendation (%s)", last, absCell(sheetCharts, hName, hRec))
	}
}

// TestNoTextClipped: a text cell that does not wrap either fits its
// column (or merged columns) or runs into empty cells; text stopped by a
// filled neighbour is cut off on screen and on paper, which the printed
// pages cannot show (the cut letters are simply missing). Widths are
// estimated as in the layout, a character per unit of column width, a
// tenth more for bold.
func TestNoTextClipped(t *testing.T) {
	for name, out := range lookWorkbooks(t) {
		f, _ := writeAndOpen(t, out)
		for _, sh := range Sheets() {
			rows, err := f.GetRows(sh)
			if err != nil {
				t.Fatal(err)
			}
			merged := map[string]int{} // top-left cell -> last column
			mcs, err := f.GetMergeCells(sh)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mcs {
				c2, _, _ := excelize.CellNameToCoordinates(m.GetEndAxis())
				merged[m.GetStartAxis()] = c2
			}
			width := func(col int) float64 {
				w, err := f.GetColWidth(sh, colName(col))
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			for r, row := range rows {
				for c, v := range row {
					if v == "" {
						continue
					}
					if _, err := strconv.ParseFloat(strings.ReplaceAll(strings.Fields(v + " x")[0], ",", ""), 64); err == nil {
						continue // a number: shown as ### when too wide, see TestPrintedWorkbook
					}
					ref := cell(c+1, r+1)
					id, err := f.GetCellStyle(sh, ref)
					if err != nil {
						t.Fatal(err)
					}
					style, err := f.GetStyle(id)
					if err != nil {
						t.Fatal(err)
					}
					if style.Alignment != nil && style.Alignment.WrapText {
						continue
					}
					need := float64(len([]rune(v)))
					if style.Font != nil && style.Font.Bold {
						need *= 1.1
						if style.Font.Size > 11 {
							need *= style.Font.Size / 11
						}
					}
					last := c + 1
					if l, ok := merged[ref]; ok {
						last = l
					}
					room := 0.0
					for x := c + 1; x <= last; x++ {
						room += width(x)
					}
					// Spill over empty neighbours up to the next filled cell.
					next := last + 1
					for ; next <= len(row) && row[next-1] == ""; next++ {
						room += width(next)
					}
					if next <= len(row) && need > room {
						t.Errorf("%s: %s!%s %q needs about %.0f characters, has %.0f before %s", name, sh, ref, v, need, room, cell(next, r+1))
					}
				}
			}
		}
	}
}
