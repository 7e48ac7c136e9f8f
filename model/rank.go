package model

import (
	"math"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// The ranking has one rule, written here: the model orders its result by
// it, and the workbook (reports/xlsx) rebuilds it with formulas from the
// result file, so that a price edit re-ranks as memplan would.
//
//   - tier first: configurations that meet every deadline with margin,
//     then those at risk, then those that miss;
//   - in the tiers that meet the deadlines, the ranked cost (fleet cost,
//     or TCO for the fleet when ranking by tco);
//   - among misses, the closest to meeting first: the smaller ratio of
//     runtime to deadline of the worst job class (a fleet that cannot
//     carry the day's volume while every job meets its deadline misses by
//     a ratio of at most 1, so it ranks ahead of the deadline misses);
//   - then cost per server; then, on a tie to the cent, the configuration
//     whose swap drives last the horizon before one whose drives wear out
//     and are bought again (the same money, but a replacement is a
//     service visit, a rebuild of the swap and a drive that may fail
//     early); then the lower slowdown, then the ID.
//
// Everything but the costs is in RankKey. Its figures are the ones the
// result file reports (hours and slowdowns to 1e-4), so that a ranking
// redone from the file comes out as the model's: differences below what
// the result shows never decide a rank.

// Ranking tiers, in ranking order.
const (
	TierMeets  = 1 // meets every deadline with margin
	TierAtRisk = 2 // meets only on the central estimate or by extrapolating
	TierMisses = 3 // misses a deadline, or the fleet cannot carry the volume
)

// RankTier is the tier of a configuration.
func RankTier(meets, atRisk bool) int {
	switch {
	case meets && !atRisk:
		return TierMeets
	case meets:
		return TierAtRisk
	}
	return TierMisses
}

// RankKey is the part of a configuration's place in the ranking that
// prices do not move.
type RankKey struct {
	Tier int
	// Miss is, for a configuration that misses, the largest ratio of
	// runtime to deadline over its job classes (MissRatio); 0 otherwise.
	Miss float64
	// Replaced is whether the swap drives wear out and are bought again
	// within the horizon.
	Replaced bool
	// Slowdown is the largest slowdown over the job classes, to 1e-4.
	Slowdown float64
	ID       string
}

// Block orders the blocks of configurations that only costs and the tie
// order separate: the tiers, and among misses each group of equal Miss.
// It is negative when k's block ranks first, zero for the same block.
func (k RankKey) Block(o RankKey) int {
	if k.Tier != o.Tier {
		return k.Tier - o.Tier
	}
	switch {
	case k.Miss < o.Miss:
		return -1
	case k.Miss > o.Miss:
		return 1
	}
	return 0
}

// TieLess is the last tie-break, after the costs: drives that last the
// horizon before drives that are replaced, then the lower slowdown, then
// the ID.
func (k RankKey) TieLess(o RankKey) bool {
	if k.Replaced != o.Replaced {
		return !k.Replaced
	}
	if k.Slowdown != o.Slowdown {
		return k.Slowdown < o.Slowdown
	}
	return k.ID < o.ID
}

// RankLess reports whether a ranks before b. cost is the ranked cost
// (consulted in the tiers that meet the deadlines), perServer the cost
// per server. Costs are exact amounts (package money), compared as
// integers: two configurations tie on cost only when they cost the same
// to the cent, and an amount that overflowed ranks as the dearest.
func RankLess(a, b RankKey, aCost, aPerServer, bCost, bPerServer money.Amount) bool {
	if d := a.Block(b); d != 0 {
		return d < 0
	}
	if a.Tier != TierMisses && aCost != bCost {
		return aCost.Less(bCost)
	}
	if aPerServer != bPerServer {
		return aPerServer.Less(bPerServer)
	}
	return a.TieLess(b)
}

// ReportedHours is a duration in hours to 1e-4 (0.36 s), as the result
// file reports it.
func ReportedHours(d units.Duration) float64 { return round4(d.Hours()) }

// ReportedRatio is a slowdown or share to 1e-4, as the result file
// reports it.
func ReportedRatio(v float64) float64 { return round4(v) }

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// MissRatio is how far a job class runs past its deadline, from the
// reported hours: runtime over deadline (infinite without a deadline).
func MissRatio(runtimeHours, deadlineHours float64) float64 {
	if deadlineHours <= 0 {
		return math.Inf(1)
	}
	return runtimeHours / deadlineHours
}

// RankKey is the configuration's ranking key. ID must be set (rank sets
// it before ordering).
func (c *Config) RankKey() RankKey {
	k := RankKey{Tier: RankTier(c.Meets, c.AtRisk), Replaced: c.Wear != nil && c.Wear.Replacements > 0, Slowdown: ReportedRatio(c.MaxSlowdown), ID: c.ID}
	if k.Tier == TierMisses {
		for _, j := range c.Jobs {
			k.Miss = max(k.Miss, MissRatio(ReportedHours(j.Runtime), ReportedHours(j.Deadline)))
		}
	}
	return k
}
