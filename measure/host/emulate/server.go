//go:build linux

package emulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// Config is what the server needs: the device to emulate, the size of the
// one file it exposes, and where to mount.
type Config struct {
	Device     Device `json:"device"`
	Size       int64  `json:"size"`       // bytes, a multiple of 4 KiB
	Mountpoint string `json:"mountpoint"` // an empty directory
	Seed       uint64 `json:"seed"`       // of the service-time draws; the same seed gives the same sequence
	// Compensation is taken off each request's completion (its unit stays
	// busy for the whole drawn service time): the floor, what a request
	// costs in the kernel's FUSE and loop path outside the server (see
	// MeasureFloor). Draws below it are completed at once, so the emulated
	// distribution is right above the floor and clipped to it below.
	Compensation time.Duration `json:"compensation,omitempty"`
}

// The names inside the mount and in /proc/self/mountinfo, by which Leftovers
// recognises the emulator's mounts after a crash.
const (
	DiskName  = "disk"  // the emulated device's contents
	StatsName = "stats" // JSON counters, see Stats
	FsName    = "memplan-emulate"
	fsSubtype = "memplan"
)

func (c *Config) validate() error {
	if err := c.Device.Validate(); err != nil {
		return err
	}
	if c.Size <= 0 || c.Size%pageBytes != 0 {
		return fmt.Errorf("emulated device size %d: want a positive multiple of 4096 bytes", c.Size)
	}
	if c.Mountpoint == "" {
		return errors.New("emulated device: no mount point")
	}
	return nil
}

// Stats are the server's counters, read from the stats file of the mount:
// the requests it served and how late it answered them against the model
// (the timer's wake-up error, the part of the floor inside the server).
type Stats struct {
	Reads, Writes         int64
	ReadBytes, WriteBytes int64
	LateP50, LateP99      time.Duration
	MaxInFlight           int
	WakeAhead             time.Duration // how early the server now wakes to be on time at the median
}

type server struct {
	cfg  Config
	data []byte
	q    *queue

	ahead atomic.Int64 // how early to wake, ns: the tracked median wake-up error

	mu       sync.Mutex
	st       Stats
	late     []int64 // a reservoir of the last lateness samples
	lateN    int
	inFlight int
}

const lateKeep = 4096

func (s *server) record(op Op, n int, late int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == Read {
		s.st.Reads++
		s.st.ReadBytes += int64(n)
	} else {
		s.st.Writes++
		s.st.WriteBytes += int64(n)
	}
	if len(s.late) < lateKeep {
		s.late = append(s.late, late)
	} else {
		s.late[s.lateN%lateKeep] = late
	}
	s.lateN++
}

func (s *server) enter() {
	s.mu.Lock()
	s.inFlight++
	s.st.MaxInFlight = max(s.st.MaxInFlight, s.inFlight)
	s.mu.Unlock()
}

func (s *server) leave() {
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
}

func (s *server) stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.WakeAhead = time.Duration(s.ahead.Load())
	l := append([]int64(nil), s.late...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	if len(l) > 0 {
		st.LateP50 = time.Duration(l[len(l)/2])
		st.LateP99 = time.Duration(l[len(l)*99/100])
	}
	return st
}

// serve holds one request for the model's time. The copy is done before the
// wait so that the time the request spends in the server is the model's,
// not the model's plus the copy.
func (s *server) serve(op Op, buf []byte, off int64) int {
	s.enter()
	defer s.leave()
	arrive := sinceBoot()
	done := s.q.schedule(op, off, len(buf), arrive)
	n := 0
	if off < int64(len(s.data)) {
		if op == Read {
			n = copy(buf, s.data[off:])
		} else {
			n = copy(s.data[off:], buf)
		}
	}
	if ahead := s.ahead.Load(); done-ahead > sinceBoot() {
		sleepUntil(done - ahead)
		s.track(sinceBoot() - done)
	}
	s.record(op, n, max(0, sinceBoot()-done))
	return n
}

// track follows the median of the wake-up error: a thread woken from a
// timed sleep runs tens of microseconds after the time asked for on a busy
// (virtual) machine, and more under load, which would be added to every
// emulated latency. Sleeping that much less cancels it for the median. The
// estimate moves 1 us towards each error's sign, which converges on the
// median (not the mean, which the tail of late wake-ups would pull up).
func (s *server) track(late int64) {
	const step, most = 1000, 500_000
	switch a := s.ahead.Load(); {
	case late > 0 && a < most:
		s.ahead.Add(step)
	case late < 0 && a >= step:
		s.ahead.Add(-step)
	}
}

type rootNode struct{ fs.Inode }

type diskNode struct {
	fs.Inode
	s *server
}

var (
	_ fs.NodeOpener    = (*diskNode)(nil)
	_ fs.NodeReader    = (*diskNode)(nil)
	_ fs.NodeWriter    = (*diskNode)(nil)
	_ fs.NodeGetattrer = (*diskNode)(nil)
	_ fs.NodeFsyncer   = (*diskNode)(nil)
)

// Open answers with FOPEN_DIRECT_IO: the kernel then keeps no page cache for
// the file and sends every read and write to the server, which is the point.
func (d *diskNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_PARALLEL_DIRECT_WRITES, 0
}

func (d *diskNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o600
	out.Size = uint64(len(d.s.data))
	out.Blocks = out.Size / 512
	out.Blksize = pageBytes
	return 0
}

func (d *diskNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n := d.s.serve(Read, dest, off)
	return fuse.ReadResultData(dest[:n]), 0
}

func (d *diskNode) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if off+int64(len(data)) > int64(len(d.s.data)) {
		return 0, syscall.ENOSPC
	}
	return uint32(d.s.serve(Write, data, off)), 0
}

// Fsync is a no-op: the contents live in the server's memory, which is as
// durable as they get; a flush costs nothing on the emulated drive either
// (write caches are not modelled).
func (d *diskNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	return 0
}

type statsNode struct {
	fs.Inode
	s *server
}

var (
	_ fs.NodeOpener = (*statsNode)(nil)
	_ fs.NodeReader = (*statsNode)(nil)
)

func (n *statsNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *statsNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	b, _ := json.Marshal(n.s.stats())
	b = append(b, '\n')
	if off >= int64(len(b)) {
		return fuse.ReadResultData(nil), 0
	}
	return fuse.ReadResultData(b[off:]), 0
}

// Serve mounts the emulated device at cfg.Mountpoint and serves it until
// ctx is done (then it unmounts, which fails while the file is in use: the
// server does not leave a swap device without its backing) or until the
// file system is unmounted from outside. ready is called once the mount is
// up. Serve locks all its memory and should run in a process of its own
// (see Start): a server sharing a process, or a memory cgroup, with the job
// that swaps to it can be paged out by that job's pressure and deadlock.
func Serve(ctx context.Context, cfg Config, ready func()) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if err := CheckHost(); err != nil {
		return err
	}
	// Each request in service holds an OS thread asleep in the kernel
	// (sleepUntil). A P stays attached to a thread in a system call until
	// the runtime's monitor takes it back, which can take up to 10 ms when
	// it has been idle; with more Ps than requests ever in flight another
	// one is always free for the next request.
	runtime.GOMAXPROCS(256)
	boostThreads()
	debug.SetGCPercent(400) // the heap is small and fixed; collect seldom
	data, err := unix.Mmap(-1, 0, int(cfg.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("allocating the emulated device's %d bytes: %w", cfg.Size, err)
	}
	defer unix.Munmap(data)
	// MCL_FUTURE also locks what the runtime maps later (new heap,
	// thread stacks), so no page of the server is ever swapped out, to
	// itself or elsewhere.
	if err := unix.Mlockall(unix.MCL_CURRENT | unix.MCL_FUTURE); err != nil {
		return fmt.Errorf("locking the emulator's memory (needs root or CAP_IPC_LOCK and RLIMIT_MEMLOCK): %w", err)
	}
	// The OOM killer must take the job, never the server whose loss
	// would turn the job's swapped pages into I/O errors.
	_ = os.WriteFile("/proc/self/oom_score_adj", []byte("-1000"), 0)

	s := &server{cfg: cfg, data: data, q: newQueue(cfg.Device, cfg.Seed)}
	s.q.comp = int64(cfg.Compensation)
	root := &rootNode{}
	zero := time.Duration(0)
	opts := &fs.Options{
		MountOptions: fuse.MountOptions{
			FsName:            FsName,
			Name:              fsSubtype,
			DirectMountStrict: true, // root mounts itself; no fusermount needed
			MaxBackground:     128,  // requests in flight the kernel allows: above any queue depth tested
			MaxWrite:          1 << 20,
			// ASYNC_DIO lets the loop device's direct I/O go to the
			// server as concurrent requests instead of one at a time.
			ExtraCapabilities: fuse.CAP_ASYNC_DIO,
			DisableXAttrs:     true,
			AllowOther:        true,
		},
		EntryTimeout: &zero,
		AttrTimeout:  &zero,
		OnAdd: func(ctx context.Context) {
			root.AddChild(DiskName, root.NewPersistentInode(ctx, &diskNode{s: s}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2}), true)
			root.AddChild(StatsName, root.NewPersistentInode(ctx, &statsNode{s: s}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 3}), true)
		},
	}
	srv, err := fs.Mount(cfg.Mountpoint, root, opts)
	if err != nil {
		return fmt.Errorf("mounting the emulated device at %s: %w", cfg.Mountpoint, err)
	}
	if ready != nil {
		ready()
	}
	done := make(chan struct{})
	go func() { srv.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			if err := srv.Unmount(); err != nil && isFuseMount(cfg.Mountpoint) {
				// In use (the loop device holds the file): keep
				// serving; the owner's teardown unmounts after
				// swapoff and detaching the loop device.
				fmt.Fprintf(os.Stderr, "memplan emulator: not stopping, %s is in use: %v\n", cfg.Mountpoint, err)
				ctx = context.Background()
			}
		}
	}
}

// serveSignals is the context a server process runs under: SIGTERM asks it
// to stop (which it does once its file is no longer used); SIGINT and SIGHUP
// are ignored, since a Ctrl-C meant for memplan must not take the swap
// device away from under the job.
func serveSignals() (context.Context, context.CancelFunc) {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP)
	return signal.NotifyContext(context.Background(), syscall.SIGTERM)
}

// boostThreads gives every thread of the process nice -20 and a timer slack
// of 1 ns. Both are per thread on Linux and inherited by the threads a
// thread creates, so setting them on the threads that exist now covers the
// ones the runtime starts later. On a host whose CPUs are busy a woken
// server thread would otherwise wait behind the other work for its turn
// and answer milliseconds late; at nice -20 the scheduler runs it at once,
// and it runs only for the microseconds of a copy and a reply.
func boostThreads() {
	for range 2 { // again for threads started while the first pass ran
		ents, _ := os.ReadDir("/proc/self/task")
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			_ = unix.Setpriority(unix.PRIO_PROCESS, tid, -20)
			_ = os.WriteFile("/proc/self/task/"+e.Name()+"/timerslack_ns", []byte("1"), 0)
		}
	}
}

// CheckHost says what the host lacks for the emulator: FUSE, loop devices.
func CheckHost() error {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("no /dev/fuse: the kernel has no FUSE (try `modprobe fuse`; a container needs --device /dev/fuse): %w", err)
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		return fmt.Errorf("no /dev/loop-control: the kernel has no loop devices (try `modprobe loop`): %w", err)
	}
	return nil
}
