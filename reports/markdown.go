package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/units"
)

// renderMarkdown writes a self-contained report for a purchase request or a
// wiki page: verdict first, then the evidence, then where the numbers came
// from.
func renderMarkdown(w io.Writer, out Output, l layout) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cur := out.Currency

	p("# memplan: %s\n\n", mdText(out.Workload))
	meta := []string{}
	if out.WorkloadFile != "" {
		meta = append(meta, fmt.Sprintf("Workload file `%s`", out.WorkloadFile))
	}
	meta = append(meta, "costs in "+cur, fmt.Sprintf("planning horizon %s years", strconv.FormatFloat(out.HorizonYears, 'f', -1, 64)))
	if out.MemplanVersion != "" {
		meta = append(meta, "memplan "+out.MemplanVersion)
	}
	p("%s.\n\n", strings.Join(meta, ", "))

	// The same first screen as the table: the verdict, the warnings, the
	// ranking; what explains it only with --explain.
	p("## Verdict\n\n")
	for _, v := range briefLines(out) {
		if v.label == "" {
			p("%s\n", mdText(v.text))
			continue
		}
		p("- **%s:** %s\n", v.label, mdText(v.text))
	}
	p("\n")
	if len(out.Advice) > 0 {
		p("### What would work\n\n")
		for _, a := range out.Advice {
			p("- %s\n", mdText(a))
		}
		p("\n")
	}
	if len(out.Warnings) > 0 {
		p("### Warnings\n\n")
		for _, wn := range out.Warnings {
			if !l.explain {
				wn = shortWarning(wn)
			}
			p("- %s\n", mdText(wn))
		}
		p("\n")
	}

	rs := rows(out)
	withTCO := out.TCO != nil && out.TCO.Priced
	p("## Ranked configurations\n\n")
	if len(rs) == 0 {
		p("No configuration was evaluated.\n\n")
	} else {
		tcoHead, tcoAlign := "", ""
		if withTCO {
			tcoHead, tcoAlign = fmt.Sprintf(" TCO per server (%s) |", cur), "--:|"
		}
		p("| | # | Configuration | Slowdown (range) | Runtime / deadline | Meets deadlines | Servers | Per server (%s) | Fleet (%s) |%s Slowdown source |\n", cur, cur, tcoHead)
		p("|---|--:|---|---|---|---|--:|--:|--:|%s---|\n", tcoAlign)
		// One number of decimals per money column (see amounts).
		var per, fleet []float64
		for _, c := range rs {
			per, fleet = append(per, c.CostPerServer.Float()), append(fleet, c.FleetCost.Float())
		}
		perCells, fleetCells := amounts(per), amounts(fleet)
		for i, c := range rs {
			meets := "yes"
			switch {
			case !c.MeetsDeadlines:
				meets = "**no**"
			case c.AtRisk:
				meets = "at risk"
			}
			slow := fmt.Sprintf("%.2f (%.2f-%.2f)", c.Slowdown, c.SlowdownLow, c.SlowdownHigh)
			if c.Extrapolated {
				slow += " extrapolated"
			}
			cost := perCells[i]
			tcoCell := ""
			if withTCO {
				tcoCell = " " + amount(math.Round(c.TCOPerServer.Float())) + " |"
			}
			p("| %s | %d | %s | %s | %s / %s | %s | %d | %s | %s |%s %s |\n",
				mdCell(marks(c)), c.Rank, mdCell(c.Label), slow, duration(c.RuntimeHours), duration(c.DeadlineHours),
				meets, c.Servers, cost, fleetCells[i], tcoCell, mdCell(c.Provenance))
		}
		p("\n")
		if n := shownNote(out, len(rs)); n != "" {
			p("%s ", mdText(n))
		}
		p("\\* recommended, B baseline (the cheapest all-DRAM configuration that meets every deadline). ")
		p("Slowdown is runtime relative to running fully in RAM, with its 95%% range; slowdown and runtime are those of the job class closest to its deadline. ")
		p("*At risk* means the deadline is met on the central estimate but not at the high end of the slowdown range, or only by extrapolating beyond the measured fit ratios.\n\n")
		max := maxWearNotes
		if l.explain {
			max = 0
		}
		if ws := wearNotes(out, rs, max); len(ws) > 0 {
			p("Wear of the swap drives:\n\n")
			for _, n := range ws {
				p("- %s\n", mdText(n))
			}
			p("\n")
		}
		var notes []string
		for _, c := range rs {
			for _, n := range c.Notes {
				notes = append(notes, fmt.Sprintf("- #%d %s: %s", c.Rank, mdText(c.Label), mdText(n)))
			}
		}
		if len(notes) > 0 && l.explain {
			p("Notes:\n\n%s\n\n", strings.Join(notes, "\n"))
		}
	}
	if !l.explain {
		robustSection(&b, out, l.breakEven, false)
		p("More: run with `--explain` for the basis of each slowdown, baseline and savings with the bill of materials, total cost of ownership, break-even prices, prices and what was not evaluated.\n")
		_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
		return err
	}

	if out.Verdict != "" {
		p("## The verdict in full\n\n%s\n\n", mdText(out.Verdict))
	}
	p("## Baseline and savings\n\n")
	switch r, bl := out.Recommended, out.Baseline; {
	case bl == nil:
		p("No all-DRAM configuration in the catalogs meets every deadline, so there is no baseline to compare with.\n\n")
	case r != nil && r.ID == bl.ID:
		p("The recommended configuration is itself all-DRAM: swap would not save money here.\n\n")
	default:
		p("Baseline: %s (rank %d), %s per server, %s for %s.\n\n", mdText(bl.Label), bl.Rank,
			moneyCur(bl.CostPerServer.Float(), cur), moneyCur(bl.FleetCost.Float(), cur), plural(bl.Servers, "server", "servers"))
	}
	if s := out.Savings; s != nil {
		p("Savings with the recommended configuration: **%s per server**, %s for the fleet (%.1f%% of the baseline's fleet cost).\n\n",
			moneyCur(s.PerServer.Float(), cur), moneyCur(s.Fleet.Float(), cur), s.Percent)
	}
	if r := out.Recommended; r != nil {
		p("### Recommended: %s\n\n", mdText(r.Label))
		bom(&b, *r, cur)
		jobsTable(&b, *r)
	}
	if bl := out.Baseline; bl != nil && (out.Recommended == nil || bl.ID != out.Recommended.ID) {
		p("### Baseline: %s\n\n", mdText(bl.Label))
		bom(&b, *bl, cur)
	}

	if showTCO(out) {
		tcoSection(&b, out)
	}
	robustSection(&b, out, true, true)

	p("## Where the numbers come from\n\n### Slowdown factors\n\n")
	p("| File | Name | Date | Host | Curves | Source |\n|---|---|---|---|---|---|\n")
	for _, f := range out.Factors {
		p("| %s | %s | %s | %s | %s | %s |\n", mdCode(f.File), mdCell(f.Name), f.Date, mdCell(orDash(f.Host)), mdCell(provenanceSummary(f)), mdCell(f.Source))
	}
	p("\n")
	if n := derivedRows(rs); n > 0 {
		p("%s carried over from another device's curve by the swap-path model (provenance *derived*).\n\n",
			plural(n, "listed configuration's slowdown is", "listed configurations' slowdowns are"))
	}
	p("### Price catalogs\n\n| Name | Date | Currency | File | Source |\n|---|---|---|---|---|\n")
	for _, c := range out.Catalogs {
		p("| %s | %s | %s | %s | %s |\n", mdCell(c.Name), c.Date, c.Currency, mdCode(c.File), mdCell(c.Source))
	}
	p("\n")
	if len(out.Rates) > 0 {
		p("Exchange rates used:\n\n")
		for _, r := range out.Rates {
			p("- 1 %s = %s %s (%s)\n", r.From, strconv.FormatFloat(r.Rate, 'f', -1, 64), r.To, mdCell(r.Source))
		}
		p("\n")
	}
	if len(out.Rejected) > 0 {
		p("### Not evaluated\n\n%s were not evaluated further:\n\n", plural(out.RejectedTotal, "configuration", "configurations"))
		p("| Reason | Configurations |\n|---|--:|\n")
		for _, r := range out.Rejected {
			p("| %s | %d |\n", mdCell(r.Reason), r.Count)
		}
		p("\n")
		for _, r := range out.Rejected {
			if r.Note != "" {
				p("- %s\n", mdText(rejectionNote(r)))
			}
		}
		if hasNotes(out.Rejected) {
			p("\n")
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// tcoSection compares purchase, power and total cost of ownership of the
// recommended and baseline configurations.
func tcoSection(b *strings.Builder, out Output) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	cur := out.Currency
	p("## Total cost of ownership\n\n")
	ss := tcoSentences(out)
	if !out.TCO.Priced || len(ss) == 0 {
		for _, s := range ss {
			p("%s\n\n", mdText(s))
		}
		return
	}
	p("%s\n\n", mdText(ss[0]))
	var cs []*Configuration
	var names []string
	if r := out.Recommended; r != nil {
		cs, names = append(cs, r), append(names, "Recommended")
	}
	if bl := out.Baseline; bl != nil && (out.Recommended == nil || bl.ID != out.Recommended.ID) {
		cs, names = append(cs, bl), append(names, "Baseline")
	}
	if len(cs) == 0 {
		return
	}
	p("| | Configuration | Average draw (W) | Energy over the horizon (kWh) | Purchase per server (%s) | Power per server (%s) | TCO per server (%s) | TCO for the fleet (%s) |\n", cur, cur, cur, cur)
	p("|---|---|--:|--:|--:|--:|--:|--:|\n")
	var buy []float64
	for _, c := range cs {
		buy = append(buy, c.CostPerServer.Float())
	}
	buyCells := amounts(buy)
	for i, c := range cs {
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", names[i], mdCell(c.Label), trim1(c.Watts), amount(math.Round(c.EnergyKWh)),
			buyCells[i], amount(math.Round(c.PowerCost.Float())), amount(math.Round(c.TCOPerServer.Float())), amount(math.Round(c.TCOFleet.Float())))
	}
	p("\n")
	if len(ss) > 1 && out.Savings != nil && out.Recommended != nil && out.Baseline != nil {
		p("%s\n\n", mdText(ss[len(ss)-1]))
	}
}

// robustSection is "How robust is the answer": break-even prices and the
// uncertainty run, when they were computed.
func robustSection(b *strings.Builder, out Output, showBE, explain bool) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	cur := out.Currency
	be, u := out.BreakEven, out.Uncertainty
	if !showBE {
		be = nil
	}
	if be == nil && u == nil {
		return
	}
	p("## How robust is the answer\n\n")
	if be != nil {
		p("### Break-even prices\n\n")
		if !be.Computed {
			p("%s\n\n", mdText(capitalise(be.Note)))
		} else {
			p("How far one price must move, all else at today's prices, before the recommendation stops being the cheapest (by %s):\n\n", rankCostName(out))
			for _, it := range breakEvenItems(out) {
				p("- %s\n", mdText(it))
			}
			p("\nIn detail (a factor multiplies today's price: 0.5 is half of it):\n\n")
			p("| Price scaled | Against | Break-even factor | Direction | Then the cheapest | Prices at that point | Method |\n|---|---|--:|---|---|---|---|\n")
			row := func(what, against string, pt *BreakEvenPoint, today []PartPrice) {
				if pt == nil {
					return
				}
				if !pt.Exists {
					p("| %s | %s | - | %s | %s | %s | |\n", mdCell(what), against, pt.Direction, mdCell(orDash(pt.TakesOverLabel)), mdCell(orDash(pt.Note)))
					return
				}
				p("| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(what), against, strconv.FormatFloat(pt.Factor, 'g', 4, 64), pt.Direction,
					mdCell(pt.TakesOverLabel), mdCell(pricesText(pt.Prices, today, cur)), pt.Method)
			}
			for _, x := range []struct {
				what string
				pb   *PriceBreakEven
			}{{"DRAM (every DIMM)", be.DRAM}, {"swap drive", be.Drive}} {
				if x.pb == nil {
					continue
				}
				what := x.what
				if x.pb == be.Drive && len(x.pb.Parts) > 0 {
					what = x.pb.Parts[0].Model
				}
				row(what, "any configuration", &x.pb.Falls, x.pb.Parts)
				row(what, "any configuration", &x.pb.Rises, x.pb.Parts)
				row(what, "the baseline alone", x.pb.VsBaseline, x.pb.Parts)
				row(what, "the runner-up alone", x.pb.VsRunnerUp, x.pb.Parts)
			}
			p("\n")
		}
	}
	if u != nil {
		p("### Uncertainty\n\n%s.\n\n", mdText(capitalise(uncertaintyHead(u))))
		if len(u.Winners) > 0 {
			p("| Cheapest configuration | Runs | Share |\n|---|--:|--:|\n")
			for _, w := range u.Winners {
				label := mdCell(w.Label)
				if w.ID == out.RecommendedID {
					label = "**" + label + "** (recommended)"
				}
				p("| %s | %d | %s |\n", label, w.Runs, pct(w.Share))
			}
			p("\n")
		}
		if ss := uncertaintySentences(out); len(ss) > 0 {
			if len(u.Winners) > 0 {
				ss = ss[1:] // the table above names the winners
			}
			if len(ss) > 0 {
				p("%s\n\n", mdText(strings.Join(ss, " ")))
			}
		}
		if d, q := u.Savings, u.SavingsPercent; d != nil && q != nil {
			p("| Saving against all-DRAM, fleet (%d runs) | 5th percentile | Median | 95th percentile | Mean | Min | Max |\n|---|--:|--:|--:|--:|--:|--:|\n", d.N)
			p("| %s | %s | %s | %s | %s | %s | %s |\n", cur, amount(math.Round(d.P5)), amount(math.Round(d.P50)), amount(math.Round(d.P95)),
				amount(math.Round(d.Mean)), amount(math.Round(d.Min)), amount(math.Round(d.Max)))
			p("| %% of the all-DRAM cost | %s | %s | %s | %s | %s | %s |\n\n", trim1(q.P5), trim1(q.P50), trim1(q.P95), trim1(q.Mean), trim1(q.Min), trim1(q.Max))
		}
		if explain {
			p("*Method:* %s\n\n", mdText(u.Method))
		}
	}
}

// bom lists what one server of the configuration is bought from. The line
// totals are the model's cost split, not recomputed from unit prices.
func bom(b *strings.Builder, c Configuration, cur string) {
	fmt.Fprintf(b, "| Item | SKU | Catalog | Qty | Unit price (%s) | As quoted | Total (%s) |\n|---|---|---|--:|--:|---|--:|\n", cur, cur)
	item := func(name string, part Part, qty int, total float64) {
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s |\n", mdCell(name), mdCell(part.SKU), mdCell(part.Catalog), qty, amount(part.UnitPrice.Float()),
			mdCell(quoted(part)), amount(total))
	}
	item(c.Platform.Model, c.Platform, 1, c.PlatformCost.Float())
	item(c.DIMM.Model, c.DIMM, c.DIMMCount, c.DIMMsCost.Float())
	if d := c.Swap.Drive; d != nil {
		item(d.Model+" (swap)", *d, c.Swap.Drives, c.DrivesCost.Float())
		if c.Wear != nil && c.Wear.ReplacementsPerServer > 0 {
			item(d.Model+" (replacements as swap wears it out)", *d, c.Wear.ReplacementsPerServer, c.ReplacementsCost.Float())
		}
	}
	fmt.Fprintf(b, "| **Per server** | | | | | | **%s** |\n\n", amount(c.CostPerServer.Float()))
}

func jobsTable(b *strings.Builder, c Configuration) {
	fmt.Fprintf(b, "| Job class | Touched (GiB) | Fit ratio | Slowdown (range) | Runtime (high) / deadline | Jobs per server-day | Basis |\n|---|--:|--:|---|---|--:|---|\n")
	for _, j := range c.Jobs {
		fmt.Fprintf(b, "| %s | %s | %.2f | %.2f (%.2f-%.2f) | %s (%s) / %s | %s | %s |\n", mdCell(j.Name),
			strconv.FormatFloat(j.TouchedGiB, 'f', -1, 64), j.FitRatio, j.Slowdown, j.SlowdownLow, j.SlowdownHigh,
			duration(j.RuntimeHours), duration(j.RuntimeHighHours), duration(j.DeadlineHours),
			strconv.FormatFloat(j.JobsPerServerDay, 'f', -1, 64), mdCell(withWearDirty(j)))
	}
	b.WriteString("\n")
}

func quoted(p Part) string {
	return units.Money{Amount: p.QuotedPrice.Float(), Currency: p.QuotedCurrency}.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdText keeps prose from being read as Markdown markup. A `code span`
// is left as written: Markdown shows a backslash there literally, so
// `options.mirror_swap` must not become `options.mirror\_swap`.
func mdText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", "&lt;", "\n", " ")
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An unpaired backtick: no code span to keep.
		return r.Replace(s)
	}
	for i := range parts {
		if i%2 == 0 {
			parts[i] = r.Replace(parts[i])
		} else {
			parts[i] = strings.ReplaceAll(parts[i], "\n", " ")
		}
	}
	return strings.Join(parts, "`")
}

func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "|", `\|`) }

func mdCode(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}
