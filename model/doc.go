// Package model owns the decision: it reads workloads and slowdown factor
// files, enumerates the server configurations a price catalog allows (DIMM
// populations x swap options), predicts each one's slowdown, runtime,
// throughput, fleet size, cost and swap wear, and ranks them. It is made of
// pure functions: inputs in, a Result out. Nothing here prints.
package model
