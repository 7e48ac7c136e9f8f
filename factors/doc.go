// Package factors owns the slowdown factor file, memplan's one exchange
// format between measuring and deciding:
//
//   - its types: File, Curve, Point, Software, TargetOverhead, Shape,
//     Readahead, and the HostFacts and Reference a curve was measured with;
//   - reading it: Decode checks keys and types, Parse also checks every
//     value, each bad one an error naming the file, line and field; Load
//     reads a named file through internal/inputfile, as memplan reads
//     every file a person names, and parses it;
//   - writing it: Encode, YAML or JSON by the file name;
//   - pooling one measurement taken on several hosts into one file
//     (MergeHosts), point by point;
//   - the stamp (extra.fleet) that says who measured a file and how, and
//     the key of the merge record (extra.merge).
//
// Who writes it: memplan probe, memplan profile (all three methods) and
// memplan factors merge (measure/... and fleet fill the types, cmd/memplan
// encodes them); people write it by hand too. Who reads it: the model,
// which merges files into the curves it predicts with, and the reports,
// through the model.
//
// What Parse fills in and this package does not decide itself, a point's
// slowdown and 95% interval from its per-run samples and the default dirty
// share, the reader passes in Defaults (model.ParseFactors and
// model.LoadFactors pass the model's); a merge's statistics, the merged
// point and its band, come in as MergeHosts's PointBand (fleet passes the
// mean of the host means and a prediction interval). What the model
// computes from a file (prepared curves, shapes' page rates, transfer to
// other devices) and the fleet's merge policy (which files belong
// together, outliers) stay out of this package.
//
// The embedded defaults (model.DefaultFactors) stay with the model: they
// are its published anchors and parameters, the content it is calibrated
// on, not the format.
//
// It is a leaf: it imports only the standard library, units,
// internal/yamlx, internal/inputfile and yaml, so the measuring side fills
// these types without importing the model, and the model reads them
// without reaching anything that speaks to the kernel (measure's
// TestFactorsIsALeaf holds it to that). model, reports and the
// commands name these types here, by one name each (factors.File,
// factors.Curve, ...).
package factors
