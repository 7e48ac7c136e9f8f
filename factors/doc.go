// Package factors owns the slowdown factor file: its types (File, Curve,
// Point, Software, TargetOverhead, Shape, Readahead, and the HostFacts and
// Reference a curve was measured with), how a file is decoded (Decode),
// what makes one valid (Parse) and how memplan writes one (Encode): every bad value is an error naming the
// file, line and field. What validation fills in and cannot decide itself
// (a point's slowdown and interval from its samples, the default dirty
// share) the reader passes in Defaults.
//
// Who writes it: memplan probe, memplan profile (all three methods) and
// memplan factors merge, through the measuring packages under measure/ and
// cmd/memplan; people write it by hand too. Who reads it: the model (which
// merges files into the curves it predicts with) and the reports.
//
// It is a leaf: it imports only the standard library, units,
// internal/yamlx and yaml, so the measuring side fills these types without
// importing the model, and the model and reports read them without
// reaching anything that speaks to the kernel. model keeps type aliases
// (model.FactorFile, model.Curve, ...), so a value of one is a value of
// the other. What the model computes from a file (prepared curves, shapes'
// page rates, transfer to other devices) stays in model.
package factors
