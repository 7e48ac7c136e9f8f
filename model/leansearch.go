package model

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// leanPruning switches the lean search's branch and bound on; the tests
// switch it off to compare (export_test.go).
var leanPruning = true

// leanProbing switches the lean search's proofs out of tier 1
// (provenNotTier1) on; the tests switch it off to compare
// (export_test.go).
var leanProbing = true

// leanBatch is how many configurations a lean search evaluates between
// two looks at the cheapest one that meets every deadline (a variable for
// the tests, which prune after every configuration).
var leanBatch = 64

// leanOptions are what a lean search keeps: the configurations that can
// rank among the first top, and with withBase those that can rank before
// the all-DRAM baseline; minCands is the fewest candidates it prunes.
type leanOptions struct {
	top      int
	withBase bool
	minCands int
}

// TopSearchMin is the fewest candidate configurations a search with
// Input.Top skips any of: below it every one is evaluated, so the ranks
// and counts are those of the full search. The break-even analysis runs
// unasked up to the same size.
const TopSearchMin = 5000

// candidate is a configuration of a lean search before it is evaluated:
// a memory population, a swap arrangement on it, and the least ranked
// cost it can come to whatever its slowdowns turn out to be.
type candidate struct {
	pop   int
	swap  Swap
	drive *pricedDrive
	floor money.Amount // costFloor
	never bool         // misses a deadline even at no slowdown
	must  bool         // evaluated however dear: all-DRAM, or hooks.keep
}

// leanSearch evaluates the configurations a lean search needs: those
// that can rank among the first top (1 for uncertainty and break-even,
// which read the recommendation) or be the all-DRAM baseline. It evaluates every
// all-DRAM configuration (they need no prediction), then the others in
// order of their cost floor (costFloor: what they cost at no slowdown,
// which needs none), and stops once the floor of the next exceeds the
// ranked cost of a configuration that meets every deadline with margin
// (tier 1): everything left costs more than that one, so ranks after it
// (RankLess: a tier-1 configuration ranks before any other tier and,
// within tier 1, the dearer after the cheaper). With top > 1 the bound is
// the top-th cheapest such configuration, and never below the baseline's
// cost (withBase), so that the baseline's rank is exact too. A floor
// equal to the bound is evaluated, as the tie-break may prefer it. The
// configurations come back in the order the full search enumerates
// them, so that ranking breaks exact ties (equal IDs) as it would over
// all of them; with them the number of candidates not evaluated and the
// bound (zero when nothing was pruned). Once it holds the first top
// configurations of tier 1 and the baseline, it also skips a drive or
// zswap configuration that one run of its band proves out of tier 1
// (provenNotTier1): it ranks after all of those. It evaluates one all the
// same where the verdict's note on an unknown access pattern (shapeNote)
// could name it and no cheaper configuration that note could name has
// been evaluated. Skipped counts both.
//
// A search for the table's first rows (o.minCands > 0) gives up, and
// returns searched false having changed nothing in res, when there are no
// more than o.minCands candidates: the full search costs little there,
// and its ranks and counts are exact.
func leanSearch(in Input, w *Workload, res *Result, h *hooks, elec money.PerUnit, pops []population, drives []pricedDrive, o leanOptions) (configs []*Config, skipped int, bound money.Amount, searched bool) {
	top, withBase := o.top, o.withBase
	newEvaluator := func() *evaluator {
		return &evaluator{in: in, w: w, res: res, h: h, elec: elec, rejected: map[Reject]int{}, notes: map[Reject]rejectNote{}}
	}
	enum := newEvaluator()
	tco := w.Options.RankBy == RankTCO
	var cands []candidate
	for i := range pops {
		p := &pops[i]
		servers, never := enum.serverFloor(p.base)
		keep := h != nil && h.keep != "" && strings.HasPrefix(h.keep, idPrefix(&p.base))
		enum.arrangements(p.base, p.pl, drives, func(s Swap, d *pricedDrive) {
			c := candidate{pop: i, swap: s, drive: d, never: never, must: s.Kind == SwapNone}
			if !never {
				c.floor = enum.costFloor(&p.base, s, servers, tco)
			}
			if keep && !c.must {
				x := p.base
				x.Swap = s
				c.must = configID(&x) == h.keep
			}
			cands = append(cands, c)
		})
	}
	if len(cands) <= o.minCands {
		return nil, 0, 0, false
	}
	for k, v := range enum.rejected {
		res.Rejected[k] += v
	}

	// Evaluation order: the musts, then by floor (never last), then as
	// enumerated.
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := &cands[a], &cands[b]
		switch {
		case x.must != y.must:
			if x.must {
				return -1
			}
			return 1
		case x.never != y.never:
			if y.never {
				return -1
			}
			return 1
		}
		if c := x.floor.Cmp(y.floor); c != 0 && !x.must {
			return c
		}
		return a - b
	})

	workers := min(runtime.GOMAXPROCS(0), max(1, len(pops)/8))
	evs := make([]*evaluator, workers)
	for i := range evs {
		evs[i] = newEvaluator()
		evs[i].probing = true
	}
	type kept struct {
		idx int
		c   *Config
	}
	var all []kept
	// bests are the top cheapest tier-1 ranked costs so far, ascending;
	// base is the cheapest all-DRAM configuration's that meets every
	// deadline.
	bests := make([]money.Amount, 0, top)
	var base money.Amount
	haveBase := false
	var best money.Amount
	haveBest := false
	prunable := func(c *candidate) bool {
		return haveBest && !c.must && (c.never || best.Less(c.floor))
	}
	// note is the least ranked cost of a configuration evaluated so far
	// that shapeNote could name (noteCandidate): a configuration proven
	// out of tier 1 that costs more cannot be the one it names.
	var note money.Amount
	haveNote := false
	// A repeated search (uncertainty, break-even) writes no verdict, and
	// so no note to keep.
	noteless := h != nil && h.lean
	outs := make([][]kept, workers)
	proved := make([]int, workers)
	pos := 0
	for pos < len(order) {
		// The musts go in one batch; then leanBatch at a time, up to the
		// first that cannot beat the best (all after it cannot either).
		end := pos
		for end < len(order) && (cands[order[end]].must || end-pos < leanBatch) && !prunable(&cands[order[end]]) {
			end++
		}
		if end == pos {
			break
		}
		batch := order[pos:end]
		pos = end
		// Once the first top tier-1 configurations are in, and the
		// baseline (all-DRAM, tier 1 when it meets), no other tier can
		// rank among them or before the baseline: a configuration proven
		// out of tier 1 is not evaluated (provenNotTier1).
		probe := leanProbing && haveBest && (!withBase || haveBase)
		noteAt, noteSet := note, haveNote
		evaluate := func(wi int, part []int) {
			ev := evs[wi]
			out := outs[wi][:0]
			for _, ci := range part {
				c := &cands[ci]
				if probe && !c.must {
					proven, safe, refused := ev.provenNotTier1(pops[c.pop].base, c.swap, c.drive)
					if refused {
						continue // counted as addDrive would count it
					}
					if proven && (safe || noteless || (noteSet && noteAt.Less(c.floor))) {
						proved[wi]++
						continue
					}
				}
				n := len(ev.configs)
				ev.addDrive(pops[c.pop].base, c.swap, c.drive)
				if len(ev.configs) > n {
					out = append(out, kept{ci, ev.configs[n]})
				}
			}
			outs[wi] = out
		}
		if workers == 1 || len(batch) < 16 {
			evaluate(0, batch)
			for wi := 1; wi < workers; wi++ {
				outs[wi] = outs[wi][:0]
			}
		} else {
			var wg sync.WaitGroup
			for wi := range workers {
				lo, hi := wi*len(batch)/workers, (wi+1)*len(batch)/workers
				wg.Add(1)
				go func() {
					defer wg.Done()
					evaluate(wi, batch[lo:hi])
				}()
			}
			wg.Wait()
		}
		for _, out := range outs {
			for _, k := range out {
				all = append(all, k)
				c := k.c
				if !c.Meets {
					continue
				}
				cost := rankCost(c, w)
				if noteCandidate(c) && (!haveNote || cost.Less(note)) {
					note, haveNote = cost, true
				}
				if withBase && c.AllDRAM() && (!haveBase || cost.Less(base)) {
					base, haveBase = cost, true
				}
				if c.AtRisk {
					continue
				}
				if i, _ := slices.BinarySearchFunc(bests, cost, money.Amount.Cmp); i < top {
					if len(bests) == top {
						bests = bests[:top-1]
					}
					bests = slices.Insert(bests, i, cost)
				}
			}
		}
		if len(bests) == top {
			best, haveBest = bests[top-1], true
			if withBase && haveBase && best.Less(base) {
				best = base
			}
		}
	}
	skipped = len(order) - pos
	for _, n := range proved {
		skipped += n
	}
	slices.SortFunc(all, func(a, b kept) int { return a.idx - b.idx })
	configs = make([]*Config, len(all))
	for i, k := range all {
		configs[i] = k.c
	}
	addCounts(res, evs)
	if skipped > 0 {
		bound = best
	}
	return configs, skipped, bound, true
}

// serverFloor is the fewest servers any swap arrangement on the memory
// population base can need, and never true when no arrangement can meet
// every deadline: both at no slowdown (every estimate is 1 or more: the
// factor files' slowdowns are validated to be at least 1 and every
// transfer adds a positive excess). A job that takes longer runs no more
// waves in its window (jobsPerServer), so it needs no fewer servers.
func (e *evaluator) serverFloor(base Config) (servers int, never bool) {
	need := make([]float64, len(e.w.Jobs))
	windows := make([]time.Duration, len(e.w.Jobs))
	busy := 0
	for i, j := range e.w.Jobs {
		rt := inRAMRuntime(j, base.MemorySpeed)
		if units.Duration(rt) > j.Deadline {
			return 0, true
		}
		windows[i] = j.Window.D()
		if j.JobsPerDay > 0 {
			busy++
			if jps := jobsPerServer(j, rt); jps > 0 {
				need[i] = j.JobsPerDay / jps
			} else {
				need[i] = math.Inf(1)
			}
		}
	}
	if n := e.w.Demand.Servers; n > 0 {
		return n, false
	}
	var days float64
	if busy > 12 {
		// packFleet packs this many classes greedily, which need not
		// grow with every class's need; any packing needs at least the
		// servers of its busiest class.
		for _, n := range need {
			days = max(days, n)
		}
	} else {
		// The fewest server-days over every grouping: it cannot fall
		// when a class needs more.
		days, _ = packFleet(need, windows)
	}
	if math.IsInf(days, 1) {
		return 0, true
	}
	// A millionth of a server below addDrive's rounding: packFleet's
	// search compares sums to 1e-12.
	return max(1, int(math.Ceil(days-1e-6))), false
}

// costFloor is the least ranked cost of base with swap s on at least
// servers servers: its parts and (ranking by tco) their power, without
// the replacement drives that wear would add. What the parts cost and
// draw does not depend on the slowdowns; the servers and replacements
// can only add to it.
func (e *evaluator) costFloor(base *Config, s Swap, servers int, tco bool) money.Amount {
	per := money.Sum(base.Platform.Price, base.DIMM.Price.Mul(int64(base.DIMMCount)))
	if s.Drive != nil {
		per = per.Add(s.Drive.Price.Mul(int64(s.Drives)))
	}
	if tco {
		c := Config{Platform: base.Platform, DIMM: base.DIMM, DIMMCount: base.DIMMCount, Swap: s}
		_, _, p := e.power(&c)
		per = per.Add(p)
	}
	return per.Mul(int64(servers))
}

// idPrefix is the part of configID that base fixes: platform and DIMMs,
// up to the swap.
func idPrefix(base *Config) string {
	return base.Platform.SKU + "/" + strconv.Itoa(base.DIMMCount) + "x" + base.DIMM.SKU + "/"
}
