package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/model"
)

// This file turns the robustness analyses (total cost of ownership,
// break-even prices, the uncertainty run) into sentences that the table
// and Markdown renderings share, so both say the same thing.

// showTCO reports whether the total cost of ownership is worth a line of
// its own: always when there is one, priced or not.
func showTCO(out Output) bool {
	// Power that cannot be priced is said too, not left to the JSON: a
	// reader must not take the purchase for the whole cost unawares.
	return out.TCO != nil
}

// tcoSentences describe power and total cost of ownership of the
// recommended and baseline configurations.
func tcoSentences(out Output) []string {
	t, cur := out.TCO, out.Currency
	if t == nil || (t.Priced && out.Recommended == nil && out.Baseline == nil) {
		return nil // nothing to cost: no recommendation, no baseline
	}
	years := strconv.FormatFloat(math.Round(t.HorizonHours/(365*24)*10)/10, 'f', -1, 64)
	if !t.Priced {
		return []string{"Total cost of ownership: " + t.Note + "."}
	}
	elec := t.ElectricityQuoted
	if t.ElectricityDefault {
		elec += " (memplan's default)"
	}
	head := fmt.Sprintf("Total cost of ownership over %s years: purchase plus power, the average draw around the clock at %s and PUE %s.",
		years, elec, strconv.FormatFloat(t.PUE, 'f', -1, 64))
	if out.RankBy == model.RankTCO {
		head += " The ranking follows it."
	} else {
		head += " The ranking follows the purchase cost (rank by this with --rank-by tco or options.rank_by: tco)."
	}
	s := []string{head}
	one := func(what string, c *Configuration) string {
		per := fmt.Sprintf("%s: %s to buy + %s power (%s W, %s kWh) = %s per server",
			what, whole(c.CostPerServer.Float(), cur), whole(c.PowerCost.Float(), cur), trim1(c.Watts), amount(math.Round(c.EnergyKWh)), whole(c.TCOPerServer.Float(), cur))
		if c.Servers > 1 {
			per += fmt.Sprintf(", %s for %s", whole(c.TCOFleet.Float(), cur), plural(c.Servers, "server", "servers"))
		}
		return per + "."
	}
	if r := out.Recommended; r != nil {
		s = append(s, one("Recommended", r))
	}
	if b := out.Baseline; b != nil && (out.Recommended == nil || b.ID != out.Recommended.ID) {
		s = append(s, one("Baseline", b))
	}
	if sv := out.Savings; sv != nil && out.Recommended != nil && out.Baseline != nil {
		s = append(s, fmt.Sprintf("Over the horizon the recommendation %s for the fleet against the baseline (%.1f%% of the baseline's total cost of ownership); on purchase alone it %s.",
			saves(sv.TCOFleet.Float(), cur), math.Abs(sv.TCOPercent), saves(sv.Fleet.Float(), cur)))
	}
	return s
}

// saves is "saves 1,200 USD", or "costs 300 USD more" for a negative saving.
func saves(v float64, cur string) string {
	if v < 0 {
		return "costs " + whole(-v, cur) + " more"
	}
	return "saves " + whole(v, cur)
}

// rankCostName names the cost the ranking compares.
func rankCostName(out Output) string {
	if out.RankBy == model.RankTCO {
		return "total cost of ownership"
	}
	return "purchase cost"
}

// whole prints an estimate (power over years, a percentile of sampled
// savings) to the whole currency unit: its cents mean nothing.
func whole(v float64, cur string) string { return moneyCur(math.Round(v), cur) }

// trim1 prints a figure with at most one decimal.
func trim1(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// factorText prints a break-even factor: "0.33x", "1.33x", "48x".
func factorText(k float64) string {
	switch {
	case k >= 100:
		return fmt.Sprintf("%.0fx", k)
	case k >= 0.1:
		return strconv.FormatFloat(math.Round(k*100)/100, 'f', -1, 64) + "x"
	}
	return strconv.FormatFloat(k, 'g', 2, 64) + "x"
}

// pricesText lists part prices at a break-even point with today's for
// comparison: "8 GB DDR3 at 3,750 RUB (468.75 RUB/GB; today 11,500 RUB)".
func pricesText(ps, today []PartPrice, cur string) string {
	now := map[string]float64{}
	for _, p := range today {
		now[p.SKU] = p.UnitPrice.Float()
	}
	var s []string
	for _, p := range ps {
		var extra []string
		if p.PerGB > 0 {
			extra = append(extra, fmt.Sprintf("%s %s/GB", perGB(p.PerGB), cur))
		}
		if v, ok := now[p.SKU]; ok {
			extra = append(extra, "today "+moneyCur(v, cur))
		}
		t := fmt.Sprintf("%s at %s", p.Model, moneyCur(p.UnitPrice.Float(), cur))
		if len(extra) > 0 {
			t += " (" + strings.Join(extra, "; ") + ")"
		}
		s = append(s, t)
	}
	return strings.Join(s, ", ")
}

// single prints the price of the one part scaled, when a point involves
// just that part: "36,000 RUB, 562.50 RUB/GB".
func single(ps, today []PartPrice, cur string) (string, bool) {
	if len(ps) != 1 || len(today) != 1 || ps[0].SKU != today[0].SKU {
		return "", false
	}
	s := moneyCur(ps[0].UnitPrice.Float(), cur)
	if ps[0].PerGB > 0 {
		s += fmt.Sprintf(", %s %s/GB", perGB(ps[0].PerGB), cur)
	}
	return s, true
}

// perGB keeps three significant figures for small per-GB prices (flash
// costs cents per GB in dollars).
func perGB(v float64) string {
	if v >= 10 {
		return amount(math.Round(v*100) / 100)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// breakEvenItems are the break-even block's items, one per price scaled,
// for people.
func breakEvenItems(out Output) []string {
	be := out.BreakEven
	if be == nil || !be.Computed {
		return nil
	}
	var items []string
	if be.DRAM != nil {
		items = append(items, priceItem("DRAM (every DIMM price, by one factor)", be.DRAM, out.Currency)...)
	}
	if be.Drive != nil {
		name := "The swap drive"
		if len(be.Drive.Parts) > 0 {
			name = "The " + be.Drive.Parts[0].Model
		}
		items = append(items, priceItem(name, be.Drive, out.Currency)...)
	}
	return items
}

// keepsWinning reports whether pt does not exist because the
// recommendation wins however far the price moves: its method says so,
// or, in a file written before memplan recorded that method, its note.
func keepsWinning(pt BreakEvenPoint) bool {
	if pt.Method != "" {
		return pt.Method == model.BreakEvenNone
	}
	return strings.Contains(pt.Note, "however far")
}

func priceItem(what string, p *PriceBreakEven, cur string) []string {
	var points, never []string
	named := map[string]float64{}
	for _, pt := range []BreakEvenPoint{p.Falls, p.Rises} {
		verb := "fall"
		if pt.Direction == model.PriceRises {
			verb = "rise"
		}
		if !pt.Exists {
			switch {
			case keepsWinning(pt):
				never = append(never, fmt.Sprintf("However far it %ss, the recommendation keeps winning.", verb))
			case pt.Note != "":
				never = append(never, fmt.Sprintf("As it %ss, the recommendation %s.", verb, pt.Note))
			}
			continue
		}
		named[pt.TakesOver] = pt.Factor
		var t string
		if one, ok := single(pt.Prices, p.Parts, cur); ok {
			t = fmt.Sprintf("would have to %s to %s today's price (%s) before %s takes over", verb, factorText(pt.Factor), one, pt.TakesOverLabel)
		} else {
			t = fmt.Sprintf("would have to %s to %s today's price before %s takes over", verb, factorText(pt.Factor), pt.TakesOverLabel)
			if len(pt.Prices) > 0 {
				t += ": " + pricesText(pt.Prices, p.Parts, cur)
			}
		}
		if len(points) == 0 {
			t = what + " " + t
		} else {
			t = "It " + t
		}
		points = append(points, t+".")
	}
	if b := p.VsBaseline; b != nil && b.Exists {
		if k, ok := named[b.TakesOver]; !ok || math.Abs(k-b.Factor) > 1e-9 {
			t := fmt.Sprintf("Against the all-DRAM baseline alone the point is %s today's price", factorText(b.Factor))
			if one, ok := single(b.Prices, p.Parts, cur); ok {
				t += " (" + one + ")"
			} else if len(b.Prices) > 0 {
				t += ": " + pricesText(b.Prices, p.Parts, cur)
			}
			points = append(points, t+".")
		}
	}
	s := append(points, never...)
	if len(s) == 0 {
		return nil
	}
	if len(named) == 0 {
		s[0] = what + ": " + strings.ToLower(s[0][:1]) + s[0][1:]
	}
	return []string{strings.Join(s, " ")}
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pct prints a share 0..1 as a percentage with at most one decimal.
func pct(share float64) string {
	return strconv.FormatFloat(math.Round(share*1000)/10, 'f', -1, 64) + "%"
}

// uncertaintyHead says what the uncertainty run drew.
func uncertaintyHead(u *Uncertainty) string {
	spread := "prices fixed"
	if u.PriceSpread > 0 {
		spread = fmt.Sprintf("prices within their catalog price_range or +/-%s", pct(u.PriceSpread))
	}
	runs := amount(float64(u.Runs)) + " runs"
	if u.Runs == 1 {
		runs = "1 run"
	}
	return fmt.Sprintf("%s of the ranking (seed %d) with %s and slowdowns drawn with the model's measured error", runs, u.Seed, spread)
}

// maxWinners is how many winners the table and Markdown name before
// summing up the rest.
const maxWinners = 5

// uncertaintySentences summarise the uncertainty run for people.
func uncertaintySentences(out Output) []string {
	u := out.Uncertainty
	if u == nil {
		return nil
	}
	var s []string
	if u.RunsMet == 0 {
		return append(s, "In no run did any configuration meet every deadline.")
	}
	var ws []string
	rest := 0.0
	for i, w := range u.Winners {
		if i >= maxWinners {
			rest += w.Share
			continue
		}
		mark := ""
		if w.ID == out.RecommendedID {
			mark = " (the recommendation)"
		}
		ws = append(ws, fmt.Sprintf("%s%s %s", w.Label, mark, pct(w.Share)))
	}
	if n := len(u.Winners) - maxWinners; n > 0 {
		ws = append(ws, fmt.Sprintf("%s %s", plural(n, "other", "others"), pct(rest)))
	}
	s = append(s, "Cheapest in: "+strings.Join(ws, "; ")+".")
	if out.RecommendedID != "" {
		s = append(s, fmt.Sprintf("The recommendation met every deadline in %s of the runs (given the model and its measured error).", pct(u.RecommendedMeets)))
	}
	if u.NoneMeets > 0 {
		s = append(s, fmt.Sprintf("In %s of the runs nothing met every deadline.", pct(u.NoneMeets)))
	}
	return s
}

// savingsSentence summarises the spread of the saving in the uncertainty
// run; "" when no run had both a winner and an all-DRAM configuration.
func savingsSentence(out Output) string {
	u, cur := out.Uncertainty, out.Currency
	if u == nil {
		return ""
	}
	if d := u.Savings; d != nil && d.Min == 0 && d.Max == 0 {
		return "All-DRAM was the cheapest way to meet the deadlines in every run with an all-DRAM configuration, so swap saved nothing."
	}
	if d, p := u.Savings, u.SavingsPercent; d != nil && p != nil {
		return fmt.Sprintf("Saving against the cheapest all-DRAM configuration, fleet (%s runs): 5th percentile %s, median %s, 95th percentile %s, mean %s (%s%% to %s%% of the all-DRAM cost).",
			amount(float64(d.N)), whole(d.P5, cur), whole(d.P50, cur), whole(d.P95, cur), whole(d.Mean, cur), trim1(p.P5), trim1(p.P95))
	}
	return ""
}
