//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure/host"

	"github.com/memplan/memplan/model"
)

// The probe changes the host; these tests run the real binary as root,
// interrupt it in every way a person (or the OOM killer's cousin, kill -9)
// can, and check that swap, zram, cgroups, swappiness and zswap are exactly
// as before. CI runs them as root.

func requireRoot(t *testing.T) { roottest.Require(t) }

// lockProbeTests serialises real probes across test binaries.
func lockProbeTests(t *testing.T) { roottest.Lock(t) }

// memplanBinary builds the command into the test's temporary directory
// (the build cache makes the second build cheap).
// hostCommand is exec.Command for a memplan that changes the host (probe,
// profile): it gets SIGTERM when the test binary dies, so a test binary
// killed by go test's -timeout does not leave it running with a swap
// area and cgroups (it undoes them on SIGTERM). Once, a profile of
// TestProfileRealPrograms ran on for 15 minutes after its test binary
// had timed out.
func hostCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return cmd
}

func memplanBinary(t *testing.T) string {
	t.Helper()
	if bin, ok := builtFor[t.Name()]; ok {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "memplan")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("building memplan: %v\n%s", err, out)
	}
	builtFor[t.Name()] = bin
	return bin
}

var builtFor = map[string]string{}

type probeProc struct {
	cmd    *exec.Cmd
	lines  chan string
	mu     sync.Mutex
	stderr bytes.Buffer
	state  string
}

// startProbe starts a small quick probe of zram and the swap file.
func startProbe(t *testing.T, state string) *probeProc {
	t.Helper()
	bin := memplanBinary(t)
	swap := t.TempDir()
	cmd := hostCommand(bin, "probe", "--quick", "--backends", "zram,file", "--data-size", "64MiB",
		"--device-profile=false", "--swap-dir", swap, "--out", filepath.Join(t.TempDir(), "out.json"))
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
	return startProc(t, cmd, state)
}

// waitFor reads progress lines until one contains s.
func (p *probeProc) waitFor(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("the probe ended before %q:\n%s", s, p.output())
			}
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q after 2 minutes:\n%s", s, p.output())
		}
	}
}

func (p *probeProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// wait returns the exit code.
func (p *probeProc) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		// Read to the end of stderr; a child that kept it open (it should
		// not) cannot hold the test for long.
		drained := time.After(10 * time.Second)
	drain:
		for {
			select {
			case _, ok := <-p.lines:
				if !ok {
					break drain
				}
			case <-drained:
				break drain
			}
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(2 * time.Minute):
		_ = p.cmd.Process.Kill()
		t.Fatalf("the probe did not stop within 2 minutes:\n%s", p.output())
	}
	return -1
}

// midRun waits until the swap-file stage is running: zram has been set up
// and torn down, the swap file is on and a workload child is in its cgroup.
func (p *probeProc) midRun(t *testing.T) {
	t.Helper()
	p.waitFor(t, "probe: file: ")
	p.waitFor(t, "probe: file fit")
	swaps, _ := os.ReadFile("/proc/swaps")
	if !strings.Contains(string(swaps), "memplan-probe-") {
		t.Fatalf("the swap file is not active mid-run:\n%s", swaps)
	}
}

func cleanup(t *testing.T, state string) string {
	t.Helper()
	cmd := exec.Command(memplanBinary(t), "probe", "cleanup")
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("memplan probe cleanup: %v\n%s", err, out)
	}
	return string(out)
}

func hostUnchanged(t *testing.T, before string) {
	t.Helper()
	if after := host.State(host.NewOSHost()); after != before {
		t.Errorf("the host is not as it was:\n--- before\n%s--- after\n%s", before, after)
	}
}

func TestProbeSignals(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			before := host.State(host.NewOSHost())
			state := t.TempDir()
			p := startProbe(t, state)
			p.midRun(t)
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
			if left := host.PendingChanges(host.NewOSHost(), state); len(left) != 0 {
				t.Errorf("the journal still lists %q", left)
			}
		})
	}
}

func TestProbeKill9ThenCleanup(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	before := host.State(host.NewOSHost())
	state := t.TempDir()
	p := startProbe(t, state)
	p.midRun(t)
	p.kill9(t, state)
	if host.State(host.NewOSHost()) == before {
		t.Log("kill -9 left nothing behind (the run was between changes)")
	}
	// A new probe refuses to start on top of the leftovers.
	bin := memplanBinary(t)
	again := hostCommand(bin, "probe", "--quick", "--device-profile=false", "--swap-dir", t.TempDir(), "--out", filepath.Join(t.TempDir(), "x.json"))
	again.Env = append(os.Environ(), host.StateDirEnv+"="+state)
	if out, err := again.CombinedOutput(); err == nil || !strings.Contains(string(out), "memplan probe cleanup") {
		t.Errorf("a probe started over leftovers: %v\n%s", err, out)
	}
	out := cleanup(t, state)
	if !strings.Contains(out, "swap area") || !strings.Contains(out, "done: the host is as it was") {
		t.Errorf("cleanup output:\n%s", out)
	}
	hostUnchanged(t, before)
	if out := cleanup(t, state); !strings.Contains(out, "nothing to clean up") {
		t.Errorf("second cleanup:\n%s", out)
	}
}

func TestProbeSecondInterrupt(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	before := host.State(host.NewOSHost())
	state := t.TempDir()
	// On a terminal a second Ctrl-C means "stop now" (signals_test.go has
	// the sequences a scheduler sends, not on a terminal).
	p := startProbeTTY(t, state)
	p.midRun(t)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	p.waitFor(t, "interrupt again to stop at once")
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != exitInterrupted {
		t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, p.output())
	}
	out := p.output()
	if !strings.Contains(out, "memplan probe: stopped") && !strings.Contains(out, "every change to the host was undone") {
		t.Errorf("stderr says neither what is left nor that all was undone:\n%s", out)
	}
	if strings.Contains(out, "still on the host") && !strings.Contains(out, "memplan probe cleanup") {
		t.Errorf("leftovers reported without the way to remove them:\n%s", out)
	}
	t.Logf("stderr:\n%s", out)
	cleanup(t, state)
	hostUnchanged(t, before)
}

// TestProbeQuickCommand runs the command end to end and loads what it wrote.
func TestProbeQuickCommand(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	before := host.State(host.NewOSHost())
	out := filepath.Join(t.TempDir(), "probe.yaml")
	cmd := exec.Command(memplanBinary(t), "probe", "--quick", "--backends", "zram,file,none", "--data-size", "64MiB",
		"--fit", "0.9,0.5", "--reps", "2", "--device-profile=false", "--swap-dir", t.TempDir(), "--out", out)
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	hostUnchanged(t, before)
	for _, want := range []string{"memplan probe on ", "backend", "zram-lz4", "slowdown", "95% CI", "wrote " + out} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	// Two rounds of an in-RAM run and the two fit ratios, and a closing
	// in-RAM run: 7 runs, the in-RAM one first.
	if !strings.Contains(stderr.String(), "probe: zram-lz4 in-RAM [1/7]") || !regexp.MustCompile(`probe: zram-lz4 fit 0\.9 \[[2-6]/7\]`).MatchString(stderr.String()) {
		t.Errorf("no plain progress lines on a non-terminal stderr:\n%s", stderr.String())
	}
	ff, err := model.LoadFactors(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ff.Curves) != 2 || ff.Extra["no_swap"] == nil {
		t.Errorf("curves %d, extra keys %v", len(ff.Curves), ff.Extra)
	}
}
