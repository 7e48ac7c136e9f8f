package model

import (
	"math"
	"testing"
	"time"
)

func TestPackFleet(t *testing.T) {
	h := time.Hour
	cases := []struct {
		name    string
		need    []float64
		windows []time.Duration
		want    float64
		groups  int
	}{
		{"16h and 8h share a day", []float64{11, 11}, []time.Duration{16 * h, 8 * h}, 11, 1},
		{"two full days cannot share", []float64{10.3, 10.3}, []time.Duration{24 * h, 24 * h}, 20.6, 0},
		{"the busiest class sizes the group", []float64{4, 11}, []time.Duration{8 * h, 16 * h}, 11, 1},
		// 12h+12h share, the 16h class alone: 9 + 5, better than 16h+8h... pairings.
		{"best grouping", []float64{9, 5, 4}, []time.Duration{12 * h, 16 * h, 12 * h}, 14, 2},
		{"a class without volume is left out", []float64{0, 3}, []time.Duration{24 * h, 24 * h}, 3, 0},
	}
	for _, c := range cases {
		got, groups := packFleet(c.need, c.windows)
		if math.Abs(got-c.want) > 1e-9 || len(groups) != c.groups {
			t.Errorf("%s: %g server-days in %v, want %g in %d groups", c.name, got, groups, c.want, c.groups)
		}
	}
	// The greedy fallback for many classes never does worse than no sharing.
	need := make([]float64, 14)
	win := make([]time.Duration, 14)
	for i := range need {
		need[i], win[i] = float64(i+1), 6*h
	}
	got, _ := packFleet(need, win)
	if got >= sum(need) || got < 14 {
		t.Errorf("14 classes of 6h: %g server-days, want fewer than %g and at least 14", got, sum(need))
	}
}
