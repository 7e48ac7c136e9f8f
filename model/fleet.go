package model

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
	"time"
)

const day = 24 * time.Hour

// packFleet sizes the fleet for job classes that take turns on the
// servers. need[i] is the servers class i keeps busy for its daily window
// (fractional: jobs_per_day / jobs per server-day); windows[i] that window.
// Classes whose windows fit in one day together can run on the same
// servers one after the other, so such a group needs only as many servers
// as its most demanding class; classes that cannot share a day need
// servers of their own. The fleet is the grouping with the fewest servers
// (summed before rounding up: a server may split its days between groups).
// It returns the server-days and, when two or more classes could share a
// day, the groups, each a list of class indexes (classes with no need, 0,
// are left out).
func packFleet(need []float64, windows []time.Duration) (float64, [][]int) {
	// The common case, evaluated per configuration: at most one class with
	// volume needs no search and no allocation.
	busy, only := 0, 0.0
	for _, n := range need {
		if n > 0 {
			busy, only = busy+1, n
		}
	}
	if busy <= 1 {
		return only, nil
	}
	if math.IsInf(sum(need), 1) {
		return math.Inf(1), nil
	}
	// No two windows fit in one day (the default: 24h each): every class
	// has servers of its own, without a search.
	lo1, lo2 := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for i, n := range need {
		if w := windows[i]; n > 0 && w < lo1 {
			lo1, lo2 = w, lo1
		} else if n > 0 && w < lo2 {
			lo2 = w
		}
	}
	if lo1+lo2 > day || lo1+lo2 < 0 {
		return sum(need), nil
	}
	idx := make([]int, 0, busy)
	for i, n := range need {
		if n > 0 {
			idx = append(idx, i)
		}
	}
	// Largest need first: the exact search and the greedy fallback both
	// do best when the big classes set the group sizes.
	sort.SliceStable(idx, func(a, b int) bool { return need[idx[a]] > need[idx[b]] })
	n := len(idx)
	if n > 12 {
		return greedyPack(idx, need, windows)
	}
	full := 1<<n - 1
	// best[m]: fewest server-days for the classes in mask m; first[m] the
	// group that holds m's lowest class in that optimum.
	best := make([]float64, full+1)
	first := make([]int, full+1)
	for m := 1; m <= full; m++ {
		best[m] = math.Inf(1)
		low := m & -m
		rest := m ^ low
		// Every group containing the lowest class: low plus a subset of rest.
		for sub := rest; ; sub = (sub - 1) & rest {
			g := sub | low
			if fits(g, idx, windows) {
				if v := maxNeed(g, idx, need) + best[m^g]; v < best[m]-1e-12 {
					best[m], first[m] = v, g
				}
			}
			if sub == 0 {
				break
			}
		}
	}
	var groups [][]int
	for m := full; m != 0; m ^= first[m] {
		var g []int
		for b := first[m]; b != 0; b &= b - 1 {
			g = append(g, idx[bits.TrailingZeros(uint(b))])
		}
		sort.Ints(g)
		groups = append(groups, g)
	}
	return best[full], groups
}

func fits(g int, idx []int, windows []time.Duration) bool {
	var w time.Duration
	for b := g; b != 0; b &= b - 1 {
		w += windows[idx[bits.TrailingZeros(uint(b))]]
	}
	return w <= day
}

func maxNeed(g int, idx []int, need []float64) float64 {
	m := 0.0
	for b := g; b != 0; b &= b - 1 {
		m = max(m, need[idx[bits.TrailingZeros(uint(b))]])
	}
	return m
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// greedyPack puts each class, largest need first, into the first group
// whose day still has room for its window (first-fit decreasing): for
// more classes than the exact search can afford.
func greedyPack(idx []int, need []float64, windows []time.Duration) (float64, [][]int) {
	var groups [][]int
	var used []time.Duration
	for _, i := range idx {
		placed := false
		for g := range groups {
			if used[g]+windows[i] <= day {
				groups[g], used[g], placed = append(groups[g], i), used[g]+windows[i], true
				break
			}
		}
		if !placed {
			groups, used = append(groups, []int{i}), append(used, windows[i])
		}
	}
	total := 0.0
	for _, g := range groups {
		m := 0.0
		for _, i := range g {
			m = max(m, need[i])
		}
		total += m
		sort.Ints(g)
	}
	return total, groups
}

// packingNote says which classes share servers, for the verdict; "" when
// no two classes do.
func packingNote(jobs []JobClass, groups [][]int, servers int) string {
	var parts []string
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		var names []string
		for _, i := range g {
			names = append(names, fmt.Sprintf("%s (%s window)", jobs[i].Name, jobs[i].Window))
		}
		parts = append(parts, strings.Join(names, " then "))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Their daily windows fit in one day, so job classes share servers in turn: %s; the fleet of %d is sized by the busiest class of each group, not by their sum.",
		strings.Join(parts, "; "), servers)
}
