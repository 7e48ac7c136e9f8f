// Package factors holds the parts of the slowdown factor file that the
// producers (memplan probe, memplan profile, the device benchmark) and the
// model both name: the machine a curve was measured on (HostFacts) and the
// device and load it was obtained with (Reference).
//
// It is a leaf: it imports only the standard library and units, so the
// measuring packages under measure/ can fill these types without importing
// the model, and the model reads them without reaching anything that
// speaks to the kernel. model keeps type aliases (model.HostFacts,
// model.Reference), so a value of one is a value of the other; the file
// format, its parsing and its validation stay in model.
package factors
