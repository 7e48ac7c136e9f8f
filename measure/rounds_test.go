package measure

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// TestOrder: every round is one in-RAM run and each point once; the order
// of the points varies between rounds and is the same for the same seed
// and stream.
func TestOrder(t *testing.T) {
	const points, rounds = 4, 30
	take := func(seed, stream uint64) []Slot {
		o := NewOrder(seed, stream, points)
		var all []Slot
		for r := 1; r <= rounds; r++ {
			all = append(all, o.Round(r)...)
		}
		return all
	}
	all := take(7, 0)
	orders := map[string]bool{}
	for r := 0; r < rounds; r++ {
		round := all[r*(points+1) : (r+1)*(points+1)]
		if round[0].Point != InRAM {
			t.Fatalf("round %d starts with point %d, want the in-RAM run", r+1, round[0].Point)
		}
		var got []int
		for _, s := range round[1:] {
			got = append(got, s.Point)
			if s.Round != r+1 {
				t.Errorf("slot %+v in round %d", s, r+1)
			}
		}
		orders[fmt.Sprint(got)] = true
		slices.Sort(got)
		if !slices.Equal(got, []int{0, 1, 2, 3}) {
			t.Errorf("round %d measures points %v, want each of 4 once", r+1, got)
		}
	}
	if len(orders) < 5 {
		t.Errorf("%d distinct orders in %d rounds: the order is not random", len(orders), rounds)
	}
	if again := take(7, 0); !slices.Equal(again, all) {
		t.Error("the same seed and stream gave another order")
	}
	if other := take(7, 1); slices.Equal(other, all) {
		t.Error("another stream gave the same order")
	}
	if other := take(8, 0); slices.Equal(other, all) {
		t.Error("another seed gave the same order")
	}
}

func TestRoundRule(t *testing.T) {
	cases := []struct {
		rule    RoundRule
		done    int
		elapsed time.Duration
		widest  float64
		stop    bool
		want    string
	}{
		{RoundRule{Runs: 3, RunsFlag: "--reps"}, 2, 0, 1, false, ""},
		{RoundRule{Runs: 3, RunsFlag: "--reps"}, 3, 0, 1, true, "3 rounds, as asked (--reps)"},
		{RoundRule{Runs: 3, Precision: 0.05}, 3, 0, math.Inf(1), false, ""},
		{RoundRule{Runs: 3, Precision: 0.05}, 5, 0, 0.049, true, "precision 5% reached after 5 rounds (widest interval +-4.9%, at fit 0.5)"},
		{RoundRule{Runs: 3, Precision: 0.05}, MaxRounds, 0, 0.08, true, "stopped at 100 rounds without reaching precision 5% (widest +-8.0%, at fit 0.5)"},
		// 4 rounds in 40s: a fifth would end at 50s, past the budget.
		{RoundRule{Runs: 3, Precision: 0.05, Budget: 45 * time.Second}, 4, 40 * time.Second, 0.08, true, "budget 45s spent after 4 rounds without reaching precision 5% (widest +-8.0%, at fit 0.5)"},
		{RoundRule{Runs: 3, Precision: 0.05, Budget: 55 * time.Second}, 4, 40 * time.Second, 0.08, false, ""},
	}
	for _, c := range cases {
		stop, why := c.rule.Enough(c.done, c.elapsed, c.widest, 0.5)
		if stop != c.stop || why != c.want {
			t.Errorf("%+v after %d rounds: %v %q, want %v %q", c.rule, c.done, stop, why, c.stop, c.want)
		}
	}
}

func TestWidest(t *testing.T) {
	w, at := Widest([][]float64{{2, 2.02, 1.98}, {3, 3.6, 2.4}, {1.5, 1.5}})
	if at != 1 || !(w > 0.2) {
		t.Errorf("widest %g at %d, want point 1 (+-20%% or more)", w, at)
	}
	if w, at := Widest([][]float64{{2, 2}, {3}}); at != 1 || !math.IsInf(w, 1) {
		t.Errorf("a point with one sample: widest %g at %d, want +Inf at 1", w, at)
	}
	if _, at := Widest(nil); at != -1 {
		t.Errorf("no points: at %d", at)
	}
}

func TestCheckPrecision(t *testing.T) {
	for _, c := range []struct {
		p    float64
		b    time.Duration
		flag string
	}{{1, 0, "precision"}, {-0.1, 0, "precision"}, {0.05, -time.Second, "budget"}, {0, time.Minute, "budget"}, {0.05, time.Minute, ""}, {0, 0, ""}} {
		err := CheckPrecision(c.p, c.b)
		got := ""
		if oe, ok := err.(*OptionError); ok {
			got = oe.Flag
		}
		if got != c.flag {
			t.Errorf("precision %g budget %s: %v, want an error on %q", c.p, c.b, err, c.flag)
		}
	}
}
