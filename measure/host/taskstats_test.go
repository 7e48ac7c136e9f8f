//go:build linux

package host_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/measure/host"
)

// Taskstats reads a busy child's on-CPU time from the kernel, close to
// what its rusage says at the end (the last reading is up to 50ms before
// it exits); the delay-accounting switch is journaled and restored.
func TestTaskstatsReadsAChildsCPUTimeAndDelayacctIsRestored(t *testing.T) {
	roottest.Require(t)
	h := host.NewOSHost()
	old, err := os.ReadFile(host.DelayacctSysctl)
	if err != nil {
		t.Skip(err)
	}
	j, err := host.NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := host.EnableDelayacct(h, j); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(host.DelayacctSysctl); strings.TrimSpace(string(got)) != "1" {
		t.Fatalf("task_delayacct is %q after EnableDelayacct", got)
	}
	ts, err := host.OpenTaskstats()
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var last host.TaskDelays
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			break wait
		case <-tick.C:
			if d, err := ts.TGID(cmd.Process.Pid); err == nil {
				last = d
			}
		}
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if last.Run <= 0 || last.Run > cpu+100*time.Millisecond || last.Run < cpu/2-100*time.Millisecond {
		t.Errorf("taskstats on-CPU time %v against the child's rusage %v", last.Run, cpu)
	}
	if err := host.CloseJournal(j); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(host.DelayacctSysctl); strings.TrimSpace(string(got)) != strings.TrimSpace(string(old)) {
		t.Errorf("task_delayacct is %q after the journal's undo, was %q", got, old)
	}
}
