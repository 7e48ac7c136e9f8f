package xlsx

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/model"
	"github.com/xuri/excelize/v2"
)

// Rows of the Summary sheet that formulas elsewhere refer to. Column B
// holds the recommended configuration, column C the all-DRAM baseline.
const (
	sVerdict    = 2
	sLiveHeader = 5
	sColumns    = 6
	sLabel      = 7
	sID         = 8
	sModelRank  = 9
	sPerServer  = 10
	sServers    = 11
	sFleet      = 12
	sSlowdown   = 13
	sSlowHigh   = 14
	sRuntime    = 15
	sDeadline   = 16
	sStatus     = 17
	sRow        = 18 // position in the Configurations list (helper)
	sSavings    = 20
	sSavePer    = 21
	sSaveFleet  = 22
	sSavePct    = 23
	sSame       = 24
	// Power and total cost of ownership: the editable parameters, then
	// the recommended and baseline columns again.
	sTCOHeader    = 26
	sElectricity  = 27
	sPUE          = 28
	sHorizonHours = 29
	sRankBy       = 30
	sTCOColumns   = 31
	sWatts        = 32
	sPowerPer     = 33
	sTCOPer       = 34
	sTCOFleet     = 35
	sTCOSavePer   = 36
	sTCOSaveFleet = 37
	sTCOSavePct   = 38
	sProvenance   = 40
	colRec        = 2
	colBase       = 3
	summaryWidth  = 4
)

func (b *book) summary() error {
	f, st, sh := b.f, b.st, sheetSummary
	out := b.out
	w := newWriter(f, sh)
	w.set(1, 1, "memplan plan: "+out.Workload, st.title)
	w.set(1, sVerdict, "Verdict at the catalog prices", st.bold)
	w.set(2, sVerdict, out.Verdict, st.wrap)
	if err := f.MergeCell(sh, cell(2, sVerdict), cell(summaryWidth, sVerdict)); err != nil {
		return err
	}
	if err := f.SetRowHeight(sh, sVerdict, textHeight(out.Verdict, 150)); err != nil {
		return err
	}
	note := "Costs in this workbook are formulas over the unit prices on the DIMMs, Drives and Platforms sheets (yellow cells). Edit a price and every total, the ranking, the bill of materials and the savings below recompute."
	w.set(2, 3, note, st.wrap)
	if err := f.MergeCell(sh, cell(2, 3), cell(summaryWidth, 3)); err != nil {
		return err
	}
	if err := f.SetRowHeight(sh, 3, textHeight(note, 150)); err != nil {
		return err
	}

	w.set(1, sLiveHeader, "At the prices in this workbook", st.section)
	w.set(1, sColumns, "", st.header)
	w.set(colRec, sColumns, "Recommended: cheapest that meets every deadline", st.header)
	w.set(colBase, sColumns, "Baseline: cheapest all-DRAM that meets every deadline", st.header)
	labels := []struct {
		row  int
		text string
	}{
		{sLabel, "Configuration"}, {sID, "ID"}, {sModelRank, "memplan rank at the catalog prices"},
		{sPerServer, "Cost per server"}, {sServers, "Servers"}, {sFleet, "Fleet cost"},
		{sSlowdown, "Slowdown of the critical job"}, {sSlowHigh, "Slowdown, 95% high"},
		{sRuntime, "Runtime of the critical job (h)"}, {sDeadline, "Deadline (h)"}, {sStatus, "Deadlines"},
		{sRow, "Row in the Configurations list"},
	}
	for _, l := range labels {
		w.set(1, l.row, l.text, st.bold)
	}
	// The recommendation is the first-ranked configuration; the baseline
	// the best-ranked all-DRAM one among those that meet the deadlines.
	// Whether each exists does not depend on prices (tiers don't), which
	// configuration it is does.
	type column struct {
		col    int
		exists bool
		row    string
		none   string
	}
	columns := []column{
		{colRec, b.out.Recommended != nil, "MATCH(1,CfgRank,0)", "none: no configuration meets every deadline"},
		{colBase, b.out.Baseline != nil, "MATCH(MIN(CfgBaseRank),CfgRank,0)", "none: no all-DRAM configuration meets every deadline"},
	}
	for _, c := range columns {
		if !c.exists {
			w.set(c.col, sLabel, c.none, st.wrap)
			continue
		}
		idx := cell(c.col, sRow)
		pick := func(name string) string { return fmt.Sprintf("INDEX(%s,%s)", name, idx) }
		w.formula(c.col, sRow, c.row, st.count)
		w.formula(c.col, sLabel, pick("CfgLabel"), st.wrap)
		w.formula(c.col, sID, pick("CfgID"), st.wrap)
		w.formula(c.col, sModelRank, pick("CfgModelRank"), st.count)
		w.formula(c.col, sPerServer, pick("CfgPerServer"), st.money)
		w.formula(c.col, sServers, pick("CfgServers"), st.count)
		w.formula(c.col, sFleet, pick("CfgFleet"), st.moneyBold)
		w.formula(c.col, sSlowdown, pick("CfgSlowdown"), st.ratio)
		w.formula(c.col, sSlowHigh, pick("CfgSlowHigh"), st.ratio)
		w.formula(c.col, sRuntime, pick("CfgRuntime"), st.hours)
		w.formula(c.col, sDeadline, pick("CfgDeadline"), st.hours)
		w.formula(c.col, sStatus, pick("CfgStatus"), st.text)
	}

	w.set(1, sSavings, "Savings of the recommendation against the baseline", st.section)
	w.set(1, sSavePer, "Per server", st.bold)
	w.set(1, sSaveFleet, "Fleet", st.bold)
	w.set(1, sSavePct, "Share of the baseline's fleet cost", st.bold)
	w.set(1, sSame, "Same configuration as memplan recommended?", st.bold)
	rec, base := func(r int) string { return cell(colRec, r) }, func(r int) string { return cell(colBase, r) }
	if out.Recommended != nil && out.Baseline != nil {
		w.formula(colRec, sSavePer, fmt.Sprintf("%s-%s", base(sPerServer), rec(sPerServer)), st.moneyBold)
		w.formula(colRec, sSaveFleet, fmt.Sprintf("%s-%s", base(sFleet), rec(sFleet)), st.moneyBold)
		w.formula(colRec, sSavePct, fmt.Sprintf("IF(%s>0,%s/%s,0)", base(sFleet), rec(sSaveFleet), base(sFleet)), st.pct)
		w.formula(colBase, sSavePer, fmt.Sprintf(`IF(%s=%s,"all-DRAM is the cheapest way to meet the deadlines at these prices","")`, rec(sRow), base(sRow)), st.wrap)
	} else {
		why := "n/a: no configuration meets every deadline"
		if out.Recommended != nil {
			why = "n/a: no all-DRAM configuration meets every deadline, so there is nothing to compare with"
		}
		w.set(colRec, sSavePer, why, st.wrap)
	}
	if r := out.Recommended; r != nil {
		w.formula(colRec, sSame, fmt.Sprintf(`IF(%s=%d,"yes","no: at the prices in this workbook another configuration is cheapest; re-run memplan with these prices to check it")`, rec(sModelRank), r.Rank), st.wrap)
	}

	if err := b.tcoSummary(w); err != nil {
		return err
	}

	r := sProvenance
	w.set(1, r, "Where the numbers come from", st.section)
	r++
	facts := [][2]string{
		{"Workload", fmt.Sprintf("%s (%s)", out.Workload, out.WorkloadFile)},
		{"Currency", out.Currency + ": every amount in this workbook"},
		{"Planning horizon", fmt.Sprintf("%s years (drive wear and replacements)", trimFloat(out.HorizonYears))},
		{"Configurations", fmt.Sprintf("%d evaluated, %d listed in this workbook", out.ConfigurationsTotal, len(b.rows))},
		{"memplan version", out.MemplanVersion},
	}
	if out.RejectedTotal > 0 {
		var rs []string
		for _, x := range out.Rejected {
			rs = append(rs, fmt.Sprintf("%s: %d", x.Reason, x.Count))
		}
		facts = append(facts, [2]string{"Rejected before ranking", fmt.Sprintf("%d (%s)", out.RejectedTotal, strings.Join(rs, "; "))})
	}
	for _, c := range out.Catalogs {
		facts = append(facts, [2]string{"Price catalog " + c.Name,
			fmt.Sprintf("prices of %s in %s; %s (%s)", c.Date, c.Currency, c.Source, c.File)})
	}
	for _, ff := range out.Factors {
		var curves []string
		for _, c := range ff.Curves {
			curves = append(curves, fmt.Sprintf("%s (%s)", c.Class, c.Provenance))
		}
		sort.Strings(curves)
		where := "published figures"
		if ff.Host != "" {
			where = "measured on " + ff.Host
		}
		facts = append(facts, [2]string{"Slowdown factors " + ff.Name,
			fmt.Sprintf("%s, %s; %s (%s); curves: %s", where, ff.Date, ff.Source, ff.File, strings.Join(curves, ", "))})
	}
	for _, x := range out.Warnings {
		facts = append(facts, [2]string{"Warning", x})
	}
	for _, x := range out.Advice {
		facts = append(facts, [2]string{"What would work", x})
	}
	for _, fact := range facts {
		w.set(1, r, fact[0], st.bold)
		w.set(2, r, fact[1], st.wrap)
		if err := f.MergeCell(sh, cell(2, r), cell(summaryWidth, r)); err != nil {
			return err
		}
		if err := f.SetRowHeight(sh, r, textHeight(fact[1], 150)); err != nil {
			return err
		}
		r++
	}
	for col, width := range []float64{36, 48, 48, 54} {
		if err := f.SetColWidth(sh, colName(col+1), colName(col+1), width); err != nil {
			return err
		}
	}
	return w.err
}

// Defined names of the power parameters on the Summary sheet, which the
// Configurations sheet's power and ranking formulas read.
const (
	nameElectricity  = "ElectricityPrice"
	namePUE          = "PUEFactor"
	nameHorizonHours = "HorizonHours"
	nameRankBy       = "RankBy"
)

// tcoSummary writes the power parameters (electricity price, PUE and what
// the ranking compares, all editable) and the recommended and baseline
// configurations' power and total cost of ownership.
func (b *book) tcoSummary(w *writer) error {
	f, st, sh, out := b.f, b.st, sheetSummary, b.out
	elec, pue, hours, quoted, note := 0.0, model.DefaultPUE, out.HorizonYears*365*24, "", ""
	if t := out.TCO; t != nil {
		elec, pue, hours, quoted, note = t.ElectricityPerKWh, t.PUE, t.HorizonHours, t.ElectricityQuoted, t.Note
		if t.ElectricityDefault {
			quoted += " (memplan's default)"
		}
	}
	rankBy := out.RankBy
	if rankBy == "" {
		rankBy = model.RankCapital
	}
	w.set(1, sTCOHeader, "Power and total cost of ownership over the horizon", st.section)
	elecNote := fmt.Sprintf("Per kWh, in %s. memplan used %s. Edit it: power, every TCO figure and, when ranking by tco, the ranking recompute.", b.cur, orNone(quoted))
	if note != "" {
		elecNote = fmt.Sprintf("Per kWh, in %s: %s. Type a price here to price power in this workbook.", b.cur, note)
	}
	params := []struct {
		row         int
		label       string
		value       any
		style       int
		name, notes string
	}{
		{sElectricity, "Electricity price (" + b.cur + " per kWh)", elec, st.priceInput, nameElectricity, elecNote},
		{sPUE, "PUE (facility power / IT power)", pue, st.ratioInput, namePUE,
			"Power usage effectiveness of the data centre: cooling and power distribution on top of the servers' own draw."},
		{sHorizonHours, "Hours powered over the horizon", hours, st.count, nameHorizonHours,
			fmt.Sprintf("The planning horizon, %s years, around the clock. Fixed here: drive wear and replacements depend on it too; change `horizon:` in the workload and re-run memplan.", trimFloat(out.HorizonYears))},
		{sRankBy, "Rank by", rankBy, st.textInput, nameRankBy,
			fmt.Sprintf("capital: the purchase (fleet cost); tco: purchase plus power over the horizon (TCO for the fleet). memplan ranked by %s.", rankBy)},
	}
	for _, p := range params {
		w.set(1, p.row, p.label, st.bold)
		w.set(colRec, p.row, p.value, p.style)
		w.set(colBase, p.row, p.notes, st.wrap)
		if w.err != nil {
			return w.err
		}
		if err := f.MergeCell(sh, cell(colBase, p.row), cell(summaryWidth, p.row)); err != nil {
			return err
		}
		if err := f.SetRowHeight(sh, p.row, textHeight(p.notes, 100)); err != nil {
			return err
		}
		if err := b.define(p.name, absCell(sh, colRec, p.row), p.label); err != nil {
			return err
		}
	}
	for _, v := range []struct {
		row                  int
		kind, op, lo, hi     string
		title, msg           string
		inputTitle, inputMsg string
	}{
		{sElectricity, "decimal", "greaterThanOrEqual", "0", "", "Not a price", "An electricity price is a number of at least 0, in " + b.cur + " per kWh.",
			"Electricity price", "Per kWh, in " + b.cur + "."},
		{sPUE, "decimal", "between", "1", "5", "Not a PUE", "PUE is a ratio between 1 (no overhead) and 5.",
			"PUE", "Facility power / IT power, e.g. 1.4."},
	} {
		dv := excelize.NewDataValidation(false)
		dv.Sqref = cell(colRec, v.row)
		dv.Type, dv.Operator, dv.Formula1, dv.Formula2 = v.kind, v.op, v.lo, v.hi
		dv.SetError(excelize.DataValidationErrorStyleStop, v.title, v.msg)
		dv.SetInput(v.inputTitle, v.inputMsg)
		if err := f.AddDataValidation(sh, dv); err != nil {
			return err
		}
	}
	dv := excelize.NewDataValidation(false)
	dv.Sqref = cell(colRec, sRankBy)
	if err := dv.SetDropList([]string{model.RankCapital, model.RankTCO}); err != nil {
		return err
	}
	if err := f.AddDataValidation(sh, dv); err != nil {
		return err
	}

	w.set(1, sTCOColumns, "", st.header)
	w.set(colRec, sTCOColumns, "Recommended", st.header)
	w.set(colBase, sTCOColumns, "Baseline", st.header)
	for _, l := range []struct {
		row  int
		text string
	}{
		{sWatts, "Average draw per server (W)"}, {sPowerPer, "Power per server over the horizon"},
		{sTCOPer, "TCO per server"}, {sTCOFleet, "TCO for the fleet"},
		{sTCOSavePer, "TCO savings per server"}, {sTCOSaveFleet, "TCO savings for the fleet"},
		{sTCOSavePct, "TCO savings, share of the baseline's TCO"},
	} {
		w.set(1, l.row, l.text, st.bold)
	}
	for _, c := range []struct {
		col    int
		exists bool
	}{{colRec, out.Recommended != nil}, {colBase, out.Baseline != nil}} {
		if !c.exists {
			continue
		}
		idx := cell(c.col, sRow)
		pick := func(name string) string { return fmt.Sprintf("INDEX(%s,%s)", name, idx) }
		w.formula(c.col, sWatts, pick("CfgWatts"), st.gib)
		w.formula(c.col, sPowerPer, pick("CfgPower"), st.money)
		w.formula(c.col, sTCOPer, pick("CfgTCO"), st.money)
		w.formula(c.col, sTCOFleet, pick("CfgTCOFleet"), st.moneyBold)
	}
	if out.Recommended != nil && out.Baseline != nil {
		rec, base := func(r int) string { return cell(colRec, r) }, func(r int) string { return cell(colBase, r) }
		w.formula(colRec, sTCOSavePer, fmt.Sprintf("%s-%s", base(sTCOPer), rec(sTCOPer)), st.moneyBold)
		w.formula(colRec, sTCOSaveFleet, fmt.Sprintf("%s-%s", base(sTCOFleet), rec(sTCOFleet)), st.moneyBold)
		w.formula(colRec, sTCOSavePct, fmt.Sprintf("IF(%s>0,%s/%s,0)", base(sTCOFleet), rec(sTCOSaveFleet), base(sTCOFleet)), st.pct)
	}
	return w.err
}

func orNone(s string) string {
	if s == "" {
		return "no electricity price"
	}
	return s
}

// textHeight estimates the height in points of a wrapped cell holding s in
// a merged area about chars characters wide. Spreadsheets do not grow
// merged cells to fit their text.
func textHeight(s string, chars int) float64 {
	lines := 0
	for _, para := range strings.Split(s, "\n") {
		lines += int(math.Ceil(float64(len([]rune(para))+1) / float64(chars)))
	}
	if lines < 1 {
		lines = 1
	}
	return float64(lines)*15 + 2
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// writer sets cells on one sheet and keeps the first error, so that a
// layout reads as a list of cells.
type writer struct {
	f     *excelize.File
	sheet string
	err   error
}

func newWriter(f *excelize.File, sheet string) *writer { return &writer{f: f, sheet: sheet} }

func (w *writer) set(col, row int, v any, style int) {
	if w.err != nil {
		return
	}
	c := cell(col, row)
	if w.err = w.f.SetCellValue(w.sheet, c, v); w.err == nil {
		w.err = w.f.SetCellStyle(w.sheet, c, c, style)
	}
}

func (w *writer) formula(col, row int, fm string, style int) {
	if w.err != nil {
		return
	}
	c := cell(col, row)
	if w.err = w.f.SetCellFormula(w.sheet, c, fm); w.err == nil {
		w.err = w.f.SetCellStyle(w.sheet, c, c, style)
	}
}
