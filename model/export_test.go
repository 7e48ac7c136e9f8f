package model

import (
	"fmt"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/money"
)

// SetGridSteps sets how finely the crossval searches step through the
// ranges and returns the old value (for the external tests).
func SetGridSteps(n int) int {
	old := gridSteps
	gridSteps = n
	return old
}

// SetConstantSlowdown makes every prediction slowdown s (band s..s) until
// the returned function restores the model: the speed benchmarks' limit.
func SetConstantSlowdown(s float64) (restore func()) {
	old := constantEstimate
	constantEstimate = &Estimate{Slowdown: s, Low: s, High: s, Provenance: factors.Published, Basis: &Basis{Kind: BasisCurve, Provenance: factors.Published, Source: "constant (speed limit)"}}
	return func() { constantEstimate = old }
}

// DerivedSigma is derivedSigma, the least log sigma of a derived figure's
// draw in Uncertainty.
var DerivedSigma = derivedSigma

// DrawKey is drawKey: which slowdown error an estimate shares.
var DrawKey = drawKey

// SetLeanPruning switches the lean searches' branch and bound (leanSearch)
// on or off until the returned function restores it, so that tests can
// compare the pruned search with the whole one.
func SetLeanPruning(on bool) (restore func()) {
	old := leanPruning
	leanPruning = on
	return func() { leanPruning = old }
}

// SetLeanProbing switches the lean search's proofs out of tier 1
// (provenNotTier1) on or off until the returned function restores it.
func SetLeanProbing(on bool) (restore func()) {
	old := leanProbing
	leanProbing = on
	return func() { leanProbing = old }
}

// SetLeanBatch sets how many configurations the lean search evaluates
// between two looks at the best so far, until restore.
func SetLeanBatch(n int) (restore func()) {
	old := leanBatch
	leanBatch = n
	return func() { leanBatch = old }
}

// LeanResult is what a lean search found.
type LeanResult struct {
	Recommended, Baseline *Config
	Evaluated             int
}

// LeanSearch runs the lean search Uncertainty and BreakEven repeat, at
// today's prices and central slowdowns.
func LeanSearch(in Input) (LeanResult, error) {
	res, err := recommend(in, &hooks{lean: true})
	if err != nil {
		return LeanResult{}, err
	}
	return LeanResult{Recommended: res.Recommended, Baseline: res.Baseline, Evaluated: res.Evaluated}, nil
}

// FloorViolations evaluates every configuration of in (Recommend) and
// lists those whose cost floor (costFloor on serverFloor's servers) is
// above the ranked cost they came to, or that meet every deadline though
// serverFloor said none on their memory could.
func FloorViolations(in Input) ([]string, error) {
	res, err := Recommend(in)
	if err != nil {
		return nil, err
	}
	w, _ := in.workload()
	ev := &evaluator{in: in, w: w, res: res}
	_, elec, err := powerPricing(w, in.Prices, res.Currency)
	if err != nil {
		return nil, err
	}
	ev.elec = money.NewPerUnit(elec)
	var out []string
	for i := range res.Configs {
		c := &res.Configs[i]
		base := Config{Platform: c.Platform, DIMM: c.DIMM, DIMMCount: c.DIMMCount, MemorySpeed: c.MemorySpeed}
		servers, never := ev.serverFloor(base)
		switch {
		case never && c.Meets:
			out = append(out, fmt.Sprintf("%s meets every deadline, but the floor says it cannot", c.ID))
		case !never && c.Servers > 0 && servers > c.Servers:
			out = append(out, fmt.Sprintf("%s: floor of %d servers, needs %d", c.ID, servers, c.Servers))
		case !never && c.Servers > 0:
			if f := ev.costFloor(&base, c.Swap, servers, w.Options.RankBy == RankTCO); rankCost(c, w).Less(f) {
				out = append(out, fmt.Sprintf("%s: cost floor %s, costs %s", c.ID, f, rankCost(c, w)))
			}
		}
	}
	return out, nil
}
