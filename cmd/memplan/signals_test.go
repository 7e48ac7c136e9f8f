//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memplan/memplan/measure/host"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its terminal side, to give a
// process a terminal as standard input.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// signalSequence sends first, waits until memplan says it is undoing, then
// sends second at once, as schedulers do (LSF: INT, TERM, KILL ten seconds
// apart; a job script passing TERM on while Slurm sends its own). Not on a
// terminal, the second must not cut the undo short.
func signalSequence(t *testing.T, p *probeProc, name string, first, second syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(first); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "undoing the changes to the host")
	if err := p.cmd.Process.Signal(second); err != nil {
		t.Logf("the second signal found memplan gone: %v", err)
	}
	if code := p.wait(t); code != exitInterrupted {
		t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, p.output())
	}
	out := p.output()
	if !strings.Contains(out, "every change to the host was undone") || strings.Contains(out, "stopped with") {
		t.Errorf("the second signal cut the undo short:\n%s", out)
	}
	if !strings.Contains(out, "still undoing the changes to the host (not on a terminal") {
		t.Logf("memplan had finished undoing before the second signal:\n%s", out)
	}
	if left := host.PendingChanges(host.NewOSHost(), p.state); len(left) != 0 {
		t.Errorf("the journal still lists %q", left)
	}
}

func TestProbeSignalSequences(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	for _, seq := range [][2]syscall.Signal{{syscall.SIGINT, syscall.SIGTERM}, {syscall.SIGTERM, syscall.SIGTERM}, {syscall.SIGHUP, syscall.SIGINT}} {
		t.Run(seq[0].String()+" then "+seq[1].String(), func(t *testing.T) {
			before := host.State(host.NewOSHost())
			p := startProbe(t, t.TempDir())
			p.midRun(t)
			signalSequence(t, p, "probe", seq[0], seq[1])
			hostUnchanged(t, before)
		})
	}
	// TERM then KILL (Slurm after KillWait): what the undo had not done yet
	// is left to cleanup, which finishes it.
	t.Run("SIGTERM then SIGKILL", func(t *testing.T) {
		before := host.State(host.NewOSHost())
		state := t.TempDir()
		p := startProbe(t, state)
		p.midRun(t)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		p.waitFor(t, "undoing the changes to the host")
		_ = p.cmd.Process.Kill()
		p.wait(t)
		out := cleanup(t, state)
		if !strings.Contains(out, "the host is as it was") && !strings.Contains(out, "nothing to clean up") {
			t.Errorf("cleanup output:\n%s", out)
		}
		hostUnchanged(t, before)
	})
}

func TestProfileSignalSequences(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	t.Run("SIGINT then SIGTERM", func(t *testing.T) {
		before := host.State(host.NewOSHost())
		p := startProfile(t, t.TempDir())
		p.waitFor(t, "profile: zram-lz4 in RAM")
		time.Sleep(time.Second)
		signalSequence(t, p, "profile", syscall.SIGINT, syscall.SIGTERM)
		hostUnchanged(t, before)
	})
	t.Run("SIGTERM then SIGKILL", func(t *testing.T) {
		before := host.State(host.NewOSHost())
		state := t.TempDir()
		p := startProfile(t, state)
		p.waitFor(t, "profile: zram-lz4 in RAM")
		time.Sleep(time.Second)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		p.waitFor(t, "undoing the changes to the host")
		_ = p.cmd.Process.Kill()
		p.wait(t)
		out := cleanup(t, state)
		if !strings.Contains(out, "the host is as it was") && !strings.Contains(out, "nothing to clean up") {
			t.Errorf("cleanup output:\n%s", out)
		}
		hostUnchanged(t, before)
	})
}

// startProbeTTY is startProbe with a terminal as standard input.
func startProbeTTY(t *testing.T, state string) *probeProc {
	t.Helper()
	bin := memplanBinary(t)
	cmd := hostCommand(bin, "probe", "--quick", "--backends", "zram,file", "--data-size", "64MiB",
		"--device-profile=false", "--swap-dir", t.TempDir(), "--out", filepath.Join(t.TempDir(), "out.json"))
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
	cmd.Stdin = openPTY(t)
	return startProc(t, cmd, state)
}
