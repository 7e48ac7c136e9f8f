package xlsx

import (
	"fmt"

	"github.com/xuri/excelize/v2"
)

// The chart data the sheets do not already hold (the deadline line, the
// recommended and baseline points) sits in helper cells beside the charts.
const (
	hName = 16 // column P: series names
	hX    = 17 // column Q
	hY    = 18 // column R

	hTitle     = 1
	hRec       = 3
	hBase      = 4
	hDeadline  = 5 // and the row below: the line's two ends
	hTierNames = 8 // rows 8..10: names of the tier series
	maxClasses = 40
)

func (b *book) charts() error {
	f, st, sh := b.f, b.st, sheetCharts
	w := newWriter(f, sh)
	if err := f.SetColWidth(sh, colName(hName), colName(hName), 22); err != nil {
		return err
	}
	if err := f.SetColWidth(sh, colName(hX), colName(hY), 16); err != nil {
		return err
	}

	// Cost against runtime. With one deadline for every configuration the
	// x axis is hours; otherwise it is runtime as a share of each
	// configuration's own deadline, and the deadline is at 100%.
	deadline, uniform := b.rows[0].DeadlineHours, true
	for _, c := range b.rows {
		if c.DeadlineHours != deadline {
			uniform = false
		}
	}
	xCol, xTitle, xFmt, xName, line := cRuntime, "Runtime of the critical job (hours)", "0.0", "CfgRuntime", deadline
	if !uniform || deadline <= 0 {
		xCol, xTitle, xFmt, xName, line = cShare, "Runtime as a share of the deadline", "0%", "CfgShare", 1
	}
	w.set(hName, hTitle, "Chart data", st.section)
	w.set(hName, 2, "Series", st.header)
	w.set(hX, 2, "x", st.header)
	w.set(hY, 2, "Fleet cost ("+b.cur+")", st.header)
	w.set(hName, hRec, "Recommended", st.text)
	w.set(hName, hBase, "All-DRAM baseline", st.text)
	points := []struct {
		row, col int
		exists   bool
	}{{hRec, colRec, b.out.Recommended != nil}, {hBase, colBase, b.out.Baseline != nil}}
	for _, p := range points {
		if !p.exists {
			continue
		}
		w.formula(hX, p.row, fmt.Sprintf("INDEX(%s,%s)", xName, absCell(sheetSummary, p.col, sRow)), st.hours)
		w.formula(hY, p.row, absCell(sheetSummary, p.col, sFleet), st.money)
	}
	w.set(hName, hDeadline, "Deadline", st.text)
	w.set(hX, hDeadline, line, st.hours)
	w.set(hY, hDeadline, 0, st.money)
	w.set(hX, hDeadline+1, line, st.hours)
	w.formula(hY, hDeadline+1, "MAX(CfgFleet)*1.05", st.money)
	tierNames := []string{"", "Meet every deadline", "At risk (meet only on the central estimate)", "Miss a deadline"}
	for t := 1; t <= 3; t++ {
		w.set(hName, hTierNames+t-1, tierNames[t], st.text)
	}
	if w.err != nil {
		return w.err
	}

	var series []excelize.ChartSeries
	markers := []string{"circle", "triangle", "square"}
	colors := []string{"2E7D32", "E0A000", "C62828"}
	for t := 1; t <= 3; t++ {
		s := b.tiers[t]
		if s.empty() {
			continue
		}
		series = append(series, excelize.ChartSeries{
			Name:       absCell(sh, hName, hTierNames+t-1),
			Categories: absRange(sheetConfigs, xCol, s.first, s.last),
			Values:     absRange(sheetConfigs, cFleet, s.first, s.last),
			Marker:     marker(markers[t-1], 6, colors[t-1]),
		})
	}
	for i, p := range points {
		if !p.exists {
			continue
		}
		series = append(series, excelize.ChartSeries{
			Name:       absCell(sh, hName, p.row),
			Categories: absCell(sh, hX, p.row),
			Values:     absCell(sh, hY, p.row),
			Marker:     marker("diamond", 12, []string{"1F4E99", "404040"}[i]),
		})
	}
	series = append(series, excelize.ChartSeries{
		Name:       absCell(sh, hName, hDeadline),
		Categories: absRange(sh, hX, hDeadline, hDeadline+1),
		Values:     absRange(sh, hY, hDeadline, hDeadline+1),
		Fill:       solid("000000"),
		Line:       excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5, Dash: excelize.LineDashDash},
		Marker:     excelize.ChartMarker{Symbol: "none"},
	})
	if err := f.AddChart(sh, "A1", &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     title("Fleet cost against runtime, one point per configuration (dashed: the deadline)"),
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 960, Height: 500},
		XAxis:     excelize.ChartAxis{Title: title(xTitle), NumFmt: excelize.ChartNumFmt{CustomNumFmt: xFmt}, MajorGridLines: true},
		YAxis:     excelize.ChartAxis{Title: title("Fleet cost (" + b.cur + ")"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"}, MajorGridLines: true},
	}); err != nil {
		return err
	}

	// Slowdown against fit ratio, one series per swap backend or device
	// class. Points at one fit ratio differ by drive count (RAID 0) and
	// job concurrency, so they are drawn as markers, not joined.
	if len(b.classes) == 0 {
		return f.SetCellValue(sh, "A28", "No listed configuration swaps, so there is no slowdown to chart.")
	}
	series = series[:0]
	for i, c := range b.classes {
		if i == maxClasses {
			break
		}
		series = append(series, excelize.ChartSeries{
			Name:       absCell(sheetSlowdown, pClass, c.rows.first),
			Categories: absRange(sheetSlowdown, pFit, c.rows.first, c.rows.last),
			Values:     absRange(sheetSlowdown, pSlowdown, c.rows.first, c.rows.last),
			Marker:     marker(classMarkers[i%len(classMarkers)], 7, palette[i%len(palette)]),
		})
	}
	return f.AddChart(sh, "A27", &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     title("Slowdown against the share of memory in RAM, per swap backend / device class"),
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 960, Height: 500},
		XAxis:     excelize.ChartAxis{Title: title("Fit ratio (share of the jobs' memory resident in RAM)"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}, MajorGridLines: true},
		YAxis:     excelize.ChartAxis{Title: title("Slowdown (runtime / runtime in RAM)"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0.00"}, MajorGridLines: true},
	})
}

// Markers need an explicit fill and border: without one excelize writes
// markers that some spreadsheets draw blank.
var (
	palette      = []string{"1F77B4", "FF7F0E", "2CA02C", "D62728", "9467BD", "8C564B", "E377C2", "7F7F7F", "BCBD22", "17BECF"}
	classMarkers = []string{"circle", "square", "triangle", "diamond", "x", "star"}
)

func solid(color string) excelize.Fill {
	return excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}}
}

func marker(symbol string, size int, color string) excelize.ChartMarker {
	return excelize.ChartMarker{
		Symbol: symbol, Size: size, Fill: solid(color),
		Border: excelize.LineOptions{Type: excelize.LineSolid, Width: 0.75, Fill: solid(color)},
	}
}

func title(s string) excelize.ChartTitle {
	return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
}
