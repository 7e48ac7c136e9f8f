// Package diff compares two saved results (memplan report --diff A B):
// what changed in the recommendation, its cost and its jobs' slowdowns,
// and why, as far as the results record it: the inputs that differ
// (what-ifs, part prices, job classes, catalogs, factor curves, rates,
// horizon, ranking, power price) and, for a changed recommendation, where
// each result ranks the other's choice.
package diff

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/internal/whatif"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/units"
)

// Write prints the comparison of result a (named nameA, "before") with b
// ("after").
func Write(w io.Writer, a, b reports.Output, nameA, nameB string) error {
	d := &differ{a: a, b: b, same: a.Currency == b.Currency}
	p := &printer{w: w}
	p.line("Comparing %s (before) with %s (after).", nameA, nameB)
	if !d.same {
		p.line("The results are in different currencies (%s, %s): amounts are shown, not subtracted.", a.Currency, b.Currency)
	}
	p.blank()
	d.recommendation(p)
	p.blank()
	d.cost(p)
	p.blank()
	d.slowdowns(p)
	p.blank()
	d.inputs(p)
	return p.err
}

type differ struct {
	a, b reports.Output
	same bool // one currency: amounts can be subtracted
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) blank() { p.line("") }

func (d *differ) recommendation(p *printer) {
	ra, rb := d.a.Recommended, d.b.Recommended
	switch {
	case ra == nil && rb == nil:
		p.line("Recommendation: none in either (no configuration meets the deadlines).")
		return
	case ra != nil && rb != nil && ra.ID == rb.ID:
		p.line("Recommendation: unchanged, %s.", ra.Label)
		return
	}
	p.line("Recommendation: changed.")
	p.line("  before: %s", choice(ra, d.a.Currency))
	p.line("  after:  %s", choice(rb, d.b.Currency))
	// Where each result puts the other's choice says whether it was
	// priced out, slowed past its deadline, or not searched at all.
	if ra != nil {
		p.line("  before's choice in after: %s", placed(ra.ID, d.b))
	}
	if rb != nil {
		p.line("  after's choice in before: %s", placed(rb.ID, d.a))
	}
}

func choice(c *reports.Configuration, cur string) string {
	if c == nil {
		return "none (no configuration meets the deadlines)"
	}
	return fmt.Sprintf("%s, %s a server", c.Label, money(c.CostPerServer.Float(), cur))
}

// placed says where result r ranks configuration id.
func placed(id string, r reports.Output) string {
	for _, c := range r.Configurations {
		if c.ID != id {
			continue
		}
		s := fmt.Sprintf("rank %d, %s a server", c.Rank, money(c.CostPerServer.Float(), r.Currency))
		switch {
		case !c.MeetsDeadlines:
			s += fmt.Sprintf(", misses a deadline (%s %s of %s)", c.CriticalJob, hours(c.RuntimeHours), hours(c.DeadlineHours))
		case c.AtRisk:
			s += fmt.Sprintf(", at risk: the high end of its slowdown range misses a deadline (%s up to %s of %s)", c.CriticalJob, hours(c.RuntimeHighHours), hours(c.DeadlineHours))
		}
		return s
	}
	if len(r.Configurations) < r.ConfigurationsTotal {
		return fmt.Sprintf("not among the %d configurations the result lists (of %d ranked)", len(r.Configurations), r.ConfigurationsTotal)
	}
	return "not among the configurations it ranked"
}

func (d *differ) cost(p *printer) {
	ra, rb := d.a.Recommended, d.b.Recommended
	if ra == nil || rb == nil {
		p.line("Cost: not compared (a result has no recommendation).")
		return
	}
	p.line("Cost of the recommendation:")
	rows := [][]string{
		{"", "before", "after", "change"},
		d.amountRow("per server", ra.CostPerServer.Float(), rb.CostPerServer.Float()),
		{"servers", strconv.Itoa(ra.Servers), strconv.Itoa(rb.Servers), delta(float64(ra.Servers), float64(rb.Servers), "")},
		d.amountRow("fleet", ra.FleetCost.Float(), rb.FleetCost.Float()),
	}
	if d.a.TCO != nil && d.a.TCO.Priced && d.b.TCO != nil && d.b.TCO.Priced {
		rows = append(rows, d.amountRow("fleet TCO", ra.TCOFleet.Float(), rb.TCOFleet.Float()))
	}
	rows = append(rows, []string{"saving vs all-DRAM", saving(d.a), saving(d.b), ""})
	table(p, rows)
}

func (d *differ) amountRow(label string, a, b float64) []string {
	row := []string{label, money(a, d.a.Currency), money(b, d.b.Currency), ""}
	if d.same {
		row[3] = delta(a, b, d.a.Currency)
	}
	return row
}

func saving(r reports.Output) string {
	switch {
	case r.Savings == nil && r.Recommended != nil && r.Recommended.AllDRAM:
		return "none (all-DRAM is chosen)"
	case r.Savings == nil:
		return "none"
	}
	return fmt.Sprintf("%s (%s%%)", money(r.Savings.Fleet.Float(), r.Currency), strconv.FormatFloat(round(r.Savings.Percent, 1), 'f', -1, 64))
}

// delta is "+1,234 RUB (+5.3%)", "-2", or "same".
func delta(a, b float64, cur string) string {
	if a == b {
		return "same"
	}
	diff := b - a
	s := money(diff, cur)
	if diff > 0 {
		s = "+" + s
	}
	if a != 0 {
		pct := round(100*diff/a, 1)
		sign := ""
		if pct > 0 {
			sign = "+"
		}
		s += fmt.Sprintf(" (%s%s%%)", sign, strconv.FormatFloat(pct, 'f', -1, 64))
	}
	return s
}

func (d *differ) slowdowns(p *printer) {
	ra, rb := d.a.Recommended, d.b.Recommended
	if ra == nil || rb == nil {
		return
	}
	p.line("Slowdowns of the recommendation, by job class (runtime of deadline):")
	jobsA, jobsB := jobMap(ra.Jobs), jobMap(rb.Jobs)
	rows := [][]string{{"", "before", "after", "change"}}
	for _, name := range union(keysOf(jobsA), keysOf(jobsB)) {
		ja, okA := jobsA[name]
		jb, okB := jobsB[name]
		switch {
		case !okA:
			rows = append(rows, []string{name, "-", jobText(jb), "only after"})
		case !okB:
			rows = append(rows, []string{name, jobText(ja), "-", "only before"})
		default:
			change := "same"
			if ja.Slowdown != jb.Slowdown || ja.RuntimeHours != jb.RuntimeHours || ja.DeadlineHours != jb.DeadlineHours {
				change = fmt.Sprintf("%+.2f", jb.Slowdown-ja.Slowdown)
			}
			if ja.MeetsDeadline != jb.MeetsDeadline {
				if jb.MeetsDeadline {
					change += ", now meets its deadline"
				} else {
					change += ", now misses its deadline"
				}
			}
			rows = append(rows, []string{name, jobText(ja), jobText(jb), change})
		}
	}
	table(p, rows)
}

func jobText(j reports.Job) string {
	s := fmt.Sprintf("%.2f, %s of %s", j.Slowdown, hours(j.RuntimeHours), hours(j.DeadlineHours))
	if !j.MeetsDeadline {
		s += " MISS"
	}
	return s
}

func jobMap(js []reports.Job) map[string]reports.Job {
	m := map[string]reports.Job{}
	for _, j := range js {
		m[j.Name] = j
	}
	return m
}

// inputs lists what the two results record differently about their
// inputs.
func (d *differ) inputs(p *printer) {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	a, b := d.a, d.b

	wa, wb := whatIfs(a), whatIfs(b)
	for _, x := range wa {
		if !contains(wb, x) {
			add("what-if only before: %s", x)
		}
	}
	for _, x := range wb {
		if !contains(wa, x) {
			add("what-if only after: %s", x)
		}
	}
	if a.Workload != b.Workload || a.WorkloadFile != b.WorkloadFile {
		add("workload: %q (%s) -> %q (%s)", a.Workload, a.WorkloadFile, b.Workload, b.WorkloadFile)
	}
	if a.HorizonYears != b.HorizonYears {
		add("horizon: %s -> %s years", num(a.HorizonYears), num(b.HorizonYears))
	}
	if a.RankBy != b.RankBy {
		add("ranked by: %s -> %s", a.RankBy, b.RankBy)
	}
	if a.Currency != b.Currency {
		add("currency: %s -> %s", a.Currency, b.Currency)
	}
	if ta, tb := a.TCO, b.TCO; ta != nil && tb != nil {
		if ta.ElectricityQuoted != tb.ElectricityQuoted || ta.ElectricityPerKWh != tb.ElectricityPerKWh {
			add("electricity: %s -> %s", orNone(ta.ElectricityQuoted), orNone(tb.ElectricityQuoted))
		}
		if ta.PUE != tb.PUE {
			add("PUE: %s -> %s", num(ta.PUE), num(tb.PUE))
		}
	}
	lines = append(lines, jobInputs(a, b)...)
	lines = append(lines, partPrices(a, b)...)
	lines = append(lines, catalogs(a, b)...)
	lines = append(lines, factors(a, b)...)
	lines = append(lines, rates(a, b)...)
	if a.MemplanVersion != b.MemplanVersion {
		add("memplan version: %s -> %s (the model itself may differ)", orNone(a.MemplanVersion), orNone(b.MemplanVersion))
	}
	if len(lines) == 0 {
		if len(a.JobClasses) == 0 || len(b.JobClasses) == 0 {
			wrap(p, "Why: no input the results record differs. They record the workload's name and file, its job classes' memory and deadlines, the prices of the parts they list, the catalogs, factor curves, rates, horizon and power price, and any --set or --scale; a change elsewhere (a job's runtime or window, a part no listed configuration uses) is not visible here: a result written before memplan recorded job_classes does not have them.")
			return
		}
		wrap(p, "Why: no input the results record differs. They record the workload's name and file, its job classes' footprint, concurrency, runtime in RAM, deadline, window and jobs a day, the prices of the parts they list, the catalogs, factor curves, rates, horizon and power price, and any --set or --scale; a change elsewhere (a job's access pattern or compressibility, a part no listed configuration uses) is not visible here.")
		return
	}
	p.line("Why: the inputs that differ:")
	for _, l := range lines {
		p.line("  %s", l)
	}
}

func whatIfs(r reports.Output) []string {
	var out []string
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, whatif.Prefix) {
			out = append(out, strings.TrimPrefix(w, whatif.Prefix))
		}
	}
	return out
}

// jobInputs compares what the results record of each job class's inputs:
// footprint, concurrency, runtime in RAM, deadline, window and jobs a day
// from job_classes; from a file written before those were recorded, the
// deadline and the memory its concurrent jobs touch, as its
// configurations show them.
func jobInputs(a, b reports.Output) []string {
	if len(a.JobClasses) == 0 || len(b.JobClasses) == 0 {
		return jobInputsFromConfigs(a, b)
	}
	ca, cb := classMap(a.JobClasses), classMap(b.JobClasses)
	var out []string
	for _, name := range union(classNames(a.JobClasses), classNames(b.JobClasses)) {
		x, okA := ca[name]
		y, okB := cb[name]
		switch {
		case !okA:
			out = append(out, fmt.Sprintf("job class %s: only after", name))
		case !okB:
			out = append(out, fmt.Sprintf("job class %s: only before", name))
		default:
			var ch []string
			if x.FootprintGiB != y.FootprintGiB {
				ch = append(ch, fmt.Sprintf("footprint %s -> %s GiB", num(x.FootprintGiB), num(y.FootprintGiB)))
			}
			if x.Concurrency != y.Concurrency {
				ch = append(ch, fmt.Sprintf("concurrency %d -> %d", x.Concurrency, y.Concurrency))
			}
			if x.RuntimeInRAMHours != y.RuntimeInRAMHours {
				ch = append(ch, fmt.Sprintf("runtime in RAM %s -> %s", hours(x.RuntimeInRAMHours), hours(y.RuntimeInRAMHours)))
			}
			if x.DeadlineHours != y.DeadlineHours {
				ch = append(ch, fmt.Sprintf("deadline %s -> %s", hours(x.DeadlineHours), hours(y.DeadlineHours)))
			}
			if x.WindowHours != y.WindowHours {
				ch = append(ch, fmt.Sprintf("daily window %s -> %s", hours(x.WindowHours), hours(y.WindowHours)))
			}
			if x.JobsPerDay != y.JobsPerDay {
				ch = append(ch, fmt.Sprintf("jobs a day %s -> %s", num(x.JobsPerDay), num(y.JobsPerDay)))
			}
			if len(ch) > 0 {
				out = append(out, fmt.Sprintf("job class %s: %s", name, strings.Join(ch, ", ")))
			}
		}
	}
	return out
}

func classMap(js []reports.JobClass) map[string]reports.JobClass {
	m := make(map[string]reports.JobClass, len(js))
	for _, j := range js {
		m[j.Name] = j
	}
	return m
}

// classNames are the names of the job classes.
func classNames(js []reports.JobClass) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.Name
	}
	return out
}

// jobInputsFromConfigs is jobInputs for a result that does not record
// its job classes: what its configurations show of them.
func jobInputsFromConfigs(a, b reports.Output) []string {
	ja, jb := anyJobs(a), anyJobs(b)
	var out []string
	for _, name := range union(keysOf(ja), keysOf(jb)) {
		x, okA := ja[name]
		y, okB := jb[name]
		switch {
		case !okA:
			out = append(out, fmt.Sprintf("job class %s: only after", name))
		case !okB:
			out = append(out, fmt.Sprintf("job class %s: only before", name))
		default:
			var ch []string
			if x.TouchedGiB != y.TouchedGiB {
				ch = append(ch, fmt.Sprintf("memory touched (concurrency x footprint) %s -> %s GiB", num(x.TouchedGiB), num(y.TouchedGiB)))
			}
			if x.DeadlineHours != y.DeadlineHours {
				ch = append(ch, fmt.Sprintf("deadline %s -> %s", hours(x.DeadlineHours), hours(y.DeadlineHours)))
			}
			if len(ch) > 0 {
				out = append(out, fmt.Sprintf("job class %s: %s", name, strings.Join(ch, ", ")))
			}
		}
	}
	return out
}

// anyJobs returns each job class as the first listed configuration that
// has it shows it: the inputs it records are the same in every one.
func anyJobs(r reports.Output) map[string]reports.Job {
	m := map[string]reports.Job{}
	var cs []reports.Configuration
	if r.Recommended != nil {
		cs = append(cs, *r.Recommended)
	}
	cs = append(cs, r.Configurations...)
	for _, c := range cs {
		for _, j := range c.Jobs {
			if _, ok := m[j.Name]; !ok {
				m[j.Name] = j
			}
		}
	}
	return m
}

type partKey struct{ kind, sku string }

type partSeen struct {
	model string
	price float64
	cur   string
}

func parts(r reports.Output) map[partKey]partSeen {
	m := map[partKey]partSeen{}
	add := func(kind string, p reports.Part) {
		if p.SKU == "" {
			return
		}
		if _, ok := m[partKey{kind, p.SKU}]; !ok {
			m[partKey{kind, p.SKU}] = partSeen{p.Model, p.UnitPrice.Float(), r.Currency}
		}
	}
	var cs []reports.Configuration
	for _, c := range []*reports.Configuration{r.Recommended, r.Baseline} {
		if c != nil {
			cs = append(cs, *c)
		}
	}
	cs = append(cs, r.Configurations...)
	for _, c := range cs {
		add("platform", c.Platform)
		add("DIMM", c.DIMM)
		if c.Swap.Drive != nil {
			add("drive", *c.Swap.Drive)
		}
	}
	return m
}

// partPrices compares the unit prices of the parts both results list.
func partPrices(a, b reports.Output) []string {
	pa, pb := parts(a), parts(b)
	var keys []partKey
	for k := range pa {
		if _, ok := pb[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		return keys[i].sku < keys[j].sku
	})
	var out []string
	for _, k := range keys {
		x, y := pa[k], pb[k]
		if x.price == y.price && x.cur == y.cur {
			continue
		}
		s := fmt.Sprintf("%s %s (%s): %s -> %s", k.kind, k.sku, x.model, price(x.price, x.cur), price(y.price, y.cur))
		if x.cur == y.cur && x.price != 0 {
			s += fmt.Sprintf(" (x%s)", strconv.FormatFloat(round(y.price/x.price, 3), 'f', -1, 64))
		}
		out = append(out, s)
	}
	return out
}

func catalogs(a, b reports.Output) []string {
	ca, cb := map[string]reports.Catalog{}, map[string]reports.Catalog{}
	for _, c := range a.Catalogs {
		ca[c.Name] = c
	}
	for _, c := range b.Catalogs {
		cb[c.Name] = c
	}
	var out []string
	for _, n := range union(keysOf(ca), keysOf(cb)) {
		x, okA := ca[n]
		y, okB := cb[n]
		switch {
		case !okA:
			out = append(out, fmt.Sprintf("catalog %s (%s, %s): only after", n, y.File, y.Date))
		case !okB:
			out = append(out, fmt.Sprintf("catalog %s (%s, %s): only before", n, x.File, x.Date))
		case x != y:
			var ch []string
			if x.File != y.File {
				ch = append(ch, fmt.Sprintf("file %s -> %s", x.File, y.File))
			}
			if x.Date != y.Date {
				ch = append(ch, fmt.Sprintf("dated %s -> %s", x.Date, y.Date))
			}
			if x.Source != y.Source {
				ch = append(ch, fmt.Sprintf("source %q -> %q", x.Source, y.Source))
			}
			if x.Currency != y.Currency {
				ch = append(ch, fmt.Sprintf("currency %s -> %s", x.Currency, y.Currency))
			}
			if len(ch) > 0 {
				out = append(out, fmt.Sprintf("catalog %s: %s", n, strings.Join(ch, ", ")))
			}
		}
	}
	return out
}

// factors compares the factor files and the curves they give, class by
// class: the curves decide the slowdowns.
func factors(a, b reports.Output) []string {
	fa, fb := map[string]reports.FactorFile{}, map[string]reports.FactorFile{}
	for _, f := range a.Factors {
		fa[f.File] = f
	}
	for _, f := range b.Factors {
		fb[f.File] = f
	}
	var out []string
	for _, n := range union(keysOf(fa), keysOf(fb)) {
		x, okA := fa[n]
		y, okB := fb[n]
		switch {
		case !okA:
			out = append(out, fmt.Sprintf("factor file %s (%s): only after", n, y.Name))
		case !okB:
			out = append(out, fmt.Sprintf("factor file %s (%s): only before", n, x.Name))
		default:
			ca, cb := curveMap(x), curveMap(y)
			for _, cl := range union(keysOf(ca), keysOf(cb)) {
				p, okA := ca[cl]
				q, okB := cb[cl]
				switch {
				case !okA:
					out = append(out, fmt.Sprintf("factor file %s: curve %s only after", n, cl))
				case !okB:
					out = append(out, fmt.Sprintf("factor file %s: curve %s only before", n, cl))
				case curveText(p) != curveText(q):
					out = append(out, fmt.Sprintf("factor file %s, curve %s: %s -> %s", n, cl, curveText(p), curveText(q)))
				}
			}
		}
	}
	return out
}

func curveMap(f reports.FactorFile) map[string]reports.Curve {
	m := map[string]reports.Curve{}
	for _, c := range f.Curves {
		m[c.Class] = c
	}
	return m
}

// curveText writes a curve as fit:slowdown points.
func curveText(c reports.Curve) string {
	var s []string
	for _, p := range c.Points {
		s = append(s, num(p.Fit)+":"+num(p.Slowdown))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func rates(a, b reports.Output) []string {
	key := func(r reports.Rate) string { return r.From + "->" + r.To }
	ra, rb := map[string]reports.Rate{}, map[string]reports.Rate{}
	for _, r := range a.Rates {
		ra[key(r)] = r
	}
	for _, r := range b.Rates {
		rb[key(r)] = r
	}
	var out []string
	for _, k := range union(keysOf(ra), keysOf(rb)) {
		x, okA := ra[k]
		y, okB := rb[k]
		switch {
		case !okA:
			out = append(out, fmt.Sprintf("rate 1 %s = %s %s: only after (%s)", y.From, num(y.Rate), y.To, y.Source))
		case !okB:
			out = append(out, fmt.Sprintf("rate 1 %s = %s %s: only before (%s)", x.From, num(x.Rate), x.To, x.Source))
		case x.Rate != y.Rate:
			out = append(out, fmt.Sprintf("rate 1 %s in %s: %s -> %s (%s)", x.From, x.To, num(x.Rate), num(y.Rate), y.Source))
		}
	}
	return out
}

// table prints rows with aligned columns, indented by two spaces.
func table(p *printer, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))))
			}
		}
		p.line("%s", strings.TrimRight(b.String(), " "))
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string{}, a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// money writes a cost in whole units with thousands separators.
func money(v float64, cur string) string {
	if cur == "" {
		return grouped(math.Round(v), 0)
	}
	return grouped(math.Round(v), 0) + " " + cur
}

// price writes a unit price, with cents when it has them.
func price(v float64, cur string) string {
	if v == math.Trunc(v) {
		return grouped(v, 0) + " " + cur
	}
	return grouped(v, 2) + " " + cur
}

func grouped(v float64, decimals int) string {
	neg := v < 0
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// hours writes hours as the other reports do: 7h16m.
func hours(h float64) string {
	return units.Duration(time.Duration(math.Round(h * float64(time.Hour)))).String()
}

// wrap prints a paragraph in lines of at most 78 columns.
func wrap(p *printer, text string) {
	var line string
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > 78 {
			p.line("%s", line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		p.line("%s", line)
	}
}
