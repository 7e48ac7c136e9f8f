package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
)

// cliffFactors is a factor file that defines a shape of its own (and a
// curve, since a file must contribute one).
const cliffFactors = `name: lab cliff
source: a lab's own profiles
shapes:
  - name: cliff
    exponent: 4
    readahead_faults: 1
    source: a lab's profiles of a job flat until its cold memory is gone
curves:
  - class: sata-ssd-slc
    provenance: published
    source: Intel IT (2009)
    reference:
      read_latency: 75us
    points:
      - fit: 0.5
        slowdown: 1.12
`

// accessWorkload is a one-job workload whose job states access.
func accessWorkload(t *testing.T, access string) *Workload {
	t.Helper()
	w, err := ParseWorkload("w.yaml", []byte(`name: w
jobs:
  - name: sim
    footprint: 48GiB
    runtime: 5h
    concurrency: 16
    deadline: 8h
    jobs_per_day: 640
    access: `+access+"\n"))
	if err != nil {
		t.Fatalf("access: %s: %v", access, err)
	}
	return w
}

// TestAccessNamesAFactorFilesOwnShape: a shape a factor file defines may
// be named in access: (it was refused when the workload was read, against
// the embedded names only), and the prediction uses it.
func TestAccessNamesAFactorFilesOwnShape(t *testing.T) {
	in := edaInput(t)
	f, err := ParseFactors("cliff.yaml", []byte(cliffFactors))
	if err != nil {
		t.Fatal(err)
	}
	if in.Factors, err = MergeFactors(DefaultFactors(), f); err != nil {
		t.Fatal(err)
	}
	in.Workload = accessWorkload(t, "cliff")
	res, err := Recommend(in)
	if err != nil {
		t.Fatalf("access: cliff with a factor file that defines it: %v", err)
	}
	shapes := map[string]bool{}
	for _, c := range res.Configs {
		for _, j := range c.Jobs {
			if j.Fit < 1 && j.Estimate.Shape != "" {
				shapes[j.Estimate.Shape] = true
			}
		}
	}
	if len(shapes) != 1 || !shapes["cliff"] {
		t.Errorf("swapping configurations predicted with shapes %v, want only cliff", shapes)
	}
}

// TestAccessNoFactorFileDefinesIsRefusedAtItsLine: a name that none of
// the factor files defines is an input error at the job's access field,
// listing the names that are defined (it used to span every shape when a
// factor file's shapes were checked nowhere).
func TestAccessNoFactorFileDefinesIsRefusedAtItsLine(t *testing.T) {
	in := edaInput(t)
	in.Workload = accessWorkload(t, "cliff")
	_, err := Recommend(in)
	var ie *yamlx.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("access: cliff without a file that defines it: got %v, want an input error", err)
	}
	for _, want := range []string{"w.yaml:9:", "jobs[0].access", `got "cliff"`, "uniform, cold-tail, sweep"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
