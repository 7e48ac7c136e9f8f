package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Rounds: the order and the number of runs of one backend's session, the
// same for the probe and the profiler (docs/probe.md, "Busy hosts").
//
// A round is one in-RAM run followed by every fit ratio once, in a random
// order, so that drift on the host is spread over the fit ratios instead of
// being confounded with one of them; one more in-RAM run closes the session,
// so every constrained run has an in-RAM run on both sides (PairedBase).
// Rounds are repeated --runs (probe: --reps) times, and past that while a
// --precision target is not reached (RoundRule).

// MaxRounds bounds the rounds a precision target may ask for.
const MaxRounds = 100

// InRAM is the point index of an in-RAM run in a Slot.
const InRAM = -1

// Slot is one run of a round: its round (from 1) and the point it
// measures (an index into the fit ratios, or InRAM). A run's place in the
// session (RunResult.Seq) is RunRounds' count, since a Gate can put
// in-RAM runs between a round's slots.
type Slot struct {
	Round, Point int
}

// Order hands out a session's slots round by round. Its randomness comes
// from a seed and a stream (the phase or stage index), so a session's order
// is reproduced from the two numbers a report records.
type Order struct {
	Seed, Stream uint64
	points       int
	rng          *rand.Rand
	fixed        bool // the points in their own order (Session.Descending)
}

// NewOrder is the order of a session over points fit ratios.
func NewOrder(seed, stream uint64, points int) *Order {
	return &Order{Seed: seed, Stream: stream, points: points, rng: rand.New(rand.NewPCG(seed, stream))}
}

// Round is the slots of round r: the in-RAM run, then each point once,
// in a random order or, for a fixed order, in the points' own.
func (o *Order) Round(r int) []Slot {
	out := []Slot{{Round: r, Point: InRAM}}
	var perm []int
	if !o.fixed {
		perm = o.rng.Perm(o.points)
	}
	for i := range o.points {
		if perm != nil {
			i = perm[i]
		}
		out = append(out, Slot{Round: r, Point: i})
	}
	return out
}

// RoundRule decides when a session has had rounds enough.
type RoundRule struct {
	Runs     int    // rounds always run
	RunsFlag string // the flag that set Runs, for the message: --runs, --reps
	// Precision, when above 0, adds rounds past Runs until every point's
	// 95% interval is within this share of its mean (0.05: +-5%).
	Precision float64
	// Budget bounds the session's wall time when Precision adds rounds: no
	// round starts that would overrun it (0: none; MaxRounds still holds).
	Budget time.Duration
}

// CheckPrecision validates --precision and --budget, the same for every
// command that has them.
func CheckPrecision(precision float64, budget time.Duration) error {
	if precision < 0 || precision >= 1 {
		return OptErr("precision", "%g is out of range; expected a share of the mean above 0 and below 1, e.g. 5%%", precision)
	}
	if budget < 0 {
		return OptErr("budget", "cannot be negative")
	}
	if budget > 0 && precision == 0 {
		return OptErr("budget", "bounds the rounds --precision adds; give --precision too, e.g. --precision 5%%")
	}
	return nil
}

// Enough says whether a session has had rounds enough after done of them
// in elapsed wall time, and why: the rounds asked for without a precision
// target, the precision reached, the budget spent (the next round would
// overrun it), or the ceiling of MaxRounds. widest is the largest relative
// half-width of the session's points and fit the fit ratio it is at
// (Widest).
func (r RoundRule) Enough(done int, elapsed time.Duration, widest, fit float64) (bool, string) {
	if done < r.Runs {
		return false, ""
	}
	if r.Precision <= 0 {
		return true, fmt.Sprintf("%d rounds, as asked (%s)", done, r.RunsFlag)
	}
	if widest <= r.Precision {
		return true, fmt.Sprintf("precision %.0f%% reached after %d rounds (widest interval +-%.1f%%, at fit %g)", 100*r.Precision, done, 100*widest, fit)
	}
	if done >= MaxRounds {
		return true, fmt.Sprintf("stopped at %d rounds without reaching precision %.0f%% (widest +-%.1f%%, at fit %g)", done, 100*r.Precision, 100*widest, fit)
	}
	if r.Budget > 0 && done > 0 {
		perRound := elapsed / time.Duration(done)
		if elapsed+perRound > r.Budget {
			return true, fmt.Sprintf("budget %s spent after %d rounds without reaching precision %.0f%% (widest +-%.1f%%, at fit %g)", r.Budget, done, 100*r.Precision, 100*widest, fit)
		}
	}
	return false, ""
}

// State is the progress line's word on the precision target.
func (r RoundRule) State(widest, fit float64) string {
	return fmt.Sprintf("widest interval +-%.1f%% at fit %g, target %.0f%%", 100*widest, fit, 100*r.Precision)
}

// HalfWidth is the 95% half-width of the mean of xs relative to the mean:
// +Inf with fewer than two samples, which no target accepts.
func HalfWidth(xs []float64) float64 {
	s := Summarize(xs)
	if s.N < 2 || s.Mean <= 0 {
		return math.Inf(1)
	}
	return (s.Hi - s.Mean) / s.Mean
}

// Widest is the largest relative half-width over the points' samples
// (HalfWidth) and the index of its point; -1 when there are no points.
func Widest(samples [][]float64) (float64, int) {
	worst, at := 0.0, -1
	for i, xs := range samples {
		if w := HalfWidth(xs); at < 0 || w > worst {
			worst, at = w, i
		}
	}
	return worst, at
}
