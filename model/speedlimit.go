package model

// constantEstimate, when set, is every prediction's answer: Recommend then
// costs what walking the configurations costs (enumeration, pruning,
// pricing, ranking) with no slowdown model on top. It exists for the speed
// benchmarks' limit (model/bench_test.go, bench/speed.sh), which says how
// much the model adds to the walk; nothing else sets it.
var constantEstimate *Estimate
