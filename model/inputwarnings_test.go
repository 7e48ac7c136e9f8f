package model

import (
	"strings"
	"testing"
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
