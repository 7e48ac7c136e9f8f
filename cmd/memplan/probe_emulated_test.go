//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/emulate"
)

// The latency emulator adds three things to what a probe must undo: a FUSE
// server in its own session (a Ctrl-C for memplan does not reach it), a
// loop device over the server's file, and swap on that device. These tests
// interrupt the real binary while a workload swaps to the emulated HDD and
// check that all three are gone afterwards, as well as what the other probe
// tests check.

// startEmulatedProbe starts a small probe of the emulated HDD RAID 0: at
// 8.6 ms a read its runs take seconds, so the stage is easy to catch with
// pages on the device.
func startEmulatedProbe(t *testing.T, state string) *probeProc {
	t.Helper()
	if err := emulate.CheckHost(); err != nil {
		t.Skipf("no latency emulation here: %v", err)
	}
	// The probe skips its latency stages while another swap area is at
	// the top priority (it would share the emulated device's pages).
	swaps, _ := os.ReadFile("/proc/swaps")
	for _, line := range strings.Split(string(swaps), "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 5 && f[4] == strconv.Itoa(emulate.MaxSwapPriority) {
			t.Skipf("%s is swap at the top priority (not this test's); swapoff it first", f[0])
		}
	}
	bin := memplanBinary(t)
	cmd := hostCommand(bin, "probe", "--quick", "--emulate-latency", "--emulate", "hdd", "--backends", "emulated",
		"--data-size", "32MiB", "--fit", "0.75", "--reps", "3", "--device-profile=false",
		"--swap-dir", t.TempDir(), "--out", filepath.Join(t.TempDir(), "out.json"))
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
	return startProc(t, cmd, state)
}

// emulatorMidRun waits until the emulated device is swap with pages on it
// (a constrained run is swapping to it) and returns the emulator's state
// as the journal has it.
func (p *probeProc) emulatorMidRun(t *testing.T) emulate.State {
	t.Helper()
	p.waitFor(t, "probe: emulated hdd (latency): ")
	deadline := time.Now().Add(time.Minute)
	for {
		if dev, used := loopSwapUsed(); used > 0 {
			st := journalEmulator(t, p.state)
			if st.Loop != dev || !st.Swap || st.ServerPID == 0 {
				t.Fatalf("swap on %s, but the journal records %+v", dev, st)
			}
			return st
		}
		if time.Now().After(deadline) {
			swaps, _ := os.ReadFile("/proc/swaps")
			t.Fatalf("no pages on the emulated device within a minute:\n%s\n%s", swaps, p.output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// loopSwapUsed returns a loop device that is swap and its used KiB.
func loopSwapUsed() (string, int64) {
	b, _ := os.ReadFile("/proc/swaps")
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 4 && strings.HasPrefix(f[0], "/dev/loop") {
			used, _ := strconv.ParseInt(f[3], 10, 64)
			return f[0], used
		}
	}
	return "", 0
}

// journalEmulator reads the emulator's state from the probe's journal.
func journalEmulator(t *testing.T, state string) emulate.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, host.JournalName))
	if err != nil {
		t.Fatal(err)
	}
	var jf struct {
		Entries []host.Entry `json:"entries"`
	}
	if err := json.Unmarshal(b, &jf); err != nil {
		t.Fatal(err)
	}
	for _, e := range jf.Entries {
		if e.Op == host.OpEmulator && e.New != "" {
			var st emulate.State
			if err := json.Unmarshal([]byte(e.New), &st); err != nil {
				t.Fatal(err)
			}
			return st
		}
	}
	t.Fatalf("the journal records no emulator:\n%s", b)
	return emulate.State{}
}

// emulatorGone checks that nothing of the emulator is left: no FUSE mount
// or loop device of its, and no server process (by PID and start time, so a
// reused PID does not count).
func emulatorGone(t *testing.T, st emulate.State) {
	t.Helper()
	if left := emulate.Leftovers(); len(left) != 0 {
		t.Errorf("emulators left behind: %+v", left)
	}
	if _, err := os.Stat(st.Mountpoint); !os.IsNotExist(err) {
		t.Errorf("the mount point %s is still there (%v)", st.Mountpoint, err)
	}
	for i := 0; ; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(st.ServerPID) + "/stat")
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		// Fields after the command: state is the first, start time the 20th.
		if err != nil || len(f) < 20 || f[19] != strconv.FormatUint(st.ServerStart, 10) || f[0] == "Z" {
			return
		}
		if i > 100 {
			t.Errorf("the emulator's server (PID %d) is still running", st.ServerPID)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestProbeEmulatedSignals(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			before := host.State(host.NewOSHost())
			state := t.TempDir()
			p := startEmulatedProbe(t, state)
			st := p.emulatorMidRun(t)
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != exitInterrupted {
				t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, p.output())
			}
			if !strings.Contains(p.output(), "every change to the host was undone") {
				t.Errorf("stderr does not say the host was restored:\n%s", p.output())
			}
			hostUnchanged(t, before)
			emulatorGone(t, st)
			if left := host.PendingChanges(host.NewOSHost(), state); len(left) != 0 {
				t.Errorf("the journal still lists %q", left)
			}
		})
	}
	t.Run("kill -9 then cleanup", func(t *testing.T) {
		before := host.State(host.NewOSHost())
		state := t.TempDir()
		p := startEmulatedProbe(t, state)
		st := p.emulatorMidRun(t)
		p.kill9(t, state)
		// The server is in its own session: kill -9 of memplan leaves it,
		// its loop device and the swap on it.
		if dev, _ := loopSwapUsed(); dev != st.Loop {
			t.Errorf("after kill -9 the emulated device %s is not swap any more (swap on %q)", st.Loop, dev)
		}
		out := cleanup(t, state)
		if !strings.Contains(out, "emulated swap device (FUSE server, loop device, swap)") || !strings.Contains(out, "done: the host is as it was") {
			t.Errorf("cleanup output:\n%s", out)
		}
		hostUnchanged(t, before)
		emulatorGone(t, st)
		if out := cleanup(t, state); !strings.Contains(out, "nothing to clean up") {
			t.Errorf("second cleanup:\n%s", out)
		}
	})
}
