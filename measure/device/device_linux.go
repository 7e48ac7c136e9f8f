//go:build linux

package device

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"

	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/memplan/memplan/units"
	"golang.org/x/sys/unix"
)

func init() { platformProfile = profileLinux }

func profileLinux(ctx context.Context, dir string, opts Options) (*Profile, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPath, dir, err)
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(abs, &sfs); err != nil {
		return nil, fmt.Errorf("%w: %s: statfs: %v", ErrPath, dir, err)
	}
	if avail := units.Bytes(sfs.Bavail) * units.Bytes(sfs.Bsize); avail < opts.Size+Headroom {
		return nil, fmt.Errorf("%w: not enough free space in %s: the test file needs %v plus %v headroom, %v is available; use --size to test with a smaller file",
			ErrPath, dir, opts.Size, Headroom, avail)
	}

	start := time.Now()
	p := &Profile{
		Path:            abs,
		FileSize:        opts.Size,
		DurationPerTest: units.Duration(opts.Duration),
		StartedAt:       start.UTC().Truncate(time.Second),
		CPUs:            runtime.NumCPU(),
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		p.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	describeFilesystem(p, opts, &sfs)

	name, err := createTemp(abs, opts.Record)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot create the test file in %s: %v", ErrPath, dir, err)
	}
	defer os.Remove(name)

	direct := true
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_CLOEXEC|unix.O_DIRECT, 0)
	if errors.Is(err, unix.EINVAL) {
		direct = false
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s refused O_DIRECT: I/O went through the page cache, so the figures describe memory, not the device", p.Filesystem))
		fd, err = unix.Open(name, unix.O_RDWR|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the test file %s: %w", name, err)
	}
	defer unix.Close(fd)
	p.DirectIO = direct && !memoryFS[p.Filesystem]

	r := &runner{fd: fd, dir: dir, size: int64(opts.Size), direct: direct}
	if direct {
		if err := aioProbe(); err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("Linux AIO is unavailable (%v): queue depth %d used %d threads of synchronous I/O, which on %d CPUs may fall short of the device's queue", err, queueDepth, queueDepth, p.CPUs))
		} else {
			r.aio = true
		}
	}

	steps := opts.selected()
	progress := func(i int, name string, budget time.Duration) {
		if opts.Progress != nil {
			opts.Progress(Step{Index: i, Total: len(steps) + 1, Name: name, Budget: budget})
		}
	}

	progress(1, "fill", 0)
	fillStart := time.Now()
	if err := r.fill(ctx); err != nil {
		return nil, interrupted(ctx, dir, err)
	}
	p.FillSeconds = time.Since(fillStart).Seconds()
	p.FillMBPerSec = float64(opts.Size) / 1e6 / p.FillSeconds

	for i, s := range steps {
		progress(i+2, s.name, opts.Duration)
		t := &Test{Name: s.name, Pattern: s.pattern, Op: "read", BlockBytes: s.bs, QueueDepth: s.qd}
		if s.write {
			t.Op = "write"
		}
		if err := r.run(ctx, t, s.random, s.write, opts.Duration); err != nil {
			return nil, interrupted(ctx, dir, fmt.Errorf("%s: %w", s.name, err))
		}
		*s.field(p) = t
		if s.random && t.Ops < 1000 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s completed only %d operations: its p99 and p99.9 rest on a handful of samples; give it more --duration", s.name, t.Ops))
		}
	}
	p.Elapsed = units.Duration(time.Since(start).Round(time.Millisecond))
	return p, nil
}

func interrupted(ctx context.Context, dir string, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("device profile of %s interrupted (test file removed): %w", dir, ctx.Err())
	case errors.Is(err, ErrPath):
		return err
	}
	return fmt.Errorf("device profile of %s: %w", dir, err)
}

// devDescribeFilesystem fills in the filesystem, mount and block device of
// p.Path, with warnings when the figures will not describe a real device.
func describeFilesystem(p *Profile, opts Options, sfs *unix.Statfs_t) {
	p.Filesystem = fsMagic[int64(sfs.Type)]
	mf, err := os.Open(filepath.Join(opts.procRoot, "self", "mountinfo"))
	var mounts []host.Mount
	if err == nil {
		mounts, err = host.ParseMountInfo(mf)
		mf.Close()
	}
	m, found := host.FindMount(mounts, p.Path)
	switch {
	case err != nil:
		p.Warnings = append(p.Warnings, fmt.Sprintf("cannot read the mount table (%v): device model and rotational flag unknown", err))
		found = false
	case !found:
		p.Warnings = append(p.Warnings, fmt.Sprintf("no mount holds %s in the mount table: device model and rotational flag unknown", p.Path))
	default:
		p.Filesystem, p.MountPoint, p.MountSource = m.FSType, m.MountPoint, m.Source
	}
	if p.Filesystem == "" {
		p.Filesystem = fmt.Sprintf("unknown (magic %#x)", sfs.Type)
	}
	if memoryFS[p.Filesystem] {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s keeps files in RAM: the figures describe memory, not a swap device", p.Filesystem))
		return
	}
	if !found {
		return
	}
	major, minor := m.Major, m.Minor
	if major == 0 {
		// btrfs and others mount on an anonymous device; the source names the disk.
		var st unix.Stat_t
		if filepath.IsAbs(m.Source) && unix.Stat(m.Source, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
			major, minor = int(unix.Major(uint64(st.Rdev))), int(unix.Minor(uint64(st.Rdev)))
		}
	}
	if major == 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("no block device behind %s (%s from %q): device model and rotational flag unknown", p.MountPoint, p.Filesystem, p.MountSource))
		return
	}
	bd, err := host.ResolveBlock(opts.sysRoot, major, minor)
	if err != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("cannot describe the block device: %v", err))
		return
	}
	p.Device = bd
	switch bd.Driver {
	case "virtio_blk", "virtio_scsi", "xen_blkfront", "vmw_pvscsi", "hv_storvsc":
		p.Warnings = append(p.Warnings, fmt.Sprintf("virtual disk (%s): the figures include the hypervisor's caching, and the rotational flag is whatever the hypervisor reports", bd.Driver))
	}
	if opts.Size < smallFileWarning {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the test file (%v) is small: a device or hypervisor cache may hold all of it and flatter the figures; use --size %v or more", opts.Size, smallFileWarning))
	}
}

// devFSMagic names filesystems by statfs f_type, for when mountinfo cannot.
var fsMagic = map[int64]string{
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0xF2F52010: "f2fs",
	0x01021994: "tmpfs",
	0x858458F6: "ramfs",
	0x2FC12FC1: "zfs",
	0x6969:     "nfs",
	0x794C7630: "overlay",
}

// devRunner runs the tests on one open file.
type runner struct {
	fd     int
	dir    string // for messages
	size   int64
	direct bool
	aio    bool
}

// devBuffers returns n page-aligned buffers of bs bytes, filled with random
// bytes so that compressing or deduplicating storage cannot shortcut writes.
// They live outside the Go heap because the kernel writes into them after
// io_submit returns; release frees them.
func buffers(n, bs int) (bufs [][]byte, release func(), err error) {
	mem, err := unix.Mmap(-1, 0, n*bs, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("allocating %d I/O buffers: %w", n, err)
	}
	_, _ = rand.Read(mem)
	for i := range n {
		bufs = append(bufs, mem[i*bs:(i+1)*bs:(i+1)*bs])
	}
	return bufs, func() { unix.Munmap(mem) }, nil
}

// fill writes the whole file once. Reads of a preallocated but never
// written extent return zeros without touching the device, so the test file
// must hold real blocks before anything is timed.
func (r *runner) fill(ctx context.Context) error {
	if err := unix.Fallocate(r.fd, 0, 0, r.size); err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("%w: not enough free space in %s: preallocating the %v test file failed; use --size to test with a smaller file", ErrPath, r.dir, units.Bytes(r.size))
		}
		return fmt.Errorf("preallocating the test file: %w", err)
	}
	bufs, release, err := buffers(1, seqBlock)
	if err != nil {
		return err
	}
	defer release()
	buf := bufs[0]
	for off := int64(0); off < r.size; off += seqBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		for b := 0; b < len(buf); b += randomBlock {
			binary.LittleEndian.PutUint64(buf[b:], uint64(off)+uint64(b))
		}
		if err := pwriteFull(r.fd, buf, off); err != nil {
			return fmt.Errorf("filling the test file at offset %d: %w", off, err)
		}
	}
	if err := unix.Fdatasync(r.fd); err != nil {
		return fmt.Errorf("syncing the test file: %w", err)
	}
	if !r.direct {
		_ = unix.Fadvise(r.fd, 0, 0, unix.FADV_DONTNEED)
	}
	return nil
}

func pwriteFull(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := unix.Pwrite(fd, b, off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("short write")
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// devStopper turns a time budget and a context into one flag the hot loops
// can poll with an atomic load. The budget starts when the first loop
// calls arm, after buffers are set up, so it is all spent on I/O.
type stopper struct {
	flag   atomic.Bool
	budget time.Duration
	once   sync.Once
	timer  *time.Timer
	unreg  func() bool
}

func newStopper(ctx context.Context, budget time.Duration) *stopper {
	s := &stopper{budget: budget}
	s.unreg = context.AfterFunc(ctx, s.stop)
	return s
}

func (s *stopper) arm() {
	s.once.Do(func() { s.timer = time.AfterFunc(s.budget, s.stop) })
}

func (s *stopper) stopped() bool { return s.flag.Load() }
func (s *stopper) stop()         { s.flag.Store(true) }

func (s *stopper) release() {
	s.once.Do(func() {}) // no timer can start after this
	if s.timer != nil {
		s.timer.Stop()
	}
	s.unreg()
}

// devOffsets generates the offsets of one stream of operations.
type offsets struct {
	rng    *mrand.Rand
	random bool
	bs     int64
	blocks int64
	next   int64
}

func (r *runner) offsets(random bool, bs int, stream int) *offsets {
	return &offsets{
		rng:    mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), uint64(stream))),
		random: random,
		bs:     int64(bs),
		blocks: r.size / int64(bs),
	}
}

func (o *offsets) take() int64 {
	if o.random {
		return o.rng.Int64N(o.blocks) * o.bs
	}
	off := o.next * o.bs
	o.next = (o.next + 1) % o.blocks
	return off
}

// run times one test and fills in t.
func (r *runner) run(ctx context.Context, t *Test, random, write bool, budget time.Duration) error {
	st := newStopper(ctx, budget)
	defer st.release()
	var (
		h       measure.Hist
		elapsed time.Duration
		err     error
	)
	switch {
	case t.QueueDepth == 1:
		t.Engine = "psync"
		h, elapsed, err = r.runSync(st, random, write, t.BlockBytes, 0, rawSyscalls())
	case r.aio:
		t.Engine = "libaio"
		h, elapsed, err = r.runAIO(st, random, write, t.BlockBytes, t.QueueDepth)
	default:
		t.Engine = fmt.Sprintf("psync, %d threads", t.QueueDepth)
		h, elapsed, err = r.runThreads(st, random, write, t.BlockBytes, t.QueueDepth)
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t.Ops = h.Count()
	t.Latency = h.Summary()
	if elapsed > 0 {
		t.Seconds = elapsed.Seconds()
		t.IOPS = float64(h.Count()) / t.Seconds
		t.MBPerSec = float64(h.Count()) * float64(t.BlockBytes) / 1e6 / t.Seconds
	}
	return nil
}

// rawSyscalls says whether the single-stream loops (QD1 and the AIO
// submitter) make their I/O system calls raw: without telling the Go
// runtime they are in a system call. Measured with bench/qd1path on this
// host when it was quiet (2026-12-02, 12 paired rounds of 3 s against fio
// on one file): the loop through unix.Pread on a locked thread did 9.3%
// (3.4-14.9%) fewer IOPS than fio, the same loop with a raw system call
// 2.0% (-3.5..+7.2%), a C loop +2.9% (-0.9..+6.9%). The runtime's entry to
// and exit from a blocking system call cost more than the read's
// difference between tools. A raw call keeps its P (processor) while it
// blocks, so it is used only where another P is free for the rest of the
// program (the timer that ends the test, progress, signals): GOMAXPROCS of
// at least 2. Several streams (runThreads) never use it: with raw calls
// only GOMAXPROCS of them could block at once.
func rawSyscalls() bool { return runtime.GOMAXPROCS(0) >= 2 }

// pio is one pread (or pwrite) of buf at off, raw when raw is set.
func pio(fd int, buf []byte, off int64, write, raw bool) (int, error) {
	if !raw {
		if write {
			return unix.Pwrite(fd, buf, off)
		}
		return unix.Pread(fd, buf, off)
	}
	nr := uintptr(unix.SYS_PREAD64)
	if write {
		nr = unix.SYS_PWRITE64
	}
	n, _, e := unix.RawSyscall6(nr, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)), uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// runSync issues one operation at a time, as fio's psync engine; raw makes
// its system calls raw (rawSyscalls). The buffer is mmap'd, outside the Go
// heap.
func (r *runner) runSync(st *stopper, random, write bool, bs, stream int, raw bool) (measure.Hist, time.Duration, error) {
	var h measure.Hist
	bufs, release, err := buffers(1, bs)
	if err != nil {
		return h, 0, err
	}
	defer release()
	buf := bufs[0]
	offs := r.offsets(random, bs, stream)
	// One OS thread for the whole loop, as fio's job thread. Measured with
	// bench/qd1path on this host (12 interleaved rounds against fio on one
	// file): the same loop on an unlocked goroutine had a p50 9% (2-16%)
	// above fio's and 10% fewer IOPS; locked, -1% (-4..+2%) and -4%.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st.arm()
	start := time.Now()
	last := start
	for seq := uint64(0); !st.stopped(); seq++ {
		off := offs.take()
		if write {
			binary.LittleEndian.PutUint64(buf, seq)
		}
		t0 := time.Now()
		n, err := pio(r.fd, buf, off, write, raw)
		t1 := time.Now()
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err == nil && n != bs {
			err = fmt.Errorf("short transfer: %d of %d bytes", n, bs)
		}
		if err != nil {
			return h, 0, fmt.Errorf("at offset %d: %w", off, err)
		}
		h.Add(t1.Sub(t0).Nanoseconds())
		last = t1
	}
	return h, last.Sub(start), nil
}

// runThreads keeps qd synchronous operations in flight with qd goroutines.
// It stands in for libaio when the kernel has none or the file is not
// opened with O_DIRECT (AIO then runs synchronously in io_submit). The Go
// scheduler hands a blocked thread's processor to the next goroutine only
// after a sysmon tick, so on few CPUs this falls short of qd; the profile
// warns when it is used.
func (r *runner) runThreads(st *stopper, random, write bool, bs, qd int) (measure.Hist, time.Duration, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total measure.Hist
		first error
	)
	var end time.Duration
	for w := range qd {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, el, err := r.runSync(st, random, write, bs, w, false)
			if err != nil {
				st.stop()
			}
			mu.Lock()
			defer mu.Unlock()
			total.Merge(&h)
			end = max(end, el)
			if first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	return total, end, first
}

// Linux native AIO, as fio's libaio engine: one thread keeps qd operations
// in flight with io_submit and reaps them with io_getevents. The structures
// are those of <linux/aio_abi.h>; both are the same size on every
// architecture (aio_key and aio_rw_flags swap places on big-endian ones, and
// both stay zero here).
type iocb struct {
	data      uint64
	key       uint32
	rwFlags   int32
	opcode    uint16
	reqprio   int16
	fildes    uint32
	buf       uint64
	nbytes    uint64
	offset    int64
	reserved2 uint64
	flags     uint32
	resfd     uint32
}

type ioEvent struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

const (
	iocbCmdPread  = 0
	iocbCmdPwrite = 1
)

// Compile-time checks: iocb is 64 bytes, io_event 32.
var (
	_ [64 - unsafe.Sizeof(iocb{})]struct{}
	_ [unsafe.Sizeof(iocb{}) - 64]struct{}
	_ [32 - unsafe.Sizeof(ioEvent{})]struct{}
	_ [unsafe.Sizeof(ioEvent{}) - 32]struct{}
)

// devAIOProbe reports whether io_setup works (kernels built without AIO,
// seccomp filters and a full fs.aio-max-nr make it fail).
func aioProbe() error {
	var actx uintptr
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, uintptr(queueDepth), uintptr(unsafe.Pointer(&actx)), 0); e != 0 {
		return e
	}
	unix.Syscall(unix.SYS_IO_DESTROY, actx, 0, 0)
	return nil
}

func (r *runner) runAIO(st *stopper, random, write bool, bs, qd int) (measure.Hist, time.Duration, error) {
	var h measure.Hist
	bufs, release, err := buffers(qd, bs)
	if err != nil {
		return h, 0, err
	}
	defer release()
	runtime.LockOSThread() // one submitting thread, as in runSync
	defer runtime.UnlockOSThread()
	// io_submit and io_getevents raw, as the QD1 loop's reads (rawSyscalls).
	raw := rawSyscalls()
	var actx uintptr
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, uintptr(qd), uintptr(unsafe.Pointer(&actx)), 0); e != 0 {
		return h, 0, fmt.Errorf("io_setup: %w", e)
	}
	// io_destroy waits for whatever is still in flight, so it runs before
	// release unmaps the buffers the kernel may still be writing into.
	defer unix.Syscall(unix.SYS_IO_DESTROY, actx, 0, 0)

	op := uint16(iocbCmdPread)
	if write {
		op = iocbCmdPwrite
	}
	iocbs := make([]iocb, qd)
	for i := range iocbs {
		iocbs[i] = iocb{data: uint64(i), opcode: op, fildes: uint32(r.fd),
			buf: uint64(uintptr(unsafe.Pointer(&bufs[i][0]))), nbytes: uint64(bs)}
	}
	free := make([]int, 0, qd)
	for i := range qd {
		free = append(free, i)
	}
	events := make([]ioEvent, qd)
	one := make([]*iocb, 1)
	submitted := make([]time.Time, qd)
	offs := r.offsets(random, bs, 0)
	inflight := 0
	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
		st.stop()
	}
	var seq uint64
	var start, last time.Time
	// reap waits up to timeout for a completion and records all that are
	// done; it returns false when the kernel refused io_getevents, after
	// which nothing can be reaped.
	reap := func(timeout *unix.Timespec) (bool, error) {
		var n uintptr
		var e unix.Errno
		if raw {
			n, _, e = unix.RawSyscall6(unix.SYS_IO_GETEVENTS, actx, 1, uintptr(qd),
				uintptr(unsafe.Pointer(&events[0])), uintptr(unsafe.Pointer(timeout)), 0)
		} else {
			n, _, e = unix.Syscall6(unix.SYS_IO_GETEVENTS, actx, 1, uintptr(qd),
				uintptr(unsafe.Pointer(&events[0])), uintptr(unsafe.Pointer(timeout)), 0)
		}
		now := time.Now()
		if e == unix.EINTR {
			return true, nil
		}
		if e != 0 {
			return false, fmt.Errorf("io_getevents: %w", e)
		}
		for _, ev := range events[:n] {
			s := int(ev.data)
			inflight--
			free = append(free, s)
			switch {
			case ev.res < 0:
				fail(fmt.Errorf("at offset %d: %w", iocbs[s].offset, unix.Errno(-ev.res)))
			case ev.res != int64(bs):
				fail(fmt.Errorf("at offset %d: short transfer: %d of %d bytes", iocbs[s].offset, ev.res, bs))
			default:
				h.Add(now.Sub(submitted[s]).Nanoseconds())
			}
			last = now
		}
		return true, nil
	}
	wait := unix.Timespec{Nsec: int64(20 * time.Millisecond)}
	st.arm()
	start = time.Now()
	last = start
	for {
		// Fill the queue with one io_submit per operation, as fio's libaio
		// engine does by default (iodepth_batch_submit=1): on a virtio
		// disk, submitting the free slots as one batch cost 10-25% of the
		// IOPS. Then wait for at least one completion and reap all that
		// are done (fio's iodepth_batch_complete_max=32; its default of
		// one per call leaves completed operations waiting, and counting,
		// behind the ones reaped first).
		for len(free) > 0 && !st.stopped() {
			s := free[len(free)-1]
			iocbs[s].offset = offs.take()
			if write {
				seq++
				binary.LittleEndian.PutUint64(bufs[s], seq)
			}
			submitted[s] = time.Now()
			one[0] = &iocbs[s]
			err := ioSubmit(actx, one, raw)
			if errors.Is(err, unix.EAGAIN) && inflight > 0 {
				break // the kernel is full; reap first
			}
			if err != nil {
				fail(fmt.Errorf("io_submit: %w", err))
				break
			}
			free = free[:len(free)-1]
			inflight++
		}
		if inflight == 0 {
			break
		}
		if ok, err := reap(&wait); !ok {
			// Nothing in flight can be reaped any more; io_destroy
			// (deferred) waits for it before the buffers go.
			return h, 0, err
		}
	}
	return h, last.Sub(start), firstErr
}

// ioSubmit submits the operations in cbs (one, in practice), raw when raw
// is set (rawSyscalls).
func ioSubmit(actx uintptr, cbs []*iocb, raw bool) error {
	for {
		var e unix.Errno
		if raw {
			_, _, e = unix.RawSyscall(unix.SYS_IO_SUBMIT, actx, uintptr(len(cbs)), uintptr(unsafe.Pointer(&cbs[0])))
		} else {
			_, _, e = unix.Syscall(unix.SYS_IO_SUBMIT, actx, uintptr(len(cbs)), uintptr(unsafe.Pointer(&cbs[0])))
		}
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// devCreateTemp creates the test file under a name (matching
// DeviceTempPattern) that record learns before the file exists.
func createTemp(dir string, record func(string) error) (string, error) {
	for i := 0; ; i++ {
		// The pid and a random part: pids repeat across containers that
		// share a directory, and the journal must name only our file.
		name := filepath.Join(dir, fmt.Sprintf(".memplan-device-%d-%08x.tmp", os.Getpid(), mrand.Uint32()))
		if record != nil {
			if err := record(name); err != nil {
				return "", err
			}
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", errors.Unwrap(err)
		}
		return name, f.Close()
	}
}
