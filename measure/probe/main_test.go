package probe

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the probe's child: the probe
// re-executes /proc/self/exe, which is this binary in tests.
func TestMain(m *testing.M) {
	if ok, code := WorkloadMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
