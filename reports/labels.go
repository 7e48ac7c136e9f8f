package reports

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// rows are the configurations a report lists: the top ones, plus the
// recommended and baseline configurations wherever they rank, because a
// reader compares against them even when --top cuts them off.
func rows(out Output) []Configuration {
	rs := append([]Configuration{}, out.Configurations...)
	have := map[string]bool{}
	for _, c := range rs {
		have[c.ID] = true
	}
	for _, c := range []*Configuration{out.Recommended, out.Baseline} {
		if c != nil && !have[c.ID] {
			rs = append(rs, *c)
			have[c.ID] = true
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Rank < rs[j].Rank })
	return rs
}

var generationRE = regexp.MustCompile(`(?i)\b(LP)?DDR[0-9]\b`)

// memoryLabel is "12x4GiB DDR3". The DIMM generation is not a field of the
// result, so it is read from the catalog model or SKU, where it is
// conventionally spelled; without it the label is just count x size.
func memoryLabel(c Configuration) string {
	s := fmt.Sprintf("%dx%s", c.DIMMCount, units.Bytes(c.DIMM.CapacityBytes))
	for _, t := range []string{c.DIMM.Model, c.DIMM.SKU} {
		if g := generationRE.FindString(t); g != "" {
			return strings.TrimSpace(s + " " + strings.ToUpper(g) + " " + slowedSpeed(c))
		}
	}
	return strings.TrimSpace(s + " " + slowedSpeed(c))
}

// slowedSpeed is "@4400" when the platform runs the DIMMs below the
// speed their name gives, "" otherwise. The memory label carries it as a
// word of its own ("32x64GiB DDR5 @4400"), so that a table too narrow for
// the whole label drops the generation every row shares and keeps the
// speed that tells rows apart.
func slowedSpeed(c Configuration) string {
	s := c.MemorySpeedMTs
	if s <= 0 || strings.Contains(c.DIMM.Model+" "+c.DIMM.SKU, strconv.Itoa(s)) {
		return ""
	}
	return "@" + strconv.Itoa(s)
}

// swapLabel is "none", "zram 50% lz4", "X25-E 64GB", "4x X25-M 80GB" or
// "zswap+2x 1.92TB TLC NVMe".
func swapLabel(c Configuration) string {
	s := c.Swap
	switch s.Kind {
	case model.SwapNone:
		return "none"
	case model.SwapZram:
		return strings.TrimSpace(fmt.Sprintf("zram %s%% %s", strconv.FormatFloat(s.ZramShare*100, 'f', -1, 64), s.Algorithm))
	}
	d := "?"
	if s.Drive != nil {
		d = compactDrive(s.Drive.Model)
	}
	if s.Drives > 1 {
		d = fmt.Sprintf("%dx %s", s.Drives, d)
	}
	if s.Mirrored {
		d += " mirrored"
	}
	if s.Kind == model.SwapZswap {
		d = "zswap+" + d
	}
	return d
}

// fullSwapLabel is swapLabel with the drive's catalog model as written
// (--wide): "zswap+2x 1.92 TB enterprise TLC NVMe".
func fullSwapLabel(c Configuration) string {
	s := c.Swap
	if s.Drive == nil || s.Kind == model.SwapNone || s.Kind == model.SwapZram {
		return swapLabel(c)
	}
	d := s.Drive.Model
	if s.Drives > 1 {
		d = fmt.Sprintf("%dx %s", s.Drives, d)
	}
	if s.Mirrored {
		d += " mirrored"
	}
	if s.Kind == model.SwapZswap {
		d = "zswap+" + d
	}
	return d
}

// Vendor names add nothing in a column that compares drives from one or two
// catalogs, and they cost a fifth of its width.
var vendors = map[string]bool{
	"intel": true, "samsung": true, "micron": true, "kioxia": true, "toshiba": true,
	"solidigm": true, "seagate": true, "wd": true, "hgst": true, "hitachi": true,
	"kingston": true, "crucial": true, "sandisk": true, "hynix": true,
}

var parenRE = regexp.MustCompile(`\s*\([^)]*\)`)

// compactDrive shortens a catalog model name for the table: "Intel X25-E
// 64GB (SLC)" becomes "X25-E 64GB", "1.92 TB enterprise TLC NVMe" becomes
// "1.92TB TLC NVMe".
func compactDrive(m string) string {
	f := strings.Fields(parenRE.ReplaceAllString(m, ""))
	if len(f) > 1 && vendors[strings.ToLower(f[0])] {
		f = f[1:]
	}
	var out []string
	for i := 0; i < len(f); i++ {
		w := f[i]
		if strings.EqualFold(w, "enterprise") && len(f) > 1 {
			continue
		}
		if _, err := strconv.ParseFloat(w, 64); err == nil && i+1 < len(f) {
			switch strings.ToLower(f[i+1]) {
			case "gb", "tb", "mb", "rpm":
				w += f[i+1]
				i++
			}
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return m
	}
	return strings.Join(out, " ")
}

// duration renders a figure in hours the way the model's durations print.
func duration(h float64) string {
	return units.Duration(time.Duration(h * float64(time.Hour))).String()
}

// amount is a money figure without its currency, for columns headed by it.
// Whole amounts print as the model prints money ("55,800"); cents are kept
// when a price has them, since a quote is checked to the cent.
func amount(v float64) string {
	if v < 0 {
		return "-" + amount(-v)
	}
	whole := strings.TrimSpace(model.Money(v, ""))
	cents := int(math.Round(math.Abs(v)*100)) % 100
	if cents == 0 {
		return whole
	}
	return strings.TrimSpace(model.Money(math.Trunc(v), "")) + fmt.Sprintf(".%02d", cents)
}

func moneyCur(v float64, cur string) string { return amount(v) + " " + cur }

// shownNote says how many of the configurations a table shows (shown
// rows), and, when the search skipped some, that those rank after every
// row shown; "" when it shows them all.
func shownNote(out Output, shown int) string {
	count := func(n int) string { return strings.TrimSpace(model.Money(float64(n), "")) }
	switch {
	case out.ConfigurationsSkipped > 0:
		return fmt.Sprintf("Showing %d of %s configurations evaluated; %s more rank after every one shown and were not evaluated (--top 0 evaluates them all).",
			shown, count(out.ConfigurationsTotal), count(out.ConfigurationsSkipped))
	case shown < out.ConfigurationsTotal:
		return fmt.Sprintf("Showing %d of %s configurations.", shown, count(out.ConfigurationsTotal))
	}
	return ""
}

// rankRef is "#N, " for a configuration whose rank N holds among all of
// them, "" past the ranks a search that skipped some can vouch for.
func rankRef(c *Configuration, out Output) string {
	if out.RanksExact > 0 && c.Rank > out.RanksExact {
		return ""
	}
	return fmt.Sprintf("#%d, ", c.Rank)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Wrap breaks text into lines of at most width runes. Leading spaces of
// text (a nested item) prefix the first line, indent the others. Words longer
// than a line (paths, URLs) are cut rather than allowed to overflow an
// 80-column terminal.
func Wrap(text string, width int, indent string) []string {
	lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
	var lines []string
	var cur []rune // words on the current line, without its prefix
	prefix := func() string {
		if len(lines) == 0 {
			return lead
		}
		return indent
	}
	room := func() int { return max(1, width-utf8.RuneCountInString(prefix())) }
	flush := func() {
		lines = append(lines, prefix()+string(cur))
		cur = cur[:0]
	}
	for _, word := range strings.Fields(text) {
		w := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(w) > room() {
			flush()
		}
		for len(cur) == 0 && len(w) > room() {
			cur = append(cur, w[:room()]...)
			w = w[room():]
			flush()
		}
		if len(w) == 0 {
			continue
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, w...)
	}
	if len(cur) > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// provenanceSummary groups a factor file's curve classes by provenance:
// "published: hdd, sata-ssd-mlc; measured: nvme-ssd-tlc".
func provenanceSummary(f FactorFile) string {
	by := map[string][]string{}
	var order []string
	for _, c := range f.Curves {
		if _, ok := by[c.Provenance]; !ok {
			order = append(order, c.Provenance)
		}
		by[c.Provenance] = append(by[c.Provenance], c.Class)
	}
	sort.Strings(order)
	var parts []string
	for _, p := range order {
		parts = append(parts, p+": "+strings.Join(by[p], ", "))
	}
	if len(parts) == 0 {
		return "no curves"
	}
	return strings.Join(parts, "; ")
}

// derivedRows counts listed configurations whose critical slowdown was not
// in any factor file but carried over from another curve by the model.
func derivedRows(rs []Configuration) int {
	n := 0
	for _, c := range rs {
		if c.Provenance == model.Derived {
			n++
		}
	}
	return n
}

// serversVary reports whether fleet size differs between rows; when it does
// the fleet cost, not the per-server cost, is what the ranking follows.
func serversVary(rs []Configuration) bool {
	for _, c := range rs {
		if c.Servers != rs[0].Servers {
			return true
		}
	}
	return false
}

func slowdownCell(c Configuration) string {
	s := fmt.Sprintf("%.2f", c.Slowdown)
	if c.AtRisk {
		s += "~"
	}
	if c.Extrapolated {
		s += "^"
	}
	return s
}

func marks(c Configuration) string {
	m := ""
	if c.Recommended {
		m += "*"
	}
	if c.Baseline {
		m += "B"
	}
	return m
}

// basisText says where a job's slowdown comes from. The model's basis
// usually starts with the provenance already ("published: ..."); it is
// added only when it does not.
func basisText(j Job) string {
	if j.Provenance == "" || j.Provenance == "in RAM" || strings.HasPrefix(j.Basis, j.Provenance) {
		return j.Basis
	}
	return j.Provenance + ": " + j.Basis
}

// wearDirtyText says what dirty share a job's swap writes are priced at
// and where it comes from; "" for a job that writes nothing to a drive.
func wearDirtyText(j Job) string {
	if j.WearDirtyShareFrom == "" {
		return ""
	}
	return fmt.Sprintf("swap writes priced at a dirty share of %s, %s", strconv.FormatFloat(j.WearDirtyShare, 'g', 3, 64), j.WearDirtyShareFrom)
}

// withWearDirty is basisText with aboveText and wearDirtyText after it.
func withWearDirty(j Job) string {
	s := basisText(j)
	if j.AboveMeasuredFit > 0 {
		s += "; " + aboveText(j)
	}
	if w := wearDirtyText(j); w != "" {
		return s + "; " + w
	}
	return s
}

// aboveText says that a job's fit lies above the highest its curve was
// measured at (Job.AboveMeasuredFit), where the shape carried the figure.
func aboveText(j Job) string {
	return fmt.Sprintf("above the highest fit measured (%.2f), carried there by the shape", j.AboveMeasuredFit)
}

// rejectionNote is a reject reason's specific case, introduced by the
// reason's short form: "Far below the curves (N): nearest: ...".
func rejectionNote(r Rejection) string {
	short := r.Reason
	if i := strings.Index(short, " ("); i > 0 {
		short = short[:i]
	}
	return fmt.Sprintf("%s (%d): %s", strings.ToUpper(short[:1])+short[1:], r.Count, r.Note)
}

func hasNotes(rs []Rejection) bool {
	for _, r := range rs {
		if r.Note != "" {
			return true
		}
	}
	return false
}
