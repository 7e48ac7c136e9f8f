//go:build linux

package emulate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ServerEnv carries the server's Config (JSON) into the re-executed binary.
// A binary that can start emulators calls ServeIfChild first thing in main
// (and a test binary in TestMain).
const ServerEnv = "MEMPLAN_EMULATE_SERVER"

// ServeIfChild runs the emulator server and exits when this process was
// started by Start; otherwise it returns at once.
func ServeIfChild() {
	js, ok := os.LookupEnv(ServerEnv)
	if !ok {
		return
	}
	os.Unsetenv(ServerEnv)
	ready := os.NewFile(3, "ready")
	fail := func(err error) {
		fmt.Fprintf(ready, "error: %v\n", err)
		fmt.Fprintf(os.Stderr, "memplan emulator: %v\n", err)
		os.Exit(1)
	}
	var cfg Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		fail(fmt.Errorf("reading the configuration in $%s: %w", ServerEnv, err))
	}
	ctx, stop := serveSignals()
	defer stop()
	err := Serve(ctx, cfg, func() {
		fmt.Fprintln(ready, "ok")
		ready.Close()
	})
	if err != nil {
		fail(err)
	}
	os.Exit(0)
}

// State is everything Cleanup needs to undo an emulator after the process
// that set it up died: it is what a journal records. Fields are filled as
// the changes happen; a zero field is a change not (yet) made.
type State struct {
	Device      string `json:"device"`
	Mountpoint  string `json:"mountpoint"`             // a directory the emulator created and mounted on
	ServerPID   int    `json:"server_pid,omitempty"`   // the FUSE server process
	ServerStart uint64 `json:"server_start,omitempty"` // its start time (clock ticks since boot, /proc/PID/stat field 22): a PID reused by another process has another
	Loop        string `json:"loop,omitempty"`         // /dev/loopN bound to Mountpoint/disk
	Swap        bool   `json:"swap,omitempty"`         // swapon was done on Loop
}

// File is the path of the emulated device's backing file.
func (s State) File() string { return filepath.Join(s.Mountpoint, DiskName) }

// Change is one host change, in the order made; undo in reverse order.
type Change struct {
	Kind string `json:"kind"` // mountpoint, server, mount, loop, swap
	What string `json:"what"`
	Undo string `json:"undo"`
}

// Changes lists the host changes State records, in the order they were made.
func (s State) Changes() []Change {
	var out []Change
	if s.Mountpoint != "" {
		out = append(out, Change{"mountpoint", "directory " + s.Mountpoint, "rmdir " + s.Mountpoint})
	}
	if s.ServerPID != 0 {
		out = append(out,
			Change{"server", fmt.Sprintf("emulator server PID %d (start %d)", s.ServerPID, s.ServerStart), fmt.Sprintf("kill %d if its start time is %d", s.ServerPID, s.ServerStart)},
			Change{"mount", "FUSE mount " + s.Mountpoint, "umount -l " + s.Mountpoint})
	}
	if s.Loop != "" {
		out = append(out, Change{"loop", s.Loop + " over " + s.File(), "losetup -d " + s.Loop})
	}
	if s.Swap {
		out = append(out, Change{"swap", "swap on " + s.Loop, "swapoff " + s.Loop})
	}
	return out
}

// Options are the seams for the caller.
type Options struct {
	// Dir is where the mount point is created (default os.TempDir()).
	Dir string
	// Record is called with the new State after each host change and
	// before the next one, so a journal has it should the process die.
	Record func(State)
	// Exe is the binary to re-execute for the server (default
	// /proc/self/exe); it must call ServeIfChild first thing.
	Exe string
	// Compensation is Config.Compensation: typically the p50 MeasureFloor
	// returned on this host.
	Compensation time.Duration
	// Stderr receives the server's messages (default os.Stderr).
	Stderr *os.File
}

// Emulator is a running emulated device. Its methods are not safe for
// concurrent use.
type Emulator struct {
	State
	opts Options
	cmd  *exec.Cmd
	exit chan error
}

func (e *Emulator) record() {
	if e.opts.Record != nil {
		e.opts.Record(e.State)
	}
}

// Start creates a mount point and starts the server process on it, serving
// a file of size bytes with dev's latency. The server is a new session (a
// Ctrl-C at the terminal does not reach it) in the caller's cgroups: start
// it from a process outside the job's memory cgroup, as memplan is.
func Start(ctx context.Context, dev Device, size int64, opts Options) (e *Emulator, err error) {
	if err := CheckHost(); err != nil {
		return nil, err
	}
	if opts.Exe == "" {
		opts.Exe = "/proc/self/exe"
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	mp, err := os.MkdirTemp(opts.Dir, "memplan-emulate-")
	if err != nil {
		return nil, err
	}
	e = &Emulator{State: State{Device: dev.Name, Mountpoint: mp}, opts: opts}
	e.record()
	defer func() {
		if err != nil {
			e.Close()
			e = nil
		}
	}()
	cfg := Config{Device: dev, Size: size, Mountpoint: mp, Seed: uint64(time.Now().UnixNano()), Compensation: opts.Compensation}
	if err := cfg.validate(); err != nil {
		return e, err
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return e, err
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		return e, err
	}
	defer rd.Close()
	cmd := exec.Command(opts.Exe)
	cmd.Env = append(os.Environ(), ServerEnv+"="+string(js))
	cmd.ExtraFiles = []*os.File{wr}
	cmd.Stdout, cmd.Stderr = opts.Stderr, opts.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		wr.Close()
		return e, fmt.Errorf("starting the emulator server %s: %w", opts.Exe, err)
	}
	wr.Close()
	e.cmd = cmd
	e.exit = make(chan error, 1)
	go func() { e.exit <- cmd.Wait() }()
	e.ServerPID = cmd.Process.Pid
	e.ServerStart, _ = startTime(e.ServerPID)
	e.record()

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(rd).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s != "ok" {
			if s == "" {
				s = "it exited without a word (see its messages above)"
			}
			return e, fmt.Errorf("the emulator server did not start: %s", strings.TrimPrefix(s, "error: "))
		}
	case <-time.After(30 * time.Second):
		return e, errors.New("the emulator server did not mount within 30s")
	case <-ctx.Done():
		return e, ctx.Err()
	}
	return e, nil
}

// Stats reads the server's counters.
func (e *Emulator) Stats() (Stats, error) {
	var st Stats
	b, err := os.ReadFile(filepath.Join(e.Mountpoint, StatsName))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

// AttachLoop binds a loop device to the emulated file with direct I/O, so
// the page cache of the file does not answer for the device, and 4 KiB
// logical blocks, the page size swap does its I/O in.
func (e *Emulator) AttachLoop() (string, error) {
	if e.Loop != "" {
		return e.Loop, nil
	}
	dev, err := loopAttach(e.File(), func(dev string) { e.Loop = dev; e.record() })
	if err != nil {
		return "", err
	}
	return dev, nil
}

// SwapOn makes the loop device a swap area (mkswap) and enables it at prio,
// 0 to MaxSwapPriority.
func (e *Emulator) SwapOn(prio int) error {
	// The kernel takes the priority's low 15 bits, so 32777 would silently
	// become 9: below every other memplan swap area, which would then take
	// the pages meant for this device.
	if prio < 0 || prio > MaxSwapPriority {
		return fmt.Errorf("swap priority %d is out of range; the kernel accepts 0 to %d", prio, MaxSwapPriority)
	}
	if e.Loop == "" {
		if _, err := e.AttachLoop(); err != nil {
			return err
		}
	}
	if e.Swap {
		return nil
	}
	if out, err := exec.Command("mkswap", e.Loop).CombinedOutput(); err != nil {
		return fmt.Errorf("mkswap %s: %v: %s", e.Loop, err, strings.TrimSpace(string(out)))
	}
	// Recorded before the call: a process dying between the two leaves
	// a swapon that Cleanup must undo, and swapoff of an area that is
	// not on is harmless.
	e.Swap = true
	e.record()
	if err := swapon(e.Loop, prio); err != nil {
		e.Swap = false
		e.record()
		return fmt.Errorf("swapon %s: %w", e.Loop, err)
	}
	return nil
}

// Close undoes everything in order: swapoff, loop detach, unmount, server
// stop, mount point removal. It can be called again, and after a failure
// part way it goes on with the rest and reports the first error.
func (e *Emulator) Close() error {
	if e == nil {
		return nil
	}
	err := undo(&e.State, e.record, e.exit)
	if e.cmd != nil && e.ServerPID == 0 {
		e.cmd = nil
	}
	return err
}

// Cleanup undoes what a recorded State says was done, after the process
// that did it died (even by kill -9). It checks the server's start time
// before killing it, so a PID the system has reused is left alone.
func Cleanup(s State) error {
	return undo(&s, nil, nil)
}

func undo(s *State, record func(), exited chan error) error {
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	save := func() {
		if record != nil {
			record()
		}
	}
	if s.Swap {
		if err := swapoff(s.Loop); err != nil && !errors.Is(err, unix.EINVAL) {
			note(fmt.Errorf("swapoff %s: %w", s.Loop, err))
		} else {
			s.Swap = false
			save()
		}
	}
	if s.Loop != "" && !s.Swap {
		if err := loopDetach(s.Loop, s.File()); err != nil {
			note(err)
		} else {
			s.Loop = ""
			save()
		}
	}
	if s.Mountpoint != "" && s.Loop == "" {
		if err := unmount(s.Mountpoint); err != nil {
			note(err)
		}
	}
	if s.ServerPID != 0 && s.Loop == "" {
		if err := stopServer(s.ServerPID, s.ServerStart, exited); err != nil {
			note(err)
		} else {
			s.ServerPID, s.ServerStart = 0, 0
			save()
		}
	}
	if s.Mountpoint != "" && s.Loop == "" && s.ServerPID == 0 {
		if err := os.Remove(s.Mountpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
			note(fmt.Errorf("removing the mount point: %w", err))
		} else {
			s.Mountpoint = ""
			save()
		}
	}
	return first
}

// unmount takes the FUSE mount away if it is there. A plain unmount fails
// while something has the mount busy; the lazy one then detaches it from
// the tree and the kernel finishes when the last user goes.
func unmount(dir string) error {
	if !isFuseMount(dir) {
		return nil
	}
	if err := unix.Unmount(dir, 0); err == nil || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("unmounting %s: %w", dir, err)
	}
	return nil
}

// isFuseMount says whether dir is the mount point of one of our FUSE mounts.
func isFuseMount(dir string) bool {
	for _, m := range mounts() {
		if m == dir {
			return true
		}
	}
	return false
}

// mounts lists the mount points of the emulator's FUSE file systems.
func mounts() []string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) >= 5 && len(g) >= 2 && g[0] == "fuse."+fsSubtype && g[1] == FsName {
			out = append(out, unescapeMount(f[4]))
		}
	}
	return out
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// stopServer asks the server to stop (it has nothing to serve once the
// mount is gone) and kills it if it lingers. A PID whose start time is not
// the recorded one is another process now: it is left alone.
func stopServer(pid int, start uint64, exited chan error) error {
	if st, err := startTime(pid); err != nil || (start != 0 && st != start) {
		return nil // gone, or reused
	}
	wait := func(d time.Duration) bool {
		if exited != nil {
			select {
			case <-exited:
				return true
			case <-time.After(d):
				return false
			}
		}
		for t := time.Now(); time.Since(t) < d; time.Sleep(10 * time.Millisecond) {
			if st, err := startTime(pid); err != nil || st != start || zombie(pid) {
				return true
			}
		}
		return false
	}
	_ = unix.Kill(pid, unix.SIGTERM)
	if wait(5 * time.Second) {
		return nil
	}
	_ = unix.Kill(pid, unix.SIGKILL)
	if wait(5 * time.Second) {
		return nil
	}
	return fmt.Errorf("the emulator server PID %d did not exit after SIGKILL", pid)
}

// procStat returns the fields of /proc/PID/stat after the command name.
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	return strings.Fields(string(b[i+1:])), nil
}

// startTime is field 22 of /proc/PID/stat (the 20th after the name).
func startTime(pid int) (uint64, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	return strconv.ParseUint(f[19], 10, 64)
}

func zombie(pid int) bool {
	f, err := procStat(pid)
	return err == nil && len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// Swap flags from include/linux/swap.h; x/sys/unix has no wrapper.
const (
	swapFlagPrefer   = 0x8000
	swapFlagPrioMask = 0x7fff
)

// MaxSwapPriority is the highest priority swapon(2) can set.
const MaxSwapPriority = swapFlagPrioMask

func swapon(dev string, prio int) error {
	p, err := unix.BytePtrFromString(dev)
	if err != nil {
		return err
	}
	flags := uintptr(0)
	if prio >= 0 {
		flags = uintptr(swapFlagPrefer | prio&swapFlagPrioMask)
	}
	if _, _, e := unix.Syscall(unix.SYS_SWAPON, uintptr(unsafe.Pointer(p)), flags, 0); e != 0 {
		return e
	}
	return nil
}

// swapoff turns off swap on dev; EINVAL means it was not on.
func swapoff(dev string) error {
	p, err := unix.BytePtrFromString(dev)
	if err != nil {
		return err
	}
	if _, _, e := unix.Syscall(unix.SYS_SWAPOFF, uintptr(unsafe.Pointer(p)), 0, 0); e != 0 {
		return e
	}
	return nil
}
