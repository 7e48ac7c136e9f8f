package acct

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memplan/memplan/internal/usage"
)

// Options steer an import.
type Options struct {
	Name     string        // workload name; default "imported from FILE"
	ClassBy  string        // name (default), partition or account
	Quantile float64       // footprint quantile of peaks; default 0.95
	Deadline time.Duration // deadline for every class; 0: p95 of submit-to-end
	Nodes    int           // servers the jobs ran on (concurrency per server = cluster-wide peak / Nodes); default 1
	SkipBad  bool          // count bad records as skips instead of failing
	Source   string        // input file name for the comments
	Format   string        // "slurm" or "csv", for the comments
	// Peak, Request and Elapsed name the record's fields in the comments
	// (default MaxRSS, ReqMem and Elapsed, Slurm's names).
	Peak, Request, Elapsed string
}

// ShortJob is the shortest run whose peak sampling is trusted: Slurm's
// accounting samples every 30 s by default (JobAcctGatherFrequency), so a
// job shorter than two samples may have peaked between them.
const ShortJob = 60 * time.Second

// CapShare is the share of the request at or above which a job counts as
// memory-limited: its runtime may include swapping or reclaim, and its peak
// may be the limit rather than what it wanted.
const CapShare = 0.95

// Result is an import's output.
type Result struct {
	YAML    []byte
	Summary string // what was kept and skipped, for standard error
	Classes int
}

// failure states: counted apart, never averaged in.
var failStates = []string{"FAILED", "CANCELLED", "OUT_OF_MEMORY", "TIMEOUT", "REQUEUED", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "RUNNING", "PENDING", "SUSPENDED", "REVOKED", "RESIZING", "OTHER"}

type class struct {
	name              string
	jobs              int
	completed         int
	states            map[string]int
	noPeak, capped    int
	short             int
	virtual, scaled   int
	peaks             []float64 // bytes, completed jobs with a peak
	runtimes          []float64 // seconds, completed and not memory-limited
	allRuntimes       []float64 // seconds, completed
	turnaround        []float64 // seconds submit->end, completed
	events            []event
	firstSub, lastSub time.Time
	subs              int
}

type event struct {
	t     int64
	delta int8
}

var trailingNum = regexp.MustCompile(`([_\-.]?\[?\d+\]?)+$`)

// ClassName strips a trailing number or array index from a job name:
// "sim_0042" and "sim-7" are class "sim", "sta[3]" is "sta".
func ClassName(name string) string {
	n := trailingNum.ReplaceAllString(name, "")
	if n == "" {
		return name
	}
	return n
}

// ClassKey is the class of job j under a --class-by rule: its name with
// a trailing number stripped (name, the default), its partition or queue,
// or its account or project; "unnamed" when that is empty.
func ClassKey(j *Job, by string) string {
	key := ""
	switch by {
	case "partition":
		key = j.Partition
	case "account":
		key = j.Account
	default:
		key = ClassName(j.Name)
	}
	if key == "" {
		key = "unnamed"
	}
	return key
}

// Import reads every job of src and writes a workload.
func Import(src Source, o Options) (*Result, error) {
	if o.Quantile == 0 {
		o.Quantile = 0.95
	}
	if o.Quantile <= 0 || o.Quantile > 1 {
		return nil, usage.Errorf("--quantile %g: expected a share in (0, 1], e.g. 0.95", o.Quantile)
	}
	if o.Nodes <= 0 {
		o.Nodes = 1
	}
	o.Peak = cmpOr(o.Peak, "MaxRSS (largest step)")
	o.Request = cmpOr(o.Request, "ReqMem")
	o.Elapsed = cmpOr(o.Elapsed, "Elapsed")
	switch o.ClassBy {
	case "":
		o.ClassBy = "name"
	case "name", "partition", "account":
	default:
		return nil, usage.Errorf("--class-by %q: expected name, partition or account", o.ClassBy)
	}
	classes := map[string]*class{}
	var order []string
	var jobs, skipped int
	var reasons []string
	for {
		j, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !o.SkipBad || !isInput(err) {
				return nil, err
			}
			skipped++
			if len(reasons) < 10 {
				reasons = append(reasons, err.Error())
			}
			continue
		}
		jobs++
		key := ClassKey(j, o.ClassBy)
		c := classes[key]
		if c == nil {
			c = &class{name: key, states: map[string]int{}}
			classes[key] = c
			order = append(order, key)
		}
		c.add(j)
	}
	sort.Strings(order)
	var b strings.Builder
	var sum strings.Builder
	fmt.Fprintf(&sum, "read %d job(s) from %s", jobs, o.Source)
	if skipped > 0 {
		fmt.Fprintf(&sum, "; skipped %d bad record(s) (--skip-bad):", skipped)
		for _, r := range reasons {
			fmt.Fprintf(&sum, "\n  %s", r)
		}
		if skipped > len(reasons) {
			fmt.Fprintf(&sum, "\n  ... and %d more", skipped-len(reasons))
		}
	}
	sum.WriteString("\n")
	name := o.Name
	if name == "" {
		name = "imported from " + filepath.Base(o.Source)
	}
	writeHeader(&b, o, jobs, skipped)
	fmt.Fprintf(&b, "name: %q\nhorizon: 3y\njobs:\n", name)
	n := 0
	for _, k := range order {
		c := classes[k]
		line := c.summary()
		if len(c.peaks) == 0 {
			fmt.Fprintf(&sum, "class %q: %s; left out: no completed job with a recorded peak\n", c.name, line)
			fmt.Fprintf(&b, "  # class %q left out: %s, none completed with a recorded peak\n", c.name, line)
			continue
		}
		fmt.Fprintf(&sum, "class %q: %s\n", c.name, line)
		c.write(&b, o)
		n++
	}
	if n == 0 {
		return nil, usage.Errorf("%s: no job class has a completed job with a recorded peak (%s); nothing written", o.Source, o.Peak)
	}
	return &Result{YAML: []byte(b.String()), Summary: sum.String(), Classes: n}, nil
}

func isInput(err error) bool { return asInput(err) }

func (c *class) add(j *Job) {
	c.jobs++
	if !j.Submit.IsZero() {
		if c.subs == 0 || j.Submit.Before(c.firstSub) {
			c.firstSub = j.Submit
		}
		if c.subs == 0 || j.Submit.After(c.lastSub) {
			c.lastSub = j.Submit
		}
		c.subs++
	}
	// Every job that ran held memory, whatever its end: all count for
	// overlaps.
	if !j.Start.IsZero() && !j.End.IsZero() && !j.End.Before(j.Start) {
		c.events = append(c.events, event{j.Start.Unix(), 1}, event{j.End.Unix(), -1})
	}
	if j.State != "COMPLETED" {
		st := j.State
		if !slices.Contains(failStates, st) {
			st = "OTHER"
		}
		c.states[st]++
		return
	}
	c.completed++
	if j.Elapsed > 0 && j.Elapsed < ShortJob {
		c.short++
	}
	if j.MaxRSS <= 0 {
		c.noPeak++
		return
	}
	c.peaks = append(c.peaks, float64(j.MaxRSS))
	if j.PeakVirtual {
		c.virtual++
	}
	if j.TaskScaled {
		c.scaled++
	}
	limited := j.ReqMem > 0 && float64(j.MaxRSS) >= CapShare*float64(j.ReqMem)
	if j.ReqMem > 0 && j.MaxRSS >= j.ReqMem {
		c.capped++
	}
	secs := j.Elapsed.Seconds()
	if secs > 0 {
		c.allRuntimes = append(c.allRuntimes, secs)
		if !limited {
			c.runtimes = append(c.runtimes, secs)
		}
	}
	if !j.Submit.IsZero() && !j.End.IsZero() && j.End.After(j.Submit) {
		c.turnaround = append(c.turnaround, j.End.Sub(j.Submit).Seconds())
	}
}

func (c *class) summary() string {
	s := fmt.Sprintf("%d job(s), %d completed", c.jobs, c.completed)
	for _, st := range failStates {
		if n := c.states[st]; n > 0 {
			s += fmt.Sprintf(", %d %s", n, st)
		}
	}
	if c.noPeak > 0 {
		s += fmt.Sprintf(", %d completed without a recorded peak", c.noPeak)
	}
	if c.capped > 0 {
		s += fmt.Sprintf(", %d capped (peak at or above the request)", c.capped)
	}
	if c.short > 0 {
		s += fmt.Sprintf(", %d shorter than %gs (peak may be missed)", c.short, ShortJob.Seconds())
	}
	return s
}

// Quantile is the nearest-rank quantile of sorted xs: the smallest value
// with at least q of the values at or below it.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Size renders bytes rounded up: MiB below 1 GiB, else GiB to 0.1.
func Size(b float64) string {
	const mib, gib = 1 << 20, 1 << 30
	if b < gib {
		return fmt.Sprintf("%dMiB", int64(math.Max(1, math.Ceil(b/mib))))
	}
	v := math.Ceil(b/gib*10-1e-9) / 10
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", v), "0"), ".") + "GiB"
}

// Dur renders seconds rounded up to the second as a memplan duration.
func Dur(secs float64) string {
	d := time.Duration(math.Ceil(secs-1e-9)) * time.Second
	if d <= 0 {
		d = time.Second
	}
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	var sb strings.Builder
	if h > 0 {
		fmt.Fprintf(&sb, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&sb, "%dm", m)
	}
	if s > 0 {
		fmt.Fprintf(&sb, "%ds", s)
	}
	return sb.String()
}

func writeHeader(b *strings.Builder, o Options, jobs, skipped int) {
	fmt.Fprintf(b, "# Written by `memplan workload import` from %s (%s accounting, %d job(s)", filepath.Base(o.Source), o.Format, jobs)
	if skipped > 0 {
		fmt.Fprintf(b, ", %d bad record(s) skipped", skipped)
	}
	fmt.Fprintf(b, ").\n# Classes by job %s", o.ClassBy)
	if o.ClassBy == "name" {
		b.WriteString(" with trailing digits and array indices stripped")
	}
	b.WriteString(".\n# Only COMPLETED jobs give figures; failed, cancelled, out-of-memory, timed-out\n")
	b.WriteString("# and requeued jobs are counted in each class's comment, never averaged in.\n")
	b.WriteString("# Quantiles are nearest-rank. Review every figure before you plan on it:\n")
	b.WriteString("# docs/import-workload.md says where each comes from and what it cannot tell.\n")
}

func (c *class) write(b *strings.Builder, o Options) {
	slices.Sort(c.peaks)
	fmt.Fprintf(b, "  # %s\n", c.summary())
	fmt.Fprintf(b, "  - name: %q\n", c.name)
	fp := Quantile(c.peaks, o.Quantile)
	fmt.Fprintf(b, "    # footprint: p%g of %s of %d completed job(s): n=%d p50=%s p95=%s max=%s\n",
		o.Quantile*100, o.Peak, len(c.peaks), len(c.peaks), Size(Quantile(c.peaks, .5)), Size(Quantile(c.peaks, .95)), Size(c.peaks[len(c.peaks)-1]))
	if c.capped > 0 {
		fmt.Fprintf(b, "    # CAPPED: %d job(s) peaked at or above their request; they may have wanted more than the figure says\n", c.capped)
	}
	if n := c.states["OUT_OF_MEMORY"]; n > 0 {
		fmt.Fprintf(b, "    # OUT_OF_MEMORY: %d job(s) were killed at their memory limit; they wanted more and are not in the figures\n", n)
	}
	if c.virtual > 0 {
		fmt.Fprintf(b, "    # VIRTUAL: %d job(s) recorded no resident peak; their peak is maxvmem, the virtual size, which overstates resident memory\n", c.virtual)
	}
	if c.scaled > 0 {
		fmt.Fprintf(b, "    # PER-TASK: %d job(s) ran several tasks a node; their peak is the largest task's times the tasks per node (an upper bound)\n", c.scaled)
	}
	if c.short > 0 {
		fmt.Fprintf(b, "    # SHORT: %d job(s) ran under %gs; sampled peaks of short jobs may miss the real peak\n", c.short, ShortJob.Seconds())
	}
	fmt.Fprintf(b, "    footprint: %s\n", Size(fp))
	rt := c.runtimes
	how := fmt.Sprintf("median %s of %d completed job(s) whose %s stayed below %g%% of %s (not memory-limited)", o.Elapsed, len(rt), peakWord(o.Peak), CapShare*100, o.Request)
	if len(rt) == 0 {
		rt = c.allRuntimes
		how = fmt.Sprintf("median %s of all %d completed job(s): every one ran at or near its memory limit, so this may include swapping", o.Elapsed, len(rt))
	}
	slices.Sort(rt)
	runtime := 1.0
	if len(rt) > 0 {
		runtime = Quantile(rt, .5)
	} else {
		how = "no completed job recorded an elapsed time; 1s is a placeholder: write the runtime"
	}
	fmt.Fprintf(b, "    # runtime: %s\n    runtime: %s\n", how, Dur(runtime))
	conc, when := c.concurrency()
	per := (conc + o.Nodes - 1) / o.Nodes
	if o.Nodes > 1 {
		fmt.Fprintf(b, "    # concurrency: at most %d job(s) ran at once (start/end overlaps, all end states%s) across %d server(s) (--nodes): %d per server, rounded up\n", conc, when, o.Nodes, per)
	} else {
		fmt.Fprintf(b, "    # concurrency: at most %d job(s) ran at once (start/end overlaps, all end states%s); the records name no node, so this is\n    # cluster-wide: give --nodes N to spread it over N servers\n", conc, when)
	}
	fmt.Fprintf(b, "    concurrency: %d\n", max(per, 1))
	if o.Deadline > 0 {
		fmt.Fprintf(b, "    # deadline: --deadline\n    deadline: %s\n", Dur(o.Deadline.Seconds()))
	} else if len(c.turnaround) > 0 {
		slices.Sort(c.turnaround)
		fmt.Fprintf(b, "    # deadline: p95 of submit-to-end of %d completed job(s) (what the farm delivered, queueing included)\n    deadline: %s\n", len(c.turnaround), Dur(Quantile(c.turnaround, .95)))
	} else {
		fmt.Fprintf(b, "    # deadline: no submit and end times; twice the runtime as a placeholder: write your own\n    deadline: %s\n", Dur(2*runtime))
	}
	span := c.lastSub.Sub(c.firstSub)
	spanNote := fmt.Sprintf("submitted %s to %s", c.firstSub.Format("2006-01-02 15:04"), c.lastSub.Format("2006-01-02 15:04"))
	if span < 24*time.Hour {
		span = 24 * time.Hour
		spanNote += ", counted as one day (the span is shorter)"
	}
	if c.subs > 0 {
		perDay := float64(c.completed) / span.Hours() * 24
		fmt.Fprintf(b, "    # jobs_per_day: %d completed job(s) over the submit span (%s)\n    jobs_per_day: %s\n", c.completed, spanNote, trimFloat(perDay))
	}
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", math.Max(v, 0.01))
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// concurrency sweeps start/end events: the most jobs running at once. A
// job ending at the second another starts does not overlap it.
func (c *class) concurrency() (int, string) {
	sort.Slice(c.events, func(i, k int) bool {
		if c.events[i].t != c.events[k].t {
			return c.events[i].t < c.events[k].t
		}
		return c.events[i].delta < c.events[k].delta // ends first
	})
	cur, best := 0, 0
	var at int64
	for _, e := range c.events {
		cur += int(e.delta)
		if cur > best {
			best, at = cur, e.t
		}
	}
	if best == 0 {
		return 1, ", none had start and end times"
	}
	return best, ", first reached " + time.Unix(at, 0).UTC().Format("2006-01-02 15:04")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// peakWord is the peak field's name without a qualifier in brackets.
func peakWord(p string) string {
	w, _, _ := strings.Cut(p, " (")
	return w
}
