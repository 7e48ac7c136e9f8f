// Package factors owns the slowdown factor file, memplan's one exchange
// format between measuring and deciding:
//
//   - its types: File, Curve, Point, Software, TargetOverhead, Shape,
//     Readahead, and the HostFacts and Reference a curve was measured with;
//   - reading it: Decode checks keys and types, Parse also checks every
//     value, each bad one an error naming the file, line and field;
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
// share, the reader passes in Defaults (model.ParseFactors passes the
// model's); a merge's statistics, the merged point and its band, come in
// as MergeHosts's PointBand (fleet passes the mean of the host means and
// a prediction interval). What the model computes from a file (prepared
// curves, shapes' page rates, transfer to other devices) and the fleet's
// merge policy (which files belong together, outliers) stay out of this
// package.
//
// Loading stays with the model, on purpose. model.LoadFactors reads a
// path through internal/inputfile, as memplan reads every file a person
// names (regular files only, a size limit, "-" for standard input, a
// cancellable read); that is not a leaf's import, and the result needs
// the model's Defaults all the same. The embedded defaults
// (model.DefaultFactors) are the model's published anchors and
// parameters, the content the model is calibrated on, not the format.
//
// It is a leaf: it imports only the standard library, units,
// internal/yamlx and yaml, so the measuring side fills these types without
// importing the model, and the model reads them without reaching anything
// that speaks to the kernel (measure's TestFactorsIsALeaf holds it to
// that). model keeps type aliases (model.FactorFile, model.Curve, ...),
// so a value of one is a value of the other.
package factors
