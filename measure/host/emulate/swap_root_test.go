//go:build linux

package emulate

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func memAvailable(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no MemAvailable in /proc/meminfo")
	return 0
}

// topSwap names a swap area at the top priority, or "".
func topSwap(t *testing.T) string {
	b, err := os.ReadFile("/proc/swaps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 5 && f[4] == strconv.Itoa(MaxSwapPriority) {
			return f[0]
		}
	}
	return ""
}

// memCgroup makes a memory cgroup limited to limit bytes (v1 or v2, written
// directly: measure's helpers are not exported) and returns its procs file.
func memCgroup(t *testing.T, limit int64) string {
	t.Helper()
	name := fmt.Sprintf("memplan-emulate-test-%d", os.Getpid())
	dir, file := filepath.Join("/sys/fs/cgroup/memory", name), "memory.limit_in_bytes"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		dir, file = filepath.Join("/sys/fs/cgroup", name), "memory.max"
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("could not remove the cgroup %s", dir)
	})
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "cgroup.procs")
}

// TestSwapRoot: a workload limited to a third of its memory swaps to the
// emulated X25-M, and its swap-ins take about the device's time per read.
func TestSwapRoot(t *testing.T) {
	rootHost(t)
	const work, limit, size = 48 << 20, 16 << 20, 64 << 20
	if a := memAvailable(t); a < 1<<30 {
		t.Skipf("MemAvailable %d MiB: not enough to run the swap test safely", a>>20)
	}
	// At the top priority, and alone there: the kernel fills the highest
	// priority first and shares it between equals, so another area up
	// there (a zram device someone left as swap) would take the pages.
	if other := topSwap(t); other != "" {
		t.Skipf("%s is swap at priority %d: the workload's pages would go there, not only to the emulated device; swapoff it first", other, MaxSwapPriority)
	}
	dev := X25M()
	e := startEmulator(t, dev, size, Options{})
	if err := e.SwapOn(MaxSwapPriority); err != nil {
		t.Fatal(err)
	}
	procs := memCgroup(t, limit)

	cmd := exec.Command("/proc/self/exe")
	cmd.Env = append(os.Environ(), workloadEnv+"="+strconv.Itoa(work>>20))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if err := os.WriteFile(procs, []byte(strconv.Itoa(cmd.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in)
	rd := bufio.NewReader(out)
	rd.ReadString('\n')
	before, _ := e.Stats()
	fmt.Fprintln(in)
	line, _ := rd.ReadString('\n')
	var ru syscall.Rusage
	if err := cmd.Wait(); err != nil {
		t.Fatalf("workload: %v", err)
	}
	if ps := cmd.ProcessState; ps != nil {
		if r, ok := ps.SysUsage().(*syscall.Rusage); ok {
			ru = *r
		}
	}
	after, _ := e.Stats()
	f := strings.Fields(line)
	if len(f) < 1 {
		t.Fatalf("workload printed %q", line)
	}
	ns, _ := strconv.ParseInt(f[0], 10, 64)
	pass := time.Duration(ns)
	r, w := after.Reads-before.Reads, after.Writes-before.Writes
	rb := after.ReadBytes - before.ReadBytes
	t.Logf("workload: second pass %v, %d major faults; server: %d reads (%d KiB), %d writes (%d KiB)", pass, ru.Majflt, r, rb>>10, w, (after.WriteBytes-before.WriteBytes)>>10)
	if r == 0 || w == 0 {
		t.Fatalf("the workload did not swap through the emulated device (%d reads, %d writes)", r, w)
	}
	// The second pass faults every page it swapped out back in and, being
	// held to its limit, swaps others out to make room, in the fault path:
	// the model's time for it is the reads' latency and transfer plus the
	// writes' transfer at the drive's sequential write bandwidth (swap
	// writes are large clusters; the write gate serialises them).
	wb := after.WriteBytes - before.WriteBytes
	model := time.Duration(r)*dev.Read.Random.Quantiles(0.5)[0] +
		time.Duration(float64(max(0, rb-r*pageBytes))*1e9/dev.Read.Bandwidth) +
		time.Duration(float64(wb)*1e9/dev.Write.Bandwidth)
	t.Logf("second pass %v, model %v for its %d reads and %d KiB written (ratio %.2f; the FUSE+loop floor and the fault path come on top, overlap of reads and writes below)", pass, model, r, wb>>10, float64(pass)/float64(model))
	if pass < model*6/10 || pass > model*3 {
		t.Errorf("the second pass took %v, the model %v: not about the emulated time", pass, model)
	}
}

// TestKillCleanupRoot: after the server is killed with SIGKILL while its
// device is swap, Cleanup from the recorded state leaves the host as it was.
func TestKillCleanupRoot(t *testing.T) {
	rootHost(t)
	var rec State
	e, err := Start(context.Background(), X25E(), 16<<20, Options{Record: func(s State) { rec = s }})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SwapOn(100); err != nil {
		e.Close()
		t.Fatal(err)
	}
	if !rec.Swap || rec.Loop == "" || rec.ServerPID == 0 || rec.ServerStart == 0 {
		e.Close()
		t.Fatalf("recorded state incomplete: %+v", rec)
	}
	t.Logf("changes to journal: %+v", rec.Changes())
	if err := syscall.Kill(rec.ServerPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// What a journal replay has after kill -9 of memplan: the record only.
	if err := Cleanup(rec); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if err := Cleanup(rec); err != nil {
		t.Fatalf("Cleanup again: %v", err)
	}
	if _, err := os.Stat(rec.Mountpoint); !os.IsNotExist(err) {
		t.Errorf("mount point %s still there", rec.Mountpoint)
	}
	for i := 0; ; i++ {
		if st, err := startTime(rec.ServerPID); err != nil || st != rec.ServerStart || zombie(rec.ServerPID) {
			break
		}
		if i > 100 {
			t.Fatalf("server PID %d still running", rec.ServerPID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if l := Leftovers(); len(l) != 0 {
		t.Errorf("leftovers: %+v", l)
	}
}
