//go:build linux

package main

import (
	"bytes"
	"testing"

	"github.com/memplan/memplan/measure"
)

// TestLineProgressCountsAStageOfUnknownLength: a stage of a known number of
// runs counts them against it; a stage of as many runs as the work takes
// (the one run's cycles, announced with 0) counts them alone, so that a
// cycle's payback slices never read as more runs than there are.
func TestLineProgressCountsAStageOfUnknownLength(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "profile")
	p.Stage("zram-lz4", 2)
	p.RunDone(measure.RunResult{Backend: "zram-lz4", Fit: 0.9, Timed: 1.5, Slowdown: 1.2, MajFlt: 7})
	p.Stage("zram-lz4: one run, stepped memory limit: cycle 2", 0)
	for range 3 {
		p.RunDone(measure.RunResult{Backend: "zram-lz4 in RAM", Timed: 0.5, Slowdown: 1})
	}
	want := `profile: zram-lz4: 2 run(s)
profile: zram-lz4 fit 0.9 [1/2]: 1.20x (1.50s timed, 7 major faults)
profile: zram-lz4: one run, stepped memory limit: cycle 2
profile: zram-lz4 in RAM [1]: 1.00x (0.50s timed, 0 major faults)
profile: zram-lz4 in RAM [2]: 1.00x (0.50s timed, 0 major faults)
profile: zram-lz4 in RAM [3]: 1.00x (0.50s timed, 0 major faults)
`
	if got := buf.String(); got != want {
		t.Errorf("progress lines:\n%s\nwant\n%s", got, want)
	}
}
