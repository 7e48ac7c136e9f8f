//go:build linux

package emulate

import "golang.org/x/sys/unix"

type unixTimespec = unix.Timespec

func clockGettime(ts *unix.Timespec) { _ = unix.ClockGettime(unix.CLOCK_MONOTONIC, ts) }

// sleepUntil blocks the calling thread until CLOCK_MONOTONIC reaches ns.
// It sleeps in the kernel, not on a Go timer: the runtime's timers wake
// through the netpoller, whose resolution is a millisecond for short waits,
// and the thread's timer slack (50 us by default) is set to 1 ns first so
// the hrtimer fires when asked. The goroutine holds its thread while it
// sleeps; the runtime starts another for the others.
func sleepUntil(ns int64) {
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(ns)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if err != unix.EINTR {
			return
		}
	}
}
