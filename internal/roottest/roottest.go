// Package roottest holds what tests that change the real host share: the
// root check and the lock that keeps test binaries of different packages
// from probing the host at the same time.
package roottest

import (
	"os"
	"testing"

	"syscall"
)

// Require skips the test unless it runs as root (CI does).
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the probe creates swap areas, zram devices and cgroups (CI runs this as root)")
	}
}

// Lock serialises the tests of every package that run real probes: each
// compares the host before and after, which a probe running concurrently in
// another test binary would upset. The lock is released when the test ends.
func Lock(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile("/tmp/memplan-probe-tests.lock", os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}
