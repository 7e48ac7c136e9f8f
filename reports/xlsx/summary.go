package xlsx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// Rows of the Summary sheet that formulas elsewhere refer to. Column B
// holds the recommended configuration, column C the all-DRAM baseline.
const (
	sVerdict    = 2
	sFailure    = 4 // what a dead swap drive does, and the mirror's price
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
	st, sh := b.st, sheetSummary
	out := b.out
	w := b.newWriter(sh)
	for col, width := range []float64{40, 44, 44, 44} {
		w.width(col+1, width)
	}
	w.set(1, 1, "memplan plan: "+out.Workload, st.title)
	w.set(1, sVerdict, "Verdict at the catalog prices", st.label)
	w.set(2, sVerdict, out.Verdict, st.wrap)
	w.merge(2, summaryWidth, sVerdict)
	note := "Costs in this workbook are formulas over the unit prices on the DIMMs, Drives and Platforms sheets (yellow cells). Edit a price and every total, the ranking, the bill of materials and the savings below recompute."
	w.set(2, 3, note, st.wrap)
	w.merge(2, summaryWidth, 3)
	// The terminal verdict's "Drive failure" line, at the catalog prices
	// like the verdict above it: the mirror is not a row of this workbook,
	// so its price does not follow the yellow cells.
	if text := reports.DriveFailure(out); text != "" {
		w.set(1, sFailure, "If a swap drive dies (at the catalog prices)", st.label)
		w.set(2, sFailure, text, st.wrap)
		w.merge(2, summaryWidth, sFailure)
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
		w.set(1, l.row, l.text, st.label)
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
	// vals holds the cached values of the recommended and baseline columns
	// by row, for the savings below.
	vals := map[int]map[int]any{colRec: {}, colBase: {}}
	for _, c := range columns {
		if !c.exists {
			w.set(c.col, sLabel, c.none, st.wrap)
			continue
		}
		i := b.pickRow(c.col)
		pick := b.picker(w, c.col, i, vals[c.col])
		w.formula(c.col, sRow, c.row, i+1, st.count)
		vals[c.col][sRow] = i + 1
		pick(sLabel, "CfgLabel", st.wrap)
		pick(sID, "CfgID", st.wrap)
		pick(sModelRank, "CfgModelRank", st.count)
		pick(sPerServer, "CfgPerServer", st.money)
		pick(sServers, "CfgServers", st.count)
		pick(sFleet, "CfgFleet", st.moneyBold)
		pick(sSlowdown, "CfgSlowdown", st.ratio)
		pick(sSlowHigh, "CfgSlowHigh", st.ratio)
		pick(sRuntime, "CfgRuntime", st.hours)
		pick(sDeadline, "CfgDeadline", st.hours)
		pick(sStatus, "CfgStatus", st.text)
	}

	w.set(1, sSavings, "Savings of the recommendation against the baseline", st.section)
	w.set(1, sSavePer, "Per server", st.label)
	w.set(1, sSaveFleet, "Fleet", st.label)
	w.set(1, sSavePct, "Share of the baseline's fleet cost", st.label)
	w.set(1, sSame, "Same configuration as memplan recommended?", st.label)
	rec, base := func(r int) string { return cell(colRec, r) }, func(r int) string { return cell(colBase, r) }
	num := func(col, row int) float64 { return vals[col][row].(float64) }
	if out.Recommended != nil && out.Baseline != nil {
		savePer, saveFleet := num(colBase, sPerServer)-num(colRec, sPerServer), num(colBase, sFleet)-num(colRec, sFleet)
		w.formula(colRec, sSavePer, fmt.Sprintf("%s-%s", base(sPerServer), rec(sPerServer)), savePer, st.moneyBold)
		w.formula(colRec, sSaveFleet, fmt.Sprintf("%s-%s", base(sFleet), rec(sFleet)), saveFleet, st.moneyBold)
		w.formula(colRec, sSavePct, fmt.Sprintf("IF(%s>0,%s/%s,0)", base(sFleet), rec(sSaveFleet), base(sFleet)), share(saveFleet, num(colBase, sFleet)), st.pct)
		same := ""
		if vals[colRec][sRow] == vals[colBase][sRow] {
			same = "all-DRAM is the cheapest way to meet the deadlines at these prices"
		}
		w.formula(colBase, sSavePer, fmt.Sprintf(`IF(%s=%s,%s,"")`, rec(sRow), base(sRow), str("all-DRAM is the cheapest way to meet the deadlines at these prices")), same, st.wrap)
	} else {
		why := "n/a: no configuration meets every deadline"
		if out.Recommended != nil {
			why = "n/a: no all-DRAM configuration meets every deadline, so there is nothing to compare with"
		}
		w.set(colRec, sSavePer, why, st.wrap)
	}
	if r := out.Recommended; r != nil {
		const other = "no: at the prices in this workbook another configuration is cheapest; re-run memplan with these prices to check it"
		same := other
		if vals[colRec][sModelRank] == r.Rank {
			same = "yes"
		}
		w.formula(colRec, sSame, fmt.Sprintf(`IF(%s=%d,"yes",%s)`, rec(sModelRank), r.Rank, str(other)), same, st.wrap)
	}

	b.tcoSummary(w, vals)

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
			r := fmt.Sprintf("%s: %d", x.Reason, x.Count)
			if x.Note != "" {
				r += " (" + x.Note + ")"
			}
			rs = append(rs, r)
		}
		facts = append(facts, [2]string{"Rejected before ranking", fmt.Sprintf("%d (%s)", out.RejectedTotal, strings.Join(rs, "; "))})
	}
	for _, c := range out.Catalogs {
		facts = append(facts, [2]string{"Price catalog " + c.Name,
			fmt.Sprintf("prices of %s in %s; %s (%s)", c.Date, c.Currency, c.Source, c.File)})
	}
	for _, ff := range out.Factors {
		var curves []string
		inferred := len(ff.Curves) > 0
		oneRun := false
		var samplerFits []string
		for _, c := range ff.Curves {
			oneRun = oneRun || c.Method == factors.OneRunMethod
			for _, p := range c.Points {
				if p.Source == factors.PointSampler {
					samplerFits = append(samplerFits, fmt.Sprintf("%s at fit %g", c.Class, p.Fit))
				}
			}
			curves = append(curves, fmt.Sprintf("%s (%s)", c.Class, c.Provenance))
			inferred = inferred && c.Provenance == factors.Inferred
		}
		sort.Strings(curves)
		where := "published figures"
		switch {
		case ff.Host != "" && inferred:
			where = "inferred on " + ff.Host + " from one run by sampling the pages the job referenced (memplan profile --one-pass), not measured under a memory limit"
		case ff.Host != "" && oneRun:
			where = "measured on " + ff.Host + " " + model.OneRunBasis
			if len(samplerFits) > 0 {
				where += ", but for " + strings.Join(samplerFits, ", ") + ": not reached by the run, the one-pass sampler's inferred figures (--prior), not measured"
			}
		case ff.Host != "":
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
		w.set(1, r, fact[0], st.label)
		w.set(2, r, fact[1], st.wrap)
		w.merge(2, summaryWidth, r)
		r++
	}
	// Printed at a readable size the Summary takes two pages: the verdict,
	// the live figures and the savings on the first, power, TCO and where
	// the numbers come from on the second.
	if err := b.f.InsertPageBreak(sh, cell(1, sTCOHeader-1)); err != nil {
		return err
	}
	return b.flushPrinted(w)
}

// pickRow is the Configurations row (index into b.rows) the Summary's
// column col shows at the result's prices: what its MATCH finds.
func (b *book) pickRow(col int) int {
	if col == colRec {
		return 0 // rank 1 is the first row
	}
	for i, c := range b.rows {
		if c.AllDRAM && tier(c) < model.TierMisses {
			return i
		}
	}
	return 0
}

// picker writes INDEX formulas over a Configurations column into the
// Summary's column col, each with the value of row i, and keeps the value
// in vals by Summary row.
func (b *book) picker(w *writer, col, i int, vals map[int]any) func(row int, name string, style int) {
	idx := cell(col, sRow)
	return func(row int, name string, style int) {
		v := b.configValue(i, configColumn(name))
		vals[row] = v
		w.formula(col, row, fmt.Sprintf("INDEX(%s,%s)", name, idx), v, style)
	}
}

// configColumn is the Configurations column a defined name covers.
func configColumn(name string) int {
	for _, n := range configNames {
		if n.name == name {
			return n.col
		}
	}
	panic("no defined name " + name) // names are constants of this package
}

// share is IF(whole>0,part/whole,0).
func share(part, whole float64) float64 {
	if whole > 0 {
		return part / whole
	}
	return 0
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
func (b *book) tcoSummary(w *writer, vals map[int]map[int]any) {
	st, sh, out := b.st, sheetSummary, b.out
	quoted, note := "", ""
	if t := out.TCO; t != nil {
		quoted, note = t.ElectricityQuoted, t.Note
		if t.ElectricityDefault {
			quoted += " (memplan's default)"
		}
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
		{sElectricity, "Electricity price (" + b.cur + " per kWh)", b.elec, st.priceInput, nameElectricity, elecNote},
		{sPUE, "PUE (facility power / IT power)", b.pue, st.ratioInput, namePUE,
			"Power usage effectiveness of the data centre: cooling and power distribution on top of the servers' own draw."},
		{sHorizonHours, "Hours powered over the horizon", b.hours, st.count, nameHorizonHours,
			fmt.Sprintf("The planning horizon, %s years, around the clock. Fixed here: drive wear and replacements depend on it too; change `horizon:` in the workload and re-run memplan.", trimFloat(out.HorizonYears))},
		{sRankBy, "Rank by", b.rankBy, st.textInput, nameRankBy,
			fmt.Sprintf("capital: the purchase (fleet cost); tco: purchase plus power over the horizon (TCO for the fleet). memplan ranked by %s.", b.rankBy)},
	}
	for _, p := range params {
		w.set(1, p.row, p.label, st.label)
		w.set(colRec, p.row, p.value, p.style)
		w.set(colBase, p.row, p.notes, st.wrap)
		w.merge(colBase, summaryWidth, p.row)
		if w.err == nil {
			w.err = b.define(p.name, absCell(sh, colRec, p.row), p.label)
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
		if w.err == nil {
			w.err = b.f.AddDataValidation(sh, dv)
		}
	}
	dv := excelize.NewDataValidation(false)
	dv.Sqref = cell(colRec, sRankBy)
	if w.err == nil {
		w.err = dv.SetDropList([]string{model.RankCapital, model.RankTCO})
	}
	if w.err == nil {
		w.err = b.f.AddDataValidation(sh, dv)
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
		w.set(1, l.row, l.text, st.label)
	}
	for _, c := range []struct {
		col    int
		exists bool
	}{{colRec, out.Recommended != nil}, {colBase, out.Baseline != nil}} {
		if !c.exists {
			continue
		}
		pick := b.picker(w, c.col, b.pickRow(c.col), vals[c.col])
		pick(sWatts, "CfgWatts", st.gib)
		pick(sPowerPer, "CfgPower", st.money)
		pick(sTCOPer, "CfgTCO", st.money)
		pick(sTCOFleet, "CfgTCOFleet", st.moneyBold)
	}
	if out.Recommended != nil && out.Baseline != nil {
		rec, base := func(r int) string { return cell(colRec, r) }, func(r int) string { return cell(colBase, r) }
		num := func(col, row int) float64 { return vals[col][row].(float64) }
		savePer, saveFleet := num(colBase, sTCOPer)-num(colRec, sTCOPer), num(colBase, sTCOFleet)-num(colRec, sTCOFleet)
		w.formula(colRec, sTCOSavePer, fmt.Sprintf("%s-%s", base(sTCOPer), rec(sTCOPer)), savePer, st.moneyBold)
		w.formula(colRec, sTCOSaveFleet, fmt.Sprintf("%s-%s", base(sTCOFleet), rec(sTCOFleet)), saveFleet, st.moneyBold)
		w.formula(colRec, sTCOSavePct, fmt.Sprintf("IF(%s>0,%s/%s,0)", base(sTCOFleet), rec(sTCOSaveFleet), base(sTCOFleet)), share(saveFleet, num(colBase, sTCOFleet)), st.pct)
	}
}

func orNone(s string) string {
	if s == "" {
		return "no electricity price"
	}
	return s
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
