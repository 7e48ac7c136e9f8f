//go:build linux

package onepass

import (
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fakeSmaps = `55d0c0000000-55d0c0001000 r--p 00000000 fe:01 1234 /usr/bin/sort
Size:                  4 kB
Rss:                 400 kB
Pss:                 400 kB
Anonymous:             0 kB
Referenced:          100 kB
7f0000000000-7f0010000000 rw-p 00000000 00:00 0 
Size:             262144 kB
Rss:              200000 kB
Anonymous:        200000 kB
Referenced:        50000 kB
7f0010000000-7f0010100000 rw-p 00000000 fe:01 99 /data/mapped
Rss:                1000 kB
Anonymous:           250 kB
Referenced:          400 kB
VmFlags: rd wr mr mw me ac sd
`

const fakeRollup = `55d0c0000000-7fff00000000 ---p 00000000 00:00 0                          [rollup]
Rss:              201400 kB
Pss:              201400 kB
Anonymous:        200250 kB
Referenced:        50500 kB
`

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadSmapsSplit(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "42/smaps"), fakeSmaps)
	writeFile(t, filepath.Join(root, "42/smaps_rollup"), fakeRollup)
	r := newProcReader(root)
	u, err := r.readSmaps(42, true)
	if err != nil {
		t.Fatal(err)
	}
	// Per mapping: the binary's 100 kB file, the heap's 50000 kB anon, the
	// mixed mapping's 400 kB split 1/4 anon.
	if u.Mappings != 3 || u.Ref != 50500<<10 || u.RefAnon != 50100<<10 || u.RefFile != 400<<10 || u.Rss != 201400<<10 {
		t.Errorf("per-mapping: got %+v", u)
	}
	u, err = r.readSmaps(42, false)
	if err != nil {
		t.Fatal(err)
	}
	// Rollup: the process-wide share 200250/201400 of the referenced pages.
	if want := int64(50500<<10) * (200250 << 10) / (201400 << 10); u.RefAnon != want || u.Ref != 50500<<10 {
		t.Errorf("rollup: got %+v, want anon referenced %d", u, want)
	}
	writeFile(t, filepath.Join(root, "43/smaps_rollup"), "x-y r 0 0 0\nRss: lots kB\n")
	if _, err := r.readSmaps(43, false); err == nil || !strings.Contains(err.Error(), "43/smaps_rollup: field Rss") {
		t.Errorf("bad field: error %v, want one naming the file and field", err)
	}
	if _, err := r.readSmaps(44, false); !gone(err) {
		t.Errorf("an exited process: error %v, want it taken as gone", err)
	}
}

func TestCgroupPIDsFollowsChildCgroups(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cgroup.procs"), "10\n11\n")
	writeFile(t, filepath.Join(dir, "leaf/cgroup.procs"), "12\n")
	pids, err := cgroupPIDs(filepath.Join(dir, "cgroup.procs"), nil)
	if err != nil || fmt.Sprint(pids) != "[10 11 12]" {
		t.Errorf("pids %v (%v), want 10, 11, 12", pids, err)
	}
	writeFile(t, filepath.Join(dir, "bad/cgroup.procs"), "10\nten\n")
	if _, err := readPIDs(filepath.Join(dir, "bad/cgroup.procs"), nil); err == nil || !strings.Contains(err.Error(), `bad/cgroup.procs: expected one process id per line, got "ten"`) {
		t.Errorf("bad cgroup.procs: %v", err)
	}
}

// The sampler against a fake /proc: the processes listed come and go, the
// aggregates stay one record per rung, and the duty cycle holds.
func TestSamplerFakeProc(t *testing.T) {
	root := t.TempDir()
	cg := filepath.Join(root, "cg/cgroup.procs")
	writeFile(t, cg, "42\n43\n")
	for _, pid := range []string{"42", "43"} {
		writeFile(t, filepath.Join(root, pid, "smaps"), fakeSmaps)
		writeFile(t, filepath.Join(root, pid, "statm"), "70000 50000 100 1 0 60000 0\n")
		writeFile(t, filepath.Join(root, pid, "clear_refs"), "")
	}
	windows := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	s, err := New(Config{Procs: cg, Windows: windows, Duty: 0.5, Proc: root, ReTouch: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	go func() {
		time.Sleep(150 * time.Millisecond)
		// 43 exits; replaced whole, as the kernel's file reads, never
		// caught half-written.
		writeFile(t, cg+".new", "42\n")
		if err := os.Rename(cg+".new", cg); err != nil {
			t.Error(err)
		}
	}()
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	out := s.Samples()
	if len(out.Rungs) != 3 || out.Windows < 6 || out.Sweeps < 2 || out.Windows > 3*out.Sweeps || out.Method != MethodAccessedBits || out.Split != "per-mapping smaps" {
		t.Fatalf("samples: %d rungs, %d windows in %d sweeps, method %q, split %q", len(out.Rungs), out.Windows, out.Sweeps, out.Method, out.Split)
	}
	for _, r := range out.Rungs {
		if r.Ref.N == 0 {
			t.Errorf("rung %v never sampled in %d windows", r.Window, out.Windows)
		}
		if r.Actual.Mean < r.Window.Seconds() {
			t.Errorf("rung %v: observed window %.4fs, shorter than the rung", r.Window, r.Actual.Mean)
		}
		// statm says 50000 pages resident, smaps 201400 kB: the growth
		// counts as new pages in the window.
		if r.Ref.Max != 2*50500<<10 {
			t.Errorf("rung %v: most referenced %g, want both processes' %d", r.Window, r.Ref.Max, 2*50500<<10)
		}
	}
	if out.MaxProcesses != 2 || out.Processes != 2 || out.PeakRss != 2*201400<<10 {
		t.Errorf("processes %d (most %d), peak %d", out.Processes, out.MaxProcesses, out.PeakRss)
	}
	if out.CostShare > 0.5*1.2 || out.Errors != 0 {
		t.Errorf("cost share %.3f over the duty 0.5, errors %d (%s)", out.CostShare, out.Errors, out.LastError)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	if _, err := New(Config{Procs: "/nonexistent/cgroup.procs"}); err == nil || !strings.Contains(err.Error(), "/nonexistent/cgroup.procs") {
		t.Errorf("missing cgroup: %v", err)
	}
	cg := filepath.Join(t.TempDir(), "cgroup.procs")
	writeFile(t, cg, "")
	if _, err := New(Config{Procs: cg, Windows: []time.Duration{time.Second, time.Millisecond}}); err == nil || !strings.Contains(err.Error(), "Windows[1]") {
		t.Errorf("unordered ladder: %v", err)
	}
	if _, err := New(Config{Procs: cg, Duty: 2}); err == nil || !strings.Contains(err.Error(), "Duty") {
		t.Errorf("duty 2: %v", err)
	}
}

func TestDetectDAMON(t *testing.T) {
	sys := t.TempDir()
	writeFile(t, filepath.Join(sys, "kernel/mm/damon/admin/kdamonds/0/contexts/0/avail_operations"), "paddr\n")
	if d := detectDAMON(sys, "/nonexistent", "/nonexistent"); d.Vaddr != "no" || !d.Sysfs || len(d.Ops) != 1 {
		t.Errorf("paddr only: %+v", d)
	}
	writeFile(t, filepath.Join(sys, "kernel/mm/damon/admin/kdamonds/0/contexts/0/avail_operations"), "vaddr fvaddr paddr\n")
	if d := detectDAMON(sys, "/nonexistent", "/nonexistent"); d.Vaddr != "yes" {
		t.Errorf("vaddr offered: %+v", d)
	}
	// Without a kdamond, the kernel config decides.
	empty := t.TempDir()
	gz := filepath.Join(empty, "config.gz")
	f, _ := os.Create(gz)
	z := gzip.NewWriter(f)
	z.Write([]byte("CONFIG_DAMON=y\n# CONFIG_DAMON_VADDR is not set\nCONFIG_DAMON_PADDR=y\n"))
	z.Close()
	f.Close()
	if d := detectDAMON(empty, gz, "/nonexistent"); d.Vaddr != "no" || d.Evidence != gz {
		t.Errorf("config without vaddr: %+v", d)
	}
}
