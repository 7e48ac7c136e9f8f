//go:build linux

package host

import (
	"errors"
	"os"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The system calls the probe's workload child, its page-cache writer, the
// copy scenario and the profile's launcher make on their own memory and
// files. They change nothing a journal would need to undo, but they live
// here so that host and device are the only packages that speak to the
// kernel directly.

// ODirect is the open flag that bypasses the page cache.
const ODirect = unix.O_DIRECT

// MapAnon maps n bytes of private anonymous memory, readable and writable
// (page aligned, as O_DIRECT buffers need).
func MapAnon(n int) ([]byte, error) {
	return unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
}

// MapFile maps the first n bytes of f read-only and shared, as code is.
func MapFile(f *os.File, n int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
}

// Unmap undoes MapAnon or MapFile.
func Unmap(b []byte) error { return unix.Munmap(b) }

// NoHugePages keeps b in 4 KiB pages (transparent huge pages would change
// what swapping moves).
func NoHugePages(b []byte) error { return unix.Madvise(b, unix.MADV_NOHUGEPAGE) }

// Mlock locks b in memory.
func Mlock(b []byte) error { return unix.Mlock(b) }

// Mincore fills vec with the residency of b's pages (bit 0 of each byte).
func Mincore(b []byte, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}

// Faults returns this process's major and minor page faults so far.
func Faults() (major, minor int64) {
	major, minor, _ = Usage()
	return major, minor
}

// Usage returns this process's page faults and CPU time (user + system)
// so far.
func Usage() (major, minor int64, cpu time.Duration) {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return ru.Majflt, ru.Minflt, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Fdatasync flushes f's data to its device.
func Fdatasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

// DropPages asks the kernel to drop f's clean cached pages in [off,
// off+n) (n 0: to the end).
func DropPages(f *os.File, off, n int64) error {
	return unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}

// Syncfs flushes the filesystem holding f.
func Syncfs(f *os.File) error { return unix.Syncfs(int(f.Fd())) }

// CloseOnExec marks fd to be closed by Exec.
func CloseOnExec(fd int) { unix.CloseOnExec(fd) }

// Exec replaces this process with path.
func Exec(path string, argv, env []string) error { return unix.Exec(path, argv, env) }

// KillGroup sends SIGKILL to every process in process group pgid.
func KillGroup(pgid int) error { return unix.Kill(-pgid, unix.SIGKILL) }

// lockedScratch locks the calling goroutine to its OS thread (so that
// RUSAGE_THREAD is the loop's) and maps n bytes of private memory in
// 4 KiB pages; release unmaps it and unlocks the thread.
func lockedScratch(n int) (mem []byte, release func(), err error) {
	runtime.LockOSThread()
	mem, err = MapAnon(n)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, nil, err
	}
	_ = NoHugePages(mem)
	return mem, func() { Unmap(mem); runtime.UnlockOSThread() }, nil
}

// TimeFaultLoop maps n bytes of private memory in 4 KiB pages and, for
// about d, touches every page and drops them again (MADV_DONTNEED): a
// minor fault and a zeroed page each time, with a store's worth of work
// in user mode. It runs on the calling goroutine's OS thread, locked for
// the loop, and returns that thread's user and system time over the loop
// (getrusage RUSAGE_THREAD) and the faults it took.
func TimeFaultLoop(n int, d time.Duration) (user, sys time.Duration, faults int64, err error) {
	mem, release, err := lockedScratch(n)
	if err != nil {
		return 0, 0, 0, err
	}
	defer release()
	var r0, r1 unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &r0); err != nil {
		return 0, 0, 0, err
	}
	for start := time.Now(); time.Since(start) < d; {
		for off := 0; off < len(mem); off += int(PageSize) {
			mem[off] = 1
		}
		faults += int64(len(mem)) / PageSize
		if err := unix.Madvise(mem, unix.MADV_DONTNEED); err != nil {
			return 0, 0, 0, err
		}
	}
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &r1); err != nil {
		return 0, 0, 0, err
	}
	tv := func(a, b unix.Timeval) time.Duration {
		return time.Duration(b.Nano() - a.Nano())
	}
	return tv(r0.Utime, r1.Utime), tv(r0.Stime, r1.Stime), faults, nil
}

// ErrNoSwapOut is TimeSwapLoop's error where the kernel swapped nothing
// out: no swap enabled, or none with room.
var ErrNoSwapOut = errors.New("nothing was swapped out (no swap with room?)")

// TimeSwapLoop is TimeFaultLoop through swap: it fills n bytes of private
// memory with data that compresses about as a program's does (half of
// each page random), then, until its thread has used cpu of CPU time or
// wall has passed, pushes every page out to swap (MADV_PAGEOUT: the
// kernel's reclaim writes them to the highest-priority swap and unmaps
// them) and touches each one back in: a swap-in, or on a device written
// asynchronously (a swap file) whose write has not yet freed the page, a
// fault that maps it back from the swap cache. Its user work is a store a
// page, so nearly all its CPU time is the kernel's swap path, on whatever
// device swap is on. It returns the thread's user and system time over
// the loop and the pages it swapped out (from /proc/self/pagemap);
// ErrNoSwapOut where the first pass swapped out fewer than half.
func TimeSwapLoop(n int, cpu, wall time.Duration) (user, sys time.Duration, pages int64, err error) {
	mem, release, err := lockedScratch(n)
	if err != nil {
		return 0, 0, 0, err
	}
	defer release()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return 0, 0, 0, err
	}
	defer pm.Close()
	entries := make([]byte, 8*(len(mem)/int(PageSize)))
	x := uint64(0x9e3779b97f4a7c15)
	for off := 0; off+8 <= len(mem); off += 16 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		*(*uint64)(unsafe.Pointer(&mem[off])) = x
	}
	var r0, r unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &r0); err != nil {
		return 0, 0, 0, err
	}
	for start, first := time.Now(), true; ; first = false {
		if err := unix.Madvise(mem, unix.MADV_PAGEOUT); err != nil {
			return 0, 0, 0, err
		}
		if _, err := pm.ReadAt(entries, int64(uintptr(unsafe.Pointer(&mem[0]))/uintptr(PageSize))*8); err != nil {
			return 0, 0, 0, err
		}
		out := int64(0)
		for i := 0; i+8 <= len(entries); i += 8 {
			// Bit 62: swapped; bit 63: present.
			if e := *(*uint64)(unsafe.Pointer(&entries[i])); e&(1<<62) != 0 && e&(1<<63) == 0 {
				out++
			}
		}
		if first && out < int64(len(entries)/16) {
			return 0, 0, out, ErrNoSwapOut
		}
		pages += out
		for off := 0; off < len(mem); off += int(PageSize) {
			mem[off]++
		}
		if err := unix.Getrusage(unix.RUSAGE_THREAD, &r); err != nil {
			return 0, 0, 0, err
		}
		used := time.Duration(r.Utime.Nano() - r0.Utime.Nano() + r.Stime.Nano() - r0.Stime.Nano())
		if used >= cpu || time.Since(start) >= wall {
			break
		}
	}
	return time.Duration(r.Utime.Nano() - r0.Utime.Nano()), time.Duration(r.Stime.Nano() - r0.Stime.Nano()), pages, nil
}
