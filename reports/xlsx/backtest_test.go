package xlsx

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/workload/acct"
	"github.com/memplan/memplan/workload/backtest"
	"github.com/xuri/excelize/v2"
)

// backtestResult replays the backtest package's synthetic history on a
// made-up plan (its slowdown 1 + (1-fit)/fit, none below a fit of 0.5)
// that is too small for the tails of both classes, keeping at most keep
// jobs.
func backtestResult(t *testing.T, keep int) *backtest.Result {
	t.Helper()
	const path = "../../workload/backtest/testdata/history.txt"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := acct.NewSlurm(path, f)
	if err != nil {
		t.Fatal(err)
	}
	slow := func(fit float64) (float64, bool, string) {
		if fit < 0.5 {
			return 0, false, "fit ratio far below any measured point"
		}
		return 1 + (1-fit)/fit, true, ""
	}
	plan := backtest.Plan{Config: "test/config", Label: "test configuration", Keep: keep, Classes: []backtest.Class{
		{Name: "sim", Held: 14.5 * gib, Swap: 8 * gib, Deadline: 2*time.Hour + 31*time.Minute + 40*time.Second, Footprint: 14.5 * gib, Slowdown: slow},
		{Name: "sta_signoff", Held: 300 * gib, Swap: 100 * gib, Deadline: 10 * time.Hour, Footprint: 414.1 * gib, Slowdown: slow},
	}}
	r, err := backtest.Run(src, "history.txt", "name", plan, false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeBacktest(t *testing.T, r *backtest.Result) *excelize.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.xlsx")
	if err := Write(path, intelOutput(t, 0, nil), Options{Backtest: r}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func cellNumber(t *testing.T, f *excelize.File, sheet, ref string) float64 {
	t.Helper()
	v, err := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s!%s = %q, not a number", sheet, ref, v)
	}
	return x
}

// The Backtest sheet gives each class's replayed jobs and misses as the
// backtest counted them (the cached values a viewer shows), the misses as
// formulas over the job rows, and the job rows one per replayed job.
func TestBacktestSheetValuesAndFormulas(t *testing.T) {
	r := backtestResult(t, BacktestJobs)
	f := writeBacktest(t, r)
	if got, want := strings.Join(f.GetSheetList(), ","), strings.Join(append(Sheets(), sheetBacktest, sheetBacktestJobs), ","); got != want {
		t.Fatalf("sheets %s, want %s", got, want)
	}
	jobRow := 2
	for i, c := range r.Classes {
		row := btFirst + i
		if got, _ := f.GetCellValue(sheetBacktest, cell(btClass, row)); got != c.Name {
			t.Errorf("row %d class %q, want %q", row, got, c.Name)
		}
		for _, x := range []struct {
			col  int
			want float64
		}{{btJobs, float64(c.Completed)}, {btMissPlan, float64(c.Missed)}, {btMissRan, float64(c.LateInRAM)},
			{btDeadline, exact(c.Deadline / 3600)}, {btRAM, exact(c.Held / gib)}, {btNoFit, float64(c.NoFit)}} {
			if got := cellNumber(t, f, sheetBacktest, cell(x.col, row)); got != x.want {
				t.Errorf("%s: %s = %v, want %v", c.Name, cell(x.col, row), got, x.want)
			}
		}
		first, last := jobRow, jobRow+c.Completed-1
		for col, want := range map[int]string{
			btMissPlan:  fmt.Sprintf("SUM('Backtest jobs'!$J$%d:$J$%d)", first, last),
			btMissRan:   fmt.Sprintf("SUM('Backtest jobs'!$K$%d:$K$%d)", first, last),
			btSharePlan: fmt.Sprintf("IF(B%d=0,0,J%d/B%d)", row, row, row),
		} {
			if got := formulaOf(f, sheetBacktest, cell(col, row)); got != want {
				t.Errorf("%s: %s formula %q, want %q", c.Name, cell(col, row), got, want)
			}
		}
		// The job rows: class, formulas reading the class's RAM and deadline.
		if got, _ := f.GetCellValue(sheetBacktestJobs, cell(bjClass, last)); got != c.Name {
			t.Errorf("%s: last job row %d is of class %q", c.Name, last, got)
		}
		for col, want := range map[int]string{
			bjFit:      fmt.Sprintf("MIN(1,Backtest!$C$%d/D%d)", row, first),
			bjMissPlan: fmt.Sprintf("IF(ISNUMBER(I%d),IF(I%d>Backtest!$E$%d,1,0),1)", first, first, row),
			bjMissRan:  fmt.Sprintf("IF(E%d>Backtest!$E$%d,1,0)", first, row),
		} {
			if got := formulaOf(f, sheetBacktestJobs, cell(col, first)); got != want {
				t.Errorf("%s: jobs %s formula %q, want %q", c.Name, cell(col, first), got, want)
			}
		}
		jobRow = last + 1
		// The cached values agree with the spreadsheet's own calculation.
		for _, col := range []int{btMissPlan, btMissRan} {
			if got := calc(t, f, sheetBacktest, cell(col, row)); got != strconv.Itoa(int(cellNumber(t, f, sheetBacktest, cell(col, row)))) {
				t.Errorf("%s: %s calculates to %s, cached %v", c.Name, cell(col, row), got, cellNumber(t, f, sheetBacktest, cell(col, row)))
			}
		}
	}
	// The synthetic plan is too small: sim misses on it where it did not as it ran.
	if sim := r.Classes[0]; sim.Missed <= sim.LateInRAM {
		t.Fatalf("sim misses %d on the plan, %d as it ran: the fixture no longer shows a plan too small", sim.Missed, sim.LateInRAM)
	}
	if rows, _ := f.GetRows(sheetBacktestJobs); len(rows) != jobRow-1 {
		t.Errorf("Backtest jobs has %d rows, want a header and %d jobs", len(rows), jobRow-2)
	}
}

// A buyer who edits a class's deadline sees both miss counts follow:
// a deadline of a few minutes makes every job miss on the plan and as it
// ran; a very long one leaves only the jobs that cannot run on the plan.
func TestBacktestSheetDeadlineIsLive(t *testing.T) {
	r := backtestResult(t, BacktestJobs)
	f := writeBacktest(t, r)
	cannot := 0
	for i, c := range r.Classes {
		row := btFirst + i
		cannot += c.NoFit + c.NoEstimate
		for _, x := range []struct {
			hours     float64
			plan, ran int
		}{
			{0.05, c.Completed, c.Completed},
			{1000, c.NoFit + c.NoEstimate, 0},
		} {
			if err := f.SetCellValue(sheetBacktest, cell(btDeadline, row), x.hours); err != nil {
				t.Fatal(err)
			}
			if got := calc(t, f, sheetBacktest, cell(btMissPlan, row)); got != strconv.Itoa(x.plan) {
				t.Errorf("%s, deadline %vh: %s misses on the plan, want %d", c.Name, x.hours, got, x.plan)
			}
			if got := calc(t, f, sheetBacktest, cell(btMissRan, row)); got != strconv.Itoa(x.ran) {
				t.Errorf("%s, deadline %vh: %s missed as they ran, want %d", c.Name, x.hours, got, x.ran)
			}
		}
	}
	if cannot == 0 {
		t.Fatal("the fixture has no job that cannot run on the plan")
	}
	// The deadline cells are inputs, with a validation that refuses 0.
	for i := range r.Classes {
		dl := cell(btDeadline, btFirst+i)
		style, _ := f.GetCellStyle(sheetBacktest, dl)
		if !isInput(t, f, style) {
			t.Errorf("%s!%s is not styled as an input", sheetBacktest, dl)
		}
	}
	dvs, err := f.GetDataValidations(sheetBacktest)
	if err != nil || len(dvs) != 1 || dvs[0].Sqref != fmt.Sprintf("E%d:E%d", btFirst, btFirst+1) {
		t.Errorf("data validations %+v (%v), want one on the deadlines", dvs, err)
	}
}

// isInput: the style has the input fill the price cells have.
func isInput(t *testing.T, f *excelize.File, id int) bool {
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	return len(st.Fill.Color) == 1 && strings.EqualFold(st.Fill.Color[0], inputFill)
}

// Both sheets print landscape at a fixed scale that keeps 11 pt text at
// 8 pt or more, within a print area, the header row on every page.
func TestBacktestSheetPrints(t *testing.T) {
	r := backtestResult(t, BacktestJobs)
	f := writeBacktest(t, r)
	names := map[string]string{}
	for _, n := range f.GetDefinedName() {
		names[n.Scope+"!"+n.Name] = n.RefersTo
	}
	jobs := 0
	for _, c := range r.Classes {
		jobs += c.Completed
	}
	for _, x := range []struct{ sheet, area, titles string }{
		{sheetBacktest, "Backtest!$A$1:$P$", "Backtest!$A:$A,Backtest!$1:$4"},
		{sheetBacktestJobs, fmt.Sprintf("'Backtest jobs'!$A$1:$K$%d", jobs+1), "'Backtest jobs'!$1:$1"},
	} {
		if got := names[x.sheet+"!_xlnm.Print_Area"]; !strings.HasPrefix(got, x.area) {
			t.Errorf("%s print area %q, want %s...", x.sheet, got, x.area)
		}
		if got := names[x.sheet+"!_xlnm.Print_Titles"]; got != x.titles {
			t.Errorf("%s print titles %q, want %q", x.sheet, got, x.titles)
		}
		pl, err := f.GetPageLayout(x.sheet)
		if err != nil || pl.AdjustTo == nil || pl.Orientation == nil || *pl.Orientation != "landscape" {
			t.Fatalf("%s page layout %+v (%v)", x.sheet, pl, err)
		}
		if pt := bodyPt * float64(*pl.AdjustTo) / 100; pt < minPt {
			t.Errorf("%s prints at %d%%: 11 pt text at %.2f pt", x.sheet, *pl.AdjustTo, pt)
		}
		props, _ := f.GetSheetProps(x.sheet)
		if props.FitToPage != nil && *props.FitToPage {
			t.Errorf("%s fits to the page; its scale would be the spreadsheet's choice", x.sheet)
		}
	}
}

// A history with more jobs than the sheet lists gets values, not
// formulas, and says why; the counts still match the backtest.
func TestBacktestSheetTooManyJobs(t *testing.T) {
	r := backtestResult(t, 10)
	if !r.TooMany {
		t.Fatal("the backtest kept more than 10 jobs")
	}
	f := writeBacktest(t, r)
	sim := r.Classes[0]
	if fm := formulaOf(f, sheetBacktest, cell(btMissPlan, btFirst)); fm != "" {
		t.Errorf("misses are a formula %q with no jobs listed", fm)
	}
	if got := cellNumber(t, f, sheetBacktest, cell(btMissPlan, btFirst)); got != float64(sim.Missed) {
		t.Errorf("misses %v, want %d", got, sim.Missed)
	}
	about, _ := f.GetCellValue(sheetBacktest, "A3")
	note, _ := f.GetCellValue(sheetBacktestJobs, "A2")
	if !strings.Contains(about, "values, not formulas") || !strings.HasPrefix(note, "Not listed: ") {
		t.Errorf("no word of the missing list:\n%s\n%s", about, note)
	}
}

// LibreOffice Calc, computing the Backtest sheets itself, gives the
// backtest's misses at the recorded deadlines, and follows a deadline
// edited as a person would: sta_signoff's 10 hours cut to 9.
func TestBacktestSheetLibreOffice(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		t.Skip("soffice is not on PATH; install libreoffice-calc to check the workbook in LibreOffice Calc")
	}
	if testing.Short() {
		t.Skip("LibreOffice takes seconds to start; skipped with -short")
	}
	r := backtestResult(t, BacktestJobs)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.xlsx")
	if err := Write(path, intelOutput(t, 0, nil), Options{Backtest: r}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const edited, hours = 1, 9.0 // sta_signoff
	if err := f.SetCellValue(sheetBacktest, cell(btDeadline, btFirst+edited), hours); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "edited.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sheets := convertWithLibreOffice(t, soffice, path, sheetBacktest, sheetBacktestJobs)
	bt := sheets[sheetBacktest]
	for i, c := range r.Classes {
		plan, ran := c.Missed, c.LateInRAM
		if i == edited {
			plan, ran = 0, 0
			for _, j := range c.All {
				p, q := jobMisses(j, hours)
				plan, ran = plan+p, ran+q
			}
			if plan == c.Missed {
				t.Fatalf("%s: a %v-hour deadline misses as many jobs as %v hours; the edit shows nothing", c.Name, hours, c.Deadline/3600)
			}
		}
		row := bt[btFirst+i-1]
		for col, want := range map[int]int{btMissPlan: plan, btMissRan: ran} {
			if got := row[col-1]; got != strconv.Itoa(want) {
				t.Errorf("%s: LibreOffice computes %s = %s, want %d", c.Name, cell(col, btFirst+i), got, want)
			}
		}
	}
}
