//go:build linux

package host

// Undo is undo, for the external tests.
var Undo = undo

// NewOSHostLockNamed is the real host with a lock of its own name.
func NewOSHostLockNamed(name string) *OSHost { return &OSHost{Root: "/", lockName: name} }
