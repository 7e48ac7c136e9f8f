package xlsx

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/units"
	"github.com/xuri/excelize/v2"
)

// The lower part of the Slowdown sheet: what a probe's factor file
// measured besides its curves. Per-fault latency (quantiles, and a
// histogram with a chart per backend) and the source experiments
// (swapdemo, the page cache under big writes, copy workloads), each row
// beside the published result the probe compares it with. Its tables use
// columns A to I of the points list above, the text of each row last, in
// the wide Basis column.
const (
	mLabel = pClass // row label
	mFirst = pFit   // first of the numbers, B..H
	mText  = pBasis // published result and notes (I)
)

// sheetChart is a chart to anchor on the sheet before it is streamed.
type sheetChart struct {
	anchor string
	chart  *excelize.Chart
}

// measuredPart is what the lower part of the sheet adds besides cells: its
// charts, and the rows a printed page should start at, so that a
// histogram prints on one page with its chart.
type measuredPart struct {
	charts []sheetChart
	breaks []int
}

// Histogram charts: small enough to sit beside their table, tall enough
// for a dozen buckets to read.
const (
	histChartWidth  = 560
	histChartHeight = 260
	histChartRows   = 16 // default rows the chart covers, with room to spare
)

// layout places the measurement tables' cells and grows the column widths
// to what they need.
type layout struct {
	w      *writer
	st     styles
	widths map[int]float64
}

func (l *layout) fitText(col int, s string) {
	l.widths[col] = max(l.widths[col], min(float64(len([]rune(s)))+2, 60))
}

// fitNum: a number needs its digits, the thousands separators and a
// margin; a column too narrow shows ###.
func (l *layout) fitNum(col int, v float64, decimals int) {
	digits := len(strconv.FormatInt(int64(math.Abs(v)), 10))
	need := float64(digits+(digits-1)/3+decimals) + 3
	if decimals > 0 {
		need++
	}
	l.widths[col] = max(l.widths[col], need)
}

func (l *layout) num(col, r int, v float64, style, decimals int) {
	l.w.set(col, r, v, style)
	l.fitNum(col, v, decimals)
}

func (l *layout) formula(col, r int, fm string, v float64, style, decimals int) {
	l.w.formula(col, r, fm, v, style)
	l.fitNum(col, v, decimals)
}

// header writes a header row; a column is at least as wide as the
// longest word of its header (in bold), so that a word is never broken,
// and wide enough for it in two lines where that takes 16 at most.
func (l *layout) header(r int, names ...string) {
	for i, h := range names {
		if h == "" {
			continue
		}
		l.w.set(mLabel+i, r, h, l.st.header)
		// Two lines at most, so the header row stays low.
		l.widths[mLabel+i] = max(l.widths[mLabel+i], min(math.Ceil(1.1*float64(len([]rune(h)))/2)+3, 16))
		for _, word := range strings.Fields(h) {
			l.widths[mLabel+i] = max(l.widths[mLabel+i], math.Ceil(1.1*float64(len([]rune(word))))+2)
		}
	}
}

// note is a paragraph across the table's numbers, which print on one
// page (the wide text column may go to the next).
func (l *layout) note(r int, s string) {
	l.w.set(mLabel, r, s, l.st.wrap)
	l.w.merge(mLabel, mText-1, r)
}

// measured lays out every factor file's measurements from row on and
// returns the charts to add; widths grow to what the cells need.
func (b *book) measured(w *writer, row int, widths map[int]float64) measuredPart {
	st := b.st
	var part measuredPart
	l := &layout{w: w, st: st, widths: widths}
	fitText, num, header, note := l.fitText, l.num, l.header, l.note
	for _, ff := range b.out.Factors {
		m := ff.Measurements
		if m == nil {
			continue
		}
		if len(m.FaultLatency) > 0 {
			row = b.faultLatency(l, row, ff.Name, m.FaultLatency, &part)
		}
		// The experiments start a printed page.
		if m.Swapdemo != nil || len(m.PageCache) > 0 || m.Copy != nil {
			part.breaks = append(part.breaks, row)
		}
		if sd := m.Swapdemo; sd != nil {
			w.set(mLabel, row, "Swapdemo experiment, from "+ff.Name, st.section)
			note(row+1, fmt.Sprintf("Memory limit %s: the %s of data fit, with the %s file of \"code\" they exceed it by %s. An iteration reads random pages of the code and sweeps one %s chunk of data; a run stops after %d iterations or %s. Took %s. Vs swappiness 60 is each setting's time per iteration over swappiness 60's. Published: what the source saw with the setting, as memplan probe records it.",
				units.Bytes(sd.LimitBytes), units.Bytes(sd.DataBytes), units.Bytes(sd.CodeBytes), units.Bytes(sd.DataBytes+sd.CodeBytes-sd.LimitBytes),
				units.Bytes(sd.ChunkBytes), sd.MaxIterations, seconds(sd.BudgetSeconds), seconds(sd.WallSeconds)))
			header(row+2, "Setting", "Iterations per run", "Seconds per iteration", "Vs swappiness 60", "Code pages re-read", "Anon pages swapped in", "Major faults", "OOM-killed runs", "Published; this run")
			row += 3
			// The reference row every setting's time is divided by.
			ref, refSec := 0, 0.0
			for i, s := range sd.Runs {
				if s.Setting == "swappiness 60" && s.SecondsPerIteration > 0 {
					ref, refSec = row+i, s.SecondsPerIteration
				}
			}
			for _, s := range sd.Runs {
				fitText(mLabel, s.Setting)
				w.set(mLabel, row, s.Setting, st.text)
				text := "published: " + s.Published
				switch {
				case !s.Applied:
					text += "; here: cannot be applied: " + s.Why
				case s.Runs > 0 && s.Iterations == 0 && s.OOMKilled > 0:
					text += fmt.Sprintf("; here: OOM-killed in %d of %d run(s) before one iteration", s.OOMKilled, s.Runs)
				case s.Runs > 0 && s.Iterations == 0:
					text += fmt.Sprintf("; here: not one iteration in %d run(s)", s.Runs)
				default:
					num(mFirst, row, s.Iterations, st.hours, 2)
					num(mFirst+1, row, s.SecondsPerIteration, st.ratio, 3)
					if ref > 0 {
						l.formula(mFirst+2, row, fmt.Sprintf("%s/%s", cell(mFirst+1, row), cell(mFirst+1, ref)), s.SecondsPerIteration/refSec, st.hours, 2)
					}
					if s.AtLeast > 0 {
						text += fmt.Sprintf("; here: not one iteration in the %s budget, so at least %.0fx slower than swappiness 60 (the time per iteration is estimated from how far it got)", seconds(sd.BudgetSeconds), s.AtLeast)
					} else {
						text += fmt.Sprintf("; here: %d run(s)", s.Runs)
					}
				}
				if s.Applied && s.Runs > 0 {
					num(mFirst+3, row, s.CodeRereads, st.count, 0)
					num(mFirst+4, row, s.SwapIns, st.count, 0)
					num(mFirst+5, row, s.MajorFaults, st.count, 0)
					num(mFirst+6, row, float64(s.OOMKilled), st.count, 0)
				}
				w.set(mText, row, text, st.wrap)
				row++
			}
			row++
		}
		if len(m.PageCache) > 0 {
			w.set(mLabel, row, "Page cache under big writes, from "+ff.Name, st.section)
			note(row+1, "The workload reuses memory-resident buffers, as an application server does, for a fixed time while a writer writes one file of the size given; each remedy runs beside the others. Throughput loss is against the run without a writer. Published: what the source saw with the remedy, as memplan probe records it.")
			header(row+2, "Remedy", "Writer file (MiB)", "File / memory limit", "Visits per second", "Throughput loss", "Swap-outs", "Major faults", "Written (MiB)", "Published")
			row += 3
			alone := 0
			var aloneRate float64
			for i, c := range m.PageCache {
				if c.FileBytes == 0 && c.Runs > 0 && alone == 0 {
					alone, aloneRate = row+i, c.VisitsPerSec
				}
			}
			for _, c := range m.PageCache {
				fitText(mLabel, c.Remedy)
				w.set(mLabel, row, c.Remedy, st.text)
				num(mFirst, row, float64(c.FileBytes)/float64(units.MiB), st.count, 0)
				num(mFirst+1, row, c.FileOverLimit, st.hours, 2)
				if c.Runs == 0 {
					w.set(mFirst+2, row, "failed", st.text)
				} else {
					num(mFirst+2, row, c.VisitsPerSec, st.count, 0)
					if alone > 0 {
						l.formula(mFirst+3, row, fmt.Sprintf("1-%s/%s", cell(mFirst+2, row), cell(mFirst+2, alone)), 1-c.VisitsPerSec/aloneRate, st.pct, 2)
					}
					num(mFirst+4, row, c.SwapOuts, st.count, 0)
					num(mFirst+5, row, c.MajorFaults, st.count, 0)
					num(mFirst+6, row, c.WrittenMiB, st.count, 0)
				}
				w.set(mText, row, c.Published, st.wrap)
				row++
			}
			row++
		}
		if cp := m.Copy; cp != nil {
			w.set(mLabel, row, "Copy workloads, from "+ff.Name, st.section)
			note(row+1, fmt.Sprintf("Each set of files copied between two directories on the swap device, timed including the final sync; %d runs each, the trimmed mean without the best and the worst. Took %s. Published: the workload of the source's filesystem benchmark this one is scaled from.",
				cp.Runs, seconds(cp.WallSeconds)))
			header(row+2, "Workload", "Files", "Size (MB)", "Trimmed mean (s)", "Fastest (s)", "Slowest (s)", "MB/s", "Files/s", "Published workload")
			row += 3
			for _, x := range cp.Workloads {
				fitText(mLabel, x.Name)
				w.set(mLabel, row, x.Name, st.text)
				// The size is what the rate was computed from (the byte
				// count is written rounded, as a size such as 21.7MiB).
				mb := x.MBps * x.TrimmedSeconds
				if x.Runs == 0 || x.TrimmedSeconds <= 0 {
					mb = float64(x.Bytes) / 1e6
				}
				num(mFirst, row, float64(x.Files), st.count, 0)
				num(mFirst+1, row, mb, st.gib, 1)
				if x.Runs == 0 {
					w.set(mFirst+2, row, "failed", st.text)
				} else {
					num(mFirst+2, row, x.TrimmedSeconds, st.ratio, 3)
					num(mFirst+3, row, x.MinSeconds, st.ratio, 3)
					num(mFirst+4, row, x.MaxSeconds, st.ratio, 3)
					if x.TrimmedSeconds > 0 {
						mbps, fps := mb/x.TrimmedSeconds, float64(x.Files)/x.TrimmedSeconds
						l.formula(mFirst+5, row, fmt.Sprintf("%s/%s", cell(mFirst+1, row), cell(mFirst+2, row)), mbps, st.count, 0)
						l.formula(mFirst+6, row, fmt.Sprintf("%s/%s", cell(mFirst, row), cell(mFirst+2, row)), fps, st.count, 0)
					}
				}
				w.set(mText, row, x.Published, st.wrap)
				row++
			}
			row++
		}
	}
	return part
}

// faultLatency lays out the per-fault latency of one factor file: the
// quantiles of every point, then per backend a histogram of the points'
// timed faults with a chart beside it. It returns the next free row.
func (b *book) faultLatency(l *layout, row int, file string, fls []reports.FaultLatency, part *measuredPart) int {
	st, w := b.st, l.w
	fitText, num, header, note := l.fitText, l.num, l.header, l.note
	w.set(mLabel, row, "Time one page brought back from swap cost (per-fault latency), from "+file, st.section)
	note(row+1, "The probe times a sample of its page visits; a visit slower than a page in RAM takes is a fault, timed from the touch until the page was there. Quantiles are read from a histogram finer than the one below; faults timed add up the histogram's counts. The charts' x axis steps 1-2-5 (a log scale), the y axis is logarithmic; an empty bucket is left blank.")
	header(row+2, "Curve", "Fit ratio", "Faults timed", "Mean (us)", "p50 (us)", "p90 (us)", "p99 (us)", "p99.9 (us)")
	row += 3
	qRows := make([]int, len(fls))
	for i, fl := range fls {
		qRows[i] = row
		label := curveLabel(fl)
		fitText(mLabel, label)
		w.set(mLabel, row, label, st.text)
		w.set(mFirst, row, fl.Fit, st.pct)
		for k, v := range []float64{fl.MeanUs, fl.P50Us, fl.P90Us, fl.P99Us, fl.P999Us} {
			num(mFirst+2+k, row, v, st.hours, 2)
		}
		row++
	}
	row++
	// One histogram per backend: its points at their fit ratios.
	for start := 0; start < len(fls); {
		end := start + 1
		for end < len(fls) && fls[end].Stage == fls[start].Stage {
			end++
		}
		group := fls[start:end]
		// The bounds of every point's buckets: 1-2-5 steps from the
		// fastest to the slowest bucket of any of them.
		bounds := []float64{}
		seen := map[float64]bool{}
		for _, fl := range group {
			for _, bk := range fl.Histogram {
				if !seen[bk.UpToUs] {
					seen[bk.UpToUs] = true
					bounds = append(bounds, bk.UpToUs)
				}
			}
		}
		sort.Float64s(bounds)
		hr := row
		part.breaks = append(part.breaks, hr)
		w.set(mLabel, hr, "Up to (us)", st.header)
		first, last := hr+1, hr+len(bounds)
		index := map[float64]int{}
		for k, bd := range bounds {
			index[bd] = first + k
			num(mLabel, first+k, bd, st.count, 0)
		}
		var series []excelize.ChartSeries
		for j, fl := range group {
			col := mFirst + j
			if col >= pGap { // more fit ratios than B..I hold: on past the gap
				col++
			}
			var total float64
			for _, bk := range fl.Histogram {
				total += float64(bk.Count)
				if bk.Count > 0 {
					num(col, index[bk.UpToUs], float64(bk.Count), st.count, 0)
				}
			}
			name := fmt.Sprintf("fit %g%%", math.Round(fl.Fit*1000)/10)
			w.set(col, hr, name, st.header)
			l.fitText(col, name)
			// The quantile table's count is the histogram's sum, live.
			qr := qRows[start+j]
			l.formula(mFirst+1, qr, fmt.Sprintf("SUM(%s:%s)", cell(col, first), cell(col, last)), total, st.count, 0)
			series = append(series, excelize.ChartSeries{
				Name:       absCell(sheetSlowdown, col, hr),
				Categories: absRange(sheetSlowdown, mLabel, first, last),
				Values:     absRange(sheetSlowdown, col, first, last),
				Line:       excelize.LineOptions{Width: 1.5},
				Marker:     marker(classMarkers[j%len(classMarkers)], 6, palette[j%len(palette)]),
			})
		}
		// The chart goes below its table, within the columns that print
		// on one page.
		part.charts = append(part.charts, sheetChart{anchor: cell(mLabel, last+2), chart: &excelize.Chart{
			Type:         excelize.Line,
			Series:       series,
			Title:        title("Per-fault latency: " + curveLabel(group[0])),
			Legend:       excelize.ChartLegend{Position: "bottom"},
			Dimension:    excelize.ChartDimension{Width: histChartWidth, Height: histChartHeight},
			ShowBlanksAs: "gap",
			// Tilted, the bounds up to 100,000 us fit under their ticks.
			XAxis: excelize.ChartAxis{Title: title("Latency, up to (us)"), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"}, Font: axisFont,
				Alignment: excelize.Alignment{TextRotation: -45}},
			YAxis: excelize.ChartAxis{Title: title("Timed faults (log scale)"), LogBase: 10, MajorGridLines: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"}, Font: axisFont},
		}})
		row = last + 2 + histChartRows + 1
		start = end
	}
	return row
}

// curveLabel names a point's curve as the curve list above does, with the
// probe's stage when it says more: "sata-ssd-tlc (file)", and an emulated
// drive's stage, which names the class ("emulated hdd (latency)").
func curveLabel(fl reports.FaultLatency) string {
	switch {
	case fl.Class == "" || strings.Contains(fl.Stage, fl.Class):
		return fl.Stage
	case fl.Stage == "":
		return fl.Class
	}
	return fl.Class + " (" + fl.Stage + ")"
}

func seconds(s float64) string {
	return units.Duration(time.Duration(s * float64(time.Second))).String()
}
