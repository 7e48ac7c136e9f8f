package model

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
	constantEstimate = &Estimate{Slowdown: s, Low: s, High: s, Provenance: Published, Basis: Basis{Kind: BasisCurve, Provenance: Published, Source: "constant (speed limit)"}}
	return func() { constantEstimate = old }
}

// DerivedSigma is derivedSigma, the least log sigma of a derived figure's
// draw in Uncertainty.
var DerivedSigma = derivedSigma

// DrawKey is drawKey: which slowdown error an estimate shares.
var DrawKey = drawKey
