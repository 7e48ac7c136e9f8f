//go:build linux

package host

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/memplan/memplan/units"
)

// SwapIn reads back what process pid has in swap: process_madvise(2) with
// MADV_WILLNEED over every anonymous mapping in /proc/PID/maps (no file
// behind it: the heap, the stacks, anonymous mmaps) puts each swapped page
// into the swap cache, so the process's next touch of it is a minor fault.
// The reads are done in this process (on zram, its CPU time; on a swap
// file, its I/O), and the pages are charged to the process's cgroup.
// File mappings are left alone: advising them would read their files
// ahead. Needs CAP_SYS_NICE over the process (root) and Linux 5.10.
func (h *OSHost) SwapIn(pid int) (units.Bytes, error) {
	maps, err := h.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, err
	}
	iov := anonMappings(maps)
	if len(iov) == 0 {
		return 0, nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return 0, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	var done units.Bytes
	const batch = 512 // below UIO_MAXIOV (1024)
	for len(iov) > 0 {
		n := min(len(iov), batch)
		r, _, e := unix.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(n), unix.MADV_WILLNEED, 0, 0)
		if e != 0 {
			// A mapping unmapped since maps was read ends the advice
			// of its batch; the rest still count.
			if e != unix.ENOMEM && e != unix.EINVAL {
				return done, fmt.Errorf("process_madvise %d: %w", pid, e)
			}
		} else {
			done += units.Bytes(r)
		}
		iov = iov[n:]
	}
	return done, nil
}

// remoteIovec is struct iovec (a pointer and a size_t) naming a range of
// another process's address space: a number here, never dereferenced.
type remoteIovec struct{ base, len uintptr }

// anonMappings are the ranges of /proc/PID/maps lines with no file behind
// them (inode 0), but not the kernel's own ([vdso], [vvar], [vsyscall]).
func anonMappings(maps []byte) []remoteIovec {
	var out []remoteIovec
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 5 || string(f[4]) != "0" {
			continue
		}
		if len(f) >= 6 && (bytes.Equal(f[5], []byte("[vdso]")) || bytes.Equal(f[5], []byte("[vvar]")) ||
			bytes.Equal(f[5], []byte("[vsyscall]")) || bytes.Equal(f[5], []byte("[vvar_vclock]"))) {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(string(lo), 16, 64)
		b, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || b <= a {
			continue
		}
		out = append(out, remoteIovec{base: uintptr(a), len: uintptr(b - a)})
	}
	return out
}
