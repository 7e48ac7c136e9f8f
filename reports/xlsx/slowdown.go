package xlsx

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memplan/memplan/factors"
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
	above             float64 // the highest fit measured, when fit lies above it
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
	// Points that print alike (fit ratio to 0.01%, slowdown to 0.001, the
	// range's ends to three significant digits) with the same provenance
	// and basis are one row: they differ in the fourth digit of a range,
	// which no reader can act on.
	type key struct {
		class, provenance, basis string
		fit, s, low, high        float64
		extrapolated             bool
	}
	round := func(v float64, unit float64) float64 { return math.Round(v/unit) * unit }
	sig3 := func(v float64) float64 {
		if v <= 0 {
			return v
		}
		return round(v, math.Pow(10, math.Floor(math.Log10(v))-2))
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
			k := key{class, j.Provenance, j.Basis, round(j.FitRatio, 1e-4), round(j.Slowdown, 1e-3),
				sig3(j.SlowdownLow), sig3(j.SlowdownHigh), j.Extrapolated}
			i, ok := index[k]
			if !ok {
				i = len(ps)
				index[k] = i
				ps = append(ps, point{class: class, fit: j.FitRatio, s: j.Slowdown, low: j.SlowdownLow, high: j.SlowdownHigh,
					provenance: j.Provenance, basis: j.Basis, extrapolated: j.Extrapolated, above: j.AboveMeasuredFit})
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
	// Each distinct basis is stated once, below the points, which refer
	// to it by its key: one basis runs to hundreds of words and most
	// points share one.
	var bl basisList
	keys := make([]string, len(ps))
	for i, p := range ps {
		if p.basis != "" {
			keys[i] = bl.key(p.basis)
		}
	}
	widths := map[int]float64{pClass: 22, pFit: 9, pSlowdown: 9, pLow: 9, pHigh: 9, pProvenance: 11, pExtrapolated: 12,
		pConfigs: 14, pBasis: 7, pGap: 3, fName: 9}
	// Text columns fit their longest entry (text cut off by the next
	// column would be lost on screen and paper); headers wrap at spaces.
	fit := func(col int, s string) { widths[col] = max(widths[col], min(float64(len([]rune(s)))+2, 60)) }
	for _, p := range ps {
		fit(pClass, p.class)
		fit(pProvenance, p.provenance)
	}
	for _, ff := range b.out.Factors {
		fit(pExtrapolated, ff.Name)
		for _, c := range ff.Curves {
			fit(pClass, c.Class)
			fit(pProvenance, c.Provenance)
		}
	}
	heads := map[int]string{pClass: "Swap backend / device class", pFit: "Fit ratio", pSlowdown: "Slowdown",
		pLow: "95% low", pHigh: "95% high", pProvenance: "Slowdown from", pExtrapolated: "Extrapolated",
		pConfigs: "Configurations at this point", pBasis: "Basis"}
	curveHeads := map[int]string{pClass: "Factor curve", pFit: "Fit ratio", pSlowdown: "Slowdown", pLow: "95% low",
		pHigh: "95% high", pProvenance: "Provenance", pExtrapolated: "Factor file", pConfigs: "Runs"}
	for _, hs := range []map[int]string{heads, curveHeads} {
		for c, h := range hs {
			widths[c] = max(widths[c], headerWidth(h))
		}
	}
	w := b.newWriter(sh)
	for c, h := range heads {
		w.set(c, 1, h, st.header)
	}
	b.classes = nil
	r := 2
	for i, p := range ps {
		if k := len(b.classes); k == 0 || b.classes[k-1].class != p.class {
			b.classes = append(b.classes, classSpan{p.class, span{r, r}})
		}
		b.classes[len(b.classes)-1].rows.last = r
		yes := "no"
		if p.extrapolated {
			yes = "yes"
		} else if p.above > 0 {
			yes = fmt.Sprintf("above %.2f", p.above)
		}
		w.set(pClass, r, p.class, st.text)
		w.set(pFit, r, p.fit, st.pct)
		w.set(pSlowdown, r, p.s, st.ratio)
		w.set(pLow, r, p.low, st.ratio)
		w.set(pHigh, r, p.high, st.ratio)
		w.set(pProvenance, r, p.provenance, st.text)
		w.set(pExtrapolated, r, yes, st.text)
		w.set(pConfigs, r, p.configs, st.count)
		w.set(pBasis, r, keys[i], st.text)
		r++
	}
	if len(ps) == 0 {
		w.set(pClass, r, "Every listed configuration runs in RAM: no swap, no slowdown.", st.text)
		r++
	}
	// The bases, each once: its key, then its text across the columns of
	// the points.
	if len(bl.texts) > 0 {
		r++
		w.set(pClass, r, "Basis", st.header)
		w.set(pFit, r, "What the slowdowns of the points with this basis rest on", st.header)
		w.merge(pFit, pBasis, r)
		r++
		for i, text := range bl.texts {
			w.set(pClass, r, basisKey(i), st.text)
			w.set(pFit, r, text, st.prose)
			w.merge(pFit, pBasis, r)
			r++
		}
	}
	// The curves the estimates were interpolated from, point by point,
	// in the columns of the points (the factor file's name where the
	// points say whether they are extrapolated, text beside text), then
	// each factor file once.
	r++
	for c, h := range curveHeads {
		w.set(c, r, h, st.header)
	}
	r++
	for _, ff := range b.out.Factors {
		for _, c := range ff.Curves {
			for i := range c.Points {
				pt := c.Points[i]
				w.set(pClass, r, c.Class, st.text)
				w.set(pFit, r, pt.Fit, st.pct)
				w.set(pSlowdown, r, pt.Slowdown, st.ratio)
				if pt.CIHigh > 0 {
					w.set(pLow, r, pt.CILow, st.ratio)
					w.set(pHigh, r, pt.CIHigh, st.ratio)
				}
				w.set(pProvenance, r, pointProvenance(c, pt), st.text)
				w.set(pExtrapolated, r, ff.Name, st.text)
				w.set(pConfigs, r, pt.Samples, st.count)
				r++
			}
		}
	}
	r++
	w.set(pClass, r, "Factor file", st.header)
	w.set(pFit, r, "Date, where measured, source", st.header)
	w.merge(pFit, pBasis, r)
	r++
	for _, ff := range b.out.Factors {
		where := "published figures, not measured here"
		if ff.Host != "" {
			where = "measured on " + ff.Host
		}
		w.set(pClass, r, ff.Name, st.wrap)
		w.set(pFit, r, fmt.Sprintf("%s; %s; %s", ff.Date, where, ff.Source), st.prose)
		w.merge(pFit, pBasis, r)
		r++
	}
	// What the factor files measured besides their curves goes below
	// (slowdown_measured.go); its labels and numbers size the columns
	// too.
	measured := b.measured(w, r+1, widths)
	for c := pClass; c <= pLast; c++ {
		if v, ok := widths[c]; ok {
			w.width(c, v)
		}
	}
	if err := f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
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
	// The sheet runs over pages: print it at the smallest readable size.
	if err := b.pageSetup(sh, pageList, minScale); err != nil {
		return err
	}
	return w.flush()
}

// basisList numbers distinct bases. A long parenthesised clause that is a
// basis of its own (a zswap point's pool and drive parts) is stated once
// too and referred to by its key.
type basisList struct {
	keys  map[string]string
	texts []string
}

// nestedBasis is the length from which a parenthesised clause is stated
// on its own: shorter ones read better in place.
const nestedBasis = 120

func (l *basisList) key(s string) string {
	if k, ok := l.keys[s]; ok {
		return k
	}
	// Replace the long top-level clauses, innermost first.
	var out strings.Builder
	depth, open := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			if depth == 0 {
				open = i
			}
			depth++
		case ')':
			if depth == 0 {
				break
			}
			depth--
			if depth == 0 {
				inner := s[open+1 : i]
				if utf8.RuneCountInString(inner) >= nestedBasis {
					out.WriteString("(basis " + l.key(inner) + ")")
				} else {
					out.WriteString(s[open : i+1])
				}
			}
			continue
		}
		if depth == 0 {
			out.WriteRune(r)
		}
	}
	if depth > 0 { // unbalanced: keep the rest as written
		out.WriteString(s[open:])
	}
	if l.keys == nil {
		l.keys = map[string]string{}
	}
	k := basisKey(len(l.texts))
	l.keys[s] = k
	l.texts = append(l.texts, out.String())
	return k
}

// basisKey is the short name of the i-th basis (0-based): B1, B2, ...
func basisKey(i int) string { return "B" + strconv.Itoa(i+1) }

// pointProvenance is what a factor file's point rests on, for the
// Provenance column: the curve's provenance, except in a one-run curve
// that took a one-pass prior, where each point says whether the run
// measured it or the sampler filled it.
func pointProvenance(c reports.Curve, pt reports.CurvePoint) string {
	switch pt.Source {
	case factors.PointSampler:
		return "inferred (one-pass sampler, --prior)"
	case factors.PointOneRun:
		return c.Provenance + " (one run)"
	}
	return c.Provenance
}
