package xlsx

import (
	"fmt"
	"sort"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// Columns of the Slowdown sheet: the points on the left, the factor files
// and their curves' provenance on the right.
const (
	pClass = iota + 1
	pFit
	pSlowdown
	pLow
	pHigh
	pProvenance
	pExtrapolated
	pConfigs
	pBasis
	pGap
	fName
	fDate
	fSource
	fHost
	fClass
	fProvenance
	fFit
	fSlowdown
	fCILow
	fCIHigh
	fSamples
	pLast = fSamples
)

// point is one (device class, fit ratio) -> slowdown estimate used by at
// least one listed configuration.
type point struct {
	class             string
	fit, s, low, high float64
	provenance, basis string
	extrapolated      bool
	configs           int
}

// curveClass is the swap backend a job's slowdown comes from, as the
// factor files name it; "" when the job runs in RAM.
func curveClass(c reports.Configuration) string {
	s := c.Swap
	switch s.Kind {
	case model.SwapZram:
		return "zram-" + s.Algorithm
	case model.SwapZswap:
		return fmt.Sprintf("zswap-%s + %s", s.Algorithm, s.DeviceClass)
	case model.SwapDrive:
		return s.DeviceClass
	}
	return ""
}

func (b *book) points() []point {
	type key struct {
		class             string
		fit, s, low, high float64
	}
	index := map[key]int{}
	var ps []point
	for _, c := range b.rows {
		class := curveClass(c)
		if class == "" {
			continue
		}
		seen := map[int]bool{}
		for _, j := range c.Jobs {
			if j.FitRatio >= 1 {
				continue // in RAM: no point on any curve
			}
			k := key{class, j.FitRatio, j.Slowdown, j.SlowdownLow, j.SlowdownHigh}
			i, ok := index[k]
			if !ok {
				i = len(ps)
				index[k] = i
				ps = append(ps, point{class: class, fit: j.FitRatio, s: j.Slowdown, low: j.SlowdownLow, high: j.SlowdownHigh,
					provenance: j.Provenance, basis: j.Basis, extrapolated: j.Extrapolated})
			}
			if !seen[i] {
				ps[i].configs++
				seen[i] = true
			}
		}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.class != b.class {
			return a.class < b.class
		}
		if a.fit != b.fit {
			return a.fit < b.fit
		}
		return a.s < b.s
	})
	return ps
}

// classSpan is the sheet rows of one device class's points.
type classSpan struct {
	class string
	rows  span
}

func (b *book) slowdown() error {
	f, st, sh := b.f, b.st, sheetSlowdown
	ps := b.points()
	// The right-hand side lists every point of every curve in the factor
	// files: what the estimates on the left were interpolated from.
	type curveRow struct {
		name, date, source, host, class, provenance string
		point                                       *reports.CurvePoint
	}
	var curves []curveRow
	for _, ff := range b.out.Factors {
		host := ff.Host
		if host == "" {
			host = "-"
		}
		if len(ff.Curves) == 0 {
			curves = append(curves, curveRow{ff.Name, ff.Date, ff.Source, host, "", "", nil})
		}
		for _, c := range ff.Curves {
			if len(c.Points) == 0 {
				curves = append(curves, curveRow{ff.Name, ff.Date, ff.Source, host, c.Class, c.Provenance, nil})
			}
			for i := range c.Points {
				curves = append(curves, curveRow{ff.Name, ff.Date, ff.Source, host, c.Class, c.Provenance, &c.Points[i]})
			}
		}
	}
	n := max(len(ps), len(curves))
	if len(ps) == 0 {
		n = max(n, 1)
	}
	if err := b.pageSetup(sh, pageList); err != nil {
		return err
	}
	widths := map[int]float64{pClass: 22, pFit: 9, pSlowdown: 9, pLow: 9, pHigh: 9, pProvenance: 11, pExtrapolated: 12,
		pConfigs: 14, pBasis: 70, pGap: 3, fName: 20, fDate: 11, fSource: 50, fHost: 14, fClass: 16, fProvenance: 11,
		fFit: 9, fSlowdown: 9, fCILow: 9, fCIHigh: 9, fSamples: 9}
	// The long texts wrap in columns as wide as they need up to a limit;
	// the rest fit their longest entry, as text cut off by the next column
	// would be lost on screen and paper.
	fit := func(col int, s string) { widths[col] = max(widths[col], min(float64(len([]rune(s)))+2, 60)) }
	for _, p := range ps {
		fit(pClass, p.class)
		fit(pProvenance, p.provenance)
		widths[pBasis] = max(widths[pBasis], min(float64(len([]rune(p.basis)))+2, 90))
	}
	for _, c := range curves {
		fit(fName, c.name)
		fit(fDate, c.date)
		fit(fHost, c.host)
		fit(fClass, c.class)
		fit(fProvenance, c.provenance)
	}
	// What the factor files measured besides their curves goes below both
	// lists (slowdown_measured.go); its labels and numbers size the
	// columns too.
	w := b.newWriter(sh)
	measured := b.measured(w, n+3, widths)
	for c := pClass; c <= pLast; c++ {
		w.width(c, widths[c])
	}
	if err := f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	for c, h := range map[int]string{pClass: "Swap backend / device class", pFit: "Fit ratio", pSlowdown: "Slowdown",
		pLow: "95% low", pHigh: "95% high", pProvenance: "Slowdown from", pExtrapolated: "Extrapolated",
		pConfigs: "Configurations at this point", pBasis: "Basis", fName: "Factor file", fDate: "Date",
		fSource: "Source", fHost: "Measured on", fClass: "Curve", fProvenance: "Provenance",
		fFit: "Curve fit", fSlowdown: "Curve slowdown", fCILow: "95% low", fCIHigh: "95% high", fSamples: "Runs"} {
		w.set(c, 1, h, st.header)
	}
	b.classes = nil
	for i := 0; i < n; i++ {
		r := i + 2
		if i < len(ps) {
			p := ps[i]
			if k := len(b.classes); k == 0 || b.classes[k-1].class != p.class {
				b.classes = append(b.classes, classSpan{p.class, span{r, r}})
			}
			b.classes[len(b.classes)-1].rows.last = r
			yes := "no"
			if p.extrapolated {
				yes = "yes"
			}
			for c, v := range map[int]excelize.Cell{
				pClass: {Value: p.class, StyleID: st.text}, pFit: {Value: p.fit, StyleID: st.pct},
				pSlowdown: {Value: p.s, StyleID: st.ratio}, pLow: {Value: p.low, StyleID: st.ratio},
				pHigh: {Value: p.high, StyleID: st.ratio}, pProvenance: {Value: p.provenance, StyleID: st.text},
				pExtrapolated: {Value: yes, StyleID: st.text}, pConfigs: {Value: p.configs, StyleID: st.count},
				pBasis: {Value: p.basis, StyleID: st.wrap},
			} {
				w.put(c, r, v)
			}
		} else if i == 0 {
			w.set(pClass, r, "Every listed configuration runs in RAM: no swap, no slowdown.", st.text)
		}
		if i < len(curves) {
			c := curves[i]
			for col, v := range map[int]string{fName: c.name, fDate: c.date, fHost: c.host, fClass: c.class, fProvenance: c.provenance} {
				w.set(col, r, v, st.text)
			}
			w.set(fSource, r, c.source, st.wrap)
			if pt := c.point; pt != nil {
				w.set(fFit, r, pt.Fit, st.pct)
				w.set(fSlowdown, r, pt.Slowdown, st.ratio)
				if pt.CIHigh > 0 {
					w.set(fCILow, r, pt.CILow, st.ratio)
					w.set(fCIHigh, r, pt.CIHigh, st.ratio)
				}
				w.set(fSamples, r, pt.Samples, st.count)
			}
		}
	}
	// Charts and page breaks are set before the sheet is streamed (see
	// writer.flush).
	for _, c := range measured.charts {
		if err := f.AddChart(sh, c.anchor, c.chart); err != nil {
			return err
		}
	}
	for _, r := range measured.breaks {
		if err := f.InsertPageBreak(sh, cell(1, r)); err != nil {
			return err
		}
	}
	return w.flush()
}
