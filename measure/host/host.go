//go:build linux

package host

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/memplan/memplan/units"
	"golang.org/x/sys/unix"
)

// Host is everything the probe does to the machine. Paths are absolute as
// the kernel sees them ("/proc/swaps", "/sys/fs/cgroup/memory/x"); an
// implementation may root them elsewhere.
type Host interface {
	ReadFile(name string) ([]byte, error)
	// WriteFile writes an existing kernel attribute (sysfs, procfs, cgroupfs);
	// it never creates files.
	WriteFile(name string, data []byte) error
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	Mkdir(name string) error
	// MkdirAll creates a directory the probe works in (and its parents).
	MkdirAll(name string, perm fs.FileMode) error
	// CreateFile creates a new regular file for writing (mode 0600); it
	// refuses an existing path.
	CreateFile(name string) (*os.File, error)
	// ReplaceFile replaces a regular file with data durably (a temporary
	// file synced and renamed over it, the directory synced): the journal.
	ReplaceFile(name string, data []byte) error
	// OpenDirect opens a block device the probe configured for reading and
	// writing with O_DIRECT, bypassing the page cache (zram's latency).
	OpenDirect(name string) (*os.File, error)
	// DropCache asks the kernel to drop a file's clean cached pages.
	DropCache(name string) error
	// Remove deletes a file or an empty directory (a cgroup).
	Remove(name string) error
	// MakeSwapFile creates a new file of the given size, fully allocated,
	// with a swap header. It refuses to touch an existing path.
	MakeSwapFile(name string, size units.Bytes) error
	// WriteSwapHeader writes a swap signature at the start of a zram block
	// device the probe configured itself.
	WriteSwapHeader(dev string, size units.Bytes) error
	Swapon(name string, priority int) error
	Swapoff(name string) error
	// LoopAttach binds a free loop device to a block device (direct I/O,
	// detaching itself when its last opener closes); the Closer is that
	// opener. LoopDetach unbinds one.
	LoopAttach(backing string) (dev string, hold io.Closer, err error)
	LoopDetach(dev string) error
	// Statfs reports the space available to root and the filesystem's magic.
	Statfs(dir string) (free units.Bytes, fsType int64, err error)
	// Kill sends SIGKILL to a process the probe started.
	Kill(pid int) error
	// Pause stops (SIGSTOP) or, with stop false, continues (SIGCONT) a
	// process the probe started.
	Pause(pid int, stop bool) error
	// SwapIn faults back the swapped-out pages of a process the probe
	// started, as the process's own touches would (one byte of each read
	// with process_vm_readv), and returns the bytes it read back.
	SwapIn(pid int) (units.Bytes, error)
	// Lock makes the caller the only probe changing this host until the
	// returned Closer is closed (or the process dies); it fails with
	// ErrBusy, naming the holder, when another probe has it.
	Lock() (io.Closer, error)
	// IsRoot reports whether the process may change the host.
	IsRoot() bool
}

// OSHost is the real Host. Root prefixes every path ("/" on a live system,
// a fixture tree in tests); swapon and swapoff only make sense with "/".
type OSHost struct {
	Root string
	// lockName is the lock's socket name, hostLockName when empty (a
	// test takes a name of its own, so that it never meets a real probe).
	lockName string
}

// NewOSHost returns the Host for the running system.
func NewOSHost() *OSHost { return &OSHost{Root: "/"} }

func (h *OSHost) Path(name string) string {
	if h.Root == "" || h.Root == "/" {
		return name
	}
	return filepath.Join(h.Root, name)
}

func (h *OSHost) ReadFile(name string) ([]byte, error) { return os.ReadFile(h.Path(name)) }

func (h *OSHost) WriteFile(name string, data []byte) error {
	f, err := os.OpenFile(h.Path(name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %q to %s: %w", strings.TrimSpace(string(data)), name, err)
	}
	return f.Close()
}

func (h *OSHost) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(h.Path(name)) }
func (h *OSHost) Stat(name string) (fs.FileInfo, error)      { return os.Stat(h.Path(name)) }
func (h *OSHost) Mkdir(name string) error                    { return os.Mkdir(h.Path(name), 0o755) }
func (h *OSHost) Remove(name string) error                   { return os.Remove(h.Path(name)) }

func (h *OSHost) MkdirAll(name string, perm fs.FileMode) error {
	return os.MkdirAll(h.Path(name), perm)
}

func (h *OSHost) CreateFile(name string) (*os.File, error) {
	return os.OpenFile(h.Path(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

func (h *OSHost) ReplaceFile(name string, data []byte) error {
	p := h.Path(name)
	tmp := p + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(p)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

func (h *OSHost) OpenDirect(name string) (*os.File, error) {
	return os.OpenFile(h.Path(name), os.O_RDWR|unix.O_DIRECT, 0)
}

func (h *OSHost) DropCache(name string) error {
	f, err := os.Open(h.Path(name))
	if err != nil {
		return err
	}
	defer f.Close()
	return DropPages(f, 0, 0)
}
func (h *OSHost) IsRoot() bool       { return os.Geteuid() == 0 }
func (h *OSHost) Kill(pid int) error { return unix.Kill(pid, unix.SIGKILL) }

func (h *OSHost) Pause(pid int, stop bool) error {
	if stop {
		return unix.Kill(pid, unix.SIGSTOP)
	}
	return unix.Kill(pid, unix.SIGCONT)
}

func (h *OSHost) Statfs(dir string) (units.Bytes, int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(h.Path(dir), &st); err != nil {
		return 0, 0, &os.PathError{Op: "statfs", Path: dir, Err: err}
	}
	return units.Bytes(st.Bavail) * units.Bytes(st.Bsize), int64(st.Type), nil
}

func (h *OSHost) MakeSwapFile(name string, size units.Bytes) (err error) {
	pages := int64(size) / PageSize
	if pages < 10 {
		return fmt.Errorf("swap file %s: %s is too small for a swap area", name, size)
	}
	f, err := os.OpenFile(h.Path(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	n := pages * PageSize
	// swapon rejects files with holes; fallocate gives real extents where the
	// filesystem supports it, otherwise write zeros.
	if ferr := unix.Fallocate(int(f.Fd()), 0, 0, n); ferr != nil {
		if err := writeZeros(f, n); err != nil {
			return fmt.Errorf("allocating swap file %s: %w", name, err)
		}
	}
	if _, err := f.WriteAt(swapHeader(pages), 0); err != nil {
		return err
	}
	return f.Sync()
}

func writeZeros(f *os.File, n int64) error {
	buf := make([]byte, 1<<20)
	for off := int64(0); off < n; off += int64(len(buf)) {
		b := buf
		if rem := n - off; rem < int64(len(b)) {
			b = b[:rem]
		}
		if _, err := f.WriteAt(b, off); err != nil {
			return err
		}
	}
	return nil
}

func (h *OSHost) WriteSwapHeader(dev string, size units.Bytes) error {
	if !strings.HasPrefix(dev, "/dev/zram") {
		return fmt.Errorf("refusing to write a swap header to %s: only zram devices the probe configured", dev)
	}
	f, err := os.OpenFile(h.Path(dev), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(swapHeader(int64(size)/PageSize), 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// swap_header version 1 (include/linux/swap.h): 1024 bytes of boot block,
// then version, last_page, nr_badpages, a UUID and a label; the page ends
// with the "SWAPSPACE2" magic.
func swapHeader(pages int64) []byte {
	h := make([]byte, PageSize)
	binary.NativeEndian.PutUint32(h[1024:], 1)
	binary.NativeEndian.PutUint32(h[1028:], uint32(pages-1))
	binary.NativeEndian.PutUint32(h[1032:], 0)
	copy(h[1036:1052], newUUID())
	copy(h[1052:1068], "memplan-probe")
	copy(h[PageSize-10:], "SWAPSPACE2")
	return h
}

func newUUID() []byte {
	u := make([]byte, 16)
	f, err := os.Open("/dev/urandom")
	if err == nil {
		_, _ = f.Read(u)
		f.Close()
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// hostLockName is an abstract unix socket: host-wide (per network
// namespace), gone when the holder dies, and it leaves no file behind.
const hostLockName = "@memplan-probe"

func (h *OSHost) Lock() (io.Closer, error) {
	name := h.lockName
	if name == "" {
		name = hostLockName
	}
	l, err := net.Listen("unix", name)
	if err == nil {
		return l, nil
	}
	if errors.Is(err, unix.EADDRINUSE) {
		if pid := lockHolder(name); pid > 0 {
			return nil, fmt.Errorf("%w on this host (pid %d); wait for it to finish", ErrBusy, pid)
		}
		return nil, fmt.Errorf("%w on this host; wait for it to finish", ErrBusy)
	}
	return nil, fmt.Errorf("taking the probe lock: %w", err)
}

// lockHolder asks the kernel which process listens on the lock socket.
func lockHolder(name string) int {
	c, err := net.Dial("unix", name)
	if err != nil {
		return 0
	}
	defer c.Close()
	sc, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = sc.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// Swap flags from include/linux/swap.h; x/sys/unix has no wrapper.
const (
	swapFlagPrefer   = 0x8000
	swapFlagPrioMask = 0x7fff
)

func (h *OSHost) Swapon(name string, priority int) error {
	p, err := unix.BytePtrFromString(h.Path(name))
	if err != nil {
		return err
	}
	flags := uintptr(swapFlagPrefer | (priority & swapFlagPrioMask))
	if _, _, e := unix.Syscall(unix.SYS_SWAPON, uintptr(unsafe.Pointer(p)), flags, 0); e != 0 {
		return &os.PathError{Op: "swapon", Path: name, Err: e}
	}
	return nil
}

func (h *OSHost) Swapoff(name string) error {
	p, err := unix.BytePtrFromString(h.Path(name))
	if err != nil {
		return err
	}
	if _, _, e := unix.Syscall(unix.SYS_SWAPOFF, uintptr(unsafe.Pointer(p)), 0, 0); e != 0 {
		return &os.PathError{Op: "swapoff", Path: name, Err: e}
	}
	return nil
}

// pageSize is the kernel's page size: swap headers and zram accounting use it.
var PageSize = int64(os.Getpagesize())

// readString reads a one-line kernel attribute without its newline.
func ReadString(h Host, name string) (string, error) {
	b, err := h.ReadFile(name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func WriteString(h Host, name, v string) error { return h.WriteFile(name, []byte(v)) }

func Exists(h Host, name string) bool {
	_, err := h.Stat(name)
	return err == nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
