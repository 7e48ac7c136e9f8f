package xlsx

import (
	"fmt"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// Columns of the Configurations sheet.
const (
	cRank = iota + 1
	cLabel
	cStatus
	cPlatform
	cDIMMCount
	cDIMM
	cInstalled
	cUsable
	cSwap
	cDrives
	cDrive
	cReplacements
	cCriticalJob
	cFit
	cSlowdown
	cSlowLow
	cSlowHigh
	cProvenance
	cRuntime
	cDeadline
	cShare
	cServers
	cPlatformPrice
	cDIMMPrice
	cDrivePrice
	cDIMMsCost
	cDrivesCost
	cReplCost
	cPerServer
	cFleet
	cWatts
	cEnergy
	cPower
	cTCO
	cTCOFleet
	cRankCost
	cTier
	cModelRank
	cTieKey
	cMissGroup
	cAllDRAM
	cBaseRank
	cID
	cLast = cID
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
		cRank: {"Rank", 6}, cLabel: {"Configuration", 46}, cStatus: {"Deadlines", 9},
		cPlatform: {"Platform", 16}, cDIMMCount: {"DIMMs", 7}, cDIMM: {"DIMM", 22},
		cInstalled: {"Installed RAM (GiB)", 10}, cUsable: {"Usable RAM (GiB)", 10},
		cSwap: {"Swap", 18}, cDrives: {"Swap drives", 7}, cDrive: {"Drive", 18},
		cReplacements: {"Replacement drives over the horizon", 12}, cCriticalJob: {"Critical job", 16},
		cFit: {"Fit ratio", 8}, cSlowdown: {"Slowdown", 9}, cSlowLow: {"Slowdown 95% low", 9},
		cSlowHigh: {"Slowdown 95% high", 9}, cProvenance: {"Slowdown from", 11},
		cRuntime: {"Runtime (h)", 9}, cDeadline: {"Deadline (h)", 9}, cShare: {"Runtime / deadline", 9},
		cServers: {"Servers", 8}, cPlatformPrice: {"Platform price" + cur, 14}, cDIMMPrice: {"DIMM price" + cur, 12},
		cDrivePrice: {"Drive price" + cur, 12}, cDIMMsCost: {"DIMMs" + cur, 14}, cDrivesCost: {"Swap drives" + cur, 13},
		cReplCost: {"Replacements" + cur, 13}, cPerServer: {"Cost per server" + cur, 15}, cFleet: {"Fleet cost" + cur, 17},
		cWatts: {"Average draw per server (W)", 10}, cEnergy: {"Energy per server over the horizon (kWh)", 12},
		cPower: {"Power per server over the horizon" + cur, 14}, cTCO: {"TCO per server" + cur, 15},
		cTCOFleet: {"TCO for the fleet" + cur, 17}, cRankCost: {"Ranked by" + cur, 17},
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
	for c := cRank; c <= cLast; c++ {
		header[c-1] = excelize.Cell{Value: cols[c].header, StyleID: st.header}
	}
	if err := sw.SetRow("A1", header, excelize.RowOpts{Height: 45}); err != nil {
		return err
	}
	row := make([]any, cLast)
	for i, c := range b.rows {
		r := i + 2
		b.configRow(row, i, r, c)
		if err := sw.SetRow(cell(1, r), row); err != nil {
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

// configRow fills row (sheet row r) for configuration c.
func (b *book) configRow(row []any, i, r int, c reports.Configuration) {
	st := b.st
	at := func(col int) string { return cell(col, r) }
	set := func(col int, v any, style int) { row[col-1] = excelize.Cell{Value: v, StyleID: style} }
	formula := func(col int, fm string, style int) { row[col-1] = excelize.Cell{Formula: fm, StyleID: style} }
	t := tier(c)

	formula(cRank, b.rankFormula(i, r), st.count)
	set(cLabel, c.Label, st.text)
	set(cStatus, statusText[t], st.text)
	set(cPlatform, c.Platform.SKU, st.text)
	set(cDIMMCount, c.DIMMCount, st.count)
	set(cDIMM, c.DIMM.SKU, st.text)
	set(cInstalled, c.InstalledRAMGiB, st.gib)
	set(cUsable, c.UsableRAMGiB, st.gib)
	set(cSwap, swapText(c), st.text)
	drives, replacements, drive := 0, 0, ""
	if c.Swap.Drive != nil && c.Swap.Drives > 0 {
		drives, drive = c.Swap.Drives, c.Swap.Drive.SKU
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
		formula(cShare, fmt.Sprintf("%s/%s", at(cRuntime), at(cDeadline)), st.pct)
	} else {
		set(cShare, "", st.pct)
	}
	set(cServers, c.Servers, st.count)

	formula(cPlatformPrice, priceLookup("Platform", at(cPlatform)), st.money)
	formula(cDIMMPrice, priceLookup("Dimm", at(cDIMM)), st.money)
	if drives > 0 {
		formula(cDrivePrice, priceLookup("Drive", at(cDrive)), st.money)
	} else {
		set(cDrivePrice, 0, st.money)
	}
	formula(cDIMMsCost, fmt.Sprintf("%s*%s", at(cDIMMCount), at(cDIMMPrice)), st.money)
	formula(cDrivesCost, fmt.Sprintf("%s*%s", at(cDrives), at(cDrivePrice)), st.money)
	formula(cReplCost, fmt.Sprintf("%s*%s", at(cReplacements), at(cDrivePrice)), st.money)
	// Rounded to the cent as memplan rounds money; it also keeps the
	// "<"&value criteria of the ranking exact.
	formula(cPerServer, fmt.Sprintf("ROUND(%s+%s+%s+%s,2)", at(cPlatformPrice), at(cDIMMsCost), at(cDrivesCost), at(cReplCost)), st.money)
	formula(cFleet, fmt.Sprintf("ROUND(%s*%s,2)", at(cServers), at(cPerServer)), st.moneyBold)
	// Power follows the electricity price and PUE on the Summary sheet.
	// The watts do not depend on prices; memplan computed them.
	set(cWatts, c.Watts, st.gib)
	formula(cEnergy, fmt.Sprintf("%s*%s*%s/1000", at(cWatts), nameHorizonHours, namePUE), st.gib)
	formula(cPower, fmt.Sprintf("%s*%s", at(cEnergy), nameElectricity), st.money)
	formula(cTCO, fmt.Sprintf("ROUND(%s+%s,2)", at(cPerServer), at(cPower)), st.money)
	// From the unrounded power, as memplan multiplies before rounding.
	formula(cTCOFleet, fmt.Sprintf("ROUND(%s*(%s+%s),2)", at(cServers), at(cPerServer), at(cPower)), st.moneyBold)
	formula(cRankCost, fmt.Sprintf(`IF(%s="%s",%s,%s)`, nameRankBy, model.RankTCO, at(cTCOFleet), at(cFleet)), st.money)
	set(cTier, t, st.count)
	set(cModelRank, c.Rank, st.count)
	if fm, v := b.tieKeyCell(i, r); fm != "" {
		formula(cTieKey, fm, st.count)
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
	if c.AllDRAM && t < 3 {
		formula(cBaseRank, at(cRank), st.count)
	} else {
		set(cBaseRank, "", st.count)
	}
	set(cID, c.ID, st.text)
}
