//go:build linux

package profile

import (
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/hosttest"
	"github.com/memplan/memplan/units"
)

// A lower limit is written while every process in the command's cgroup
// is stopped, and each is continued after; the first write and a higher
// limit leave the command running.
func TestALowerLimitIsWrittenWithTheCommandStopped(t *testing.T) {
	const dir = "/sys/fs/cgroup/memory/memplan/run"
	h := hosttest.NewFake(t, map[string]string{
		dir + "/cgroup.procs":          "41\n42\n",
		dir + "/memory.limit_in_bytes": "9223372036854771712\n",
	})
	s := &stepper{
		ps:      &profileSession{Confinement: &host.Confinement{Host: h}},
		cg:      &host.Cgroup{Host: h, Version: 1, Mem: dir},
		ceiling: units.GiB,
	}
	limit := func() string {
		v, err := host.ReadString(h, dir+"/memory.limit_in_bytes")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(v)
	}
	if !s.setLimit(units.GiB) || len(h.Paused) != 0 {
		t.Fatalf("first write: paused %v, want none", h.Paused)
	}
	if !s.setLimit(512*units.MiB) || limit() != "536870912" {
		t.Fatalf("drop to 512 MiB: limit %s", limit())
	}
	if want := []int{41, 42, -41, -42}; !reflect.DeepEqual(h.Paused, want) {
		t.Fatalf("drop: pause calls %v, want %v (stop both, then continue both)", h.Paused, want)
	}
	if !s.setLimit(768*units.MiB) || len(h.Paused) != 4 {
		t.Fatalf("rise: pause calls %v, want no more than the drop's four", h.Paused)
	}
}

// Lifting the limit for a reference reads every process's swapped pages
// back (host.SwapIn) and records what the host swapped in meanwhile.
func TestAReferenceReadsTheCommandsPagesBack(t *testing.T) {
	const dir = "/sys/fs/cgroup/memory/memplan/run"
	h := hosttest.NewFake(t, map[string]string{
		dir + "/cgroup.procs": "41\n42\n",
		"/proc/vmstat":        "pswpin 100\npswpout 300\n",
	})
	s := &stepper{
		ps: &profileSession{Confinement: &host.Confinement{Host: h}},
		cg: &host.Cgroup{Host: h, Version: 1, Mem: dir},
	}
	var cur OneRunSlice
	s.restore(&cur)
	if want := []int{41, 42}; !reflect.DeepEqual(h.SwappedIn, want) {
		t.Fatalf("SwapIn calls %v, want %v", h.SwappedIn, want)
	}
	if cur.SwappedIn != 0 || cur.SwapInWall < 0 {
		t.Errorf("swapped in %v in %gs; the fake's counters did not move", cur.SwappedIn, cur.SwapInWall)
	}
}

// A read-back that fails (here as without ptrace access) is said once in
// the run's notes, however many processes and references fail.
func TestAFailedReadBackIsSaidOnce(t *testing.T) {
	const dir = "/sys/fs/cgroup/memory/memplan/run"
	h := hosttest.NewFake(t, map[string]string{
		dir + "/cgroup.procs": "41\n42\n",
		"/proc/vmstat":        "pswpin 100\npswpout 300\n",
	})
	h.SwapInErr = syscall.EPERM
	s := &stepper{
		ps: &profileSession{Confinement: &host.Confinement{Host: h}},
		cg: &host.Cgroup{Host: h, Version: 1, Mem: dir},
	}
	var cur OneRunSlice
	s.restore(&cur)
	s.restore(&cur)
	if len(h.SwappedIn) != 4 {
		t.Errorf("SwapIn calls %v, want both processes at both references", h.SwappedIn)
	}
	if len(s.notes) != 1 || !strings.Contains(s.notes[0], "reading the command's pages back from swap failed") {
		t.Errorf("notes %q, want one saying the read-back failed", s.notes)
	}
}
