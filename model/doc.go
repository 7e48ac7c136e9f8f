// Package model owns the decision: it reads workloads and slowdown factor
// files, enumerates the server configurations a price catalog allows (DIMM
// populations x swap options), predicts each one's slowdown, runtime,
// throughput, fleet size, cost and swap wear, and ranks them. It is made of
// pure functions: inputs in, a Result out. Nothing here prints.
//
// Every slowdown is an Estimate: a central figure and a band, formed one
// way whatever the prediction stands on (docs/model.md, "The band"). The
// curves are carried to the target under each combination of the
// unknowns they leave open (a run); the central figure is the median run
// and the band spans every run, each widened by its source point's own
// interval and, where a curve is carried on its own to another path, by
// the transfer error the factor set's curves show against each other. A
// class derived from several curves keeps the combinations under which
// they agree; a curve of its own keeps all. recommend, crossval and the
// uncertainty analysis read the same band; a deadline counts as met only
// at its top.
package model
