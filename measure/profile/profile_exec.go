//go:build linux

package profile

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/memplan/memplan/measure/host"
)

// The profile runs a command nobody here wrote, so it cannot ask it to
// check its own cgroup the way the probe's workload does. memplan re-executes
// itself as a launcher instead: the launcher waits until the profile has
// moved it into the run's cgroup, checks that it is there, and only then
// execs the command, which so starts confined and allocates nothing
// outside the limit. The launcher keeps the process id, so the command is
// the profile's own child (its rusage, exit status and death signal).
//
// Two pipes connect them: the gate (fd 3 in the launcher) carries "go"; the
// status pipe (fd 4) is close-on-exec in the launcher, so it reaches EOF
// with nothing on it when the exec succeeded and carries the reason when
// it did not. EOF on it is also the moment the command starts.

// launcherEnv carries the JSON launchSpec to the re-executed memplan.
const launcherEnv = "MEMPLAN_PROFILE_EXEC"

type launchSpec struct {
	Path        string   `json:"path"` // resolved executable
	Argv        []string `json:"argv"`
	CgroupLines []string `json:"cgroup_lines,omitempty"`
	Env         []string `json:"env,omitempty"` // added to the command's environment
}

// LauncherMain is the launcher's side: when memplan was re-executed as a
// profile's launcher it runs it and reports true and the exit code.
// cmd/memplan calls it before parsing flags; this package's tests call it
// from TestMain.
func LauncherMain() (bool, int) {
	raw, ok := os.LookupEnv(launcherEnv)
	if !ok {
		return false, 0
	}
	_ = os.Unsetenv(launcherEnv) // not for the command's eyes
	status := os.NewFile(4, "status")
	fail := func(format string, args ...any) (bool, int) {
		if status != nil {
			fmt.Fprintf(status, format, args...)
		}
		return true, 127
	}
	var spec launchSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil || len(spec.Argv) == 0 {
		return fail("bad launch spec: %v", err)
	}
	gate := os.NewFile(3, "gate")
	if gate == nil {
		return fail("no gate pipe on fd 3")
	}
	line, err := bufio.NewReader(gate).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "go" {
		return true, 125 // the profile died before starting the run
	}
	gate.Close()
	if err := host.CheckConfined(spec.CgroupLines); err != nil {
		return fail("%v", err)
	}
	host.CloseOnExec(4)
	err = host.Exec(spec.Path, spec.Argv, append(os.Environ(), spec.Env...))
	return fail("executing %s: %v", spec.Path, err)
}

// running is a command started by launch.
type running struct {
	cmd     *exec.Cmd
	started time.Time // when the exec happened
	done    chan error
	tail    *tailBuffer
}

// launch starts the command in cg (nil: unconfined) and returns once it
// has been exec'd. Its standard input is /dev/null: a command runs many
// times and its input cannot be replayed.
func (s *profileSession) launch(spec launchSpec, dir string, stdout, stderr io.Writer, cg *host.Cgroup) (*running, error) {
	spec.CgroupLines = cg.ProcLines()
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer gateW.Close()
	statR, statW, err := os.Pipe()
	if err != nil {
		gateR.Close()
		return nil, err
	}
	defer statR.Close()
	tail := &tailBuffer{max: 4 << 10}
	cmd := exec.Command(s.Exe)
	cmd.Args = []string{"memplan-profile-launcher"}
	cmd.Env = append(os.Environ(), launcherEnv+"="+string(raw))
	cmd.Dir = dir
	cmd.Stdout = stdout
	if stderr == nil {
		stderr = io.Discard
	}
	cmd.Stderr = io.MultiWriter(stderr, tail)
	// A background process the command leaves behind may hold the output
	// pipes open; do not wait for it (the cgroup's removal stops it).
	cmd.WaitDelay = time.Second
	cmd.ExtraFiles = []*os.File{gateR, statW}
	// Own process group: a Ctrl-C on the terminal reaches memplan, which
	// stops the command itself. Pdeathsig kills it if memplan dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	err = cmd.Start()
	gateR.Close()
	statW.Close()
	if err != nil {
		return nil, fmt.Errorf("starting the launcher (%s): %w", s.Exe, err)
	}
	r := &running{cmd: cmd, done: make(chan error, 1), tail: tail}
	go func() { r.done <- cmd.Wait() }()
	if err := cg.AddProc(cmd.Process.Pid); err != nil {
		r.kill(s.Host, cg)
		<-r.done
		return nil, fmt.Errorf("moving the command into %s: %w", cg.Name(), err)
	}
	if _, err := gateW.Write([]byte("go\n")); err != nil {
		r.kill(s.Host, cg)
		<-r.done
		return nil, err
	}
	msg, _ := io.ReadAll(statR)
	r.started = time.Now()
	if len(msg) > 0 {
		<-r.done
		return nil, &launchError{msg: string(msg)}
	}
	return r, nil
}

// launchError is the launcher's report that the command could not start.
type launchError struct{ msg string }

func (e *launchError) Error() string { return "the command did not start: " + e.msg }

// kill stops the command, everything in its process group and everything
// left in its cgroup.
func (r *running) kill(h host.Host, cg *host.Cgroup) {
	if p := r.cmd.Process; p != nil {
		_ = host.KillGroup(p.Pid)
		_ = p.Kill()
	}
	if cg != nil {
		for _, pid := range host.ProcsIn(h, cg.Mem) {
			_ = h.Kill(pid)
		}
	}
}

// wait waits for the command to exit, calling tick every 100ms, and kills
// it when the timeout passes (timedOut) or ctx is done (ctx's error). How
// the command ended is in r.cmd.ProcessState.
func (r *running) wait(ctx context.Context, h host.Host, cg *host.Cgroup, timeout time.Duration, tick func()) (timedOut bool, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return timedOut, nil
		case <-t.C:
			if tick != nil {
				tick()
			}
		case <-timer.C:
			timedOut = true
			r.kill(h, cg)
		case <-ctx.Done():
			r.kill(h, cg)
			<-r.done
			return timedOut, ctx.Err()
		}
	}
}

// tailBuffer keeps the last max bytes written to it (a failing command's
// last words).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// exitDescription says how a command ended: "exit status 1", "killed by
// signal 9 (killed)".
func exitDescription(ps *os.ProcessState) (code int, signal, text string) {
	if ps == nil {
		return -1, "", "did not run"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String(), fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
	}
	return ps.ExitCode(), "", fmt.Sprintf("exit status %d", ps.ExitCode())
}
