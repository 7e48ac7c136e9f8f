package xlsx

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/workload/backtest"
	"github.com/xuri/excelize/v2"
)

// The backtest's sheets, after Charts, in a workbook written with
// Options.Backtest.
const (
	sheetBacktest     = "Backtest"
	sheetBacktestJobs = "Backtest jobs"
)

// BacktestJobs is the most replayed jobs the Backtest jobs sheet lists,
// one row each. A longer history gets the per-class figures as values
// (a note says why) and no list: the counts are only live formulas when
// every job they count is on the sheet.
const BacktestJobs = 20000

// Layout of the Backtest sheet: the title, a paragraph, the header row,
// a row per job class.
const (
	btHeader    = 4
	btFirst     = 5
	btClass     = 1
	btJobs      = 2
	btRAM       = 3
	btSwap      = 4
	btDeadline  = 5
	btInRAM     = 6
	btSwaps     = 7
	btNoFit     = 8
	btSlowP50   = 9
	btMissPlan  = 10
	btSharePlan = 11
	btMissRan   = 12
	btShareRan  = 13
	btFootprint = 14
	btVPA       = 15
	btMax10     = 16
	btLast      = btMax10
)

// Layout of the Backtest jobs sheet: a header row, a row per job,
// grouped by class in the Backtest sheet's order.
const (
	bjClass     = 1
	bjJob       = 2
	bjLine      = 3
	bjPeak      = 4
	bjElapsed   = 5
	bjFit       = 6
	bjOutcome   = 7
	bjSlowdown  = 8
	bjPredicted = 9
	bjMissPlan  = 10
	bjMissRan   = 11
	bjLast      = bjMissRan
)

const gib = 1 << 30

// exact rounds v to nine decimals, few enough digits that the cell holds
// v itself (excelize cuts a number to 15 significant digits): the cached
// results below are computed from the very numbers the formulas read.
func exact(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// backtestSheets lay out the replay of recorded jobs against a
// configuration: per class the jobs replayed and the deadline misses on
// the plan and as the jobs really ran; each deadline is an input, and the
// misses are counted by formulas over the jobs listed on the second sheet.
func (b *book) backtestSheets() error {
	r := b.bt
	if r == nil {
		return nil
	}
	for _, s := range []string{sheetBacktest, sheetBacktestJobs} {
		if _, err := b.f.NewSheet(s); err != nil {
			return err
		}
	}
	listed := !r.TooMany
	n := 0
	for _, c := range r.Classes {
		n += len(c.All)
	}
	if n > BacktestJobs {
		listed = false
	}
	// Rows of each class's jobs on the jobs sheet.
	spans := make([]span, len(r.Classes))
	row := 2
	for i, c := range r.Classes {
		k := 0
		if listed {
			k = len(c.All)
		}
		spans[i] = span{row, row + k - 1}
		row += k
	}
	if err := b.backtestSummary(spans, listed); err != nil {
		return err
	}
	return b.backtestJobs(spans, listed)
}

func (b *book) backtestSummary(spans []span, listed bool) error {
	r, st, sh := b.bt, b.st, sheetBacktest
	w := b.newWriter(sh)
	headers := []string{"Job class", "Jobs replayed", "RAM per job (GiB)", "Swap per job (GiB)", "Deadline (hours)",
		"In RAM", "Would swap", "Would not fit", "Slowdown p50", "Miss the deadline on this plan", "Share on this plan",
		"Missed as they ran", "Share as they ran", "Plan footprint (GiB)", "VPA p90 + 15% (GiB)", "Largest + 10% (GiB)"}
	widths := []float64{20, 9, 9, 9, 10, 9, 9, 9, 10, 11, 10, 10, 10, 11, 11, 11}
	for i, h := range headers {
		w.width(i+1, max(widths[i], headerWidth(h)))
		w.set(i+1, btHeader, h, st.header)
	}
	w.set(1, 1, "Backtest: "+r.Label, st.title)
	w.set(1, 2, fmt.Sprintf("Configuration %s, against %d recorded job(s) from %s.", r.Config, r.Read, r.Source), st.prose)
	w.merge(1, btLast, 2)
	about := "Each completed job with a recorded peak is replayed on this configuration at its own peak and elapsed time: " +
		"in RAM it runs as it ran; over the RAM per job it swaps and runs slower by the model's slowdown at its fit ratio; " +
		"over RAM and swap together it does not fit and counts as a miss. " +
		"Missed as they ran: the recorded elapsed time alone is over the deadline. "
	if listed {
		about += "Edit a deadline (yellow) and both miss counts recompute from the jobs on the Backtest jobs sheet. " +
			"The RAM per job and the slowdowns are this configuration's: for another one run memplan backtest --config ID."
	} else {
		about += fmt.Sprintf("The history has more than %d jobs, too many to list one a row, so the figures below are values, not formulas.", BacktestJobs)
	}
	w.set(1, 3, about, st.prose)
	w.merge(1, btLast, 3)
	jobs := absRange
	for i, c := range r.Classes {
		row := btFirst + i
		at := func(col int) string { return cell(col, row) }
		deadline := exact(c.Deadline / 3600)
		w.set(btClass, row, c.Name, st.label)
		w.set(btJobs, row, c.Completed, st.count)
		w.set(btRAM, row, exact(c.Held/gib), st.gib)
		w.set(btSwap, row, c.Swap/gib, st.gib)
		w.set(btInRAM, row, c.InRAM, st.count)
		w.set(btSwaps, row, c.Swapped+c.NoEstimate, st.count)
		w.set(btNoFit, row, c.NoFit, st.count)
		if c.SlowdownP50 > 0 {
			w.set(btSlowP50, row, c.SlowdownP50, st.ratio)
		}
		for col, v := range map[int]float64{btFootprint: c.Footprint, btVPA: c.VPA, btMax10: c.MaxPlus10} {
			if v > 0 {
				w.set(col, row, v/gib, st.gib)
			}
		}
		share := func(n int) float64 {
			if c.Completed == 0 {
				return 0
			}
			return float64(n) / float64(c.Completed)
		}
		if !listed {
			w.set(btDeadline, row, deadline, st.hours)
			w.set(btMissPlan, row, c.Missed, st.count)
			w.set(btMissRan, row, c.LateInRAM, st.count)
			w.set(btSharePlan, row, share(c.Missed), st.pct)
			w.set(btShareRan, row, share(c.LateInRAM), st.pct)
			continue
		}
		w.set(btDeadline, row, deadline, st.ratioInput)
		missPlan, missRan := b.backtestMisses(c, deadline)
		sp := spans[i]
		if sp.empty() {
			w.set(btMissPlan, row, 0, st.count)
			w.set(btMissRan, row, 0, st.count)
		} else {
			w.formula(btMissPlan, row, "SUM("+jobs(sheetBacktestJobs, bjMissPlan, sp.first, sp.last)+")", missPlan, st.count)
			w.formula(btMissRan, row, "SUM("+jobs(sheetBacktestJobs, bjMissRan, sp.first, sp.last)+")", missRan, st.count)
		}
		w.formula(btSharePlan, row, fmt.Sprintf("IF(%s=0,0,%s/%s)", at(btJobs), at(btMissPlan), at(btJobs)), share(missPlan), st.pct)
		w.formula(btShareRan, row, fmt.Sprintf("IF(%s=0,0,%s/%s)", at(btJobs), at(btMissRan), at(btJobs)), share(missRan), st.pct)
	}
	last := btFirst + len(r.Classes) - 1
	// What was not replayed, class by class, then the whole history.
	var notes []string
	for _, c := range r.Classes {
		if len(c.NotReplayed) > 0 {
			var parts []string
			for _, k := range sortedKeys(c.NotReplayed) {
				parts = append(parts, fmt.Sprintf("%d %s", c.NotReplayed[k], k))
			}
			notes = append(notes, fmt.Sprintf("%s: not replayed: %s.", c.Name, strings.Join(parts, ", ")))
		}
		if c.NoEstimate > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d job(s) would swap beyond the measured curves; no slowdown estimate, counted as misses.", c.Name, c.NoEstimate))
		}
	}
	if len(r.Unplanned) > 0 {
		var parts []string
		for _, k := range sortedKeys(r.Unplanned) {
			parts = append(parts, fmt.Sprintf("%s (%d)", k, r.Unplanned[k]))
		}
		notes = append(notes, "Jobs of classes the workload does not have, not replayed: "+strings.Join(parts, ", ")+".")
	}
	if r.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d bad record(s) skipped (--skip-bad).", r.Skipped))
	}
	for i, s := range notes {
		w.set(1, last+2+i, s, st.prose)
		w.merge(1, btLast, last+2+i)
	}
	if len(notes) > 0 {
		last += 1 + len(notes)
	}
	if listed && len(r.Classes) > 0 {
		dv := excelize.NewDataValidation(false)
		dv.Sqref = fmt.Sprintf("%s%d:%s%d", colName(btDeadline), btFirst, colName(btDeadline), btFirst+len(r.Classes)-1)
		dv.Type, dv.Operator, dv.Formula1 = "decimal", "greaterThan", "0"
		dv.SetError(excelize.DataValidationErrorStyleStop, "Not a deadline", "A deadline is a number of hours above 0.")
		dv.SetInput("Deadline in hours", "Edit it: the misses on this plan and as the jobs ran recompute.")
		if err := b.f.AddDataValidation(sh, dv); err != nil {
			return err
		}
	}
	if err := b.f.SetPanes(sh, &excelize.Panes{Freeze: true, XSplit: 1, YSplit: btHeader, TopLeftCell: cell(2, btHeader+1), ActivePane: "bottomRight"}); err != nil {
		return err
	}
	if err := b.printTitles(sh, 1, btHeader); err != nil {
		return err
	}
	if err := b.printArea(sh, btLast, last); err != nil {
		return err
	}
	return b.flushPrinted(w)
}

// backtestMisses are the misses the jobs sheet's formulas count for class
// c at deadline hours: on the plan, and as the jobs ran.
func (b *book) backtestMisses(c backtest.ClassResult, deadline float64) (plan, ran int) {
	for _, j := range c.All {
		p, r := jobMisses(j, deadline)
		plan += p
		ran += r
	}
	return plan, ran
}

// jobMisses is what the jobs sheet's miss formulas give for j, computed
// as they compute it: in hours.
func jobMisses(j backtest.Job, deadline float64) (plan, ran int) {
	elapsed := exact(j.Elapsed / 3600)
	if j.Slowdown <= 0 || elapsed*exact(j.Slowdown) > deadline {
		plan = 1
	}
	if elapsed > deadline {
		ran = 1
	}
	return plan, ran
}

func (b *book) backtestJobs(spans []span, listed bool) error {
	r, st, sh := b.bt, b.st, sheetBacktestJobs
	w := b.newWriter(sh)
	headers := []string{"Job class", "Job", "Line", "Peak (GiB)", "Elapsed as it ran (hours)", "Fit ratio", "Outcome on this plan",
		"Slowdown", "Runtime on this plan (hours)", "Misses on this plan", "Missed as it ran"}
	widths := []float64{20, 16, 8, 9, 10, 9, 13, 10, 11, 9, 9}
	for _, c := range r.Classes {
		for _, j := range c.All {
			widths[bjJob-1] = max(widths[bjJob-1], float64(len(j.ID))+1)
		}
		widths[bjClass-1] = max(widths[bjClass-1], float64(len(c.Name))*1.1+1)
	}
	for i, h := range headers {
		w.width(i+1, max(widths[i], headerWidth(h)))
		w.set(i+1, 1, h, st.header)
	}
	last := 1
	if !listed {
		w.set(1, 2, fmt.Sprintf("Not listed: the history has more than %d replayed jobs. The Backtest sheet gives each class's figures as values.", BacktestJobs), st.text)
		last = 2
	}
	for i, c := range r.Classes {
		if !listed {
			break
		}
		sum := btFirst + i
		ram := absCell(sheetBacktest, btRAM, sum)
		deadline := absCell(sheetBacktest, btDeadline, sum)
		dl := exact(c.Deadline / 3600)
		for k, j := range c.All {
			row := spans[i].first + k
			at := func(col int) string { return cell(col, row) }
			peak, elapsed, slowdown := exact(j.Peak/gib), exact(j.Elapsed/3600), exact(j.Slowdown)
			w.set(bjClass, row, c.Name, st.text)
			w.set(bjJob, row, j.ID, st.text)
			w.set(bjLine, row, j.Line, st.count)
			w.set(bjPeak, row, peak, st.gib)
			w.set(bjElapsed, row, elapsed, st.hours)
			w.formula(bjFit, row, fmt.Sprintf("MIN(1,%s/%s)", ram, at(bjPeak)), math.Min(1, exact(c.Held/gib)/peak), st.ratio)
			w.set(bjOutcome, row, j.Outcome, st.text)
			var predicted any = ""
			if j.Slowdown > 0 {
				w.set(bjSlowdown, row, slowdown, st.ratio)
				predicted = elapsed * slowdown
			} else {
				w.set(bjSlowdown, row, "none", st.text)
			}
			plan, ran := jobMisses(j, dl)
			w.formula(bjPredicted, row, fmt.Sprintf(`IF(ISNUMBER(%s),%s*%s,"")`, at(bjSlowdown), at(bjElapsed), at(bjSlowdown)), predicted, st.hours)
			w.formula(bjMissPlan, row, fmt.Sprintf(`IF(ISNUMBER(%s),IF(%s>%s,1,0),1)`, at(bjPredicted), at(bjPredicted), deadline), plan, st.count)
			w.formula(bjMissRan, row, fmt.Sprintf("IF(%s>%s,1,0)", at(bjElapsed), deadline), ran, st.count)
			last = row
		}
	}
	if err := b.f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := b.pageSetup(sh, pageList, minScale); err != nil {
		return err
	}
	if err := b.printTitles(sh, 0, 1); err != nil {
		return err
	}
	if err := b.printArea(sh, bjLast, last); err != nil {
		return err
	}
	return w.flush()
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
