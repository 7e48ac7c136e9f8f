//go:build linux

package host

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/memplan/memplan/units"
)

// SwapIn faults back the swapped-out pages of process pid as the process
// itself would: /proc/PID/pagemap names the swapped pages of every
// anonymous mapping in /proc/PID/maps (no file behind it: the heap, the
// stacks, anonymous mmaps), and process_vm_readv(2) reads one byte of
// each. The kernel swaps each page in for the process, charged to its
// cgroup, and on a device that frees a page's swap copy once it is read
// (zram) the page is left with none, so its next eviction writes it again,
// as after the process's own fault. (MADV_WILLNEED would leave the pages
// in the swap cache with their copies: clean, so the next limit evicts
// them without a write, and faults cost a third of what they do in a
// whole run.) The pages read are then marked least recently used
// (coolDown), as they were when the kernel evicted them. The reads are
// done in this process, swapInReaders at a time (on zram, its CPU time;
// on a swap file, its I/O).
// File mappings are left alone. Needs CAP_SYS_PTRACE over the process
// (root) and Linux 5.10 (process_madvise).
func (h *OSHost) SwapIn(pid int) (units.Bytes, error) {
	maps, err := h.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, err
	}
	ranges := anonMappings(maps)
	if len(ranges) == 0 {
		return 0, nil
	}
	pm, err := os.Open(h.Path(fmt.Sprintf("/proc/%d/pagemap", pid)))
	if err != nil {
		return 0, err
	}
	defer pm.Close()
	batches := make(chan []remoteIovec, swapInReaders)
	readers := make([]pageReader, swapInReaders)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for i := range readers {
		r := &readers[i]
		r.pid = pid
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if r.err == nil {
					if r.err = r.readPages(b); r.err != nil {
						failed.Store(true)
					}
				}
			}
		}()
	}
	page := uintptr(os.Getpagesize())
	buf := make([]byte, 8*4096)
	var batch []remoteIovec
scan:
	for _, m := range ranges {
		for at := m.base; at < m.base+m.len; {
			n := min((m.base+m.len-at)/page, uintptr(len(buf)/8))
			b := buf[:8*n]
			if _, err := pm.ReadAt(b, int64(at/page)*8); err != nil && err != io.EOF {
				break // the mapping went away since maps was read
			}
			for i := uintptr(0); i < n; i++ {
				// Bit 62: swapped; bit 63: present.
				if e := binary.LittleEndian.Uint64(b[8*i:]); e&(1<<62) != 0 && e&(1<<63) == 0 {
					batch = append(batch, remoteIovec{base: at + i*page, len: 1})
					if len(batch) == uioMaxIov {
						if failed.Load() {
							break scan
						}
						batches <- batch
						batch = nil
					}
				}
			}
			at += n * page
		}
	}
	if len(batch) > 0 && !failed.Load() {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	var done units.Bytes
	var read []remoteIovec
	var first error
	for i := range readers {
		done += readers[i].done
		read = append(read, readers[i].read...)
		if first == nil {
			first = readers[i].err
		}
	}
	if first != nil {
		return done, first
	}
	return done, coolDown(pid, read)
}

// coolDown marks the pages read back as the least recently used
// (process_madvise MADV_COLD): they were out because the kernel judged
// them cold, and the read would otherwise make them look as recently
// used as the command's hot pages, so that the next limit evicted those
// too.
func coolDown(pid int, runs []remoteIovec) error {
	if len(runs) == 0 {
		return nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	for len(runs) > 0 {
		n := min(len(runs), uioMaxIov)
		_, _, e := unix.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(fd), uintptr(unsafe.Pointer(&runs[0])), uintptr(n), unix.MADV_COLD, 0, 0)
		// A range unmapped since it was read ends its batch's advice.
		if e != 0 && e != unix.ENOMEM && e != unix.EINVAL {
			return fmt.Errorf("process_madvise %d: %w", pid, e)
		}
		runs = runs[n:]
	}
	return nil
}

// swapInReaders is how many threads SwapIn reads pages back with. On a
// swap file each read waits for the device (about 50us a page on this
// project's VM, one at a time: 283 MiB took 3.8 s), and several in flight
// let the device work on them together; on zram each thread decompresses
// on its own CPU.
const swapInReaders = 8

// uioMaxIov is the most ranges one process_vm_readv or process_madvise
// call takes (UIO_MAXIOV).
const uioMaxIov = 1024

// pageReader reads one byte of each of another process's pages with
// process_vm_readv, a batch a call; SwapIn runs several at once.
type pageReader struct {
	pid  int
	buf  [uioMaxIov]byte
	done units.Bytes
	read []remoteIovec // the pages read, in runs of adjacent pages
	err  error
}

// readPages reads the pages rem names (at most uioMaxIov of them).
func (r *pageReader) readPages(rem []remoteIovec) error {
	for len(rem) > 0 {
		local := unix.Iovec{Base: &r.buf[0]}
		local.SetLen(len(rem))
		n, _, e := unix.Syscall6(unix.SYS_PROCESS_VM_READV, uintptr(r.pid),
			uintptr(unsafe.Pointer(&local)), 1,
			uintptr(unsafe.Pointer(&rem[0])), uintptr(len(rem)), 0)
		switch {
		case e == unix.EFAULT || e == unix.ENOMEM:
			n = 0 // the first page is gone: skip it
		case e != 0:
			return fmt.Errorf("process_vm_readv %d: %w", r.pid, e)
		}
		r.done += units.Bytes(n) * units.Bytes(os.Getpagesize())
		for _, p := range rem[:n] {
			r.readPage(p.base)
		}
		// The kernel stops at the first page it cannot read (unmapped
		// since pagemap was read): skip it, read the rest.
		rem = rem[min(int(n)+1, len(rem)):]
	}
	return nil
}

func (r *pageReader) readPage(addr uintptr) {
	page := uintptr(os.Getpagesize())
	addr &^= page - 1
	if k := len(r.read) - 1; k >= 0 && r.read[k].base+r.read[k].len == addr {
		r.read[k].len += page
		return
	}
	r.read = append(r.read, remoteIovec{base: addr, len: page})
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
