//go:build linux

package host_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/hosttest"
)

func TestJournalUndoesInReverse(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	state := t.TempDir()
	before := host.State(h)
	j, err := host.NewJournal(h, state, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	cg := "/sys/fs/cgroup/memory/jobs/me/memplan-probe-1"
	record := func(e host.Entry) {
		t.Helper()
		if _, err := j.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	record(host.Entry{Op: host.OpMkdirCgroup, Path: cg})
	if err := h.Mkdir(cg); err != nil {
		t.Fatal(err)
	}
	h.Put(cg+"/cgroup.procs", "4242\n")
	record(host.Entry{Op: host.OpFile, Path: "/swap/s.swap"})
	if err := h.MakeSwapFile("/swap/s.swap", 64<<20); err != nil {
		t.Fatal(err)
	}
	record(host.Entry{Op: host.OpSwapon, Path: "/swap/s.swap"})
	if err := h.Swapon("/swap/s.swap", host.SwapPriority); err != nil {
		t.Fatal(err)
	}
	record(host.Entry{Op: host.OpWrite, Path: "/proc/sys/vm/swappiness", Old: "60", New: "1"})
	if err := host.WriteString(h, "/proc/sys/vm/swappiness", "1"); err != nil {
		t.Fatal(err)
	}
	// Recorded but never made (the probe died in between): undo must cope.
	record(host.Entry{Op: host.OpSwapon, Path: "/swap/never.swap"})

	// The journal is on disk before anything else happens.
	if left := host.PendingChanges(h, state); len(left) != 5 || !strings.Contains(left[0], "never.swap") {
		t.Fatalf("pending: %q", left)
	}
	// A second probe sharing the state directory is refused.
	if _, err := host.NewJournal(h, state, "second"); !errors.Is(err, host.ErrBusy) {
		t.Fatalf("second journal: got %v, want ErrBusy", err)
	}

	// The cgroup is only removable once empty: the fake's rmdir works on a
	// directory with a file in it only after we clear it, as the kernel
	// would after the processes exit.
	os.Remove(h.Path(cg + "/cgroup.procs"))
	if err := j.UndoAll(); err != nil {
		t.Fatal(err)
	}
	if got := host.State(h); got != before {
		t.Errorf("host state changed:\n--- before\n%s\n--- after\n%s", before, got)
	}
	if _, err := os.Stat(filepath.Join(state, host.JournalName)); !os.IsNotExist(err) {
		t.Errorf("journal file left after a full undo: %v", err)
	}
	var order []string
	for _, c := range h.Calls {
		if strings.HasPrefix(c, "swapoff") || strings.HasPrefix(c, "write /proc/sys/vm/swappiness") {
			order = append(order, c)
		}
	}
	if strings.Join(order, "; ") != "write /proc/sys/vm/swappiness 1; write /proc/sys/vm/swappiness 60; swapoff /swap/s.swap" {
		t.Errorf("undo order: %q", order)
	}
}

func TestJournalRefusesLeftoversAndCleanupReplays(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	state := t.TempDir()
	j, err := host.NewJournal(h, state, "killed probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Record(host.Entry{Op: host.OpWrite, Path: "/sys/module/zswap/parameters/enabled", Old: "N", New: "Y"}); err != nil {
		t.Fatal(err)
	}
	host.WriteString(h, "/sys/module/zswap/parameters/enabled", "Y")
	j.Close() // as if killed: the entries stay

	if _, err := host.NewJournal(h, state, "next probe"); !errors.Is(err, host.ErrLeftover) || !strings.Contains(err.Error(), "memplan probe cleanup") {
		t.Fatalf("got %v, want ErrLeftover naming the cleanup command", err)
	}
	c, err := host.OpenJournal(h, state)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries()) != 1 {
		t.Fatalf("cleanup sees %d entries", len(c.Entries()))
	}
	if err := c.UndoAll(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if v := strings.TrimSpace(h.Read("/sys/module/zswap/parameters/enabled")); v != "N" {
		t.Errorf("zswap enabled = %q after cleanup", v)
	}
	// Now a probe may start again.
	j2, err := host.NewJournal(h, state, "next probe")
	if err != nil {
		t.Fatal(err)
	}
	j2.Close()
}

func TestJournalKeepsWhatItCannotUndo(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	state := t.TempDir()
	j, err := host.NewJournal(h, state, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.Record(host.Entry{Op: host.OpWrite, Path: "/proc/sys/vm/swappiness", Old: "60", New: "1"})
	j.Record(host.Entry{Op: "bogus", Path: "/x"})
	err = j.UndoAll()
	if err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("got %v, want an error about the bogus entry", err)
	}
	if e := j.Entries(); len(e) != 1 || e[0].Op != "bogus" {
		t.Errorf("kept %v, want only the entry that failed", e)
	}
}

// The host lock refuses a second holder, names the first one's pid, and is
// free again once released. The lock here has a name of its own: a real
// probe or profile running on the machine holds memplan's.
func TestHostLockRefusesASecondHolderAndNamesTheFirst(t *testing.T) {
	h := host.NewOSHostLockNamed(fmt.Sprintf("@memplan-probe-test-%d", os.Getpid()))
	l, err := h.Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Lock()
	if !errors.Is(err, host.ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second lock: got %v, want ErrBusy naming pid %d", err, os.Getpid())
	}
	l.Close()
	l2, err := h.Lock()
	if err != nil {
		t.Fatalf("relock after release: %v", err)
	}
	l2.Close()
}

// A journal whose process is gone (a test binary killed by its timeout) is
// undone by RecoverStale; one whose process is alive is left alone.
func TestRecoverStaleUndoesOnlyDeadProcesses(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	dead, alive := t.TempDir(), t.TempDir()
	for _, dir := range []string{dead, alive} {
		j, err := host.NewJournal(h, dir, "killed test")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Record(host.Entry{Op: host.OpWrite, Path: "/sys/module/zswap/parameters/enabled", Old: "N", New: "Y"}); err != nil {
			t.Fatal(err)
		}
		j.Close()
	}
	host.WriteString(h, "/sys/module/zswap/parameters/enabled", "Y")
	// The first journal's writer: a process that has exited.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dead, host.JournalName)
	b, err := h.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), fmt.Sprintf(`"pid": %d`, os.Getpid()), fmt.Sprintf(`"pid": %d`, cmd.Process.Pid), 1))
	if err := h.WriteFile(name, b); err != nil {
		t.Fatal(err)
	}
	got := host.RecoverStale(h, []string{dead, alive, t.TempDir()})
	if len(got) != 1 || !strings.Contains(got[0], "undid 1 change(s)") || !strings.Contains(got[0], "killed test") {
		t.Fatalf("RecoverStale: %q", got)
	}
	if v := strings.TrimSpace(h.Read("/sys/module/zswap/parameters/enabled")); v != "N" {
		t.Errorf("zswap enabled = %q after recovery", v)
	}
	if left := host.PendingChanges(h, dead); len(left) != 0 {
		t.Errorf("dead journal still lists %q", left)
	}
	if left := host.PendingChanges(h, alive); len(left) != 1 {
		t.Errorf("the live process's journal lists %q, want its one change untouched", left)
	}
}
