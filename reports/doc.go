// Package reports owns how a recommendation is shown: the versioned output
// schema that other tools (and `memplan report --from`) read back, and the
// table, JSON, YAML, CSV and Markdown renderings of it.
//
// It renders; it never computes a price, a slowdown or a ranking. Every
// number it prints comes from a model.Result, converted once into Output
// (plain numbers in the units their names carry) so that all formats show
// the same figures and a report made from a saved JSON file matches the one
// printed when it was computed.
package reports
