package measure

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
	"gonum.org/v1/gonum/stat"
)

// Device profile: 4 KiB random and 1 MiB sequential I/O on a temporary file
// in a directory, with O_DIRECT so the figures are the device's, not the
// page cache's. The transfer model carries a slowdown curve measured on one
// device over to another by the ratio of their per-fault service times; these
// are the figures it needs for the device under the probe's swap file.

// Defaults for DeviceOptions; --quick uses the smaller ones.
const (
	DefaultDeviceSize        = units.GiB
	DefaultDeviceDuration    = 5 * time.Second
	QuickDeviceSize          = 256 * units.MiB
	QuickDeviceDuration      = 2 * time.Second
	deviceMinSize            = 8 * units.MiB
	deviceHeadroom           = 64 * units.MiB // left free on the filesystem after the test file
	deviceSmallFileWarning   = 256 * units.MiB
	deviceRandomBlock        = 4096
	deviceSeqBlock           = 1 << 20
	deviceMaxDurationPerTest = time.Hour
	deviceQueueDepth         = 32 // the deep queue: what NVMe and SATA NCQ need to reach their IOPS
)

// DeviceTempPattern is the name pattern (for filepath.Match) of the test file
// ProfileDevice creates; it removes it on every return path, so a file that
// matches is the leftover of a process killed with SIGKILL.
const DeviceTempPattern = ".memplan-device-*.tmp"

// ErrDevicePath marks a directory that cannot hold the device profile's test
// file: missing, not a directory, or short of space. The message names it.
var ErrDevicePath = errors.New("device profile")

// ErrDeviceOptions marks DeviceOptions out of range.
var ErrDeviceOptions = errors.New("device profile")

// DeviceOptions tune ProfileDevice. Zero values take the defaults.
type DeviceOptions struct {
	Size     units.Bytes   // test file size; rounded down to whole MiB
	Duration time.Duration // time budget of each test
	Quick    bool          // smaller defaults for Size and Duration
	// Tests names the tests to run (see DeviceTestNames); empty runs all.
	// The fill always runs.
	Tests []string
	// Progress, when set, is called before each step.
	Progress func(DeviceStep)
	// Record, when set, is told the test file's path before the file is
	// created (the probe journals it, so that cleanup after a kill -9
	// removes it); an error stops the profile before anything is created.
	Record func(path string) error

	// sysRoot and procRoot let tests point the block-device lookup at a
	// fixture tree; empty means the host's /sys and /proc.
	sysRoot, procRoot string
}

// DeviceStep describes the step ProfileDevice is about to run.
type DeviceStep struct {
	Index, Total int           // 1-based
	Name         string        // e.g. "fill", "rand-read-4k-qd32"
	Budget       time.Duration // zero for the fill
}

// DeviceProfile is the result of ProfileDevice. Latencies are in
// microseconds, rates in operations or 10^6 bytes per second.
type DeviceProfile struct {
	Path        string       `json:"path"`
	Filesystem  string       `json:"filesystem"`
	MountPoint  string       `json:"mount_point,omitempty"`
	MountSource string       `json:"mount_source,omitempty"`
	Device      *BlockDevice `json:"device,omitempty"` // nil: no block device behind the filesystem
	// DirectIO is true when the file was opened with O_DIRECT and the
	// filesystem is backed by a device; when false the figures describe the
	// page cache or memory, and Warnings say why.
	DirectIO bool     `json:"direct_io"`
	Warnings []string `json:"warnings,omitempty"`

	FileSize        units.Bytes    `json:"file_size"`
	DurationPerTest units.Duration `json:"duration_per_test"`
	StartedAt       time.Time      `json:"started_at"`
	Elapsed         units.Duration `json:"elapsed"`
	Kernel          string         `json:"kernel,omitempty"`
	CPUs            int            `json:"cpus"`

	// The tests; nil when DeviceOptions.Tests left them out.
	RandReadQD1   *DeviceTest `json:"rand_read_qd1,omitempty"`
	RandReadQD32  *DeviceTest `json:"rand_read_qd32,omitempty"`
	RandWriteQD1  *DeviceTest `json:"rand_write_qd1,omitempty"`
	RandWriteQD32 *DeviceTest `json:"rand_write_qd32,omitempty"`
	SeqRead       *DeviceTest `json:"seq_read,omitempty"`
	SeqWrite      *DeviceTest `json:"seq_write,omitempty"`
	FillMBPerSec  float64     `json:"fill_mb_per_s"`
	FillSeconds   float64     `json:"fill_seconds"`
}

// devTestSpec describes one of the six tests.
type devTestSpec struct {
	name    string
	random  bool
	write   bool
	bs, qd  int
	pattern string
	field   func(*DeviceProfile) **DeviceTest
}

// devTests are the tests in the order they run: reads before writes, so
// the reads see the file as the fill left it.
var devTests = []devTestSpec{
	{"rand-read-4k-qd1", true, false, deviceRandomBlock, 1, "random", func(p *DeviceProfile) **DeviceTest { return &p.RandReadQD1 }},
	{"rand-read-4k-qd32", true, false, deviceRandomBlock, deviceQueueDepth, "random", func(p *DeviceProfile) **DeviceTest { return &p.RandReadQD32 }},
	{"rand-write-4k-qd1", true, true, deviceRandomBlock, 1, "random", func(p *DeviceProfile) **DeviceTest { return &p.RandWriteQD1 }},
	{"rand-write-4k-qd32", true, true, deviceRandomBlock, deviceQueueDepth, "random", func(p *DeviceProfile) **DeviceTest { return &p.RandWriteQD32 }},
	{"seq-read-1m-qd1", false, false, deviceSeqBlock, 1, "sequential", func(p *DeviceProfile) **DeviceTest { return &p.SeqRead }},
	{"seq-write-1m-qd1", false, true, deviceSeqBlock, 1, "sequential", func(p *DeviceProfile) **DeviceTest { return &p.SeqWrite }},
}

// DeviceTestNames lists the tests ProfileDevice can run, in order.
func DeviceTestNames() []string {
	var out []string
	for _, t := range devTests {
		out = append(out, t.name)
	}
	return out
}

// selected returns the specs of the tests o asks for.
func (o DeviceOptions) selected() []devTestSpec {
	if len(o.Tests) == 0 {
		return devTests
	}
	var out []devTestSpec
	for _, t := range devTests {
		if slices.Contains(o.Tests, t.name) {
			out = append(out, t)
		}
	}
	return out
}

// BlockDevice is the disk under the filesystem, partitions and single-disk
// device-mapper layers resolved to the physical disk.
type BlockDevice struct {
	Name       string   `json:"name"`                // disk, e.g. "nvme0n1", "vda"
	MajorMinor string   `json:"major_minor"`         // of the device the filesystem is mounted from
	Partition  string   `json:"partition,omitempty"` // e.g. "nvme0n1p2"
	Stack      []string `json:"stack,omitempty"`     // layers followed: "dm-0 (vg-root)", "md0"
	Members    []string `json:"members,omitempty"`   // disks of a multi-disk layer (RAID, LVM)
	Model      string   `json:"model,omitempty"`
	Vendor     string   `json:"vendor,omitempty"`
	Driver     string   `json:"driver,omitempty"`
	// Rotational is the kernel's flag; nil when unknown. Virtual disks
	// report whatever the hypervisor says, often 1 for SSD-backed images.
	Rotational        *bool       `json:"rotational,omitempty"`
	LogicalBlockSize  int         `json:"logical_block_bytes,omitempty"`
	PhysicalBlockSize int         `json:"physical_block_bytes,omitempty"`
	Scheduler         string      `json:"scheduler,omitempty"`
	Size              units.Bytes `json:"size,omitempty"`
}

// DeviceTest is one timed test.
type DeviceTest struct {
	Name       string         `json:"name"`    // e.g. "rand-read-4k-qd32"
	Pattern    string         `json:"pattern"` // random or sequential
	Op         string         `json:"op"`      // read or write
	BlockBytes int            `json:"block_bytes"`
	QueueDepth int            `json:"queue_depth"`
	Engine     string         `json:"engine"` // how the queue depth was produced
	Ops        int64          `json:"ops"`
	Seconds    float64        `json:"seconds"`
	IOPS       float64        `json:"iops"`
	MBPerSec   float64        `json:"mb_per_s"`
	Latency    LatencySummary `json:"latency"`
}

// LatencySummary summarises the latency of every operation of a test, from
// just before its submission to the moment its completion was seen (fio's
// total latency, "lat"). Percentiles are nearest-rank, read from a
// histogram whose buckets are at most 1/64 of their value wide; count, min,
// max, mean and standard deviation are exact.
type LatencySummary struct {
	Count    int64           `json:"count"`
	MinUs    float64         `json:"min_us"`
	MeanUs   float64         `json:"mean_us"`
	StddevUs float64         `json:"stddev_us"`
	P50Us    float64         `json:"p50_us"`
	P90Us    float64         `json:"p90_us"`
	P99Us    float64         `json:"p99_us"`
	P999Us   float64         `json:"p99_9_us"`
	P9999Us  float64         `json:"p99_99_us"`
	MaxUs    float64         `json:"max_us"`
	Buckets  []LatencyBucket `json:"histogram"`
}

// LatencyBucket counts operations slower than the previous bucket's bound
// and no slower than UpToUs (1-2-5 steps).
type LatencyBucket struct {
	UpToUs float64 `json:"le_us"`
	Count  int64   `json:"count"`
}

// Tests lists the tests that ran, in the order they ran.
func (p *DeviceProfile) Tests() []*DeviceTest {
	var out []*DeviceTest
	for _, t := range devTests {
		if dt := *t.field(p); dt != nil {
			out = append(out, dt)
		}
	}
	return out
}

// DeviceName describes the device for people: its model when the kernel
// knows it, else its name and driver, else the filesystem.
func (p *DeviceProfile) DeviceName() string {
	d := p.Device
	switch {
	case d == nil && p.MountSource != "" && p.MountSource != p.Filesystem:
		return p.Filesystem + " " + p.MountSource
	case d == nil:
		return p.Filesystem
	// SATA disks all give "ATA" as the vendor and virtio ones a PCI vendor
	// id; neither helps a person.
	case d.Model != "" && d.Vendor != "" && d.Vendor != "ATA" && !strings.HasPrefix(d.Vendor, "0x") && !strings.Contains(d.Model, d.Vendor):
		return d.Vendor + " " + d.Model
	case d.Model != "":
		return d.Model
	case d.Driver != "":
		return d.Name + " (" + d.Driver + ")"
	}
	return d.Name
}

// Reference returns the figures the transfer model scales curves by (see
// model.ServiceTime). Latencies are the mean at queue depth 1, not the
// median: a job's runtime grows with the sum of its fault times, and the sum
// is the count times the mean; a device with a heavy tail must pay for it.
// IOPS are the deep-queue ceilings. Drives is 1 because the IOPS were
// measured through whatever RAID sits below the filesystem. Concurrency and
// dirty share describe the workload, so they are left for the caller.
// Figures of tests left out are zero.
func (p *DeviceProfile) Reference() model.Reference {
	mean := func(t *DeviceTest) units.Duration {
		if t == nil {
			return 0
		}
		return units.Duration(math.Round(t.Latency.MeanUs * 1e3))
	}
	iops := func(t *DeviceTest) float64 {
		if t == nil {
			return 0
		}
		return math.Round(t.IOPS)
	}
	return model.Reference{
		Device:       p.DeviceName(),
		ReadLatency:  mean(p.RandReadQD1),
		WriteLatency: mean(p.RandWriteQD1),
		ReadIOPS:     iops(p.RandReadQD32),
		WriteIOPS:    iops(p.RandWriteQD32),
		Drives:       1,
	}
}

// ProfileDevice measures the device under dir with a temporary file that it
// always removes, also when ctx is cancelled mid-test. It needs no root.
func ProfileDevice(ctx context.Context, dir string, opts DeviceOptions) (*DeviceProfile, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if devPlatformProfile == nil {
		return nil, fmt.Errorf("device profile of %s: needs Linux (O_DIRECT, /proc/self/mountinfo, /sys/block); this is %s", dir, runtime.GOOS)
	}
	return devPlatformProfile(ctx, dir, opts)
}

// devPlatformProfile is set by the platform file that can run the profile.
var devPlatformProfile func(ctx context.Context, dir string, opts DeviceOptions) (*DeviceProfile, error)

func (o DeviceOptions) withDefaults() DeviceOptions {
	if o.Size == 0 {
		o.Size = DefaultDeviceSize
		if o.Quick {
			o.Size = QuickDeviceSize
		}
	}
	if o.Duration == 0 {
		o.Duration = DefaultDeviceDuration
		if o.Quick {
			o.Duration = QuickDeviceDuration
		}
	}
	o.Size -= o.Size % deviceSeqBlock
	if o.sysRoot == "" {
		o.sysRoot = "/sys"
	}
	if o.procRoot == "" {
		o.procRoot = "/proc"
	}
	return o
}

func (o DeviceOptions) validate() error {
	switch {
	case o.Size < deviceMinSize:
		return fmt.Errorf("%w: test file size %v is too small, expected at least %v", ErrDeviceOptions, o.Size, deviceMinSize)
	case o.Duration < 0 || o.Duration > deviceMaxDurationPerTest:
		return fmt.Errorf("%w: duration per test %v is out of range, expected up to %v", ErrDeviceOptions, units.Duration(o.Duration), units.Duration(deviceMaxDurationPerTest))
	}
	for _, name := range o.Tests {
		if !slices.Contains(DeviceTestNames(), name) {
			return fmt.Errorf("%w: unknown test %q, expected some of %s", ErrDeviceOptions, name, strings.Join(DeviceTestNames(), ", "))
		}
	}
	return nil
}

// devCheckDir returns a clear error when dir cannot hold the test file.
func devCheckDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist; give --path a directory on the device to measure", ErrDevicePath, dir)
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrDevicePath, dir, errors.Unwrap(err))
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory; give --path the directory where the test file may go", ErrDevicePath, dir)
	}
	return nil
}

// devHist is a log-linear latency histogram in nanoseconds: values below
// 128 have a bucket each; above, each power of two is split into 64
// buckets, so a bucket is at most 1/64 of its value wide and its midpoint is
// within 0.8% of every value in it. It also keeps exact count, min, max,
// mean and variance (Welford).
type devHist struct {
	counts   [devHistBuckets]int64
	n        int64
	min, max int64
	mean, m2 float64
}

const (
	devHistSubBits = 6
	devHistSub     = 1 << devHistSubBits // buckets per power of two
	devHistBuckets = 2*devHistSub + (63-devHistSubBits)*devHistSub
)

func devHistIndex(v int64) int {
	if v < 0 {
		v = 0
	}
	if v < 2*devHistSub {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - devHistSubBits - 1 // v>>shift is in [64, 128)
	return 2*devHistSub + (shift-1)*devHistSub + int(v>>shift) - devHistSub
}

// devHistBounds returns the smallest and largest value of bucket i.
func devHistBounds(i int) (lo, hi int64) {
	if i < 2*devHistSub {
		return int64(i), int64(i)
	}
	shift := (i-2*devHistSub)/devHistSub + 1
	top := int64((i-2*devHistSub)%devHistSub + devHistSub)
	lo = top << shift
	return lo, lo + 1<<shift - 1
}

func (h *devHist) add(ns int64) {
	if ns < 0 {
		ns = 0
	}
	h.counts[devHistIndex(ns)]++
	if h.n == 0 || ns < h.min {
		h.min = ns
	}
	if ns > h.max {
		h.max = ns
	}
	h.n++
	d := float64(ns) - h.mean
	h.mean += d / float64(h.n)
	h.m2 += d * (float64(ns) - h.mean)
}

func (h *devHist) merge(o *devHist) {
	if o.n == 0 {
		return
	}
	if h.n == 0 {
		*h = *o
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
	n := h.n + o.n
	d := o.mean - h.mean
	h.m2 += o.m2 + d*d*float64(h.n)*float64(o.n)/float64(n)
	h.mean += d * float64(o.n) / float64(n)
	h.n = n
}

// quantiles returns nearest-rank quantiles (q in [0,1]) in nanoseconds,
// each the midpoint of its bucket clamped to the observed range.
func (h *devHist) quantiles(qs ...float64) []float64 {
	out := make([]float64, len(qs))
	if h.n == 0 {
		return out
	}
	var x, w []float64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		lo, hi := devHistBounds(i)
		x = append(x, (float64(lo)+float64(hi))/2)
		w = append(w, float64(c))
	}
	for k, q := range qs {
		v := stat.Quantile(q, stat.Empirical, x, w)
		out[k] = math.Min(math.Max(v, float64(h.min)), float64(h.max))
	}
	return out
}

func (h *devHist) summary() LatencySummary {
	if h.n == 0 {
		return LatencySummary{}
	}
	q := h.quantiles(0.5, 0.9, 0.99, 0.999, 0.9999)
	sd := 0.0
	if h.n > 1 {
		sd = math.Sqrt(h.m2 / float64(h.n-1))
	}
	return LatencySummary{
		Count:    h.n,
		MinUs:    devUs(float64(h.min)),
		MeanUs:   devUs(h.mean),
		StddevUs: devUs(sd),
		P50Us:    devUs(q[0]),
		P90Us:    devUs(q[1]),
		P99Us:    devUs(q[2]),
		P999Us:   devUs(q[3]),
		P9999Us:  devUs(q[4]),
		MaxUs:    devUs(float64(h.max)),
		Buckets:  h.buckets(),
	}
}

// devUs converts nanoseconds to microseconds, rounded to 10 ns: finer
// digits are noise and make the JSON hard to read.
func devUs(ns float64) float64 { return math.Round(ns/10) / 100 }

// buckets regroups the histogram into 1-2-5 steps of microseconds, from the
// first non-empty one to the last.
func (h *devHist) buckets() []LatencyBucket {
	var out []LatencyBucket
	bound := 1.0 // us
	step := 0
	var cur int64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		_, hi := devHistBounds(i)
		for float64(hi) > bound*1e3 {
			if cur > 0 || len(out) > 0 {
				out = append(out, LatencyBucket{UpToUs: bound, Count: cur})
			}
			cur = 0
			bound *= [3]float64{2, 2.5, 2}[step%3]
			step++
		}
		cur += c
	}
	if cur > 0 {
		out = append(out, LatencyBucket{UpToUs: bound, Count: cur})
	}
	return out
}

// devMount is one line of /proc/self/mountinfo.
type devMount struct {
	Major, Minor int
	MountPoint   string
	FSType       string
	Source       string
}

// devParseMountInfo parses /proc/<pid>/mountinfo (proc(5)).
func devParseMountInfo(r io.Reader) ([]devMount, error) {
	var out []devMount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 7 || sep < 0 || sep+2 >= len(f) {
			return nil, fmt.Errorf("mountinfo line %d: expected \"id parent major:minor root mountpoint options ... - fstype source ...\", got %q", line, sc.Text())
		}
		maj, min, ok := strings.Cut(f[2], ":")
		ma, err1 := strconv.Atoi(maj)
		mi, err2 := strconv.Atoi(min)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("mountinfo line %d: bad major:minor %q", line, f[2])
		}
		out = append(out, devMount{Major: ma, Minor: mi, MountPoint: unescapeOctal(f[4]), FSType: f[sep+1], Source: unescapeOctal(f[sep+2])})
	}
	return out, sc.Err()
}

// devFindMount returns the mount holding path (absolute, symlinks resolved):
// the longest mount point that contains it, the last one mounted on ties.
func devFindMount(mounts []devMount, path string) (devMount, bool) {
	best, found := devMount{}, false
	for _, m := range mounts {
		if !devUnder(path, m.MountPoint) {
			continue
		}
		if !found || len(m.MountPoint) >= len(best.MountPoint) {
			best, found = m, true
		}
	}
	return best, found
}

func devUnder(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// devMemoryFS are filesystems whose files live in RAM: O_DIRECT, where they
// accept it, still measures memory.
var devMemoryFS = map[string]bool{"tmpfs": true, "ramfs": true, "hugetlbfs": true, "devtmpfs": true}

// devResolveBlock describes the block device major:minor under sysRoot
// (normally /sys), following partitions to their disk and single-member
// device-mapper or md layers to the disk below.
func devResolveBlock(sysRoot string, major, minor int) (*BlockDevice, error) {
	mm := fmt.Sprintf("%d:%d", major, minor)
	p, err := filepath.EvalSymlinks(filepath.Join(sysRoot, "dev", "block", mm))
	if err != nil {
		return nil, fmt.Errorf("block device %s: %w", mm, err)
	}
	bd := &BlockDevice{MajorMinor: mm}
	for depth := 0; ; depth++ {
		if depth > 8 {
			return nil, fmt.Errorf("block device %s: more than 8 stacked layers under %s", mm, p)
		}
		if devExists(filepath.Join(p, "partition")) {
			if bd.Partition == "" {
				bd.Partition = filepath.Base(p)
			}
			p = filepath.Dir(p)
		}
		slaves, _ := os.ReadDir(filepath.Join(p, "slaves"))
		if len(slaves) == 0 {
			break
		}
		layer := filepath.Base(p)
		if name := devReadAttr(p, "dm", "name"); name != "" {
			layer += " (" + name + ")"
		}
		bd.Stack = append(bd.Stack, layer)
		if len(slaves) > 1 {
			for _, s := range slaves {
				bd.Members = append(bd.Members, devDiskName(filepath.Join(p, "slaves", s.Name())))
			}
			break
		}
		next, err := filepath.EvalSymlinks(filepath.Join(p, "slaves", slaves[0].Name()))
		if err != nil {
			break
		}
		p = next
	}
	bd.Name = filepath.Base(p)
	if len(bd.Members) > 0 {
		// The members' model, when they agree, says more than the layer's.
		models := map[string]bool{}
		for _, m := range bd.Members {
			mp, err := filepath.EvalSymlinks(filepath.Join(sysRoot, "class", "block", m))
			if err == nil {
				models[devReadAttr(mp, "device", "model")] = true
				if rot := devReadAttr(mp, "queue", "rotational"); rot != "" && bd.Rotational == nil {
					r := rot == "1"
					bd.Rotational = &r
				}
			}
		}
		if len(models) == 1 {
			for m := range models {
				bd.Model = m
			}
		}
	} else {
		bd.Model = devReadAttr(p, "device", "model")
		bd.Vendor = devReadAttr(p, "device", "vendor")
	}
	for _, link := range []string{"device/driver", "device/device/driver"} {
		if t, err := os.Readlink(filepath.Join(p, link)); err == nil {
			bd.Driver = filepath.Base(t)
			break
		}
	}
	if rot := devReadAttr(p, "queue", "rotational"); rot != "" {
		r := rot == "1"
		bd.Rotational = &r
	}
	bd.LogicalBlockSize, _ = strconv.Atoi(devReadAttr(p, "queue", "logical_block_size"))
	bd.PhysicalBlockSize, _ = strconv.Atoi(devReadAttr(p, "queue", "physical_block_size"))
	if s := devReadAttr(p, "queue", "scheduler"); s != "" {
		bd.Scheduler = s
		if i, j := strings.Index(s, "["), strings.Index(s, "]"); i >= 0 && j > i {
			bd.Scheduler = s[i+1 : j]
		}
	}
	if sectors, err := strconv.ParseInt(devReadAttr(p, "size"), 10, 64); err == nil {
		bd.Size = units.Bytes(sectors * 512) // sysfs counts 512-byte sectors whatever the block size
	}
	return bd, nil
}

// devDiskName names the disk a slaves/ entry stands for (a partition's disk).
func devDiskName(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return filepath.Base(p)
	}
	if devExists(filepath.Join(r, "partition")) {
		return filepath.Base(filepath.Dir(r))
	}
	return filepath.Base(r)
}

func devReadAttr(elem ...string) string {
	b, err := os.ReadFile(filepath.Join(elem...))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func devExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
