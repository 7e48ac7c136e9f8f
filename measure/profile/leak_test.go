//go:build linux

package profile

import (
	"math"
	"testing"
)

// The leak's minor-fault loop times real page faults in this process: it
// changes nothing on the host, so it runs without root. (The swap loop
// would page this process out into whatever swap the host has, perhaps
// a measurement's: measure/host's root tests run it.)
func TestAccountingLeakTimesRealMinorFaults(t *testing.T) {
	l, err := measureLeak(false)
	if err != nil {
		t.Fatal(err)
	}
	if l.Loop != "minor faults" {
		t.Errorf("loop %q, want minor faults", l.Loop)
	}
	if l.Faults < leakMiB<<8 || l.Faults%(leakMiB<<8) != 0 {
		t.Errorf("%d faults: want whole passes over %d MiB of 4 KiB pages", l.Faults, leakMiB)
	}
	if cpu := l.User + l.Sys; cpu < 0.1*leakFor.Seconds() || cpu > 1.5*leakFor.Seconds() {
		t.Errorf("%.3fs of CPU time in a loop of %s", cpu, leakFor)
	}
	if math.Abs(l.Share-l.User/(l.User+l.Sys)) > 1e-12 || l.Share < 0 || l.Share > 1 {
		t.Errorf("share %.3f from user %.3fs and system %.3fs", l.Share, l.User, l.Sys)
	}
	// The loop's own user work is a store per 4 KiB page: a host whose
	// accounting is right reports almost no user time, this development
	// VM about half. Either way the figure is logged for the record.
	t.Logf("user share of kernel time on this host: %.3f (user %.3fs, system %.3fs, %d faults)", l.Share, l.User, l.Sys, l.Faults)
}
