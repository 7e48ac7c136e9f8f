//go:build linux

// Package roottest holds what tests that change the real host share: the
// gate (the hosttest build tag and root), and the lock that keeps test binaries of different packages
// from probing the host at the same time.
package roottest

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// lockName is the file whose lock the host-changing tests of every package
// share.
const lockName = "/tmp/memplan-probe-tests.lock"

// Require skips the test unless it was built with the hosttest tag and
// runs as root (CI does both: .ci/run runs the README's test command, which
// sets the tag). A plain `go test ./...` therefore never changes the host:
// no swap, zram device, cgroup, sysctl or service.
func Require(t testing.TB) {
	t.Helper()
	if !hostTests {
		t.Skip("changes the host (swap, zram, cgroups, services): run with -tags hosttest, as root")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the probe creates swap areas, zram devices and cgroups (CI runs this as root)")
	}
}

// Lock serialises the tests of every package that run real probes: each
// compares the host before and after, which a probe running concurrently in
// another test binary would upset. The lock is released when the test ends.
func Lock(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// RecoverStale undoes what earlier test runs left on the host: a test
// binary killed by its timeout runs no cleanup, and its probe's journal
// stays in its t.TempDir state directory (under the temporary directory,
// TestName.../NNN). Call it from TestMain just before m.Run, after the
// checks that turn the binary into a probe's child (a child must never
// take this lock: its parent test holds it). When it gets the tests' lock
// at once (no test of any package is changing the host), it undoes the
// journals whose process is gone; otherwise it leaves them for a later
// run. Best effort: it never fails or delays the run.
//
// recover is host.RecoverStale over the real host (passed in, because the
// packages below measure/host cannot import it from here).
func RecoverStale(recover func(dirs []string) []string) {
	if !hostTests || os.Geteuid() != 0 {
		return
	}
	f, err := os.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return
	}
	defer f.Close()
	// Without waiting: while another binary's test changes the host, its
	// journal is live, and this binary should not queue behind it.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "Test*", "*"))
	for _, l := range recover(dirs) {
		fmt.Fprintln(os.Stderr, "roottest: an earlier run left host changes:", l)
	}
}
