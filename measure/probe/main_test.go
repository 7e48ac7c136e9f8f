//go:build linux

package probe

import (
	"os"
	"testing"

	"github.com/memplan/memplan/internal/roottest"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/emulate"
)

// TestMain lets the test binary serve as the probe's child: the probe
// re-executes /proc/self/exe, which is this binary in tests.
func TestMain(m *testing.M) {
	emulate.ServeIfChild()
	if ok, code := WorkloadMain(); ok {
		os.Exit(code)
	}
	roottest.RecoverStale(func(dirs []string) []string { return host.RecoverStale(host.NewOSHost(), dirs) })
	os.Exit(m.Run())
}
