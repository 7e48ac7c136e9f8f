package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/units"
)

// TestFootprintFarFromTheCurvesIsWarned: eda.yaml's 700 GiB sign-off job
// rests on curves of the Intel study's 22 GiB jobs, and recommend says
// so; its 48 GiB regression jobs (2.2 times) and the Intel workload's own
// 22 GiB jobs do not get the warning.
func TestFootprintFarFromTheCurvesIsWarned(t *testing.T) {
	res, err := Recommend(edaInput(t))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Warnings, "\n")
	if !strings.Contains(all, "job class signoff-timing (700GiB a job) is 32 times larger than the jobs its slowdown curves come from (22GiB a job, the sata-ssd-slc curve and those derived from it; they are carried to it at the same page rate per second of work") ||
		!strings.Contains(all, "`memplan profile` of the job settles it") {
		t.Errorf("eda.yaml's warnings lack the sign-off job's footprint: %q", res.Warnings)
	}
	if strings.Contains(all, "job class regression") {
		t.Errorf("the 48 GiB regression jobs are warned about: %q", res.Warnings)
	}
	in := edaInput(t)
	w, err := LoadWorkload("../examples/intel-eda-2009.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in.Workload = w
	intel, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(intel.Warnings, "\n"); strings.Contains(w, "times larger") || strings.Contains(w, "times smaller") {
		t.Errorf("the Intel workload's 22 GiB jobs are warned about: %q", intel.Warnings)
	}
}

// TestFootprintSmallerThanTheCurvesIsWarned: a job class far smaller than
// the curves' jobs is told so in its own words (less data in less time,
// not more data for longer), and a ratio just past the span is not
// rounded down to it; a job with a profile of its own is held to its own
// curve's footprint, not the defaults'.
func TestFootprintSmallerThanTheCurvesIsWarned(t *testing.T) {
	in := edaInput(t)
	w := *in.Workload
	w.Jobs = append([]JobClass(nil), w.Jobs...)
	w.Jobs[0].Footprint = 5 * units.GiB
	in.Workload = &w
	var line string
	for _, m := range footprintWarnings(in) {
		if strings.HasPrefix(m, "job class "+w.Jobs[0].Name+" ") {
			line = m
		}
	}
	want := fmt.Sprintf("job class %s (5GiB a job) is 4.4 times smaller than the jobs its slowdown curves come from (22GiB a job,", w.Jobs[0].Name)
	if !strings.HasPrefix(line, want) || !strings.Contains(line, "true if it does the same work on less data in less time") {
		t.Errorf("warning %q, want %q and the smaller job's wording", line, want)
	}
	own := *in.Factors
	own.Curves = map[string]*factors.Curve{}
	for k, c := range in.Factors.Curves {
		own.Curves[k] = c
	}
	c := *own.Curves[own.TransferFrom]
	c.Reference.Footprint = 5 * units.GiB
	own.Curves[own.TransferFrom] = &c
	in.JobFactors = map[string]*Factors{w.Jobs[0].Name: &own}
	if got := footprintWarnings(in); strings.Contains(strings.Join(got, "\n"), "job class "+w.Jobs[0].Name+" ") {
		t.Errorf("a job of its own curve's footprint is warned about: %q", got)
	}
}
