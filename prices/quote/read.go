package quote

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Workbook is a quote as read from disk: one table per sheet (a CSV file is
// one sheet with an empty name).
type Workbook struct {
	File   string
	Sheets []*Table
}

// Table is the grid of one sheet. Text[i] is sheet row i+1 as displayed
// (number formats applied, so "$1,234.56" keeps its currency symbol); Raw,
// when not nil, holds the same cells unformatted (1234.56), which is what
// amounts are read from. Merged ranges carry their value in every cell they
// cover, so a header merged over two columns labels both.
type Table struct {
	Sheet string
	Text  [][]string
	Raw   [][]string
	// Delimiter is the CSV field separator detected (0 for xlsx).
	Delimiter rune
	// Dates is set for xlsx, whose raw date cells are serial day numbers.
	Dates bool
	// Merged maps each cell a merged range covers, other than its top-left
	// one, to the top-left cell ({row, column}, 1-based): its value is a
	// copy, which may belong to another row.
	Merged map[[2]int][2]int
	// Formulas holds the formula of each cell that has one but no saved
	// value (written by a program that does not calculate, and never
	// opened and saved in a spreadsheet program since), by {row, column}.
	Formulas map[[2]int]string
	// Encoding names the text encoding a CSV was read in when it is not
	// UTF-8 ("UTF-16LE (byte-order mark)"); empty for UTF-8 and xlsx.
	Encoding string
}

// Width is the number of columns the widest row uses.
func (t *Table) Width() int {
	w := 0
	for _, r := range t.Text {
		w = max(w, len(r))
	}
	return w
}

// cell returns the displayed text of a 1-based row and column.
func (t *Table) cell(row, col int) string {
	return at(t.Text, row, col)
}

// raw returns the unformatted value of a cell (the text for CSV).
func (t *Table) raw(row, col int) string {
	if t.Raw == nil {
		return t.cell(row, col)
	}
	return at(t.Raw, row, col)
}

func at(g [][]string, row, col int) string {
	if row < 1 || row > len(g) || col < 1 || col > len(g[row-1]) {
		return ""
	}
	return strings.TrimSpace(g[row-1][col-1])
}

// ReadFile reads an .xlsx or .csv quote, chosen by the file's extension.
func ReadFile(path string) (*Workbook, error) {
	return ReadFileContext(context.Background(), path)
}

// ReadFileContext reads an .xlsx or .csv quote (a regular file of at most
// inputfile.QuoteLimit bytes); cancelling ctx stops the read.
func ReadFileContext(ctx context.Context, path string) (*Workbook, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx", ".xlsm":
		data, err := inputfile.Read(ctx, path, inputfile.QuoteLimit)
		if err != nil {
			return nil, fmt.Errorf("reading quote: %w", err)
		}
		return ReadXLSX(path, bytes.NewReader(data))
	case ".csv", ".txt", ".tsv":
		data, err := inputfile.Read(ctx, path, inputfile.QuoteLimit)
		if err != nil {
			return nil, fmt.Errorf("reading quote: %w", err)
		}
		return ReadCSV(path, data)
	case ".xls":
		return nil, &yamlx.InputError{File: path, Msg: "the old binary .xls format is not supported", Hint: "save it as .xlsx or .csv from the spreadsheet program"}
	}
	return nil, &yamlx.InputError{File: path, Msg: "unknown file type " + filepath.Ext(path), Hint: "memplan reads .xlsx and .csv quotes"}
}

// ReadXLSX reads every sheet of a workbook. name is used in messages.
func ReadXLSX(name string, r io.Reader) (*Workbook, error) {
	f, err := excelize.OpenReader(r)
	if err != nil {
		return nil, &yamlx.InputError{File: name, Msg: "not a readable .xlsx workbook: " + err.Error()}
	}
	defer f.Close()
	wb := &Workbook{File: name}
	for _, sh := range f.GetSheetList() {
		text, err := f.GetRows(sh)
		if err != nil {
			// Chart sheets and dialog sheets have no rows.
			continue
		}
		raw, err := f.GetRows(sh, excelize.Options{RawCellValue: true})
		if err != nil {
			raw = text
		}
		t := &Table{Sheet: sh, Text: text, Raw: raw, Dates: true}
		merges, err := f.GetMergeCells(sh)
		if err != nil {
			return nil, &yamlx.InputError{File: name, Msg: fmt.Sprintf("sheet %q: reading merged cells: %v", sh, err)}
		}
		for _, m := range merges {
			if err := t.fillMerge(m.GetStartAxis(), m.GetEndAxis()); err != nil {
				return nil, &yamlx.InputError{File: name, Msg: fmt.Sprintf("sheet %q: merged range %s:%s: %v", sh, m.GetStartAxis(), m.GetEndAxis(), err)}
			}
		}
		// After the merges: a covered cell reads its range's formula.
		t.Formulas = unsavedFormulas(f, sh, t)
		wb.Sheets = append(wb.Sheets, t)
	}
	if len(wb.Sheets) == 0 {
		return nil, &yamlx.InputError{File: name, Msg: "the workbook has no worksheets"}
	}
	return wb, nil
}

// fillMerge copies the top-left value of a merged range into every cell it
// covers (excelize reports the value only at the top-left).
func (t *Table) fillMerge(start, end string) error {
	c1, r1, err := excelize.CellNameToCoordinates(start)
	if err != nil {
		return err
	}
	c2, r2, err := excelize.CellNameToCoordinates(end)
	if err != nil {
		return err
	}
	text, raw := at(t.Text, r1, c1), at(t.Raw, r1, c1)
	for r := r1; r <= r2; r++ {
		for c := c1; c <= c2; c++ {
			t.Text = set(t.Text, r, c, text)
			t.Raw = set(t.Raw, r, c, raw)
			if r != r1 || c != c1 {
				if t.Merged == nil {
					t.Merged = map[[2]int][2]int{}
				}
				t.Merged[[2]int{r, c}] = [2]int{r1, c1}
			}
		}
	}
	return nil
}

// unsavedFormulas finds the cells of a sheet that hold a formula but no
// value: they read as empty, and the import must not call them blank.
func unsavedFormulas(f *excelize.File, sheet string, t *Table) map[[2]int]string {
	var out map[[2]int]string
	w := min(t.Width(), headerMaxCols)
	for r := 1; r <= len(t.Text); r++ {
		for c := 1; c <= w; c++ {
			if at(t.Raw, r, c) != "" || at(t.Text, r, c) != "" {
				continue
			}
			name, err := excelize.CoordinatesToCellName(c, r)
			if err != nil {
				continue
			}
			if fx, err := f.GetCellFormula(sheet, name); err == nil && fx != "" {
				if out == nil {
					out = map[[2]int]string{}
				}
				out[[2]int{r, c}] = fx
			}
		}
	}
	return out
}

func set(g [][]string, row, col int, v string) [][]string {
	if v == "" {
		return g
	}
	for len(g) < row {
		g = append(g, nil)
	}
	for len(g[row-1]) < col {
		g[row-1] = append(g[row-1], "")
	}
	g[row-1][col-1] = v
	return g
}

// ReadCSV reads a CSV export. The delimiter (comma, semicolon or tab) is
// detected; a UTF-8 byte-order mark is dropped, UTF-16 (Excel's "Unicode
// text", with a byte-order mark or recognised by its zero bytes) is
// decoded, and other text that is not UTF-8 is read as Windows-1252, which
// is what spreadsheet programs write in Western Europe.
func ReadCSV(name string, data []byte) (*Workbook, error) {
	data, enc, err := decodeText(name, data)
	if err != nil {
		return nil, err
	}
	if enc == "" && !utf8.Valid(data) {
		dec, err := charmap.Windows1252.NewDecoder().Bytes(data)
		if err == nil {
			data = dec
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &yamlx.InputError{File: name, Msg: "file is empty"}
	}
	best, bestRows := rune(0), [][]string(nil)
	bestMode, bestHits, bestSplits := 0, 0, 0
	for _, d := range []rune{',', ';', '\t'} {
		rows, err := readCSV(data, d)
		if err != nil {
			continue
		}
		mode, hits := modeWidth(rows)
		// A separator between two digits is more likely a decimal comma
		// than a field boundary: the tie-breaker for 1.234,56 files.
		splits := len(regexp.MustCompile(`[0-9]`+regexp.QuoteMeta(string(d))+`[0-9]`).FindAll(data, -1))
		if mode > bestMode || mode == bestMode && (hits > bestHits || hits == bestHits && splits < bestSplits) {
			best, bestRows, bestMode, bestHits, bestSplits = d, rows, mode, hits, splits
		}
	}
	if best == 0 || bestMode < 2 {
		return nil, &yamlx.InputError{File: name, Msg: "could not find columns: no comma, semicolon or tab separates the fields", Hint: "export the quote as CSV or .xlsx"}
	}
	return &Workbook{File: name, Sheets: []*Table{{Text: bestRows, Delimiter: best, Encoding: enc}}}, nil
}

// decodeText turns UTF-16 text into UTF-8 and drops a UTF-8 byte-order
// mark. enc names the encoding read when it was not UTF-8. UTF-32, which
// no spreadsheet program writes by default, is refused by name.
func decodeText(name string, data []byte) (out []byte, enc string, err error) {
	var order unicode.Endianness
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return data[3:], "", nil
	case bytes.HasPrefix(data, []byte("\xff\xfe\x00\x00")), bytes.HasPrefix(data, []byte("\x00\x00\xfe\xff")):
		return nil, "", &yamlx.InputError{File: name, Msg: "the file is UTF-32 text, which memplan does not read", Hint: "save it as CSV UTF-8 (or UTF-16) from the spreadsheet program"}
	case bytes.HasPrefix(data, []byte("\xff\xfe")):
		order, enc, data = unicode.LittleEndian, "UTF-16LE (byte-order mark)", data[2:]
	case bytes.HasPrefix(data, []byte("\xfe\xff")):
		order, enc, data = unicode.BigEndian, "UTF-16BE (byte-order mark)", data[2:]
	default:
		// Without a byte-order mark, UTF-16 text in a Latin script is
		// every other byte zero: the high byte of each character.
		var even, odd int
		n := min(len(data), 4096) &^ 1
		for i := 0; i < n; i++ {
			if data[i] == 0 {
				if i%2 == 0 {
					even++
				} else {
					odd++
				}
			}
		}
		switch {
		case n >= 4 && odd*3 > n && even == 0:
			order, enc = unicode.LittleEndian, "UTF-16LE (no byte-order mark; recognised by its zero bytes)"
		case n >= 4 && even*3 > n && odd == 0:
			order, enc = unicode.BigEndian, "UTF-16BE (no byte-order mark; recognised by its zero bytes)"
		default:
			return data, "", nil
		}
	}
	if len(data)%2 != 0 {
		return nil, "", &yamlx.InputError{File: name, Msg: fmt.Sprintf("the file is %s text but has an odd number of bytes: it is cut short or not UTF-16", strings.Fields(enc)[0]), Hint: "export the quote again as CSV UTF-8"}
	}
	dec, err := unicode.UTF16(order, unicode.IgnoreBOM).NewDecoder().Bytes(data)
	if err != nil {
		return nil, "", &yamlx.InputError{File: name, Msg: fmt.Sprintf("reading the file as %s: %v", enc, err), Hint: "export the quote again as CSV UTF-8"}
	}
	return dec, enc, nil
}

func readCSV(data []byte, delim rune) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	// encoding/csv skips blank lines; each record is put at the line it
	// starts on (blank lines become empty rows), so that row numbers in
	// messages are the file's line numbers.
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := r.FieldPos(0)
		for len(rows) < line-1 {
			rows = append(rows, []string{})
		}
		rows = append(rows, rec)
	}
}

// modeWidth returns the most common number of non-empty-trimmed fields per
// non-blank row, and how many rows have it. The delimiter that splits the
// most rows into the most fields is the real one: a semicolon file split at
// commas yields only the halves of its decimal numbers.
func modeWidth(rows [][]string) (mode, hits int) {
	count := map[int]int{}
	for _, r := range rows {
		w := len(r)
		for w > 0 && strings.TrimSpace(r[w-1]) == "" {
			w--
		}
		if w > 1 {
			count[w]++
		}
	}
	for w, n := range count {
		if n > hits || n == hits && w > mode {
			mode, hits = w, n
		}
	}
	return mode, hits
}
