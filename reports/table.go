package reports

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memplan/memplan/model"
)

// The table is read in an 80-column terminal unless told the width
// (Output.SetLayout); prose is wrapped two columns short of it so a
// trailing mark never lands in the last column, and at most at 100 so a
// wide terminal still gets readable lines.
const (
	termWidth = 80
	maxText   = 100
	minShrunk = 10
)

func (l layout) widths() (table, text int) {
	w := l.width
	if w <= 0 {
		w = termWidth
	}
	w = max(w, 40)
	if l.wide {
		return math.MaxInt32, min(w, maxText) - 2
	}
	return w, min(w, maxText) - 2
}

type column struct {
	head   string
	right  bool
	shrink bool // may be truncated to fit the terminal
	// dropWords shortens a cell by removing words before its last one, which
	// keeps what a device is ("HDD", "NVMe") when its details do not fit.
	dropWords bool
	gap       int // spaces before this column
	cells     []string
	width     int
}

func renderTable(w io.Writer, out Output, l layout) error {
	var b strings.Builder
	line := func(s string) { b.WriteString(strings.TrimRight(s, " ") + "\n") }
	_, textWidth := l.widths()
	para := func(text, indent string) {
		for _, l := range Wrap(text, textWidth, indent) {
			line(l)
		}
	}

	// The first screen: the verdict, the warnings a buyer must see, the
	// ranking. Everything that explains it follows only with --explain.
	for _, v := range briefLines(out) {
		para(v.String(), "  ")
	}
	// Stale prices and other caveats about the inputs come before any
	// number a reader might copy.
	if len(out.Warnings) > 0 {
		line("")
		for _, wn := range out.Warnings {
			if !l.explain {
				wn = shortWarning(wn)
			}
			para("Warning: "+wn, "  ")
		}
	}
	if len(out.Advice) > 0 {
		line("")
		line("What would work:")
		for _, a := range out.Advice {
			para("- "+a, "  ")
		}
	}
	rs := rows(out)
	if len(rs) > 0 {
		line("")
		tableRows(line, para, out, rs, l)
	}
	if u := out.Uncertainty; u != nil {
		// Asked for with --uncertainty: shown without --explain.
		line("")
		para("Uncertainty: "+uncertaintyHead(u)+":", "")
		for _, t := range uncertaintySentences(out) {
			para("- "+t, "  ")
		}
		if t := savingsSentence(out); t != "" {
			para("- "+t, "  ")
		}
		if l.explain {
			para("Method: "+u.Method, "")
		}
	}
	if l.breakEven && !l.explain {
		breakEvenBlock(line, para, out)
	}
	if !l.explain {
		line("")
		para("More: --explain (basis, baseline, TCO, break-even, prices, not evaluated).", "")
		_, err := io.WriteString(w, b.String())
		return err
	}
	explainBlocks(line, para, out, rs)
	_, err := io.WriteString(w, b.String())
	return err
}

// breakEvenBlock is the break-even prices, or why they were not computed.
func breakEvenBlock(line func(string), para func(string, string), out Output) {
	if items := breakEvenItems(out); len(items) > 0 {
		line("")
		para(fmt.Sprintf("Break-even prices: how far one price must move, all else at today's prices, before the recommendation stops being the cheapest (by %s):", rankCostName(out)), "")
		for _, it := range items {
			para("- "+it, "  ")
		}
	} else if be := out.BreakEven; be != nil && !be.Computed && be.Note != "" {
		line("")
		para("Break-even prices: "+be.Note, "")
	}
}

// explainBlocks are the sections --explain adds after the ranking, each
// under its heading.
func explainBlocks(line func(string), para func(string, string), out Output, rs []Configuration) {
	if out.Verdict != "" {
		// The model's own paragraph: every job class, how the classes
		// share servers, what the slowdowns rest on.
		line("")
		line("The verdict in full:")
		para("  "+out.Verdict, "  ")
	}
	line("")
	line("Baseline and savings:")
	switch r, bl := out.Recommended, out.Baseline; {
	case bl == nil:
		para("  Baseline: none; no all-DRAM configuration in the catalogs meets every deadline.", "    ")
	case r != nil && r.ID == bl.ID:
		para(fmt.Sprintf("  Baseline: the recommended configuration is itself all-DRAM (%s), so swap saves nothing here.", bl.Label), "    ")
	default:
		para(fmt.Sprintf("  Baseline (the cheapest all-DRAM configuration that meets every deadline, rank %d): %s, %s per server, %s for %s.",
			bl.Rank, bl.Label, moneyCur(bl.CostPerServer.Float(), out.Currency), moneyCur(bl.FleetCost.Float(), out.Currency), plural(bl.Servers, "server", "servers")), "    ")
	}
	if s := out.Savings; s != nil {
		para(fmt.Sprintf("  Savings of the recommended configuration: %s per server, %s for the fleet (%.1f%% of the baseline's fleet cost).",
			moneyCur(s.PerServer.Float(), out.Currency), moneyCur(s.Fleet.Float(), out.Currency), s.Percent), "    ")
	}
	if showTCO(out) {
		line("")
		line("Total cost of ownership:")
		for _, t := range tcoSentences(out) {
			para("  "+t, "    ")
		}
	}
	breakEvenBlock(line, para, out)

	line("")
	line("Basis of each slowdown:")
	for _, f := range out.Factors {
		id := []string{}
		for _, s := range []string{f.Date, f.File} {
			if s != "" {
				id = append(id, s)
			}
		}
		if f.Host != "" {
			id = append(id, "host "+f.Host)
		}
		para(fmt.Sprintf("  Slowdown factors %s (%s): %s", f.Name, strings.Join(id, ", "), provenanceSummary(f)), "    ")
	}
	if r := out.Recommended; r != nil && len(r.Jobs) > 0 {
		for _, j := range tightest(r.Jobs) {
			para(fmt.Sprintf("  Recommended, job class %s: %s, slowdown %.2f, range %.2f-%.2f; %s", j.Name, jobRun(j)[len(j.Name)+1:], j.Slowdown, j.SlowdownLow, j.SlowdownHigh, withWearDirty(j)), "    ")
		}
	}
	if n := derivedRows(rs); n > 0 {
		para(fmt.Sprintf("  %s carried over from another device's curve by the swap-path model (provenance \"derived\").",
			plural(n, "listed row's slowdown is", "listed rows' slowdowns are")), "    ")
	}
	if notes := wearNotes(out, rs, 0); len(notes) > maxWearNotes {
		line("")
		line("Wear of the swap drives:")
		for _, n := range notes {
			para("  "+n, "    ")
		}
	}
	line("")
	line("Prices:")
	for _, c := range out.Catalogs {
		para(fmt.Sprintf("  %s (%s, %s, %s): %s", c.Name, c.Date, c.Currency, c.File, c.Source), "    ")
	}
	for _, r := range out.Rates {
		para(fmt.Sprintf("  exchange rate: 1 %s = %s %s (%s)", r.From, strconv.FormatFloat(r.Rate, 'f', -1, 64), r.To, r.Source), "    ")
	}
	if out.RejectedTotal > 0 {
		line("")
		line("Not evaluated:")
		para(fmt.Sprintf("  %s were dropped before ranking:", plural(out.RejectedTotal, "configuration", "configurations")), "    ")
		for _, r := range out.Rejected {
			para(fmt.Sprintf("  - %s: %d", r.Reason, r.Count), "    ")
		}
		for _, r := range out.Rejected {
			if r.Note != "" {
				para("  "+rejectionNote(r), "    ")
			}
		}
	}
}

func tableRows(line func(string), para func(string, string), out Output, rs []Configuration, l layout) {
	platforms := []string{}
	index := map[string]int{}
	for _, c := range rs {
		if _, ok := index[c.Platform.SKU]; !ok {
			index[c.Platform.SKU] = len(platforms)
			platforms = append(platforms, fmt.Sprintf("%s (%s)", c.Platform.Model, c.Platform.SKU))
		}
	}
	vary := serversVary(rs)
	cur := out.Currency

	cols := []*column{
		{head: "", gap: 0},
		{head: "#", right: true, gap: 1},
		{head: "memory", shrink: true, gap: 2},
		{head: "swap", shrink: true, dropWords: true, gap: 2},
		{head: "slowdown", gap: 2},
		{head: "runtime", gap: 2},
		{head: "ok", gap: 2},
	}
	servers := &column{head: "servers", right: true, gap: 2}
	// The cost column shows what the ranking compares, so that the rows
	// read in order: purchase, or total cost of ownership.
	tco := out.RankBy == model.RankTCO
	// With TCO the header leaves the currency to the note under the table
	// ("in USD"), so that the swap column keeps its room.
	cost := &column{head: cur + "/server", right: true, gap: 2}
	if tco {
		cost.head = "TCO/server"
	}
	if vary {
		cost.head = cur + " fleet"
		if tco {
			cost.head = "TCO fleet"
		}
		cols = append(cols, servers)
	}
	cols = append(cols, cost)

	prevRank := 0
	var monies []float64 // the cost column's amounts, formatted together below
	var rowAt []int      // and the cells they go in
	for _, c := range rs {
		if c.Rank > prevRank+1 {
			for i, col := range cols {
				cell := ""
				if i == 1 {
					cell = "..."
				}
				col.cells = append(col.cells, cell)
			}
		}
		prevRank = c.Rank
		mem := memoryLabel(c)
		if len(platforms) > 1 {
			mem = fmt.Sprintf("P%d %s", index[c.Platform.SKU]+1, mem)
		}
		ok := "yes"
		if !c.MeetsDeadlines {
			ok = "MISS"
		}
		money := c.CostPerServer.Float()
		switch {
		case vary && tco:
			money = c.TCOFleet.Float()
		case vary:
			money = c.FleetCost.Float()
		case tco:
			money = c.TCOPerServer.Float()
		}
		if tco {
			// Power over years is an estimate: whole currency units.
			money = math.Round(money)
		}
		monies = append(monies, money)
		rowAt = append(rowAt, len(cost.cells))
		cs := ""
		srv := strconv.Itoa(c.Servers)
		if c.Servers == 0 {
			srv = "-"
		}
		swap := swapLabel(c)
		if l.wide {
			swap = fullSwapLabel(c)
		}
		cells := []string{marks(c), strconv.Itoa(c.Rank), mem, swap, slowdownCell(c), duration(c.RuntimeHours), ok}
		if vary {
			cells = append(cells, srv)
		}
		cells = append(cells, cs)
		for i, col := range cols {
			col.cells = append(col.cells, cells[i])
		}
	}
	// One number of decimals down the cost column: cents everywhere when
	// any amount has them, so the digits line up and compare.
	for k, s := range amounts(monies) {
		cost.cells[rowAt[k]] = s + cost.cells[rowAt[k]]
	}
	tableWidth, _ := l.widths()
	fit(cols, tableWidth)

	if len(platforms) == 1 {
		para("Platform: "+platforms[0], "  ")
	} else {
		for i, p := range platforms {
			para(fmt.Sprintf("P%d = %s", i+1, p), "  ")
		}
	}
	row := func(get func(*column) string) {
		var b strings.Builder
		for _, col := range cols {
			b.WriteString(strings.Repeat(" ", col.gap))
			b.WriteString(pad(get(col), col.width, col.right))
		}
		line(b.String())
	}
	row(func(c *column) string { return c.head })
	for i := range cols[0].cells {
		row(func(c *column) string { return c.cells[i] })
	}

	var notes []string
	if n := shownNote(out, len(rs)); n != "" {
		notes = append(notes, n)
	}
	if vary {
		notes = append(notes, fmt.Sprintf("Costs are %sfor the whole fleet, in %s.", costWhat(tco, out), cur))
	} else if len(rs) > 0 && rs[0].Servers > 0 {
		notes = append(notes, fmt.Sprintf("Costs are %sper server, in %s; every configuration needs %s.", costWhat(tco, out), cur, plural(rs[0].Servers, "server", "servers")))
	} else if len(rs) > 0 {
		notes = append(notes, fmt.Sprintf("Costs are %sper server, in %s.", costWhat(tco, out), cur))
	}
	if multiJob(rs) {
		notes = append(notes, "Slowdown and runtime: the job class closest to its deadline.")
	}
	para(strings.Join(notes, " "), "")
	priced := pricedFrom(out, rs)
	for _, r := range out.Rates {
		priced += fmt.Sprintf(" Converted at 1 %s = %s %s (%s).", r.From, strconv.FormatFloat(r.Rate, 'f', -1, 64), r.To, r.Source)
	}
	para(priced, "")
	legend := "Legend: * recommended, B all-DRAM baseline, ~ at risk (misses at the high end of its slowdown range), ^ extrapolated, MISS misses a deadline."
	for i := range rs {
		if beyondPublished(&rs[i]) != nil {
			legend = strings.Replace(legend, "slowdown range)", "slowdown range, or swaps more than a third of a job's memory at under 5% slowdown with no curve of the job: beyond published production results)", 1)
			break
		}
	}
	legend += speedLegend(rs, cols[2].cells)
	para(legend, "")
	max := maxWearNotes
	if l.explain {
		max = 0
	}
	for _, n := range wearNotes(out, rs, max) {
		para("Wear "+n, "  ")
	}
}

// costWhat says what the cost column holds when it is not the purchase.
func costWhat(tco bool, out Output) string {
	if !tco || out.TCO == nil {
		return ""
	}
	return fmt.Sprintf("total cost of ownership over %s years (purchase + power) ", strconv.FormatFloat(math.Round(out.TCO.HorizonHours/(365*24)*10)/10, 'f', -1, 64))
}

func multiJob(rs []Configuration) bool {
	for _, c := range rs {
		if len(c.Jobs) > 1 {
			return true
		}
	}
	return false
}

// speedLegend explains each "@4400" the memory cells still show (a mark
// every row shares is dropped to fit the table, and then needs no
// words): the speed, and how many DIMMs per channel the platform runs at
// it. A board may run even one DIMM per channel below the DIMM's rating.
func speedLegend(rs []Configuration, cells []string) string {
	shown := func(mark string) bool {
		for _, s := range cells {
			for _, w := range strings.Fields(s) {
				if strings.HasSuffix(w, mark) {
					return true
				}
			}
		}
		return false
	}
	var marks []string
	speed := map[string]int{}
	dpcs := map[string][]int{} // DIMMs per channel that run at the mark's speed, as met
	for _, c := range rs {
		m := slowedSpeed(c)
		if m == "" || !shown(m) {
			continue
		}
		if _, ok := speed[m]; !ok {
			marks = append(marks, m)
			speed[m] = c.MemorySpeedMTs
		}
		if n := c.DIMMsPerChannel; n > 0 && !slices.Contains(dpcs[m], n) {
			dpcs[m] = append(dpcs[m], n)
		}
	}
	var out string
	for _, m := range marks {
		dpc := ""
		if ns := dpcs[m]; len(ns) > 0 {
			slices.Sort(ns)
			words := make([]string, len(ns))
			for i, n := range ns {
				words[i] = strconv.Itoa(n)
			}
			unit := " DIMMs per channel"
			if len(ns) == 1 && ns[0] == 1 {
				unit = " DIMM per channel"
			}
			dpc = " with " + strings.Join(words, " or ") + unit
		}
		out += fmt.Sprintf(" %s: the platform runs the DIMMs at %d MT/s%s, below their rating.", m, speed[m], dpc)
	}
	return out
}

// fit narrows the shrinkable columns, widest first, until a row fits.
func fit(cols []*column, width int) {
	total := 0
	for _, c := range cols {
		c.width = utf8.RuneCountInString(c.head)
		for _, s := range c.cells {
			c.width = max(c.width, utf8.RuneCountInString(s))
		}
		total += c.gap + c.width
	}
	for total > width {
		var widest *column
		for _, c := range cols {
			if c.shrink && c.width > minShrunk && (widest == nil || c.width > widest.width) {
				widest = c
			}
		}
		if widest == nil {
			break
		}
		widest.width--
		total--
	}
	for _, c := range cols {
		if c.shrink {
			dropShared(c.cells, c.width)
		}
		narrowed := utf8.RuneCountInString(c.head)
		for i, s := range c.cells {
			c.cells[i] = truncate(s, c.width, c.dropWords)
			narrowed = max(narrowed, utf8.RuneCountInString(c.cells[i]))
		}
		c.width = narrowed
	}
}

// dropShared shortens the cells of a column that do not fit its width by
// removing words that tell no two rows apart, before anything is cut:
// "NVMe" when every drive is one, "DDR5" when every DIMM is. Such a word
// appears in every cell of more than one word (a lone "none" carries no
// detail to drop); it is removed from all cells at once, longest first,
// and only while the cells stay as distinct as they were. What
// distinguishes two configurations survives.
func dropShared(cells []string, width int) {
	tooWide := func() bool {
		for _, s := range cells {
			if utf8.RuneCountInString(s) > width {
				return true
			}
		}
		return false
	}
	distinct := func(cs []string) int {
		m := map[string]bool{}
		for _, s := range cs {
			m[s] = true
		}
		return len(m)
	}
	var common []string
	first := true
	for _, s := range cells {
		f := strings.Fields(s)
		if len(f) < 2 {
			continue
		}
		if first {
			common, first = append([]string(nil), f...), false
			continue
		}
		has := map[string]bool{}
		for _, w := range f {
			has[w] = true
		}
		kept := common[:0]
		for _, w := range common {
			if has[w] {
				kept = append(kept, w)
			}
		}
		common = kept
	}
	sort.SliceStable(common, func(i, j int) bool { return len(common[i]) > len(common[j]) })
	want := distinct(cells)
	for _, w := range common {
		if !tooWide() {
			return
		}
		next := make([]string, len(cells))
		for i, s := range cells {
			f := strings.Fields(s)
			kept := make([]string, 0, len(f))
			for _, x := range f {
				if x != w {
					kept = append(kept, x)
				}
			}
			if len(kept) == 0 {
				kept = f // never empty a cell
			}
			next[i] = strings.Join(kept, " ")
		}
		if distinct(next) == want {
			copy(cells, next)
		}
	}
}

func truncate(s string, w int, dropWords bool) string {
	if dropWords {
		f := strings.Fields(s)
		for utf8.RuneCountInString(strings.Join(f, " ")) > w && len(f) > 3 {
			// Keep the first two words (count and size) and the last (kind).
			f = append(f[:len(f)-2], f[len(f)-1])
		}
		s = strings.Join(f, " ")
	}
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	return string(r[:w-2]) + ".."
}

func pad(s string, w int, right bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// pricedFrom names the catalog every part in the rows was priced from, so
// a reader can tell a quoted price from an embedded list price.
func pricedFrom(out Output, rs []Configuration) string {
	embedded := map[string]bool{}
	for _, c := range out.Catalogs {
		embedded[c.Name] = c.Embedded
	}
	var order []string
	parts := map[string][]string{}
	seen := map[string]bool{}
	add := func(p Part, label string) {
		if p.Catalog == "" || seen[p.Catalog+"\x00"+label] {
			return
		}
		seen[p.Catalog+"\x00"+label] = true
		if _, ok := parts[p.Catalog]; !ok {
			order = append(order, p.Catalog)
		}
		parts[p.Catalog] = append(parts[p.Catalog], label)
	}
	for _, c := range rs {
		add(c.Platform, c.Platform.SKU)
		add(c.DIMM, c.DIMM.Model)
		if d := c.Swap.Drive; d != nil {
			add(*d, d.Model)
		}
	}
	what := func(cat string) string {
		if embedded[cat] {
			return "the embedded list prices of catalog " + cat
		}
		return "your catalog " + cat
	}
	if len(order) == 1 {
		return "Every part is priced from " + what(order[0]) + "."
	}
	var ss []string
	for _, cat := range order {
		ss = append(ss, what(cat)+": "+strings.Join(parts[cat], ", "))
	}
	return "Priced from " + strings.Join(ss, "; ") + "."
}

// amounts formats a column of money with one number of decimals: two
// when any amount has cents, none otherwise.
func amounts(vs []float64) []string {
	cents := false
	for _, v := range vs {
		cents = cents || int(math.Round(math.Abs(v)*100))%100 != 0
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = amount(v)
		if cents && !strings.Contains(out[i], ".") {
			out[i] += ".00"
		}
	}
	return out
}
