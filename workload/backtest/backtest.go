// Package backtest replays the jobs a scheduler recorded against a server
// configuration memplan recommended: per job class, how many jobs' peaks
// the configuration holds in RAM, how many would swap and how much slower
// each of those would run at its own peak, how many would not fit at all,
// and how many would miss the class's deadline; and what two common
// right-sizing rules (Kubernetes VPA's p90 of peaks + 15%, and the largest
// peak ever + 10%) would have reserved for the same history.
package backtest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/workload/acct"
)

// Class is what a configuration gives one job class, per job.
type Class struct {
	Name      string
	Held      float64       // bytes of RAM a job of the class has on the configuration
	Swap      float64       // bytes of swap a job may use beyond Held; 0: none
	Deadline  time.Duration // the class's deadline
	Footprint float64       // the plan's footprint for the class, bytes
	// Slowdown predicts a job's slowdown when a share fit of its peak is
	// resident; ok false says the model gives no figure (why).
	Slowdown func(fit float64) (s float64, ok bool, why string)
}

// Plan is a configuration as the backtest sees it.
type Plan struct {
	Config  string // its ID
	Label   string // how the report names it
	Classes []Class
	// Keep is the most replayed jobs, in RAM or not, that Run keeps in
	// ClassResult.All for a workbook that lists every one; 0 keeps none.
	// A history with more keeps none and sets Result.TooMany.
	Keep int
}

// Outcomes of a job on the configuration.
const (
	InRAM      = "in RAM"
	Swaps      = "swaps"
	NoFit      = "does not fit" // peak beyond RAM and swap: OOM-killed or thrashing
	NoEstimate = "no estimate"  // swaps at a fit ratio the curves do not reach
)

// Job is one replayed job whose peak exceeds what the configuration holds
// in RAM.
type Job struct {
	ID        string  `json:"id"`
	Line      int     `json:"line"`
	Peak      float64 `json:"peak_bytes"`
	Elapsed   float64 `json:"elapsed_seconds"`
	Fit       float64 `json:"fit"`
	Slowdown  float64 `json:"slowdown,omitempty"`
	Predicted float64 `json:"predicted_seconds,omitempty"`
	Outcome   string  `json:"outcome"`
	Misses    bool    `json:"misses_deadline"`
	Why       string  `json:"why,omitempty"`
}

// MaxListed is the most jobs a class lists in Result.Classes[].Jobs (the
// largest peaks first); the counts cover all of them.
const MaxListed = 50

// ClassResult is one class's replay.
type ClassResult struct {
	Name          string         `json:"name"`
	Completed     int            `json:"completed"` // completed jobs with a peak: the ones replayed
	NotReplayed   map[string]int `json:"not_replayed,omitempty"`
	Held          float64        `json:"ram_per_job_bytes"`
	Swap          float64        `json:"swap_per_job_bytes"`
	Footprint     float64        `json:"plan_footprint_bytes"`
	Deadline      float64        `json:"deadline_seconds"`
	InRAM         int            `json:"in_ram"`
	Swapped       int            `json:"swap"`
	NoFit         int            `json:"no_fit"`
	NoEstimate    int            `json:"no_estimate"`
	SwapShare     float64        `json:"swap_share"`   // share of replayed jobs whose peak exceeds Held
	NoFitShare    float64        `json:"no_fit_share"` // share whose peak exceeds Held + Swap
	SlowdownP50   float64        `json:"slowdown_p50,omitempty"`
	SlowdownMax   float64        `json:"slowdown_max,omitempty"`
	Missed        int            `json:"missed_deadline"` // predicted runtime over the deadline, or no fit
	MissShare     float64        `json:"missed_share"`
	LateInRAM     int            `json:"late_even_in_ram"` // Elapsed alone already over the deadline
	VPA           float64        `json:"vpa_p90_plus_15_bytes"`
	MaxPlus10     float64        `json:"max_plus_10_bytes"`
	OverVPA       int            `json:"over_vpa"`       // jobs whose peak exceeds the VPA reservation
	OverFootprint int            `json:"over_footprint"` // jobs whose peak exceeds the plan's footprint
	Jobs          []Job          `json:"jobs,omitempty"`
	Omitted       int            `json:"jobs_omitted,omitempty"`
	// All is every replayed job in the order read, when Plan.Keep asked
	// for them: Slowdown unrounded, 1 for a job in RAM, 0 where there is
	// no figure.
	All []Job `json:"-"`
}

// Result is a backtest.
type Result struct {
	Config    string         `json:"config"`
	Label     string         `json:"label"`
	Source    string         `json:"source"`
	Read      int            `json:"jobs_read"`
	Skipped   int            `json:"bad_records_skipped,omitempty"`
	Classes   []ClassResult  `json:"classes"`
	Unplanned map[string]int `json:"jobs_of_classes_not_in_the_workload,omitempty"`
	// TooMany: Plan.Keep asked for every job, and there were more.
	TooMany bool `json:"-"`
}

type classState struct {
	keep  *int // jobs still to keep in all, shared by the classes; nil: none asked; below 0: too many
	all   []Job
	c     *Class
	r     ClassResult
	peaks []float64
	slows []float64
	jobs  []Job
}

// Run replays every job of src against plan. classBy groups jobs as the
// import did (name, partition or account); a class of the records that
// the plan does not have is counted apart. With skipBad a bad record is
// counted and passed over, else it stops the run.
func Run(src acct.Source, source, classBy string, plan Plan, skipBad bool) (*Result, error) {
	res := &Result{Config: plan.Config, Label: plan.Label, Source: source, Unplanned: map[string]int{}}
	states := map[string]*classState{}
	var keep *int
	if plan.Keep > 0 {
		keep = new(int)
		*keep = plan.Keep
	}
	for i := range plan.Classes {
		c := &plan.Classes[i]
		states[c.Name] = &classState{keep: keep, c: c, r: ClassResult{Name: c.Name, Held: c.Held, Swap: c.Swap, Footprint: c.Footprint,
			Deadline: c.Deadline.Seconds(), NotReplayed: map[string]int{}}}
	}
	for {
		j, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*yamlx.InputError); ok && skipBad {
				res.Skipped++
				continue
			}
			return nil, err
		}
		res.Read++
		key := acct.ClassKey(j, classBy)
		st := states[key]
		if st == nil {
			res.Unplanned[key]++
			continue
		}
		if j.State != "COMPLETED" || j.MaxRSS <= 0 {
			why := j.State
			if j.State == "COMPLETED" {
				why = "no peak"
			}
			st.r.NotReplayed[why]++
			continue
		}
		st.replay(j)
	}
	if len(res.Unplanned) == 0 {
		res.Unplanned = nil
	}
	for _, c := range plan.Classes {
		res.Classes = append(res.Classes, states[c.Name].finish())
	}
	if keep != nil && *keep < 0 {
		res.TooMany = true
		for i := range res.Classes {
			res.Classes[i].All = nil
		}
	}
	return res, nil
}

func (st *classState) replay(j *acct.Job) {
	c, r := st.c, &st.r
	peak := float64(j.MaxRSS)
	st.peaks = append(st.peaks, peak)
	r.Completed++
	if peak > c.Footprint {
		r.OverFootprint++
	}
	if j.Elapsed > c.Deadline {
		r.LateInRAM++
	}
	if peak <= c.Held {
		r.InRAM++
		late := j.Elapsed > c.Deadline
		if late {
			r.Missed++
		}
		st.keepJob(Job{ID: j.ID, Line: j.Line, Peak: peak, Elapsed: j.Elapsed.Seconds(), Fit: 1, Slowdown: 1,
			Predicted: j.Elapsed.Seconds(), Outcome: InRAM, Misses: late})
		return
	}
	out := Job{ID: j.ID, Line: j.Line, Peak: peak, Elapsed: j.Elapsed.Seconds(), Fit: round4(c.Held / peak)}
	s := 0.0 // the slowdown; 0: none
	switch {
	case peak > c.Held+c.Swap:
		r.NoFit++
		out.Outcome, out.Misses = NoFit, true
		r.Missed++
	default:
		var ok bool
		var why string
		s, ok, why = c.Slowdown(c.Held / peak)
		if !ok {
			s = 0
			r.NoEstimate++
			out.Outcome, out.Why, out.Misses = NoEstimate, why, true
			r.Missed++
			break
		}
		r.Swapped++
		st.slows = append(st.slows, s)
		out.Outcome, out.Slowdown = Swaps, round4(s)
		out.Predicted = math.Round(j.Elapsed.Seconds() * s)
		// Unrounded, as a workbook's formula compares it.
		if j.Elapsed.Seconds()*s > c.Deadline.Seconds() {
			out.Misses = true
			r.Missed++
		}
	}
	st.jobs = append(st.jobs, out)
	all := out
	all.Fit, all.Slowdown, all.Predicted = c.Held/peak, s, 0
	if s > 0 {
		all.Predicted = out.Elapsed * s
	}
	st.keepJob(all)
}

// keepJob keeps j for ClassResult.All while Plan.Keep allows.
func (st *classState) keepJob(j Job) {
	switch {
	case st.keep == nil || *st.keep < 0:
		return
	case *st.keep == 0:
		*st.keep = -1
		return
	}
	*st.keep--
	st.all = append(st.all, j)
}

func (st *classState) finish() ClassResult {
	r := st.r
	r.All = st.all
	if len(r.NotReplayed) == 0 {
		r.NotReplayed = nil
	}
	n := float64(max(r.Completed, 1))
	r.SwapShare = float64(r.Swapped+r.NoFit+r.NoEstimate) / n
	r.NoFitShare = float64(r.NoFit) / n
	r.MissShare = float64(r.Missed) / n
	if r.Completed == 0 {
		r.SwapShare, r.NoFitShare, r.MissShare = 0, 0, 0
	}
	if len(st.slows) > 0 {
		slices.Sort(st.slows)
		r.SlowdownP50 = round4(acct.Quantile(st.slows, .5))
		r.SlowdownMax = round4(st.slows[len(st.slows)-1])
	}
	if len(st.peaks) > 0 {
		slices.Sort(st.peaks)
		r.VPA = math.Ceil(acct.Quantile(st.peaks, .9) * 1.15)
		r.MaxPlus10 = math.Ceil(st.peaks[len(st.peaks)-1] * 1.10)
		i := sort.SearchFloat64s(st.peaks, math.Nextafter(r.VPA, math.Inf(1)))
		r.OverVPA = len(st.peaks) - i
	}
	// The largest peaks first: they are the ones a buyer asks about.
	sort.SliceStable(st.jobs, func(a, b int) bool { return st.jobs[a].Peak > st.jobs[b].Peak })
	if len(st.jobs) > MaxListed {
		r.Omitted = len(st.jobs) - MaxListed
		st.jobs = st.jobs[:MaxListed]
	}
	r.Jobs = st.jobs
	r.SwapShare, r.NoFitShare, r.MissShare = round4(r.SwapShare), round4(r.NoFitShare), round4(r.MissShare)
	return r
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Percent renders a share as a percentage to 0.1.
func Percent(v float64) string {
	s := fmt.Sprintf("%.1f%%", v*100)
	if s == "0.0%" && v > 0 {
		return "<0.1%"
	}
	return s
}
