package xlsx

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/memplan/memplan/reports"
)

// Columns of the break-even table on the Sensitivity sheet: one row per
// part priced at each break-even point.
const (
	vPrice = iota + 1
	vAgainst
	vDirection
	vFactor
	vTakesOver
	vSKU
	vModel
	vAtPoint
	vPerGB
	vToday
	vNow
	vMethod
	vNote
	vLast = vNote
)

// Rows of the Sensitivity sheet's head.
const (
	vTitle      = 1
	vIntro      = 2
	vBreakEven  = 4
	vBreakFirst = 6 // header row of the break-even table is vBreakFirst-1
)

// sensitivity writes the robustness analyses memplan ran: the break-even
// prices and the uncertainty run's winners and savings. They are memplan's
// figures at the catalog prices, not formulas (each point re-ran the whole
// ranking); the live column shows the workbook's current price of each
// part beside them, so that an edited price can be compared with its
// break-even point.
func (b *book) sensitivity() error {
	st, sh, out := b.st, sheetSensitivity, b.out
	w := b.newWriter(sh)
	// Narrow columns whose texts wrap, so that the sheet prints across one
	// page at 8 pt or more; the SKUs and the amounts widen their columns
	// to what they need (fitColumns).
	widths := map[int]float64{vPrice: 15, vAgainst: 11, vDirection: 10, vFactor: 11, vTakesOver: 18, vSKU: 10, vModel: 12,
		vAtPoint: 8, vPerGB: 8, vToday: 8, vNow: 8, vMethod: 10, vNote: 16}
	w.set(1, vTitle, "How robust is the answer", st.title)
	intro := "memplan's robustness analyses, computed at the catalog prices when the result was made. They are figures, not formulas: " +
		"each break-even point and each uncertainty run re-ran the whole ranking. After editing prices on the catalog sheets, " +
		"compare the live prices in column " + colName(vNow) + " with the break-even prices, or re-run memplan with the new prices."
	w.set(1, vIntro, intro, st.wrap)
	w.merge(1, vNote, vIntro)

	w.set(1, vBreakEven, "Break-even prices: how far one price must move, all else at today's prices, before the recommendation stops being the cheapest", st.section)
	r := vBreakFirst
	switch be := out.BreakEven; {
	case out.Recommended == nil:
		w.set(1, r, "None: no configuration meets every deadline, so there is no recommendation to test.", st.text)
		r++
	case be == nil:
		w.set(1, r, "Not in this result: memplan recommend computes them unless --break-even=false (or --format csv) is given.", st.text)
		r++
	case !be.Computed:
		w.set(1, r, "Not computed: "+be.Note, st.text)
		r++
	default:
		r = b.breakEvenTable(w, r-1, be)
	}
	r++
	b.uncertaintyBlock(w, r)
	b.fitColumns(w, widths)
	for c := vPrice; c <= vLast; c++ {
		w.width(c, widths[c])
	}
	return b.flushPrinted(w)
}

// fitColumns widens widths to what the sheet's cells need: a text that
// does not wrap its characters and a margin, a wrapped text or a header
// its longest word, an amount its digits, separators, decimals and
// currency (a column too narrow prints ###). Merged cells are sized by
// the merge, not here.
func (b *book) fitColumns(w *writer, widths map[int]float64) {
	st := b.st
	merged := map[[2]int]bool{}
	for _, m := range w.merges {
		merged[[2]int{m[0], m[1]}] = true
	}
	for r, cols := range w.rows {
		for c, x := range cols {
			if !x.ok || merged[[2]int{c, r}] {
				continue
			}
			cl := x.Cell
			need := 0.0
			switch v := cl.Value.(type) {
			case string:
				switch cl.StyleID {
				case st.header:
					need = headerWidth(v)
				case st.wrap, st.prose:
					// Wrapped text breaks at spaces; a word wider than
					// its column would break inside.
					for _, word := range strings.Fields(v) {
						need = max(need, math.Ceil(0.85*float64(utf8.RuneCountInString(word))+1))
					}
				case st.text:
					// A text with nothing to its right spills over
					// the empty cells instead.
					if next, ok := w.get(c+1, r); ok && next.Value != nil && next.Value != "" {
						need = float64(utf8.RuneCountInString(v)) + 2
					}
				}
			case float64:
				switch cl.StyleID {
				case st.money, st.moneyBold:
					// "11,500.00 RUB": a digit is 0.92 of the width
					// unit, a separator, point or space 0.45, a capital
					// 1; a margin of 2 keeps it off its neighbour.
					digits := len(fmt.Sprintf("%.0f", math.Abs(v)))
					need = math.Ceil(0.92*float64(digits+2) + 0.45*float64((digits-1)/3+2) + float64(len(b.cur)) + 2)
				case st.pct:
					need = 8
				}
			}
			widths[c] = max(widths[c], need)
		}
	}
}

// breakEvenTable writes the header at row head and the points below it,
// returning the next free row.
func (b *book) breakEvenTable(w *writer, head int, be *reports.BreakEven) int {
	st, cur := b.st, " ("+b.cur+")"
	headers := map[int]string{
		vPrice: "Price scaled", vAgainst: "Against", vDirection: "Direction", vFactor: "Break-even factor (x today's price)",
		vTakesOver: "Then the cheapest", vSKU: "Part SKU", vModel: "Part", vAtPoint: "Unit price at the point" + cur,
		vPerGB: "Per GB at the point" + cur, vToday: "Unit price today" + cur, vNow: "Unit price in this workbook (live)" + cur,
		vMethod: "Method", vNote: "Note",
	}
	for c := vPrice; c <= vLast; c++ {
		w.set(c, head, headers[c], st.header)
	}
	r := head + 1
	for _, x := range []struct {
		what string
		p    *reports.PriceBreakEven
	}{{"DRAM (every DIMM price, by one factor)", be.DRAM}, {"Swap drive", be.Drive}} {
		if x.p == nil {
			continue
		}
		what := x.what
		if x.p == be.Drive && len(x.p.Parts) > 0 {
			what = x.p.Parts[0].Model
		}
		today := map[string]float64{}
		for _, p := range x.p.Parts {
			today[p.SKU] = p.UnitPrice.Float()
		}
		kind := "Dimm"
		if x.p == be.Drive {
			kind = "Drive"
		}
		for _, pt := range []struct {
			against string
			p       *reports.BreakEvenPoint
		}{{"any configuration", &x.p.Falls}, {"any configuration", &x.p.Rises}, {"the baseline alone", x.p.VsBaseline}, {"the runner-up alone", x.p.VsRunnerUp}} {
			if pt.p == nil {
				continue
			}
			prices := pt.p.Prices
			if len(prices) == 0 {
				prices = []reports.PartPrice{{}}
			}
			for _, pp := range prices {
				w.set(vPrice, r, what, st.prose)
				w.set(vAgainst, r, pt.against, st.prose)
				w.set(vDirection, r, pt.p.Direction, st.text)
				if pt.p.Exists {
					w.set(vFactor, r, pt.p.Factor, st.ratio)
				} else {
					w.set(vFactor, r, "none", st.text)
				}
				w.set(vTakesOver, r, pt.p.TakesOverLabel, st.prose)
				w.set(vMethod, r, pt.p.Method, st.text)
				w.set(vNote, r, pt.p.Note, st.prose)
				if pp.SKU != "" {
					w.set(vSKU, r, pp.SKU, st.text)
					w.set(vModel, r, pp.Model, st.prose)
					w.set(vAtPoint, r, pp.UnitPrice.Float(), st.money)
					w.set(vPerGB, r, pp.PerGB, st.money)
					if v, ok := today[pp.SKU]; ok {
						w.set(vToday, r, v, st.money)
					}
					fm, v := b.livePrice(kind, cell(vSKU, r), pp.SKU)
					w.formula(vNow, r, fm, v, st.money)
				}
				r++
			}
		}
	}
	return r
}

// livePrice is the workbook's current unit price of the SKU in skuCell, or
// "" when no listed configuration uses the part (so it is on no catalog
// sheet), and its value for sku at the result's prices.
func (b *book) livePrice(kind, skuCell, sku string) (string, any) {
	parts := b.parts.dimms
	if kind == "Drive" {
		if !b.hasDrives() {
			return `""`, ""
		}
		parts = b.parts.drives
	}
	var v any = ""
	for _, p := range parts {
		if p.SKU == sku {
			v = p.UnitPrice.Float()
			break
		}
	}
	return fmt.Sprintf(`IF(COUNTIF(%sSKUs,%s)=0,"",%s)`, kind, skuCell, priceLookup(kind, skuCell)), v
}

// uncertaintyBlock writes the uncertainty run from row r.
func (b *book) uncertaintyBlock(w *writer, r int) {
	st, out := b.st, b.out
	w.set(1, r, "Uncertainty: how often each configuration came out cheapest with prices and slowdowns drawn from their ranges", st.section)
	r++
	u := out.Uncertainty
	if u == nil {
		w.set(1, r, "Not in this result: run memplan recommend with --uncertainty (and --runs, --seed, --price-spread) to add it.", st.text)
		return
	}
	facts := []struct {
		label string
		value any
		style int
	}{
		{"Runs", u.Runs, st.count},
		{"Seed (the same seed and inputs give the same result)", u.Seed, st.count},
		{"Price spread where the catalog gives no price_range (+/-)", u.PriceSpread, st.pct},
		{"Runs in which some configuration met every deadline", u.RunsMet, st.count},
		{"Share of runs in which nothing did", u.NoneMeets, st.pct},
		{"Share of those runs in which the recommendation was cheapest", u.RecommendedShare, st.pct},
		{"Share of runs in which the recommendation met every deadline", u.RecommendedMeets, st.pct},
	}
	for _, x := range facts {
		w.set(1, r, x.label, st.label)
		w.merge(1, vDirection, r)
		w.set(vFactor, r, x.value, x.style)
		r++
	}
	r++
	w.set(1, r, "Cheapest configuration", st.header)
	w.merge(1, vFactor, r)
	w.set(vTakesOver, r, "ID", st.header)
	w.merge(vTakesOver, vModel, r)
	w.set(vAtPoint, r, "Runs", st.header)
	w.set(vPerGB, r, "Share", st.header)
	r++
	first, runs, shares := r, 0, 0.0
	for _, x := range u.Winners {
		runs, shares = runs+x.Runs, shares+x.Share
		label := x.Label
		if x.ID == out.RecommendedID {
			label += " (recommended)"
		}
		w.set(1, r, label, st.wrap)
		w.merge(1, vFactor, r)
		w.set(vTakesOver, r, x.ID, st.wrap)
		w.merge(vTakesOver, vModel, r)
		w.set(vAtPoint, r, x.Runs, st.count)
		w.set(vPerGB, r, x.Share, st.pct)
		r++
	}
	if len(u.Winners) > 0 {
		w.set(1, r, "Total", st.bold)
		w.formula(vAtPoint, r, fmt.Sprintf("SUM(%s:%s)", cell(vAtPoint, first), cell(vAtPoint, r-1)), runs, st.count)
		w.formula(vPerGB, r, fmt.Sprintf("SUM(%s:%s)", cell(vPerGB, first), cell(vPerGB, r-1)), shares, st.pct)
		r++
	}
	r++
	if d, p := u.Savings, u.SavingsPercent; d != nil && p != nil {
		heads := []string{"Saving against the cheapest all-DRAM configuration, fleet", "Runs", "5th percentile", "Median", "95th percentile", "Mean", "Min", "Max"}
		cols := []int{1, vDirection, vFactor, vTakesOver, vSKU, vModel, vAtPoint, vPerGB}
		for i, h := range heads {
			w.set(cols[i], r, h, st.header)
		}
		w.merge(1, vAgainst, r)
		r++
		for _, row := range []struct {
			label string
			d     *reports.Distribution
			style int
			scale float64
		}{{"In " + b.cur, d, st.money, 1}, {"Share of the all-DRAM fleet cost", p, st.pct, 0.01}} {
			w.set(1, r, row.label, st.label)
			w.merge(1, vAgainst, r)
			w.set(vDirection, r, row.d.N, st.count)
			for i, v := range []float64{row.d.P5, row.d.P50, row.d.P95, row.d.Mean, row.d.Min, row.d.Max} {
				w.set(cols[i+2], r, v*row.scale, row.style)
			}
			r++
		}
		r++
	}
	w.set(1, r, "Method", st.bold)
	w.set(vDirection, r, u.Method, st.wrap)
	w.merge(vDirection, vNote, r)
}
