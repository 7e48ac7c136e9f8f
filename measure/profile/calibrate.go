//go:build linux

package profile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// The one run's progress clock is the command's user CPU time, and a major
// fault adds user time of its own: the return to user space, the TLB and
// caches refilled after the kernel's work, and, on a kernel that samples
// user and system time at its ticks, kernel work charged to user time. On
// the virtual machine memplan is developed on, each page swapped in added
// about 6us of user time to a C program doing register arithmetic between
// page visits and 6-9us to CPython's dictionary lookups. Counted as
// progress, that time hides part of the slowdown. The calibration
// measures it with a kernel of known work on this host and backend (one
// byte written per page visited at random, then arithmetic in registers,
// on 4 KiB pages, at a limit of three quarters of its pages, so about one
// visit in four faults): the extra user time over the extra major faults.
// It sets the band's upper end and what the budget and the knee go by,
// not the central figure. (With every visit faulting it came out at
// 15-20us there: the figure depends on how densely a program faults.)

// calibrateEnv turns a re-executed memplan into the calibration kernel;
// its value is "MiB steps".
const calibrateEnv = "MEMPLAN_PROFILE_CALIBRATE"

// Calibration sizes: 64 MiB, 40k steps of about 20us.
const (
	calibrateMiB   = 64
	calibrateSteps = 40000
	calibrateWork  = 4000 // multiply-adds a step
)

// calibrateMain is the kernel.
func calibrateMain(arg string) int {
	f := strings.Fields(arg)
	if len(f) != 2 {
		fmt.Fprintln(os.Stderr, "calibration: want \"MiB steps\"")
		return 2
	}
	mib, _ := strconv.Atoi(f[0])
	steps, _ := strconv.Atoi(f[1])
	if mib <= 0 || steps <= 0 {
		fmt.Fprintln(os.Stderr, "calibration: bad sizes", arg)
		return 2
	}
	const page = 4096
	// Its own mapping: 4 KiB pages (the Go heap may be huge pages).
	mem, err := host.MapAnon(mib << 20)
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibration:", err)
		return 1
	}
	_ = host.NoHugePages(mem)
	x := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for off := 0; off < len(mem); off += 8 {
		// Half the words random, half small: compressible, never
		// same-filled (zram stores same-filled pages for free).
		if off&8 == 0 {
			v := next()
			for i := 0; i < 8; i++ {
				mem[off+i] = byte(v >> (8 * i))
			}
		} else {
			mem[off] = byte(off >> 12)
		}
	}
	pages := uint64(len(mem) / page)
	var acc uint64
	for s := 0; s < steps; s++ {
		v := next()
		mem[(v%pages)*page+(v>>40)%page]++
		a := v
		for k := 0; k < calibrateWork; k++ {
			a = a*6364136223846793005 + 1442695040888963407
		}
		acc += a
	}
	fmt.Println(acc)
	return 0
}

// Calibration is what the calibration measured.
type Calibration struct {
	UserInRAM    float64     `json:"user_s_in_ram"`
	UserLimited  float64     `json:"user_s_limited"`
	SysLimited   float64     `json:"sys_s_limited"`
	WallInRAM    float64     `json:"wall_s_in_ram"`
	WallLimited  float64     `json:"wall_s_limited"`
	Faults       int64       `json:"major_faults"`
	UserPerFault float64     `json:"user_us_per_fault"`
	WallPerFault float64     `json:"wall_us_per_fault"`
	Repetitions  int         `json:"repetitions"`
	Limit        units.Bytes `json:"limit_bytes"`
}

// calibrate runs the kernel without a limit and at three quarters of its
// size (about one visit in four faults), twice each, interleaved, on the
// backend already set up.
func (ps *profileSession) calibrate(ctx context.Context) (*Calibration, error) {
	c := &Calibration{Repetitions: 2, Limit: calibrateMiB * units.MiB * 3 / 4}
	for rep := 0; rep < c.Repetitions; rep++ {
		for _, limit := range []units.Bytes{ps.cap, c.Limit} {
			u, sy, w, f, err := ps.calibRun(ctx, limit)
			if err != nil {
				return nil, err
			}
			if limit == ps.cap {
				c.UserInRAM += u
				c.WallInRAM += w
				continue
			}
			c.UserLimited += u
			c.SysLimited += sy
			c.WallLimited += w
			c.Faults += f
		}
	}
	if c.Faults <= 0 {
		return c, errors.New("the calibration kernel took no major faults at its limit")
	}
	c.UserPerFault = max(0, (c.UserLimited-c.UserInRAM)/float64(c.Faults)*1e6)
	c.WallPerFault = max(0, (c.WallLimited-c.WallInRAM)/float64(c.Faults)*1e6)
	return c, nil
}

// calibRun is one run of the kernel in its own cgroup with memory limit
// limit: its user and system time, wall time and major faults.
func (ps *profileSession) calibRun(ctx context.Context, limit units.Bytes) (user, sys, wall float64, faults int64, err error) {
	mark := ps.Journal.Len()
	defer func() {
		if uerr := ps.Journal.UndoTo(mark); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}()
	cg, err := ps.NewRunCgroup(false)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if err := cg.SetLimit(limit, ps.cap); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("setting the calibration's memory limit: %w", err)
	}
	spec := launchSpec{Path: ps.o.Executable, Argv: []string{"memplan-calibrate"},
		Env: []string{fmt.Sprintf("%s=%d %d", calibrateEnv, calibrateMiB, calibrateSteps)}}
	if spec.Path == "/proc/self/exe" {
		if p, err := os.Executable(); err == nil {
			spec.Path = p
		}
	}
	r, err := ps.launch(spec, "", io.Discard, io.Discard, cg)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("starting the calibration kernel: %w", err)
	}
	timedOut, err := r.wait(ctx, ps.Host, cg, time.Minute, nil)
	wall = time.Since(r.started).Seconds()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	st := r.cmd.ProcessState
	if timedOut || st == nil || !st.Success() {
		return 0, 0, 0, 0, fmt.Errorf("the calibration kernel failed (%v): %s", st, r.tail.String())
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		faults = ru.Majflt
	}
	return st.UserTime().Seconds(), st.SystemTime().Seconds(), wall, faults, nil
}
