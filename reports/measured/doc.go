// Package measured renders to the terminal what memplan measured or read
// from outside: the probe's plan and its summary (slowdown points and the
// swappiness, page-cache, swapdemo and copy scenarios), a device profile,
// a command's profile with its validation and predictions, and what an
// import made of a vendor quote.
//
// Like package reports it renders and never computes: every figure comes
// from the measure or quote result it is given (the few derived ones, such
// as a profile's predictions, through that result's own methods), so the
// same recorded result always prints the same text. Its tests are golden
// files rendered from JSON recorded by real runs (testdata/*.json); see
// measured_test.go for how to record them again.
package measured
