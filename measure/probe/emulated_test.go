//go:build linux

package probe

import (
	"testing"

	"github.com/memplan/memplan/measure/host/hosttest"
)

// A swap area already at the top priority would share the emulated
// device's pages; one below it does not.
func TestTopSwapArea(t *testing.T) {
	for _, c := range []struct{ swaps, want string }{
		{"Filename\tType\tSize\tUsed\tPriority\n", ""},
		{"Filename\tType\tSize\tUsed\tPriority\n/dev/zram1 partition 229372 4 100\n", ""},
		{"Filename\tType\tSize\tUsed\tPriority\n/dev/vda2 partition 1000 0 -2\n/dev/zram1 partition 229372 4 32767\n", "/dev/zram1"},
	} {
		h := hosttest.NewFake(t, map[string]string{"/proc/swaps": c.swaps})
		if got := topSwapArea(h); got != c.want {
			t.Errorf("%q: got %q, want %q", c.swaps, got, c.want)
		}
	}
}
