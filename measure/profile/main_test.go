package profile

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the profile's launcher: a profile
// re-executes /proc/self/exe, which is this binary in tests.
func TestMain(m *testing.M) {
	if ok, code := LauncherMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
