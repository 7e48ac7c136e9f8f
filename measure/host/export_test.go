//go:build linux

package host

// Undo is undo, for the external tests.
var Undo = undo
