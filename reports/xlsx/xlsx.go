package xlsx

import (
	"archive/zip"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/workload/backtest"
	"github.com/xuri/excelize/v2"
)

// Options control how Write treats the destination.
type Options struct {
	// Force overwrites an existing file.
	Force bool
	// Made is the date printed in every page footer; zero means today.
	Made time.Time
	// Backtest adds the Backtest and Backtest jobs sheets after Charts:
	// the replay of recorded jobs against one of the configurations.
	Backtest *backtest.Result
}

// Sheet names, in workbook order.
const (
	sheetSummary     = "Summary"
	sheetConfigs     = "Configurations"
	sheetBOM         = "Bill of materials"
	sheetSensitivity = "Sensitivity"
	sheetDIMMs       = "DIMMs"
	sheetDrives      = "Drives"
	sheetPlatforms   = "Platforms"
	sheetSlowdown    = "Slowdown"
	sheetCharts      = "Charts"
)

// Sheets lists the sheets of a workbook in order.
func Sheets() []string {
	return []string{sheetSummary, sheetConfigs, sheetBOM, sheetSensitivity, sheetDIMMs, sheetDrives, sheetPlatforms, sheetSlowdown, sheetCharts}
}

// ErrEmpty marks a result with nothing to put in a workbook.
var ErrEmpty = errors.New("the result lists no configurations")

// Write builds the workbook for out and writes it to path through a
// temporary file in the same directory and a rename, so that a failure
// never leaves a partial workbook. It refuses an existing file unless
// opts.Force is set; that error wraps fs.ErrExist.
func Write(path string, out reports.Output, opts Options) (err error) {
	if err := CheckPath(path, opts); err != nil {
		return err
	}
	f, err := build(out, opts)
	if err != nil {
		return err
	}
	defer f.Close()

	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return writeError(path, dir, err)
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			os.Remove(name)
		}
	}()
	if _, err = f.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Chmod(name, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Someone may have created the file while the workbook was built.
	if !opts.Force && exists(path) {
		return &existsError{path}
	}
	if err = os.Rename(name, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// CheckPath reports what Write would refuse before any work is done: a
// name without the .xlsx extension, or an existing file without
// opts.Force.
func CheckPath(path string, opts Options) error {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".xlsx" {
		return fmt.Errorf("%s: an Excel workbook needs the .xlsx extension (Excel refuses to open one named otherwise); try %s", path, strings.TrimSuffix(path, filepath.Ext(path))+".xlsx")
	}
	if !opts.Force && exists(path) {
		return &existsError{path}
	}
	return nil
}

// existsError is Write's refusal to replace a file; errors.Is matches it
// with fs.ErrExist.
type existsError struct{ path string }

func (e *existsError) Error() string        { return e.path + " exists; use --force to overwrite it" }
func (e *existsError) Is(target error) bool { return target == fs.ErrExist }

// writeError says which directory could not take the file and why, in
// words a person can act on.
func writeError(path, dir string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: directory %s does not exist; create it or choose another path", path, dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot write %s: no permission to create files in %s; choose another path", path, dir)
	}
	return fmt.Errorf("cannot write %s: %w", path, err)
}

// Build lays out the workbook in memory. Callers own the file and must
// Close it.
func Build(out reports.Output) (*excelize.File, error) { return build(out, Options{}) }

func build(out reports.Output, opts Options) (*excelize.File, error) {
	b, err := newBook(out)
	if err != nil {
		return nil, err
	}
	b.bt = opts.Backtest
	made := opts.Made
	if made.IsZero() {
		made = time.Now()
	}
	b.made = made.Format("2006-01-02")
	f := excelize.NewFile()
	f.SetZipWriter(fastZip)
	b.f = f
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	if err := b.build(); err != nil {
		return nil, fmt.Errorf("building the workbook: %w", err)
	}
	ok = true
	return f, nil
}

// fastZip packs the workbook's parts with deflate at its fastest level
// instead of the default one. The parts are the same; the file is about
// 30% larger (5.7 MB against 4.4 MB for 10,000 configurations), and
// compressing, a third of the time a large workbook took at the default
// level, takes less than half as long.
func fastZip(w io.Writer) excelize.ZipWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		if fw, ok := flaters.Get().(*flate.Writer); ok {
			fw.Reset(out)
			return pooledFlater{fw}, nil
		}
		fw, err := flate.NewWriter(out, flate.BestSpeed)
		return pooledFlater{fw}, err
	})
	return zw
}

// flaters keeps the compressors of earlier parts: each takes about a
// megabyte to set up, and a workbook has some thirty parts. (archive/zip
// pools its own default compressors the same way.)
var flaters sync.Pool

type pooledFlater struct{ *flate.Writer }

func (p pooledFlater) Close() error {
	err := p.Writer.Close()
	flaters.Put(p.Writer)
	return err
}

// book is one workbook under construction.
type book struct {
	f       *excelize.File
	out     reports.Output
	cur     string
	rows    []reports.Configuration // listed configurations in sheet order (see order)
	tiers   [4]span                 // row spans on the Configurations sheet per tier (1..3)
	rank    rankKeys
	parts   catalog
	st      styles
	classes []classSpan // rows of each device class's points on the Slowdown sheet
	// The power parameters on the Summary sheet, as the result gives them.
	elec, pue, hours float64
	rankBy           string
	made             string            // the date in the page footers
	cfgRows          [][]excelize.Cell // the Configurations sheet's cells, by row (see configValue)
	bt               *backtest.Result
}

// span is a range of sheet rows, first..last inclusive; empty when last < first.
type span struct{ first, last int }

func (s span) empty() bool { return s.last < s.first }

func (s span) rows() int { return max(0, s.last-s.first+1) }

func newBook(out reports.Output) (*book, error) {
	if out.Currency == "" {
		return nil, errors.New("the result has no currency; every amount in a workbook needs one")
	}
	// The listed configurations, plus the recommended and baseline ones
	// wherever they rank (a --top cut may have left them out of the list).
	rows := append([]reports.Configuration{}, out.Configurations...)
	have := map[string]bool{}
	for _, c := range rows {
		have[c.ID] = true
	}
	for _, c := range []*reports.Configuration{out.Recommended, out.Baseline} {
		if c != nil && !have[c.ID] {
			rows = append(rows, *c)
			have[c.ID] = true
		}
	}
	if len(rows) == 0 {
		return nil, ErrEmpty
	}
	b := &book{out: out, cur: out.Currency}
	b.rows, b.rank = order(rows)
	for t := range b.tiers {
		b.tiers[t] = span{1, 0}
	}
	for i, c := range b.rows {
		r, t := i+2, tier(c)
		if b.tiers[t].empty() {
			b.tiers[t] = span{r, r}
		}
		b.tiers[t].last = r
	}
	b.elec, b.pue, b.hours, b.rankBy = 0, model.DefaultPUE, out.HorizonYears*365*24, out.RankBy
	if t := out.TCO; t != nil {
		b.elec, b.pue, b.hours = t.ElectricityPerKWh, t.PUE, t.HorizonHours
	}
	if b.rankBy == "" {
		b.rankBy = model.RankCapital
	}
	var err error
	if b.parts, err = collectParts(b.rows); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *book) build() error {
	f := b.f
	if err := f.SetSheetName("Sheet1", sheetSummary); err != nil {
		return err
	}
	for _, s := range Sheets()[1:] {
		if _, err := f.NewSheet(s); err != nil {
			return err
		}
	}
	var err error
	if b.st, err = newStyles(f, b.cur); err != nil {
		return err
	}
	steps := []func() error{
		b.catalogSheets, b.configurations, b.summary, b.billOfMaterials, b.sensitivity, b.slowdown, b.charts, b.backtestSheets, b.properties,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	// Summary, the first sheet, is the active one already. SetActiveSheet
	// would re-read every streamed sheet to clear its selection flag.
	return nil
}

// properties marks the workbook for a full recalculation when it is
// opened. The formula cells carry their values at the result's prices, for
// viewers that do not calculate; a spreadsheet that trusted them after a
// price edit made elsewhere (by a script, say) would show stale totals.
func (b *book) properties() error {
	yes, auto := true, "auto"
	if err := b.f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &yes, CalcMode: &auto}); err != nil {
		return err
	}
	return b.f.SetDocProps(&excelize.DocProperties{
		Title:       "memplan plan: " + b.out.Workload,
		Subject:     "Server memory and swap configurations ranked by cost",
		Creator:     "memplan " + b.out.MemplanVersion,
		Description: "Costs are formulas over the unit prices on the DIMMs, Drives and Platforms sheets.",
	})
}

// cell names a cell from 1-based column and row numbers.
func cell(col, row int) string {
	if row < 1 || row > excelize.TotalRows {
		panic(fmt.Sprintf("row %d out of range", row)) // rows are this package's own
	}
	return colName(col) + strconv.Itoa(row)
}

// colNames are the letters of the first columns, computed once: cell and
// colName run for every formula of every row.
var colNames = func() []string {
	names := make([]string, 64)
	for c := 1; c < len(names); c++ {
		names[c], _ = excelize.ColumnNumberToName(c)
	}
	return names
}()

// colName is the letter(s) of a 1-based column.
func colName(col int) string {
	if col > 0 && col < len(colNames) {
		return colNames[col]
	}
	name, err := excelize.ColumnNumberToName(col)
	if err != nil {
		panic(err) // columns are constants of this package
	}
	return name
}

// absRange is Sheet!$C$first:$C$last, quoting the sheet name as needed.
func absRange(sheet string, col, first, last int) string {
	c := colName(col)
	return fmt.Sprintf("%s!$%s$%d:$%s$%d", sheetRef(sheet), c, first, c, last)
}

func absCell(sheet string, col, row int) string {
	return fmt.Sprintf("%s!$%s$%d", sheetRef(sheet), colName(col), row)
}

func sheetRef(sheet string) string {
	if strings.ContainsAny(sheet, " -'") {
		return "'" + strings.ReplaceAll(sheet, "'", "''") + "'"
	}
	return sheet
}

// str quotes s as a formula string literal.
func str(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (b *book) define(name, refersTo, comment string) error {
	return b.f.SetDefinedName(&excelize.DefinedName{Name: name, RefersTo: refersTo, Comment: comment})
}
