//go:build linux

package emulate

import (
	"os"
	"testing"
)

// The test binary doubles as the emulator server (Start re-executes it) and
// as the swap test's workload.
func TestMain(m *testing.M) {
	ServeIfChild()
	if os.Getenv(workloadEnv) != "" {
		runWorkload()
		return
	}
	os.Exit(m.Run())
}
