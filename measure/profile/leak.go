//go:build linux

package profile

import (
	"errors"
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
// accountingLeak measures that share on this host, on the kind of kernel
// work the run's limits cause: for about leakFor of CPU time it pushes the
// pages of a 16 MiB mapping out to the run's swap and touches them back in
// (host.TimeSwapLoop: a swap-out and a major fault a page, a store's worth
// of user work), on one locked OS thread, and returns the thread's user
// time over its user plus system time. Where nothing can be swapped out it
// times minor faults instead (host.TimeFaultLoop: touching freed pages).
// A host that accounts the kernel's time as kernel time gives about 0.
// The two loops differ: on the development VM minor faults read 0.44-0.55
// and swap faults less, and the leak of the command's own swap faults,
// from a job that counts its steps, was 0.2-0.4
// (bench/results/onerun-readback-2026-12-04.md).

const (
	leakFor = 2 * time.Second
	leakMiB = 16
)

// AccountingLeak is what accountingLeak measured.
type AccountingLeak struct {
	Share  float64 `json:"user_share_of_kernel_time"`
	Loop   string  `json:"loop"` // "swap faults" or "minor faults"
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

func accountingLeak() (*AccountingLeak, error) { return measureLeak(true) }

// measureLeak is accountingLeak, through swap only where swap is true.
func measureLeak(swap bool) (*AccountingLeak, error) {
	l := &AccountingLeak{Loop: "swap faults"}
	var u, sy time.Duration
	var faults int64
	err := host.ErrNoSwapOut
	if swap {
		u, sy, faults, err = host.TimeSwapLoop(leakMiB<<20, leakFor/2, 2*leakFor)
	}
	if errors.Is(err, host.ErrNoSwapOut) {
		l.Loop = "minor faults"
		u, sy, faults, err = host.TimeFaultLoop(leakMiB<<20, leakFor)
	}
	if err != nil {
		return nil, fmt.Errorf("timing %s in %d MiB: %w", l.Loop, leakMiB, err)
	}
	l.User, l.Sys, l.Faults = u.Seconds(), sy.Seconds(), faults
	if l.User+l.Sys < 0.05*leakFor.Seconds() {
		return nil, fmt.Errorf("the %s loop ran %.3fs of CPU time: too little to read the split", l.Loop, l.User+l.Sys)
	}
	l.Share = l.User / (l.User + l.Sys)
	return l, nil
}
