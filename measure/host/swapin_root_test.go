//go:build linux

package host

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/memplan/memplan/internal/roottest"
	"github.com/memplan/memplan/units"
)

// SwapIn on a real zram swap device: a process's paged-out memory comes
// back mapped into the process (its VmSwap falls to nothing), and, as
// after the process's own faults, the pages keep no swap copy (the swap
// cache does not grow by them), so the next eviction writes them again.
// MADV_WILLNEED, the earlier way, leaves both in place.
func TestRootSwapInMapsPagesBackWithoutASwapCopy(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	h := zramSwapForTest(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	// 64 MiB written page by page, then the process waits.
	cmd := exec.Command(py, "-c", `import sys, time
b = bytearray(64 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1 + i % 200
print("ready", flush=True)
time.sleep(120)
`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("python3 said %q, want ready", line)
	}
	pid := cmd.Process.Pid
	pageOut(t, h, pid)
	swapped := statusBytes(t, pid, "VmSwap")
	if swapped < 48<<20 {
		t.Fatalf("only %v of the process's 64 MiB went to swap", swapped)
	}
	cached := statusBytes(t, 0, "SwapCached")
	n, err := h.SwapIn(pid)
	if err != nil {
		t.Fatal(err)
	}
	left := statusBytes(t, pid, "VmSwap")
	grown := statusBytes(t, 0, "SwapCached") - cached
	t.Logf("swapped %v, read back %v, left in swap %v, swap cache grew %v", swapped, n, left, grown)
	if left > 1<<20 {
		t.Errorf("%v still in swap after SwapIn read %v back: the pages were not mapped back", left, n)
	}
	if n < swapped*9/10 {
		t.Errorf("SwapIn reports %v read back; %v were swapped", n, swapped)
	}
	if grown > swapped/4 {
		t.Errorf("the swap cache grew by %v of %v read back: the pages kept their swap copies", grown, swapped)
	}
	// The pages read back are marked cold again: inactive and not
	// referenced, the next reclaim's first candidates.
	pages, warm := warmPages(t, h, pid)
	t.Logf("%d pages resident, %d of them active or referenced", pages, warm)
	if pages < int(swapped/4096)*9/10 || warm > pages/10 {
		t.Errorf("%d of %d resident pages active or referenced after SwapIn: the read made them look recently used", warm, pages)
	}
}

// warmPages counts the resident pages of a process's anonymous mappings,
// and those of them the kernel holds active or referenced
// (/proc/kpageflags: KPF_REFERENCED is bit 2, KPF_ACTIVE bit 6).
func warmPages(t *testing.T, h *OSHost, pid int) (pages, warm int) {
	t.Helper()
	maps, err := h.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	pm, err := os.Open("/proc/" + strconv.Itoa(pid) + "/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer pm.Close()
	kf, err := os.Open("/proc/kpageflags")
	if err != nil {
		t.Skipf("no /proc/kpageflags: %v", err)
	}
	defer kf.Close()
	var e, f [8]byte
	for _, m := range anonMappings(maps) {
		if m.len < 1<<20 {
			continue // the stack, small heaps: the interpreter's own
		}
		for a := m.base; a < m.base+m.len; a += 4096 {
			if _, err := pm.ReadAt(e[:], int64(a/4096)*8); err != nil {
				t.Fatal(err)
			}
			v := binary.LittleEndian.Uint64(e[:])
			if v&(1<<63) == 0 {
				continue
			}
			pfn := v & (1<<55 - 1)
			if _, err := kf.ReadAt(f[:], int64(pfn)*8); err != nil {
				t.Fatal(err)
			}
			pages++
			if fl := binary.LittleEndian.Uint64(f[:]); fl&(1<<2|1<<6) != 0 {
				warm++
			}
		}
	}
	return pages, warm
}

// undoneJournal is a journal on the real host whose changes are undone
// when the test ends.
func undoneJournal(t *testing.T) (*OSHost, *Journal) {
	t.Helper()
	h := NewOSHost()
	j, err := NewJournal(h, t.TempDir(), "swap test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := j.UndoTo(0); err != nil {
			t.Errorf("undo: %v", err)
		}
		j.Close()
	})
	return h, j
}

// zramSwapForTest enables a 256 MiB zram swap device for the test, undone
// when it ends.
func zramSwapForTest(t *testing.T) *OSHost {
	t.Helper()
	h, j := undoneJournal(t)
	if _, err := SetupZram(h, j, "lz4", 256<<20, 0, false, nil); err != nil {
		t.Skipf("no zram swap here: %v", err)
	}
	return h
}

// TimeSwapLoop on real swap, zram and a swap file (written
// asynchronously: a page stays in the swap cache until its write is
// done): every page of each pass goes out of the page table to swap and
// is touched back, and nearly all the CPU time is the kernel's, however the host
// splits it between user and system.
func TestRootSwapLoopFaultsEveryPageThroughSwap(t *testing.T) {
	roottest.Require(t)
	roottest.Lock(t)
	for _, backend := range []string{"zram", "file"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "zram" {
				zramSwapForTest(t)
			} else {
				swapFileForTest(t)
			}
			const n = 16 << 20
			u, s, faults, err := TimeSwapLoop(n, 300*time.Millisecond, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d pages swapped out and touched back, user %v, system %v: user share %.2f", faults, u, s, u.Seconds()/(u+s).Seconds())
			if faults < n/4096 {
				t.Errorf("%d pages swapped out; every one of the %d should have gone out at least once", faults, n/4096)
			}
			if u+s < 50*time.Millisecond {
				t.Errorf("the loop used %v of CPU time", u+s)
			}
		})
	}
}

// swapFileForTest enables a 128 MiB swap file in the test's temporary
// directory (when its filesystem takes swap files), undone when the test
// ends.
func swapFileForTest(t *testing.T) {
	t.Helper()
	h, j := undoneJournal(t)
	dir := t.TempDir()
	if err := AddSwapFile(h, j, &SwapTarget{Dir: dir, FS: "the test's"}, dir+"/swap", 128<<20); err != nil {
		t.Skipf("no swap file here: %v", err)
	}
}

// pageOut pushes a process's anonymous memory to swap
// (process_madvise MADV_PAGEOUT).
func pageOut(t *testing.T, h *OSHost, pid int) {
	t.Helper()
	maps, err := h.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	iov := anonMappings(maps)
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, _, e := unix.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)), unix.MADV_PAGEOUT, 0, 0); e != 0 {
		t.Skipf("process_madvise MADV_PAGEOUT: %v", e)
	}
}

// statusBytes reads a "Name: N kB" line of /proc/PID/status, or of
// /proc/meminfo with pid 0.
func statusBytes(t *testing.T, pid int, name string) units.Bytes {
	t.Helper()
	p := "/proc/meminfo"
	if pid > 0 {
		p = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		if f := bytes.Fields(l); len(f) >= 2 && string(f[0]) == name+":" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return units.Bytes(kb << 10)
		}
	}
	t.Fatalf("%s: no %s line", p, name)
	return 0
}
