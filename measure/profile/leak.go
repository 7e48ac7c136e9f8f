//go:build linux

package profile

import (
	"fmt"
	"math"
	"time"

	"github.com/memplan/memplan/measure/host"
)

// The one run's progress clock is user CPU time, and a kernel that splits
// CPU time between user and system at its ticks (CONFIG_TICK_CPU_ACCOUNTING,
// the common default) is only right on average where the tick lands
// unbiased. On some virtual machines it does not: on the one memplan is
// developed on, a loop that does nothing in user mode but touch a freed
// page (all of its time is in the kernel's fault path) is reported as
// about half user time, and a loop of 4 KiB reads from /dev/zero as about
// 40%. Every fault the command takes under a limit then inflates its user
// time, and the clock reads progress that was not made.
//
// accountingLeak measures that share on this host: for about leakFor it
// touches the pages of a 16 MiB mapping and drops them again (a minor
// fault and a zeroed page each time, with a store's worth of user work),
// on one locked OS thread, and returns the thread's user time over its
// user plus system time. A host that accounts the kernel's time as
// kernel time gives about 0.

const (
	leakFor = 2 * time.Second
	leakMiB = 16
)

// AccountingLeak is what accountingLeak measured.
type AccountingLeak struct {
	Share  float64 `json:"user_share_of_kernel_time"`
	User   float64 `json:"user_s"`
	Sys    float64 `json:"sys_s"`
	Faults int64   `json:"faults"`
}

// oneRunLeakSpread is how much larger than measured the leak may be for
// the command's own kernel work: on the development VM the share was
// 0.44-0.50 for page faults, 0.40 for reads and 0.47 for getppid, and the
// commands' own (from programs that log their progress) about as far.
const oneRunLeakSpread = 0.08

// clocks are the one run's readings of the progress clock: the central
// one (user time less the leak) and the band's ends (as reported; a leak
// oneRunLeakSpread larger). Without a measurement all three are user time
// as reported.
func (l *AccountingLeak) clocks() []clock {
	if l == nil || l.Share < 0.02 {
		return []clock{{}, {}, {}}
	}
	return []clock{{Leak: l.Share}, {}, {Leak: math.Min(l.Share+oneRunLeakSpread, 0.6)}}
}

func accountingLeak() (*AccountingLeak, error) {
	u, sy, faults, err := host.TimeFaultLoop(leakMiB<<20, leakFor)
	if err != nil {
		return nil, fmt.Errorf("timing page faults in %d MiB: %w", leakMiB, err)
	}
	l := &AccountingLeak{User: u.Seconds(), Sys: sy.Seconds(), Faults: faults}
	if l.User+l.Sys < 0.1*leakFor.Seconds() {
		return nil, fmt.Errorf("the page-fault loop ran %.3fs of CPU time in %s: too little to read the split", l.User+l.Sys, leakFor)
	}
	l.Share = l.User / (l.User + l.Sys)
	return l, nil
}
