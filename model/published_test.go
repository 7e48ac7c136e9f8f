package model

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
)

// cheapNVMe is a lab's curve for the catalog's TLC drives, taken with
// swapdemo (not with the job): at half its memory in RAM the work ran only
// 3% slower.
const cheapNVMe = `name: lab nvme
source: a lab's swapdemo runs
curves:
  - class: nvme-ssd-tlc
    provenance: published
    source: a lab's swapdemo runs on its TLC drives
    reference:
      read_latency: 80us
    points:
      - fit: 0.75
        slowdown: 1.01
      - fit: 0.5
        slowdown: 1.03
`

// beyondInput is one job class of 16 x 48 GiB that the lab's curve lets
// swap half its memory at almost no cost.
func beyondInput(t *testing.T, profile bool) Input {
	t.Helper()
	in := edaInput(t)
	f, err := ParseFactors("lab.yaml", []byte(cheapNVMe))
	if err != nil {
		t.Fatal(err)
	}
	if in.Factors, err = MergeFactors(DefaultFactors(), f); err != nil {
		t.Fatal(err)
	}
	in.Workload, err = ParseWorkload("w.yaml", []byte(`name: w
jobs:
  - name: sim
    footprint: 48GiB
    runtime: 5h
    concurrency: 16
    deadline: 8h
    jobs_per_day: 640
    access: uniform
`))
	if err != nil {
		t.Fatal(err)
	}
	if profile {
		// The same curve, as the job's own profile.
		jf, err := MergeProfile([]*factors.File{DefaultFactors()}, f)
		if err != nil {
			t.Fatal(err)
		}
		in.JobFactors = map[string]*Factors{"sim": jf}
	}
	return in
}

// TestOffloadBeyondPublishedIsAtRiskUntilMeasured: a configuration that
// keeps less than two thirds of a job's memory in RAM at under 5%
// slowdown, predicted from curves not of the job, is at risk and says
// why; the recommendation keeps more of the memory. With the same curve
// as the job's own profile it is not.
func TestOffloadBeyondPublishedIsAtRiskUntilMeasured(t *testing.T) {
	res, err := Recommend(beyondInput(t, false))
	if err != nil {
		t.Fatal(err)
	}
	beyond := 0
	for _, c := range res.Configs {
		for _, j := range c.Jobs {
			want := j.Fit < 2.0/3 && j.Estimate.Slowdown < 1.05
			if j.BeyondPublished != want {
				t.Errorf("%s: fit %.3f, slowdown %.3f: beyond published %v, want %v", c.Label, j.Fit, j.Estimate.Slowdown, j.BeyondPublished, want)
			}
			if j.BeyondPublished {
				beyond++
				if j.Meets && !j.AtRisk {
					t.Errorf("%s: beyond published but not at risk", c.Label)
				}
			}
		}
	}
	if beyond == 0 {
		t.Fatal("no configuration offloads beyond the published results: the test tests nothing")
	}
	r := res.Recommended
	if r == nil {
		t.Fatal("nothing recommended")
	}
	for _, j := range r.Jobs {
		if j.Fit < 2.0/3 && j.Estimate.Slowdown < 1.05 {
			t.Errorf("recommended %s keeps %.0f%% of %s in RAM at slowdown %.3f, with no curve of the job", r.Label, j.Fit*100, j.Name, j.Estimate.Slowdown)
		}
	}

	own, err := Recommend(beyondInput(t, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range own.Configs {
		for _, j := range c.Jobs {
			if j.BeyondPublished {
				t.Errorf("%s: the job's own profile, yet beyond published", c.Label)
			}
		}
	}
	if r := own.Recommended; r == nil || r.Jobs[0].Fit >= 2.0/3 {
		t.Errorf("with the job's own curve the recommendation is %v, want one that swaps a third or more", r)
	}
}

// TestBeyondPublishedVerdictCitesTheProductionResults: the cheaper
// configuration passed over because it offloads beyond the published
// results is named in the verdict with the results it goes beyond.
func TestBeyondPublishedVerdictCitesTheProductionResults(t *testing.T) {
	res, err := Recommend(beyondInput(t, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+ 1.92 TB enterprise TLC NVMe, at 18,520 USD per server", "moves 34% of sim's memory out of RAM at a slowdown of 1.02",
		"Meta's TMO 20-32% of memory, Google's far memory about 20%", "at risk until the job is measured"} {
		if !strings.Contains(res.Verdict, want) {
			t.Errorf("verdict does not say %q:\n%s", want, res.Verdict)
		}
	}
}
