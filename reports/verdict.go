package reports

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// The first screen of the table and Markdown reports is a verdict a buyer
// can act on: a few labelled lines, one thing each, in the same words as
// the rest of the report. What to buy is parts (platform, DIMMs, drives);
// what to configure is kernel settings (zram, zswap, swap); then the
// cost and the saving against the all-DRAM baseline, the deadlines, how
// sure the slowdowns are and the one command that would make them surer.
// The model's verdict paragraph (Output.Verdict) stays in the JSON.

// briefLine is one labelled line of the verdict.
type briefLine struct {
	label, text string
}

// maxTightest is how many job classes the verdict names; the rest are
// counted (every class is under --explain and in the JSON).
const maxTightest = 3

// briefLines builds the verdict from the output alone, so that a result
// read back with report --from gets the same first screen.
func briefLines(out Output) []briefLine {
	r := out.Recommended
	if r == nil {
		s := "No configuration meets every deadline: there is nothing to buy yet."
		if len(out.Advice) > 0 {
			s = "No configuration meets every deadline: there is nothing to buy yet (what would work is below)."
		}
		return []briefLine{{"", s}}
	}
	var ls []briefLine
	add := func(label, text string) {
		if text != "" {
			ls = append(ls, briefLine{label, text})
		}
	}
	add("Buy", buyText(r))
	add("Configure", configureText(r))
	add("Costs", costText(out, r))
	add("Saves", savesText(out, r))
	add("Deadlines", deadlinesText(r))
	add("Wear", wearText(r, out.HorizonYears, out.Currency, true))
	add("Drive failure", driveFailureText(out, r))
	add("Risk", riskText(r))
	sure, cmd := sureText(out, r)
	add("How sure", sure)
	add("To be surer", cmd)
	if c := out.CheaperIfMeasured; c != nil {
		settle := "`memplan profile -- YOUR JOB` (or `access:` for each job class) settles it"
		if strings.Contains(cmd, "memplan profile") {
			settle = "the same command settles it"
		}
		if j := beyondPublished(c); j != nil {
			add("Maybe cheaper", fmt.Sprintf("%s%s, %s per server, moves %.0f%% of %s's memory out of RAM at a slowdown of %.2f: more than production deployments report (%s), so at risk until measured; %s.",
				rankRef(c, out), c.Label, moneyCur(c.CostPerServer.Float(), out.Currency), (1-j.FitRatio)*100, j.Name, j.Slowdown, model.PublishedOffloadResults, settle))
		} else {
			add("Maybe cheaper", fmt.Sprintf("%s%s, %s per server, if the jobs use memory like those behind the published curves; %s.",
				rankRef(c, out), c.Label, moneyCur(c.CostPerServer.Float(), out.Currency), settle))
		}
	}
	return ls
}

// String is the line as printed: "Buy: ...".
func (b briefLine) String() string {
	if b.label == "" {
		return b.text
	}
	return b.label + ": " + b.text
}

// platformName is the platform's catalog model without its parenthesised
// details, with its SKU: "Two-socket 2U server, 24 DIMM slots (2S-DDR5-24DIMM)".
func platformName(p Part) string {
	m := strings.TrimSpace(parenRE.ReplaceAllString(p.Model, ""))
	if m == "" {
		m = p.Model
	}
	if p.SKU == "" || p.SKU == m {
		return m
	}
	return fmt.Sprintf("%s (%s)", m, p.SKU)
}

// partName is a catalog model with its SKU: "32 GB DDR5-5600 RDIMM
// (DDR5-5600-RDIMM-32G)", "Intel X25-E 64GB (SLC, SSDSA2SH064G1)".
func partName(p Part) string {
	if p.SKU == "" || p.SKU == p.Model {
		return p.Model
	}
	if m := strings.TrimSpace(p.Model); strings.HasSuffix(m, ")") {
		return fmt.Sprintf("%s, %s)", strings.TrimSuffix(m, ")"), p.SKU)
	}
	return fmt.Sprintf("%s (%s)", p.Model, p.SKU)
}

// gibText prints a size in GiB as units.Bytes does ("768GiB", "1TiB"),
// from 1 TiB up with at most two decimals ("3.49TiB", not "3576.3GiB").
func gibText(g float64) string {
	if g >= 1024 {
		return strconv.FormatFloat(math.Round(g/1024*100)/100, 'f', -1, 64) + "TiB"
	}
	return units.Bytes(math.Round(g * float64(units.GiB))).String()
}

// buyText lists the parts of one server and how many servers.
func buyText(c *Configuration) string {
	parts := []string{
		platformName(c.Platform),
		fmt.Sprintf("%d x %s%s", c.DIMMCount, partName(c.DIMM), runsAt(*c)),
	}
	if d := c.Swap.Drive; d != nil && c.Swap.Drives > 0 {
		parts = append(parts, fmt.Sprintf("%d x %s for swap", c.Swap.Drives, partName(*d)))
	} else {
		parts = append(parts, "no swap drive")
	}
	switch {
	case c.Servers > 1:
		return fmt.Sprintf("%d servers, each: %s.", c.Servers, strings.Join(parts, "; "))
	case c.Servers == 1:
		return fmt.Sprintf("1 server: %s.", strings.Join(parts, "; "))
	}
	return fmt.Sprintf("per server: %s.", strings.Join(parts, "; "))
}

// runsAt is ", running at 4400 MT/s" when the platform runs the DIMMs
// slower than their name says.
func runsAt(c Configuration) string {
	if slowedSpeed(c) == "" {
		return ""
	}
	return fmt.Sprintf(", which the platform runs at %d MT/s (%s)", c.MemorySpeedMTs, plural(c.DIMMsPerChannel, "DIMM per channel", "DIMMs per channel"))
}

// configureText says which kernel settings the configuration assumes.
func configureText(c *Configuration) string {
	s := c.Swap
	keep := "; vm.swappiness at its default (60), not 0 or 1"
	drives := func() string {
		if s.Drive == nil {
			return "the swap drive"
		}
		d := compactDrive(s.Drive.Model)
		switch {
		case s.Mirrored:
			return fmt.Sprintf("the %d x %s mirrored as %s", s.Drives, d, raid(s))
		case s.Drives > 1:
			return fmt.Sprintf("the %d x %s striped as RAID 0", s.Drives, d)
		}
		return "the " + d
	}
	switch s.Kind {
	case model.SwapNone:
		return "no swap is needed: every job class fits in RAM."
	case model.SwapZram:
		alg := ""
		if s.Algorithm != "" {
			alg = ", " + s.Algorithm + " compression"
		}
		return fmt.Sprintf("a zram swap device of %s of RAM (%s)%s%s.", pct(s.ZramShare), gibText(s.CapacityGiB), alg, keep)
	case model.SwapZswap:
		alg := ""
		if s.Algorithm != "" {
			alg = " (" + s.Algorithm + " compressor)"
		}
		return fmt.Sprintf("swap on %s (%s) with zswap%s in front of it%s.", drives(), gibText(s.CapacityGiB), alg, keep)
	}
	return fmt.Sprintf("swap on %s (%s)%s.", drives(), gibText(s.CapacityGiB), keep)
}

func costText(out Output, c *Configuration) string {
	cur := out.Currency
	s := moneyCur(c.CostPerServer.Float(), cur) + " per server"
	if c.Servers > 1 {
		s += fmt.Sprintf(", %s for %d servers", moneyCur(c.FleetCost.Float(), cur), c.Servers)
	}
	if out.RankBy == model.RankTCO && out.TCO != nil && out.TCO.Priced {
		s += fmt.Sprintf(" to buy; %s per server with power over %s years (the ranking follows this)", whole(c.TCOPerServer.Float(), cur), years(out))
	}
	return s + "."
}

func years(out Output) string {
	h := out.HorizonYears
	if out.TCO != nil && out.TCO.HorizonHours > 0 {
		h = out.TCO.HorizonHours / (365 * 24)
	}
	return strconv.FormatFloat(math.Round(h*10)/10, 'f', -1, 64)
}

// savesText compares the recommendation with the all-DRAM baseline.
func savesText(out Output, r *Configuration) string {
	b, cur := out.Baseline, out.Currency
	switch {
	case b == nil:
		return "nothing to compare with: no all-DRAM configuration in the catalogs meets every deadline."
	case b.ID == r.ID:
		return "nothing: the recommendation is itself all-DRAM, the cheapest way to meet the deadlines here."
	}
	base := fmt.Sprintf("all-DRAM (%d x %s, %s per server)", b.DIMMCount, b.DIMM.Model, moneyCur(b.CostPerServer.Float(), cur))
	sv := out.Savings
	if sv == nil {
		return "against " + base + "."
	}
	if sv.Fleet.Float() < 0 {
		s := fmt.Sprintf("%s more to buy for the fleet than %s", moneyCur(-sv.Fleet.Float(), cur), base)
		if out.TCO != nil && out.TCO.Priced {
			s += fmt.Sprintf(", but %s with power over %s years (%.1f%%)", saves(sv.TCOFleet.Float(), cur), years(out), sv.TCOPercent)
		}
		return s + "."
	}
	fleet := ""
	if r.Servers > 1 || b.Servers > 1 {
		fleet = fmt.Sprintf(", %s for the fleet", moneyCur(sv.Fleet.Float(), cur))
	}
	s := fmt.Sprintf("%s per server%s (%.1f%%) against %s", moneyCur(sv.PerServer.Float(), cur), fleet, sv.Percent, base)
	if out.RankBy == model.RankTCO && out.TCO != nil && out.TCO.Priced {
		s += fmt.Sprintf("; with power over %s years, %s for the fleet (%.1f%%)", years(out), whole(sv.TCOFleet.Float(), cur), sv.TCOPercent)
	}
	return s + "."
}

// tightest orders job classes by runtime against deadline, closest first.
func tightest(jobs []Job) []Job {
	js := append([]Job(nil), jobs...)
	ratio := func(j Job) float64 {
		if j.DeadlineHours <= 0 {
			return math.Inf(1)
		}
		return j.RuntimeHours / j.DeadlineHours
	}
	sort.SliceStable(js, func(a, b int) bool { return ratio(js[a]) > ratio(js[b]) })
	return js
}

func jobRun(j Job) string {
	return fmt.Sprintf("%s %s of %s", j.Name, duration(j.RuntimeHours), duration(j.DeadlineHours))
}

// deadlinesText names the job classes closest to their deadline, at most
// maxTightest of them, however many there are.
func deadlinesText(c *Configuration) string {
	js := tightest(c.Jobs)
	if len(js) == 0 {
		return ""
	}
	var miss []string
	for _, j := range js {
		if !j.MeetsDeadline {
			miss = append(miss, j.Name)
		}
	}
	var names []string
	for i, j := range js {
		if i == maxTightest {
			break
		}
		names = append(names, jobRun(j))
	}
	var s string
	switch {
	case len(miss) > 0:
		s = fmt.Sprintf("%s of %d miss", plural(len(miss), "job class", "job classes"), len(js))
	case len(js) == 1:
		return "met: " + names[0] + "."
	case len(js) <= maxTightest:
		s = "all met"
	default:
		s = fmt.Sprintf("all %d job classes meet theirs", len(js))
	}
	what := "tightest"
	if len(js) > maxTightest {
		what = fmt.Sprintf("the %d tightest", maxTightest)
	}
	s += fmt.Sprintf("; %s: %s", what, strings.Join(names, ", "))
	if len(js) > maxTightest {
		s += " (every class: --explain)"
	}
	return s + "."
}

// timesText is "once", "twice", "3 times".
func timesText(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// wearText says in words that a configuration's swap drives wear out and
// what replacing them costs, with (dirty) the dirty share the writes are
// priced at where the workload does not state it; "" when they last the
// horizon.
func wearText(c *Configuration, yearsH float64, cur string, dirty bool) string {
	w, s := c.Wear, c.Swap
	if w == nil || w.ReplacementsPerServer <= 0 || s.Drive == nil {
		return ""
	}
	over := "over " + strconv.FormatFloat(math.Round(yearsH*10)/10, 'f', -1, 64) + " years"
	d := compactDrive(s.Drive.Model)
	var what string
	switch {
	case s.Drives <= 1:
		what = fmt.Sprintf("the %s wears out under swap writes and is replaced %s %s", d, timesText(w.ReplacementsPerServer), over)
	case w.ReplacementsPerServer%s.Drives == 0:
		what = fmt.Sprintf("the %d x %s wear out under swap writes and each is replaced %s %s", s.Drives, d, timesText(w.ReplacementsPerServer/s.Drives), over)
	default:
		what = fmt.Sprintf("the %d x %s wear out under swap writes: %d replacement drives per server %s", s.Drives, d, w.ReplacementsPerServer, over)
	}
	out := fmt.Sprintf("%s, %s per server, included in the cost.", what, moneyCur(c.ReplacementsCost.Float(), cur))
	// The dirty share the writes are priced at, where the workload does
	// not state it (once for jobs that share one).
	seen := map[string]bool{}
	for _, j := range c.Jobs {
		if !dirty {
			break
		}
		if t := wearDirtyText(j); t != "" && !strings.HasPrefix(j.WearDirtyShareFrom, "the workload") && !seen[t] {
			seen[t] = true
			out += " " + strings.ToUpper(t[:1]) + t[1:] + "."
		}
	}
	return out
}

// raid names a mirrored arrangement: RAID 1 on two drives, RAID 10 on
// more.
func raid(s Swap) string {
	if s.Drives > 2 {
		return "RAID 10"
	}
	return "RAID 1"
}

// DriveFailure is the verdict's "Drive failure" line for the
// recommendation: what a dead swap drive does to the jobs and, when the
// model priced one, the mirror that prevents it. "" when the
// recommendation has no swap drive.
func DriveFailure(out Output) string {
	if out.Recommended == nil {
		return ""
	}
	return driveFailureText(out, out.Recommended)
}

// driveFailureText says what a dead swap drive does to the jobs and what
// the mirror that prevents it costs; "" without swap drives.
func driveFailureText(out Output, r *Configuration) string {
	s := r.Swap
	if s.Drive == nil || s.Drives < 1 || (s.Kind != model.SwapDrive && s.Kind != model.SwapZswap) {
		return ""
	}
	d := compactDrive(s.Drive.Model)
	if s.Mirrored {
		return fmt.Sprintf("swap is mirrored (%s): a dead drive kills no job; replace it and the mirror rebuilds.", raid(s))
	}
	text := "swap lives on the " + d + " alone: if it dies, every job with pages on it dies too."
	if s.Drives > 1 {
		text = fmt.Sprintf("swap is striped over the %d x %s (RAID 0): if one dies, every job with pages on the array dies too.", s.Drives, d)
	}
	m := out.Mirror
	if m == nil {
		return text
	}
	c := m.Configuration
	if c == nil {
		return text + " No mirror: " + m.Reason + "."
	}
	cur := out.Currency
	cost := fmt.Sprintf("%s per server (%s more)", moneyCur(c.CostPerServer.Float(), cur), moneyCur(c.CostPerServer.Sub(r.CostPerServer).Float(), cur))
	if c.Servers != r.Servers || c.Servers > 1 {
		cost += fmt.Sprintf(", %s for %s", moneyCur(c.FleetCost.Float(), cur), plural(c.Servers, "server", "servers"))
	}
	meets := "and still meets every deadline"
	switch {
	case !c.MeetsDeadlines:
		meets = "but misses a deadline"
	case c.AtRisk:
		meets = "and meets every deadline on its central slowdown, not at the top of its range"
	}
	return fmt.Sprintf("%s Mirrored (%d x %s, %s): %s, %s; `options.mirror_swap: true` ranks mirrored swap only.",
		text, c.Swap.Drives, d, raid(c.Swap), cost, meets)
}

// riskText warns when the recommendation is at risk or extrapolated.
func riskText(c *Configuration) string {
	if !c.AtRisk && !c.Extrapolated {
		return ""
	}
	var s []string
	if c.Extrapolated {
		s = append(s, "its slowdown is extrapolated beyond the fit ratios the curves were measured at")
	}
	if c.AtRisk {
		worst := ""
		for _, j := range tightest(c.Jobs) {
			if j.AtRisk && j.RuntimeHighHours > j.DeadlineHours {
				worst = fmt.Sprintf(" (%s: up to %s of %s)", j.Name, duration(j.RuntimeHighHours), duration(j.DeadlineHours))
				break
			}
		}
		if j := beyondPublished(c); j != nil && worst == "" {
			s = append(s, fmt.Sprintf("no configuration meets every deadline with certainty; this one moves %.0f%% of %s's memory out of RAM at a slowdown of %.2f, more than production deployments report (%s), and is at risk until the job is measured",
				(1-j.FitRatio)*100, j.Name, j.Slowdown, model.PublishedOffloadResults))
		} else {
			s = append(s, "no configuration meets every deadline with certainty; at the high end of the slowdown range a job would miss"+worst)
		}
	}
	return strings.Join(s, "; ") + "."
}

// beyondPublished is the first job of c at risk because it offloads more
// than the published production results (model.JobResult.BeyondPublished).
func beyondPublished(c *Configuration) *Job {
	for i, j := range c.Jobs {
		if j.AtRisk && j.BeyondPublished {
			return &c.Jobs[i]
		}
	}
	return nil
}

// asideRE is an innermost parenthesised aside.
var asideRE = regexp.MustCompile(`\s*\([^()]*\)`)

// basisFacts are what sureText decides by: the job's recorded facts, or,
// in a file written before memplan recorded them, the same facts read
// from its basis text (the one place the words are searched).
func basisFacts(j Job) BasisFacts {
	if j.BasisFacts != nil {
		return *j.BasisFacts
	}
	return BasisFacts{
		FromMeasurements: legacyMeasuredRE.MatchString(j.Basis),
		OneRun:           strings.Contains(j.Basis, "--one-run"),
		Sampler:          strings.Contains(j.Basis, model.SamplerBasis),
		Carried:          strings.Contains(j.Basis, "carried to this device"),
	}
}

var legacyMeasuredRE = regexp.MustCompile(`\((measured|emulated)\)`)

// sureText says where the recommendation's slowdowns come from, in words,
// and the one command that would make them surer.
func sureText(out Output, c *Configuration) (sure, cmd string) {
	var swapping []Job
	for _, j := range c.Jobs {
		if j.Provenance != model.InRAM && j.Provenance != "" {
			swapping = append(swapping, j)
		}
	}
	if len(swapping) == 0 {
		return "nothing is estimated: every job class fits in RAM, so nothing swaps.", ""
	}
	// The least sure source decides: inferred, then derived, then
	// published, then emulated, then measured.
	order := map[string]int{factors.Inferred: 0, model.Derived: 1, factors.Published: 2, factors.Emulated: 3, factors.Measured: 4}
	sort.SliceStable(swapping, func(a, b int) bool { return order[swapping[a].Provenance] < order[swapping[b].Provenance] })
	j := swapping[0]
	facts := basisFacts(j)
	host := ""
	for _, f := range out.Factors {
		if f.Host != "" {
			host = " (host " + f.Host + ")"
			break
		}
	}
	profile := "`memplan profile -- YOUR JOB` on a server set up as above."
	switch j.Provenance {
	case factors.Inferred:
		sure = "inferred from one run of the job by sampling the pages it referenced (memplan profile --one-pass), not measured under a memory limit: read its range"
	case model.Derived:
		if facts.FromMeasurements {
			sure = "derived by the swap-path model from your measurements" + host + " of other devices, not measured on this one"
			cmd = "`memplan probe --swap-dir DIR` with DIR on the swap device: it measures the device itself."
		} else {
			sure = "derived from published studies of other jobs and devices, not measured on your hardware"
		}
	case factors.Published:
		sure = "taken from published studies of other jobs, not measured on your hardware"
	case factors.Emulated:
		sure = "measured on an emulated device (a throttled stand-in for the drive), not on the drive itself"
		cmd = "`memplan probe --swap-dir DIR` on the real drive."
	case factors.Measured:
		sure = "measured on your hardware" + host
		if facts.OneRun {
			sure += " in one run under a stepped memory limit (memplan profile --one-run), not by whole runs at each fit ratio: read its range"
		}
		if facts.Sampler {
			sure += "; at its fit ratio, which the run did not reach, the figure is the one-pass sampler's (--prior): inferred, not measured"
		}
		if facts.Carried {
			// The job was measured on another swap device.
			sure += ", on another swap device, carried to this one by the swap-path model"
			cmd = profile
		}
	default:
		sure = j.Provenance
	}
	if cmd == "" && j.Provenance != factors.Measured {
		cmd = profile
	}
	sure += fmt.Sprintf("; %s's slowdown %.2f (range %.2f-%.2f", j.Name, j.Slowdown, j.SlowdownLow, j.SlowdownHigh)
	if j.AboveMeasuredFit > 0 {
		sure += fmt.Sprintf(", at fit %.2f, above the highest measured, %.2f", j.FitRatio, j.AboveMeasuredFit)
	}
	sure += ")"
	if n := len(swapping) - 1; n > 0 {
		sure += fmt.Sprintf(" (and %s swapping)", plural(n, "other job class", "other job classes"))
	}
	return sure + ".", cmd
}

// shortWarning drops the parenthesised asides of a warning for the first
// screen; --explain prints it whole.
func shortWarning(s string) string {
	for {
		t := asideRE.ReplaceAllString(s, "")
		if t == s {
			return strings.TrimSpace(t)
		}
		s = t
	}
}

// maxWearNotes is how many rows' wear the first screen describes.
const maxWearNotes = 3

// wearNotes are the table's words for rows whose drives wear out: one
// sentence per row, at most max of them (0: all), the rest counted.
func wearNotes(out Output, rs []Configuration, max int) []string {
	var notes []string
	more := 0
	for _, c := range rs {
		t := wearText(&c, out.HorizonYears, out.Currency, false)
		if t == "" {
			continue
		}
		if max > 0 && len(notes) == max {
			more++
			continue
		}
		notes = append(notes, fmt.Sprintf("#%d: %s", c.Rank, t))
	}
	if more > 0 {
		notes = append(notes, plural(more, "more row wears out its drives", "more rows wear out their drives")+" too (--explain lists them).")
	}
	return notes
}
