package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memplan/memplan/units"
)

// renderMarkdown writes a self-contained report for a purchase request or a
// wiki page: verdict first, then the evidence, then where the numbers came
// from.
func renderMarkdown(w io.Writer, out Output) error {
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

	p("## Verdict\n\n%s\n\n", mdText(out.Verdict))
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
			p("- %s\n", mdText(wn))
		}
		p("\n")
	}

	rs := rows(out)
	p("## Ranked configurations\n\n")
	if len(rs) == 0 {
		p("No configuration was evaluated.\n\n")
	} else {
		p("| | # | Configuration | Slowdown (range) | Runtime / deadline | Meets deadlines | Servers | Per server (%s) | Fleet (%s) | Slowdown source |\n", cur, cur)
		p("|---|--:|---|---|---|---|--:|--:|--:|---|\n")
		for _, c := range rs {
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
			cost := amount(c.CostPerServer)
			if c.ReplacementsCost > 0 {
				cost += " incl. wear"
			}
			p("| %s | %d | %s | %s | %s / %s | %s | %d | %s | %s | %s |\n",
				mdCell(marks(c)), c.Rank, mdCell(c.Label), slow, duration(c.RuntimeHours), duration(c.DeadlineHours),
				meets, c.Servers, cost, amount(c.FleetCost), mdCell(c.Provenance))
		}
		p("\n")
		if len(rs) < out.ConfigurationsTotal {
			p("Showing %d of %d configurations. ", len(rs), out.ConfigurationsTotal)
		}
		p("\\* recommended, B baseline (cheapest all-DRAM configuration that meets every deadline). ")
		p("Slowdown is runtime relative to running fully in RAM, with its 95%% range; slowdown and runtime are those of the job class closest to its deadline. ")
		p("*At risk* means the deadline is met on the central estimate but not at the high end of the range, or only by extrapolating beyond measured fit ratios.\n\n")

		var notes []string
		for _, c := range rs {
			for _, n := range c.Notes {
				notes = append(notes, fmt.Sprintf("- #%d %s: %s", c.Rank, mdText(c.Label), mdText(n)))
			}
		}
		if len(notes) > 0 {
			p("Notes:\n\n%s\n\n", strings.Join(notes, "\n"))
		}
	}

	p("## Baseline and savings\n\n")
	switch r, bl := out.Recommended, out.Baseline; {
	case bl == nil:
		p("No all-DRAM configuration in the catalogs meets every deadline, so there is no baseline to compare with.\n\n")
	case r != nil && r.ID == bl.ID:
		p("The recommended configuration is itself all-DRAM: swap would not save money here.\n\n")
	default:
		p("Baseline: %s (rank %d), %s per server, %s for %s.\n\n", mdText(bl.Label), bl.Rank,
			moneyCur(bl.CostPerServer, cur), moneyCur(bl.FleetCost, cur), plural(bl.Servers, "server", "servers"))
	}
	if s := out.Savings; s != nil {
		p("Savings with the recommended configuration: **%s per server**, %s for the fleet (%.1f%% of the baseline's fleet cost).\n\n",
			moneyCur(s.PerServer, cur), moneyCur(s.Fleet, cur), s.Percent)
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

	p("## Where the numbers come from\n\n### Slowdown factors\n\n")
	p("| File | Name | Date | Host | Curves | Source |\n|---|---|---|---|---|---|\n")
	for _, f := range out.Factors {
		p("| %s | %s | %s | %s | %s | %s |\n", mdCode(f.File), mdCell(f.Name), f.Date, mdCell(orDash(f.Host)), mdCell(provenanceSummary(f)), mdCell(f.Source))
	}
	p("\n")
	if n := derivedRows(rs); n > 0 {
		p("%s carried over from another device's curve by the service-time model (provenance *derived*).\n\n",
			plural(n, "listed configuration's slowdown is", "listed configurations' slowdowns are"))
	}
	p("### Price catalogs\n\n| Name | Date | Currency | File | Source |\n|---|---|---|---|---|\n")
	for _, c := range out.Catalogs {
		p("| %s | %s | %s | %s | %s |\n", mdCell(c.Name), c.Date, c.Currency, mdCode(c.File), mdCell(c.Source))
	}
	p("\n")
	if len(out.Rejected) > 0 {
		p("### Not evaluated\n\n%s were not evaluated further:\n\n", plural(out.RejectedTotal, "configuration", "configurations"))
		p("| Reason | Configurations |\n|---|--:|\n")
		for _, r := range out.Rejected {
			p("| %s | %d |\n", mdCell(r.Reason), r.Count)
		}
		p("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// bom lists what one server of the configuration is bought from. The line
// totals are the model's cost split, not recomputed from unit prices.
func bom(b *strings.Builder, c Configuration, cur string) {
	fmt.Fprintf(b, "| Item | SKU | Qty | Unit price (%s) | As quoted | Total (%s) |\n|---|---|--:|--:|---|--:|\n", cur, cur)
	item := func(name string, part Part, qty int, total float64) {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s |\n", mdCell(name), mdCell(part.SKU), qty, amount(part.UnitPrice),
			mdCell(quoted(part)), amount(total))
	}
	item(c.Platform.Model, c.Platform, 1, c.PlatformCost)
	item(c.DIMM.Model, c.DIMM, c.DIMMCount, c.DIMMsCost)
	if d := c.Swap.Drive; d != nil {
		item(d.Model+" (swap)", *d, c.Swap.Drives, c.DrivesCost)
		if c.Wear != nil && c.Wear.ReplacementsPerServer > 0 {
			item(d.Model+" (replacements as swap wears it out)", *d, c.Wear.ReplacementsPerServer, c.ReplacementsCost)
		}
	}
	fmt.Fprintf(b, "| **Per server** | | | | | **%s** |\n\n", amount(c.CostPerServer))
}

func jobsTable(b *strings.Builder, c Configuration) {
	fmt.Fprintf(b, "| Job class | Touched (GiB) | Fit ratio | Slowdown (range) | Runtime (high) / deadline | Jobs per server-day | Basis |\n|---|--:|--:|---|---|--:|---|\n")
	for _, j := range c.Jobs {
		fmt.Fprintf(b, "| %s | %s | %.2f | %.2f (%.2f-%.2f) | %s (%s) / %s | %s | %s |\n", mdCell(j.Name),
			strconv.FormatFloat(j.TouchedGiB, 'f', -1, 64), j.FitRatio, j.Slowdown, j.SlowdownLow, j.SlowdownHigh,
			duration(j.RuntimeHours), duration(j.RuntimeHighHours), duration(j.DeadlineHours),
			strconv.FormatFloat(j.JobsPerServerDay, 'f', -1, 64), mdCell(basisText(j)))
	}
	b.WriteString("\n")
}

func quoted(p Part) string {
	return units.Money{Amount: p.QuotedPrice, Currency: p.QuotedCurrency}.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdText keeps prose from being read as Markdown markup.
func mdText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", "&lt;", "\n", " ")
	return r.Replace(s)
}

func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "|", `\|`) }

func mdCode(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}
