//go:build linux

package profile

import (
	"os"
	"testing"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure/host"
)

// TestMain lets the test binary serve as the profile's launcher: a profile
// re-executes /proc/self/exe, which is this binary in tests.
func TestMain(m *testing.M) {
	if ok, code := LauncherMain(); ok {
		os.Exit(code)
	}
	roottest.RecoverStale(func(dirs []string) []string { return host.RecoverStale(host.NewOSHost(), dirs) })
	os.Exit(m.Run())
}
