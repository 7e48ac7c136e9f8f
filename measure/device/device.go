//go:build linux

package device

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// Device profile: 4 KiB random and 1 MiB sequential I/O on a temporary file
// in a directory, with O_DIRECT so the figures are the device's, not the
// page cache's. The transfer model carries a slowdown curve measured on one
// device over to another by the ratio of their per-fault service times; these
// are the figures it needs for the device under the probe's swap file.

// Defaults for DeviceOptions; --quick uses the smaller ones.
const (
	DefaultSize           = units.GiB
	DefaultDeviceDuration = 5 * time.Second
	QuickSize             = 256 * units.MiB
	QuickDuration         = 2 * time.Second
	minSize               = 8 * units.MiB
	Headroom              = 64 * units.MiB // left free on the filesystem after the test file
	smallFileWarning      = 256 * units.MiB
	randomBlock           = 4096
	seqBlock              = 1 << 20
	maxDurationPerTest    = time.Hour
	queueDepth            = 32 // the deep queue: what NVMe and SATA NCQ need to reach their IOPS
)

// DeviceTempPattern is the name pattern (for filepath.Match) of the test file
// ProfileDevice creates; it removes it on every return path, so a file that
// matches is the leftover of a process killed with SIGKILL.
const TempPattern = ".memplan-device-*.tmp"

// ErrDevicePath marks a directory that cannot hold the device profile's test
// file: missing, not a directory, or short of space. The message names it.
var ErrPath = errors.New("device profile")

// ErrDeviceOptions marks DeviceOptions out of range.
var ErrDeviceOptions = errors.New("device profile")

// DeviceOptions tune ProfileDevice. Zero values take the defaults.
type Options struct {
	Size     units.Bytes   // test file size; rounded down to whole MiB
	Duration time.Duration // time budget of each test
	Quick    bool          // smaller defaults for Size and Duration
	// Tests names the tests to run (see DeviceTestNames); empty runs all.
	// The fill always runs.
	Tests []string
	// Progress, when set, is called before each step.
	Progress func(Step)
	// Record, when set, is told the test file's path before the file is
	// created (the probe journals it, so that cleanup after a kill -9
	// removes it); an error stops the profile before anything is created.
	Record func(path string) error

	// sysRoot and procRoot let tests point the block-device lookup at a
	// fixture tree; empty means the host's /sys and /proc.
	sysRoot, procRoot string
}

// DeviceStep describes the step ProfileDevice is about to run.
type Step struct {
	Index, Total int           // 1-based
	Name         string        // e.g. "fill", "rand-read-4k-qd32"
	Budget       time.Duration // zero for the fill
}

// DeviceProfile is the result of ProfileDevice. Latencies are in
// microseconds, rates in operations or 10^6 bytes per second.
type Profile struct {
	Path        string            `json:"path"`
	Filesystem  string            `json:"filesystem"`
	MountPoint  string            `json:"mount_point,omitempty"`
	MountSource string            `json:"mount_source,omitempty"`
	Device      *host.BlockDevice `json:"device,omitempty"` // nil: no block device behind the filesystem
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
	RandReadQD1   *Test   `json:"rand_read_qd1,omitempty"`
	RandReadQD32  *Test   `json:"rand_read_qd32,omitempty"`
	RandWriteQD1  *Test   `json:"rand_write_qd1,omitempty"`
	RandWriteQD32 *Test   `json:"rand_write_qd32,omitempty"`
	SeqRead       *Test   `json:"seq_read,omitempty"`
	SeqWrite      *Test   `json:"seq_write,omitempty"`
	FillMBPerSec  float64 `json:"fill_mb_per_s"`
	FillSeconds   float64 `json:"fill_seconds"`
}

// devTestSpec describes one of the six tests.
type testSpec struct {
	name    string
	random  bool
	write   bool
	bs, qd  int
	pattern string
	field   func(*Profile) **Test
}

// devTests are the tests in the order they run: reads before writes, so
// the reads see the file as the fill left it.
var tests = []testSpec{
	{"rand-read-4k-qd1", true, false, randomBlock, 1, "random", func(p *Profile) **Test { return &p.RandReadQD1 }},
	{"rand-read-4k-qd32", true, false, randomBlock, queueDepth, "random", func(p *Profile) **Test { return &p.RandReadQD32 }},
	{"rand-write-4k-qd1", true, true, randomBlock, 1, "random", func(p *Profile) **Test { return &p.RandWriteQD1 }},
	{"rand-write-4k-qd32", true, true, randomBlock, queueDepth, "random", func(p *Profile) **Test { return &p.RandWriteQD32 }},
	{"seq-read-1m-qd1", false, false, seqBlock, 1, "sequential", func(p *Profile) **Test { return &p.SeqRead }},
	{"seq-write-1m-qd1", false, true, seqBlock, 1, "sequential", func(p *Profile) **Test { return &p.SeqWrite }},
}

// DeviceTestNames lists the tests ProfileDevice can run, in order.
func TestNames() []string {
	var out []string
	for _, t := range tests {
		out = append(out, t.name)
	}
	return out
}

// selected returns the specs of the tests o asks for.
func (o Options) selected() []testSpec {
	if len(o.Tests) == 0 {
		return tests
	}
	var out []testSpec
	for _, t := range tests {
		if slices.Contains(o.Tests, t.name) {
			out = append(out, t)
		}
	}
	return out
}

// DeviceTest is one timed test.
type Test struct {
	Name       string                 `json:"name"`    // e.g. "rand-read-4k-qd32"
	Pattern    string                 `json:"pattern"` // random or sequential
	Op         string                 `json:"op"`      // read or write
	BlockBytes int                    `json:"block_bytes"`
	QueueDepth int                    `json:"queue_depth"`
	Engine     string                 `json:"engine"` // how the queue depth was produced
	Ops        int64                  `json:"ops"`
	Seconds    float64                `json:"seconds"`
	IOPS       float64                `json:"iops"`
	MBPerSec   float64                `json:"mb_per_s"`
	Latency    measure.LatencySummary `json:"latency"`
}

// Tests lists the tests that ran, in the order they ran.
func (p *Profile) Tests() []*Test {
	var out []*Test
	for _, t := range tests {
		if dt := *t.field(p); dt != nil {
			out = append(out, dt)
		}
	}
	return out
}

// DeviceName describes the device for people: its model when the kernel
// knows it, else its name and driver, else the filesystem.
func (p *Profile) DeviceName() string {
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
func (p *Profile) Reference() factors.Reference {
	mean := func(t *Test) units.Duration {
		if t == nil {
			return 0
		}
		return units.Duration(math.Round(t.Latency.MeanUs * 1e3))
	}
	iops := func(t *Test) float64 {
		if t == nil {
			return 0
		}
		return math.Round(t.IOPS)
	}
	return factors.Reference{
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
func Measure(ctx context.Context, dir string, opts Options) (*Profile, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if platformProfile == nil {
		return nil, fmt.Errorf("device profile of %s: needs Linux (O_DIRECT, /proc/self/mountinfo, /sys/block); this is %s", dir, runtime.GOOS)
	}
	return platformProfile(ctx, dir, opts)
}

// devPlatformProfile is set by the platform file that can run the profile.
var platformProfile func(ctx context.Context, dir string, opts Options) (*Profile, error)

func (o Options) withDefaults() Options {
	if o.Size == 0 {
		o.Size = DefaultSize
		if o.Quick {
			o.Size = QuickSize
		}
	}
	if o.Duration == 0 {
		o.Duration = DefaultDeviceDuration
		if o.Quick {
			o.Duration = QuickDuration
		}
	}
	o.Size -= o.Size % seqBlock
	if o.sysRoot == "" {
		o.sysRoot = "/sys"
	}
	if o.procRoot == "" {
		o.procRoot = "/proc"
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.Size < minSize:
		return fmt.Errorf("%w: test file size %v is too small, expected at least %v", ErrDeviceOptions, o.Size, minSize)
	case o.Duration < 0 || o.Duration > maxDurationPerTest:
		return fmt.Errorf("%w: duration per test %v is out of range, expected up to %v", ErrDeviceOptions, units.Duration(o.Duration), units.Duration(maxDurationPerTest))
	}
	for _, name := range o.Tests {
		if !slices.Contains(TestNames(), name) {
			return fmt.Errorf("%w: unknown test %q, expected some of %s", ErrDeviceOptions, name, strings.Join(TestNames(), ", "))
		}
	}
	return nil
}

// devCheckDir returns a clear error when dir cannot hold the test file.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist; give --path a directory on the device to measure", ErrPath, dir)
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrPath, dir, errors.Unwrap(err))
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory; give --path the directory where the test file may go", ErrPath, dir)
	}
	return nil
}

// devMemoryFS are filesystems whose files live in RAM: O_DIRECT, where they
// accept it, still measures memory.
var memoryFS = map[string]bool{"tmpfs": true, "ramfs": true, "hugetlbfs": true, "devtmpfs": true}

// Classify files the swap directory's device by what was measured when the
// kernel's description contradicts it. kernelClass is the class from the
// kernel's flags (t.DeviceClass: "hdd" when it calls the disk rotational);
// a disk the kernel calls rotational that answers 4 KiB reads in under a
// millisecond is an SSD (virtual disks often misreport), and one it calls
// solid-state that takes over 2 ms per read behaves as an HDD. The note
// says what was decided and why; it is empty when the two agree or nothing
// was measured.
func Classify(kernelClass string, t *host.SwapTarget, dp *Profile) (class, note string) {
	if dp == nil || dp.RandReadQD1 == nil || dp.RandReadQD1.Latency.MeanUs <= 0 {
		return kernelClass, ""
	}
	us := dp.RandReadQD1.Latency.MeanUs
	switch {
	case kernelClass == "hdd" && us < hddMinReadUs:
		class = "sata-ssd-tlc"
		if t != nil && t.Disk != nil && strings.HasPrefix(t.Disk.Name, "nvme") {
			class = "nvme-ssd-tlc"
		}
		return class, fmt.Sprintf("the kernel reports %s as rotational, but its 4 KiB reads take %.0fus (an HDD takes milliseconds; virtual disks often misreport): its curve is filed as %q by the measured latency; pass --device-class to file it otherwise",
			host.DiskName(t), us, class)
	case kernelClass != "hdd" && us > ssdMaxReadUs:
		return "hdd", fmt.Sprintf("%s is not reported as rotational, but its 4 KiB reads take %.1fms, as a disk's do: its curve is filed as \"hdd\" by the measured latency; pass --device-class to file it otherwise",
			host.DiskName(t), us/1000)
	}
	return kernelClass, ""
}

// The latencies that separate the classes: an HDD's 4 KiB random read
// costs a seek and half a rotation (3-15 ms); SATA and NVMe SSDs answer in
// 20-200 us, network block devices in a few hundred.
const (
	hddMinReadUs = 1000
	ssdMaxReadUs = 2000
)
