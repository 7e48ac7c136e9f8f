package xlsx

import (
	"fmt"
	"math"
	"slices"

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
	w := b.newWriter(sh)
	w.width(hName, 22)
	w.width(hX, 16)
	w.width(hY, 16)
	if err := b.pageSetup(sh, pageCharts, 100); err != nil {
		return err
	}
	// Print the charts, not the helper cells beside them, and each chart
	// on a page of its own.
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", Scope: sh,
		RefersTo: fmt.Sprintf("%s!$A$1:$%s$%d", sheetRef(sh), colName(chartCols), 2*chartRows)}); err != nil {
		return err
	}
	if err := f.InsertPageBreak(sh, cell(1, chartRows+1)); err != nil {
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
	xs, ys := []float64{line}, []float64{}
	for i := range b.rows {
		if x, ok := b.configValue(i, xCol).(float64); ok {
			xs = append(xs, x)
		}
		ys = append(ys, b.configValue(i, cFleet).(float64))
	}
	xMin, xMax := axisRange(xs, false)
	yMin, _ := axisRange(ys, true)
	if xCol == cShare {
		xFmt = "0%"
		if xMax-xMin < 0.05 {
			xFmt = "0.0%"
		}
	} else if xMax-xMin < 0.5 {
		xFmt = "0.00"
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
		i := b.pickRow(p.col)
		w.formula(hX, p.row, fmt.Sprintf("INDEX(%s,%s)", xName, absCell(sheetSummary, p.col, sRow)), b.configValue(i, xCol), st.hours)
		w.formula(hY, p.row, absCell(sheetSummary, p.col, sFleet), b.configValue(i, cFleet), st.money)
	}
	// The deadline line spans the cost axis; its top follows the costs
	// when prices are edited.
	w.set(hName, hDeadline, "Deadline", st.text)
	w.set(hX, hDeadline, line, st.hours)
	w.set(hY, hDeadline, yMin, st.money)
	w.set(hX, hDeadline+1, line, st.hours)
	w.formula(hY, hDeadline+1, "MAX(CfgFleet)*1.05", slices.Max(ys)*1.05, st.money)
	tierNames := []string{"", "Meet every deadline", "At risk (meet only on the central estimate)", "Miss a deadline"}
	for t := 1; t <= 3; t++ {
		w.set(hName, hTierNames+t-1, tierNames[t], st.text)
	}

	// Later series are drawn over earlier ones: the deadline first, then
	// the tiers, then the baseline and, on top of everything, the
	// recommendation, which can share its runtime with many others.
	series := []excelize.ChartSeries{{
		Name:       absCell(sh, hName, hDeadline),
		Categories: absRange(sh, hX, hDeadline, hDeadline+1),
		Values:     absRange(sh, hY, hDeadline, hDeadline+1),
		Fill:       solid("000000"),
		Line:       excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5, Dash: excelize.LineDashDash},
		Marker:     excelize.ChartMarker{Symbol: "none"},
	}}
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
	for i := len(points) - 1; i >= 0; i-- {
		p := points[i]
		if !p.exists {
			continue
		}
		m := marker("diamond", 11, "404040")
		if p.row == hRec {
			m = marker("diamond", 14, "1F4E99")
			m.Border = excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5, Fill: solid("FFFFFF")}
		}
		series = append(series, excelize.ChartSeries{
			Name:       absCell(sh, hName, p.row),
			Categories: absCell(sh, hX, p.row),
			Values:     absCell(sh, hY, p.row),
			Marker:     m,
		})
	}
	if err := f.AddChart(sh, "A1", &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     title("Fleet cost against runtime, one point per configuration (dashed: the deadline)"),
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: chartWidth, Height: chartHeight},
		XAxis: excelize.ChartAxis{Title: title(xTitle), NumFmt: excelize.ChartNumFmt{CustomNumFmt: xFmt}, MajorGridLines: true,
			Minimum: &xMin, Maximum: &xMax, Font: axisFont},
		// The cost axis starts near the cheapest configuration and is open
		// upwards, so that an edited price still shows.
		YAxis: excelize.ChartAxis{Title: title("Fleet cost (" + b.cur + ")"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"}, MajorGridLines: true,
			Minimum: &yMin, Font: axisFont},
	}); err != nil {
		return err
	}

	// Slowdown against fit ratio, one series per swap backend or device
	// class. Points at one fit ratio differ by drive count (RAID 0) and
	// job concurrency, so they are drawn as markers, not joined.
	if len(b.classes) == 0 {
		w.set(1, chartRows+2, "No listed configuration swaps, so there is no slowdown to chart.", st.text)
		return w.flush()
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
	if err := f.AddChart(sh, cell(1, chartRows+1), &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     title("Slowdown against the share of memory in RAM, per swap backend / device class"),
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: chartWidth, Height: chartHeight},
		XAxis:     excelize.ChartAxis{Title: title("Fit ratio (share of the jobs' memory resident in RAM)"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}, MajorGridLines: true, Font: axisFont},
		YAxis:     excelize.ChartAxis{Title: title("Slowdown (runtime / runtime in RAM)"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0.00"}, MajorGridLines: true, Font: axisFont},
	}); err != nil {
		return err
	}
	return w.flush()
}

// Chart size and the cells each chart covers: chartCols default columns
// by chartRows default rows, the second chart from row chartRows+1. A
// chart is small enough to print whole on a landscape A4 or Letter page
// at full size (spreadsheets draw default columns a little wider than
// 64 px, so the columns are counted with room to spare).
const (
	chartWidth  = 820
	chartHeight = 520
	chartCols   = 14
	chartRows   = 31
)

// axisFont draws tick labels in near-black: the default grey is hard to
// read on paper.
var axisFont = excelize.Font{Color: "202020", Size: 10}

// axisRange is an axis from a little below the smallest value to a little
// above the largest, on round numbers, so that points of nearly equal
// value spread over the plot instead of stacking at one spot. With
// fromZero, an axis whose data start near zero starts at zero.
func axisRange(vs []float64, fromZero bool) (lo, hi float64) {
	lo, hi = slices.Min(vs), slices.Max(vs)
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi)*0.1, 1)
	}
	step := niceStep(span / 5)
	lo = math.Floor((lo-span*0.08)/step) * step
	hi = math.Ceil((hi+span*0.08)/step) * step
	if slices.Min(vs) >= 0 && lo < 0 || fromZero && lo < 0.4*hi {
		lo = 0
	}
	return lo, hi
}

// niceStep is 1, 2 or 5 times a power of ten, at least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
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
