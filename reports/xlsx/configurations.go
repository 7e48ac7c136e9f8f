package xlsx

import (
	"fmt"
	"math"
	"strconv"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// Columns of the Configurations sheet. The ones a reader of the printed
// list needs come first, up to cPrintLast: the print area ends there, so
// that 108 configurations print on three pages at 8 pt or more. The
// parts, unit prices, partial costs and the ranking's inputs follow, on
// screen.
const (
	cRank = iota + 1
	cLabel
	cStatus
	cRuntime
	cDeadline
	cSlowdown
	cSlowHigh
	cServers
	cPerServer
	cFleet
	cTCOFleet
	cShare
	cCriticalJob
	cFit
	cSlowLow
	cProvenance
	cPlatform
	cDIMMCount
	cDIMM
	cInstalled
	cUsable
	cSwap
	cDrives
	cDrive
	cReplacements
	cPlatformPrice
	cDIMMPrice
	cDrivePrice
	cDIMMsCost
	cDrivesCost
	cReplCost
	cWatts
	cEnergy
	cPower
	cTCO
	cRankCost
	cTier
	cModelRank
	cTieKey
	cMissGroup
	cAllDRAM
	cBaseRank
	cID
	cLast      = cID
	cPrintLast = cTCOFleet
	// cTitleCols columns (Rank, Configuration) repeat on every printed
	// page, as row 1 does.
	cTitleCols = cLabel
)

// configNames are the defined names over Configurations columns that other
// sheets' formulas use.
var configNames = []struct {
	name string
	col  int
}{
	{"CfgRank", cRank}, {"CfgLabel", cLabel}, {"CfgStatus", cStatus}, {"CfgPlatform", cPlatform},
	{"CfgDIMMCount", cDIMMCount}, {"CfgDIMM", cDIMM}, {"CfgDrives", cDrives}, {"CfgDrive", cDrive},
	{"CfgReplacements", cReplacements}, {"CfgSlowdown", cSlowdown}, {"CfgSlowHigh", cSlowHigh},
	{"CfgRuntime", cRuntime}, {"CfgDeadline", cDeadline}, {"CfgShare", cShare}, {"CfgServers", cServers},
	{"CfgPerServer", cPerServer}, {"CfgFleet", cFleet}, {"CfgWatts", cWatts}, {"CfgPower", cPower},
	{"CfgTCO", cTCO}, {"CfgTCOFleet", cTCOFleet}, {"CfgRankCost", cRankCost}, {"CfgTier", cTier}, {"CfgModelRank", cModelRank},
	{"CfgAllDRAM", cAllDRAM}, {"CfgBaseRank", cBaseRank}, {"CfgID", cID},
}

var statusText = [4]string{"", "meets", "at risk", "misses"}

// configurations writes one row per configuration. It streams: a result
// can list tens of thousands of configurations.
func (b *book) configurations() error {
	f, st, sh := b.f, b.st, sheetConfigs
	last := len(b.rows) + 1
	cur := " (" + b.cur + ")"
	cols := []struct {
		header string
		width  float64
	}{
		cRank: {"Rank", 5}, cLabel: {"Configuration", 54}, cStatus: {"Deadlines", 8},
		cPlatform: {"Platform", 16}, cDIMMCount: {"DIMMs", 7}, cDIMM: {"DIMM", 22},
		cInstalled: {"Installed RAM (GiB)", 10}, cUsable: {"Usable RAM (GiB)", 10},
		cSwap: {"Swap", 18}, cDrives: {"Swap drives", 7}, cDrive: {"Drive", 18},
		cReplacements: {"Replacement drives over the horizon", 12}, cCriticalJob: {"Critical job", 16},
		cFit: {"Fit ratio", 8}, cSlowdown: {"Slowdown", 9}, cSlowLow: {"Slowdown 95% low", 9},
		cSlowHigh: {"Slowdown 95% high", 9}, cProvenance: {"Slowdown from", 11},
		cRuntime: {"Runtime (h)", 8}, cDeadline: {"Deadline (h)", 9}, cShare: {"Runtime / deadline", 9},
		cServers: {"Servers", 8}, cPlatformPrice: {"Platform price" + cur, 14}, cDIMMPrice: {"DIMM price" + cur, 12},
		cDrivePrice: {"Drive price" + cur, 12}, cDIMMsCost: {"DIMMs" + cur, 14}, cDrivesCost: {"Swap drives" + cur, 13},
		cReplCost: {"Replacements" + cur, 13}, cPerServer: {"Cost per server" + cur, 8}, cFleet: {"Fleet cost" + cur, 8},
		cWatts: {"Average draw per server (W)", 10}, cEnergy: {"Energy per server over the horizon (kWh)", 12},
		cPower: {"Power per server over the horizon" + cur, 14}, cTCO: {"TCO per server" + cur, 15},
		cTCOFleet: {"TCO for the fleet" + cur, 8}, cRankCost: {"Ranked by" + cur, 17},
		cTier: {"Tier", 5}, cModelRank: {"memplan rank", 8}, cTieKey: {"Tie key", 12},
		cMissGroup: {"Closeness (misses)", 9}, cAllDRAM: {"All-DRAM", 8}, cBaseRank: {"Rank as a baseline", 9}, cID: {"ID", 60},
	}

	// Conditional formats go on the sheet before the stream writer takes
	// it over; it writes them out on Flush.
	rowsRef := fmt.Sprintf("A2:%s%d", colName(cLast), last)
	tierCol, rankCol := colName(cTier), colName(cRank)
	if err := f.SetConditionalFormat(sh, rowsRef, []excelize.ConditionalFormatOptions{
		{Type: "formula", Criteria: fmt.Sprintf("$%s2=3", tierCol), Format: &st.miss, StopIfTrue: true},
		{Type: "formula", Criteria: fmt.Sprintf("$%s2=2", tierCol), Format: &st.risk, StopIfTrue: true},
		{Type: "formula", Criteria: fmt.Sprintf("$%s2=1", rankCol), Format: &st.best},
	}); err != nil {
		return err
	}
	if err := f.SetSheetDimension(sh, "A1:"+cell(cLast, last)); err != nil {
		return err
	}
	// Text columns as wide as their longest entry (up to a limit): text
	// stopped by the next filled cell is cut off on screen and on paper.
	for _, c := range b.rows {
		for _, t := range [...]struct {
			col int
			s   string
		}{{cLabel, c.Label}, {cPlatform, c.Platform.SKU}, {cDIMM, c.DIMM.SKU},
			{cSwap, swapText(c)}, {cCriticalJob, c.CriticalJob}, {cProvenance, c.Provenance}} {
			cols[t.col].width = max(cols[t.col].width, min(float64(len([]rune(t.s)))+2, 90))
		}
		if d := c.Swap.Drive; d != nil && c.Swap.Drives > 0 {
			cols[cDrive].width = max(cols[cDrive].width, min(float64(len([]rune(d.SKU)))+2, 90))
		}
	}
	// Amounts print with thousands separators, two decimals and the
	// currency: a column narrower than its largest amount prints ###.
	// One backing array for every cell: a row is a slice of it.
	all := make([]excelize.Cell, len(b.rows)*cLast)
	b.cfgRows = make([][]excelize.Cell, len(b.rows))
	for i, c := range b.rows {
		row := all[i*cLast : (i+1)*cLast : (i+1)*cLast]
		b.configRow(row, i, i+2, c)
		b.cfgRows[i] = row
		for col := range row {
			c := &row[col]
			x, ok := c.Value.(float64)
			switch {
			case !ok:
			case c.StyleID == st.whole || c.StyleID == st.wholeBold:
				cols[col+1].width = max(cols[col+1].width, wholeWidth(x, c.StyleID == st.wholeBold))
			case x >= 1e4 || x <= -1e4:
				cols[col+1].width = max(cols[col+1].width, amountWidth(x, b.cur))
			}
		}
	}
	// A header wraps at spaces, never inside a word.
	for c := cRank; c <= cLast; c++ {
		cols[c].width = max(cols[c].width, headerWidth(cols[c].header))
	}
	// Print the reading columns (see cPrintLast) as large as the page
	// width allows, Rank, Configuration and the header row on every page.
	widths := make([]float64, 0, cPrintLast)
	for c := cRank; c <= cPrintLast; c++ {
		widths = append(widths, cols[c].width)
	}
	if err := b.pageSetup(sh, pageSheet, printScale(widths...)); err != nil {
		return err
	}
	if err := b.printTitles(sh, cTitleCols, 1); err != nil {
		return err
	}
	if err := b.printArea(sh, cPrintLast, last); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sh)
	if err != nil {
		return err
	}
	for c := cRank; c <= cLast; c++ {
		if err := sw.SetColWidth(c, c, cols[c].width); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, XSplit: cLabel, YSplit: 1, TopLeftCell: cell(cLabel+1, 2), ActivePane: "bottomRight"}); err != nil {
		return err
	}
	header := make([]any, cLast)
	lines := 1
	for c := cRank; c <= cLast; c++ {
		header[c-1] = excelize.Cell{Value: cols[c].header, StyleID: st.header}
		lines = max(lines, wrappedLines(cols[c].header, cols[c].width))
	}
	// As high as the longest header wraps, or it prints into the first row.
	if err := sw.SetRow("A1", header, excelize.RowOpts{Height: float64(lines)*lineHeight + 2}); err != nil {
		return err
	}
	// The stream writer takes *Cell as well as Cell: pointers into the
	// rows box without copying each cell to the heap. A cell configRow
	// left unset stays out of the sheet.
	vals := make([]any, cLast)
	for i, row := range b.cfgRows {
		for c := range row {
			vals[c] = nil
			if x := &row[c]; x.Value != nil || x.Formula != "" || x.StyleID != 0 {
				vals[c] = x
			}
		}
		if err := sw.SetRow(cell(1, i+2), vals); err != nil {
			return err
		}
	}
	if err := sw.AddTable(&excelize.Table{Range: "A1:" + cell(cLast, last), Name: "tblConfigurations", StyleName: "TableStyleLight1"}); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	for _, n := range configNames {
		if err := b.define(n.name, absRange(sh, n.col, 2, last), ""); err != nil {
			return err
		}
	}
	return nil
}

// configRow fills row (sheet row r) for configuration c. Each formula
// carries the value it has at the result's prices, computed here the way
// the formula computes it (see writer).
func (b *book) configRow(row []excelize.Cell, i, r int, c reports.Configuration) {
	st := b.st
	rs := strconv.Itoa(r)
	at := func(col int) string { return colName(col) + rs }
	set := func(col int, v any, style int) { row[col-1] = excelize.Cell{Value: v, StyleID: style} }
	formula := func(col int, fm string, v any, style int) {
		row[col-1] = excelize.Cell{Formula: fm, Value: v, StyleID: style}
	}
	t := tier(c)

	// The ranking formulas reproduce the model's order, which is the
	// sheet's row order at the result's prices.
	rank := i + 1
	formula(cRank, b.rankFormula(i, r), rank, st.count)
	set(cLabel, c.Label, st.text)
	set(cStatus, statusText[t], st.text)
	set(cPlatform, c.Platform.SKU, st.text)
	set(cDIMMCount, c.DIMMCount, st.count)
	set(cDIMM, c.DIMM.SKU, st.text)
	set(cInstalled, c.InstalledRAMGiB, st.gib)
	set(cUsable, c.UsableRAMGiB, st.gib)
	set(cSwap, swapText(c), st.text)
	drives, replacements, drive, drivePrice := 0, 0, "", 0.0
	if c.Swap.Drive != nil && c.Swap.Drives > 0 {
		drives, drive, drivePrice = c.Swap.Drives, c.Swap.Drive.SKU, c.Swap.Drive.UnitPrice.Float()
		if c.Wear != nil {
			replacements = c.Wear.ReplacementsPerServer
		}
	}
	set(cDrives, drives, st.count)
	set(cDrive, drive, st.text)
	set(cReplacements, replacements, st.count)
	set(cCriticalJob, c.CriticalJob, st.text)
	set(cFit, c.FitRatio, st.pct)
	set(cSlowdown, c.Slowdown, st.ratio)
	set(cSlowLow, c.SlowdownLow, st.ratio)
	set(cSlowHigh, c.SlowdownHigh, st.ratio)
	set(cProvenance, c.Provenance, st.text)
	set(cRuntime, c.RuntimeHours, st.hours)
	set(cDeadline, c.DeadlineHours, st.hours)
	if c.DeadlineHours > 0 {
		formula(cShare, at(cRuntime)+"/"+at(cDeadline), c.RuntimeHours/c.DeadlineHours, st.pct)
	} else {
		set(cShare, "", st.pct)
	}
	set(cServers, c.Servers, st.count)

	formula(cPlatformPrice, priceLookup("Platform", at(cPlatform)), c.Platform.UnitPrice.Float(), st.money)
	formula(cDIMMPrice, priceLookup("Dimm", at(cDIMM)), c.DIMM.UnitPrice.Float(), st.money)
	if drives > 0 {
		formula(cDrivePrice, priceLookup("Drive", at(cDrive)), drivePrice, st.money)
	} else {
		set(cDrivePrice, 0, st.money)
	}
	dimmsCost := float64(c.DIMMCount) * c.DIMM.UnitPrice.Float()
	drivesCost, replCost := float64(drives)*drivePrice, float64(replacements)*drivePrice
	formula(cDIMMsCost, at(cDIMMCount)+"*"+at(cDIMMPrice), dimmsCost, st.money)
	formula(cDrivesCost, at(cDrives)+"*"+at(cDrivePrice), drivesCost, st.money)
	formula(cReplCost, at(cReplacements)+"*"+at(cDrivePrice), replCost, st.money)
	// Rounded to the cent as memplan rounds money; it also keeps the
	// "<"&value criteria of the ranking exact.
	perServer := round2(c.Platform.UnitPrice.Float() + dimmsCost + drivesCost + replCost)
	fleet := round2(float64(c.Servers) * perServer)
	formula(cPerServer, "ROUND("+at(cPlatformPrice)+"+"+at(cDIMMsCost)+"+"+at(cDrivesCost)+"+"+at(cReplCost)+",2)", perServer, st.whole)
	formula(cFleet, "ROUND("+at(cServers)+"*"+at(cPerServer)+",2)", fleet, st.wholeBold)
	// Power follows the electricity price and PUE on the Summary sheet.
	// The watts do not depend on prices; memplan computed them.
	set(cWatts, c.Watts, st.gib)
	energy := c.Watts * b.hours * b.pue / 1000
	// Power is rounded to the cent per server, as memplan rounds it (the
	// one fractional amount, package money); the TCO sums from there.
	power := round2(energy * b.elec)
	tcoFleet := round2(float64(c.Servers) * (perServer + power))
	formula(cEnergy, at(cWatts)+"*"+nameHorizonHours+"*"+namePUE+"/1000", energy, st.gib)
	formula(cPower, "ROUND("+at(cEnergy)+"*"+nameElectricity+",2)", power, st.money)
	formula(cTCO, "ROUND("+at(cPerServer)+"+"+at(cPower)+",2)", round2(perServer+power), st.money)
	formula(cTCOFleet, "ROUND("+at(cServers)+"*("+at(cPerServer)+"+"+at(cPower)+"),2)", tcoFleet, st.wholeBold)
	rankCost := fleet
	if b.rankBy == model.RankTCO {
		rankCost = tcoFleet
	}
	formula(cRankCost, "IF("+nameRankBy+`="`+model.RankTCO+`",`+at(cTCOFleet)+","+at(cFleet)+")", rankCost, st.money)
	set(cTier, t, st.count)
	set(cModelRank, c.Rank, st.count)
	if fm, v := b.tieKeyCell(i, r, perServer); fm != "" {
		formula(cTieKey, fm, v, st.count)
	} else {
		set(cTieKey, v, st.count)
	}
	set(cMissGroup, b.rank.missGroup[i], st.count)
	dram := "no"
	if c.AllDRAM {
		dram = "yes"
	}
	set(cAllDRAM, dram, st.text)
	// Whether a configuration can be the baseline (all-DRAM and meeting
	// the deadlines) does not depend on prices; which one ranks best does.
	if c.AllDRAM && t < model.TierMisses {
		formula(cBaseRank, at(cRank), rank, st.count)
	} else {
		set(cBaseRank, "", st.count)
	}
	set(cID, c.ID, st.text)
}

// round2 rounds money to the cent as the sheets' ROUND(...,2) does.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// configValue is the value of a Configurations cell at the result's
// prices: what the Summary's INDEX formulas pick.
func (b *book) configValue(i, col int) any {
	return b.cfgRows[i][col-1].Value
}

// wholeWidth is the column width that prints x to the unit ("1,234,568"),
// with a margin; bold amounts run wider.
func wholeWidth(x float64, bold bool) float64 {
	digits := len(strconv.FormatFloat(math.Abs(x), 'f', 0, 64))
	w := float64(digits+(digits-1)/3) + 3
	if bold {
		w = math.Ceil(1.1*w) + 1
	}
	return w
}

// amountWidth is the column width that prints x as money ("1,234,567.89
// RUB"), with a margin; bold amounts run wider.
func amountWidth(x float64, cur string) float64 {
	digits := len(strconv.FormatFloat(math.Abs(x), 'f', 0, 64))
	return float64(digits+(digits-1)/3+3+1+len(cur)) + 3
}
