package xlsx

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// writer lays out one sheet as a list of cells and streams it in row
// order when flushed. It keeps the first error, so that a layout reads as
// a list of cells.
//
// It streams rather than setting cells one by one because only excelize's
// stream writer stores a formula together with its cached value (<f> and
// <v>): every other setter drops the formula when it writes a value. The
// cached values are what a viewer that does not recalculate shows (a mail
// preview, a web viewer, a script reading the file).
//
// It also sizes rows: a wrapped cell's row grows to the lines its text
// needs in the cell's width (merged columns added up), because neither
// Excel nor LibreOffice grows a row with merged cells by itself.
type writer struct {
	f       *excelize.File
	sheet   string
	wraps   map[int]bool // styles that wrap their text
	prose   map[int]bool // of those, the ones for running text
	rows    [][]slot     // by row, then column (1-based; index 0 unused)
	widths  map[int]float64
	heights map[int]float64 // explicit minimum row heights
	merges  [][4]int        // col1, row1, col2, row2
	err     error
}

// Column width and row height defaults of a new sheet.
const (
	defaultWidth = 9.140625
	lineHeight   = 15.0 // points per line of 11 pt text
)

func (b *book) newWriter(sheet string) *writer {
	return &writer{f: b.f, sheet: sheet, wraps: map[int]bool{b.st.wrap: true, b.st.header: true, b.st.label: true, b.st.prose: true},
		prose:  map[int]bool{b.st.prose: true},
		widths: map[int]float64{}, heights: map[int]float64{}}
}

// slot is one cell of the layout; ok marks it set.
type slot struct {
	excelize.Cell
	ok bool
}

func (w *writer) put(col, row int, c excelize.Cell) {
	if row >= len(w.rows) {
		w.rows = append(w.rows, make([][]slot, row+1-len(w.rows))...)
	}
	if col >= len(w.rows[row]) {
		w.rows[row] = append(w.rows[row], make([]slot, col+1-len(w.rows[row]))...)
	}
	w.rows[row][col] = slot{c, true}
}

// get is the cell set at col, row.
func (w *writer) get(col, row int) (excelize.Cell, bool) {
	if row < len(w.rows) && col < len(w.rows[row]) && w.rows[row][col].ok {
		return w.rows[row][col].Cell, true
	}
	return excelize.Cell{}, false
}

// each calls fn for every cell set, row by row, left to right.
func (w *writer) each(fn func(col, row int, c excelize.Cell)) {
	for r, cols := range w.rows {
		for c, x := range cols {
			if x.ok {
				fn(c, r, x.Cell)
			}
		}
	}
}

// filled reports whether row has a cell set.
func (w *writer) filled(row int) bool {
	if row < len(w.rows) {
		for _, x := range w.rows[row] {
			if x.ok {
				return true
			}
		}
	}
	return false
}

// set writes a value.
func (w *writer) set(col, row int, v any, style int) {
	w.put(col, row, excelize.Cell{Value: v, StyleID: style})
}

// formula writes a formula with the value it has at the prices in the
// result (its cached value). v is a number or a string, as the formula
// returns; the LibreOffice test checks every one against Calc's own.
func (w *writer) formula(col, row int, fm string, v any, style int) {
	w.put(col, row, excelize.Cell{Formula: fm, Value: v, StyleID: style})
}

// width sets a column's width in characters.
func (w *writer) width(col int, width float64) {
	if w.err != nil {
		return
	}
	w.widths[col] = width
	w.err = w.f.SetColWidth(w.sheet, colName(col), colName(col), width)
}

// height sets a row's minimum height in points.
func (w *writer) height(row int, h float64) { w.heights[row] = max(w.heights[row], h) }

// merge joins the cells col1..col2 of one row.
func (w *writer) merge(col1, col2, row int) {
	w.merges = append(w.merges, [4]int{col1, row, col2, row})
}

func (w *writer) colWidth(col int) float64 {
	if v, ok := w.widths[col]; ok {
		return v
	}
	return defaultWidth
}

// rowHeight is the height row needs: its explicit minimum, or the lines of
// its tallest wrapped cell.
func (w *writer) rowHeight(row int, spans map[[2]int]int) float64 {
	lines := 1
	var cols []slot
	if row < len(w.rows) {
		cols = w.rows[row]
	}
	for col, c := range cols {
		if !c.ok || !w.wraps[c.StyleID] {
			continue
		}
		s, ok := c.Value.(string)
		if !ok {
			continue
		}
		width := w.colWidth(col)
		if last, ok := spans[[2]int{col, row}]; ok {
			for x := col + 1; x <= last; x++ {
				width += w.colWidth(x)
			}
		}
		if w.prose[c.StyleID] {
			// Running text in lower case averages about 0.75 of the
			// width unit (a digit) in Calibri; 0.85 leaves room for
			// capitals and digits.
			width /= 0.85
		}
		lines = max(lines, wrappedLines(s, width))
	}
	h := w.heights[row]
	if lines > 1 {
		h = max(h, float64(lines)*lineHeight+2)
	}
	return min(h, excelize.MaxRowHeight)
}

// wrappedLines counts the lines s takes when wrapped at word boundaries in
// a column width characters wide. The column width unit is the width of a
// digit; in Calibri ordinary text averages a little narrower, bold text
// about as wide, and a cell keeps a margin, so a line holds about a
// character fewer than the width.
func wrappedLines(s string, width float64) int {
	perLine := max(1, int(math.Floor(width-1)))
	lines := 0
	for _, para := range strings.Split(s, "\n") {
		n, used := 1, 0
		for _, word := range strings.Fields(para) {
			l := utf8.RuneCountInString(word)
			switch {
			case used == 0:
				used = l
			case used+1+l <= perLine:
				used += 1 + l
			default:
				n++
				used = l
			}
			for used > perLine { // a word longer than a line breaks anywhere
				n++
				used -= perLine
			}
		}
		lines += n
	}
	return max(lines, 1)
}

// dimension is the range the cells occupy, "A1" for an empty sheet.
func (w *writer) dimension() string {
	maxCol, maxRow := 1, 1
	w.each(func(c, r int, _ excelize.Cell) { maxCol, maxRow = max(maxCol, c), max(maxRow, r) })
	for _, m := range w.merges {
		maxCol, maxRow = max(maxCol, m[2]), max(maxRow, m[3])
	}
	if maxCol == 1 && maxRow == 1 {
		return "A1"
	}
	return "A1:" + cell(maxCol, maxRow)
}

// flush streams the sheet. Everything set on the sheet through the file
// before (column widths, panes, data validation, charts, page setup) is
// kept; tables are added once their header row is written.
func (w *writer) flush(tables ...*excelize.Table) error {
	if w.err != nil {
		return w.err
	}
	if err := w.f.SetSheetDimension(w.sheet, w.dimension()); err != nil {
		return err
	}
	sw, err := w.f.NewStreamWriter(w.sheet)
	if err != nil {
		return err
	}
	spans := map[[2]int]int{}
	for _, m := range w.merges {
		spans[[2]int{m[0], m[1]}] = m[2]
	}
	// The rows with cells, and the empty ones given a height.
	rows := make([]int, 0, len(w.rows))
	for r := range w.rows {
		if w.filled(r) {
			rows = append(rows, r)
		}
	}
	for r := range w.heights {
		if !w.filled(r) {
			rows = append(rows, r)
		}
	}
	sort.Ints(rows)
	var vals []any
	for _, r := range rows {
		// Pointers into the layout: the stream writer takes *Cell as
		// it takes Cell, without a copy on the heap per cell.
		vals = vals[:0]
		if r < len(w.rows) {
			cols := w.rows[r]
			last := len(cols) - 1
			for last > 0 && !cols[last].ok {
				last--
			}
			for c := 1; c <= last; c++ {
				if cols[c].ok {
					vals = append(vals, &cols[c].Cell)
				} else {
					vals = append(vals, nil)
				}
			}
		}
		if err := sw.SetRow(cell(1, r), vals, excelize.RowOpts{Height: w.rowHeight(r, spans)}); err != nil {
			return err
		}
	}
	for _, m := range w.merges {
		if err := sw.MergeCell(cell(m[0], m[1]), cell(m[2], m[3])); err != nil {
			return err
		}
	}
	for _, t := range tables {
		if err := sw.AddTable(t); err != nil {
			return err
		}
	}
	return sw.Flush()
}

// printScale is the scale at which the sheet's columns print across the
// page width (see printScale): every column up to the last one holding a
// cell or a merge or given a width.
func (w *writer) printScale() int {
	last := 1
	w.each(func(c, _ int, _ excelize.Cell) { last = max(last, c) })
	for _, m := range w.merges {
		last = max(last, m[2])
	}
	for c := range w.widths { // a sheet's layout: its text may spill into them
		last = max(last, c)
	}
	widths := make([]float64, 0, last)
	for c := 1; c <= last; c++ {
		widths = append(widths, w.colWidth(c))
	}
	return printScale(widths...)
}

// flushPrinted sets up the sheet's printing for the columns it fills (see
// pageSetup) and streams it.
func (b *book) flushPrinted(w *writer, tables ...*excelize.Table) error {
	if w.err != nil {
		return w.err
	}
	if err := b.pageSetup(w.sheet, pageSheet, w.printScale()); err != nil {
		return err
	}
	return w.flush(tables...)
}
