//go:build linux

package device

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

const mountInfoFixture = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
30 27 259:2 / /mnt/fast\040ssd rw,relatime shared:5 - xfs /dev/nvme0n1p2 rw
31 27 0:45 / /mnt/fast\040ssd/tmp rw - tmpfs tmpfs rw
32 27 0:50 /@home /home rw - btrfs /dev/sda2 rw
33 27 254:0 /srv /mnt/fast\040ssd rw - ext4 /dev/vda rw
`

func TestDevParseMountInfo(t *testing.T) {
	ms, err := host.ParseMountInfo(strings.NewReader(mountInfoFixture))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 6 || ms[2].MountPoint != "/mnt/fast ssd" || ms[2].FSType != "xfs" || ms[2].Source != "/dev/nvme0n1p2" || ms[2].Major != 259 || ms[2].Minor != 2 {
		t.Fatalf("parsed %+v", ms)
	}
	for _, c := range []struct{ path, fs, mp string }{
		{"/", "ext4", "/"},
		{"/var/tmp", "ext4", "/"},
		{"/mnt/fast ssd/x", "ext4", "/mnt/fast ssd"}, // mounted over later: the last mount wins
		{"/mnt/fast ssd/tmp/y", "tmpfs", "/mnt/fast ssd/tmp"},
		{"/mnt/fast ssdx", "ext4", "/"},
		{"/home/me", "btrfs", "/home"},
	} {
		m, ok := host.FindMount(ms, c.path)
		if !ok || m.FSType != c.fs || m.MountPoint != c.mp {
			t.Errorf("%s: got %s on %s (found %v), want %s on %s", c.path, m.FSType, m.MountPoint, ok, c.fs, c.mp)
		}
	}
	_, err = host.ParseMountInfo(strings.NewReader("27 1 254:0 / / rw\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("truncated line: got %v, want an error naming line 1", err)
	}
}

// devSysfsFixture builds the parts of /sys the lookup reads: an NVMe disk
// with a partition, a dm-crypt volume on that partition, and an md RAID 1
// over two SATA disks.
func sysfsFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	nvme := "devices/pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1"
	write(nvme+"/device/model", "Samsung SSD 980 PRO 1TB          ")
	write(nvme+"/queue/rotational", "0")
	write(nvme+"/queue/logical_block_size", "512")
	write(nvme+"/queue/physical_block_size", "4096")
	write(nvme+"/queue/scheduler", "[none] mq-deadline")
	write(nvme+"/size", "1953525168")
	write(nvme+"/nvme0n1p2/partition", "2")
	link("../../../../../../bus/pci/drivers/nvme", nvme+"/device/device/driver")
	link("../../"+nvme+"/nvme0n1p2", "dev/block/259:2")

	dm := "devices/virtual/block/dm-0"
	write(dm+"/dm/name", "cryptroot")
	write(dm+"/queue/rotational", "0")
	link("../../../../pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1/nvme0n1p2", dm+"/slaves/nvme0n1p2")
	link("../../"+dm, "dev/block/253:0")

	for i, d := range []string{"sda", "sdb"} {
		p := "devices/pci0000:00/ata" + string(rune('1'+i)) + "/block/" + d
		write(p+"/device/model", "ST4000NM0035")
		write(p+"/device/vendor", "ATA")
		write(p+"/queue/rotational", "1")
		write(p+"/"+d+"1/partition", "1")
		link("../../"+p, "class/block/"+d)
	}
	md := "devices/virtual/block/md0"
	write(md+"/queue/rotational", "1")
	link("../../../../pci0000:00/ata1/block/sda/sda1", md+"/slaves/sda1")
	link("../../../../pci0000:00/ata2/block/sdb/sdb1", md+"/slaves/sdb1")
	link("../../"+md, "dev/block/9:0")
	return root
}

func TestDevResolveBlock(t *testing.T) {
	root := sysfsFixture(t)

	bd, err := host.ResolveBlock(root, 259, 2)
	if err != nil {
		t.Fatal(err)
	}
	if bd.Name != "nvme0n1" || bd.Partition != "nvme0n1p2" || bd.Model != "Samsung SSD 980 PRO 1TB" ||
		bd.Rotational == nil || *bd.Rotational || bd.Driver != "nvme" || bd.Scheduler != "none" ||
		bd.LogicalBlockSize != 512 || bd.PhysicalBlockSize != 4096 || bd.Size != units.Bytes(1953525168*512) {
		t.Errorf("partition: got %+v", bd)
	}

	bd, err = host.ResolveBlock(root, 253, 0)
	if err != nil {
		t.Fatal(err)
	}
	if bd.Name != "nvme0n1" || len(bd.Stack) != 1 || bd.Stack[0] != "dm-0 (cryptroot)" || bd.Partition != "nvme0n1p2" || bd.Model != "Samsung SSD 980 PRO 1TB" {
		t.Errorf("dm-crypt: got %+v", bd)
	}

	bd, err = host.ResolveBlock(root, 9, 0)
	if err != nil {
		t.Fatal(err)
	}
	if bd.Name != "md0" || strings.Join(bd.Members, ",") != "sda,sdb" || bd.Model != "ST4000NM0035" || bd.Rotational == nil || !*bd.Rotational {
		t.Errorf("md RAID: got %+v", bd)
	}
	p := &Profile{Filesystem: "ext4", Device: bd}
	if got := p.DeviceName(); got != "ST4000NM0035" {
		t.Errorf("DeviceName = %q", got)
	}

	if _, err := host.ResolveBlock(root, 8, 99); err == nil || !strings.Contains(err.Error(), "8:99") {
		t.Errorf("unknown device: got %v, want an error naming 8:99", err)
	}
}

// devTestOptions keep a real profile under a second or two.
func testOptions() Options {
	return Options{Size: 16 * units.MiB, Duration: 100 * time.Millisecond}
}

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, TempPattern))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func skipUnlessLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the device profile runs on Linux only")
	}
}

func TestProfileDevice(t *testing.T) {
	skipUnlessLinux(t)
	dir := t.TempDir()
	opts := testOptions()
	var steps []string
	opts.Progress = func(s Step) { steps = append(steps, s.Name) }
	start := time.Now()
	p, err := Measure(context.Background(), dir, opts)
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// Six tests of 100 ms, a 16 MiB fill and set-up: far below 5 s even on
	// a slow disk; a budget that is not respected shows up here.
	if wall > 5*time.Second {
		t.Errorf("took %v with 100ms per test", wall)
	}
	if len(steps) != 7 || steps[0] != "fill" || steps[6] != "seq-write-1m-qd1" || len(p.Tests()) != 6 {
		t.Errorf("progress steps %v", steps)
	}
	if m := leftovers(t, dir); len(m) != 0 {
		t.Errorf("test file left behind: %v", m)
	}
	for _, tt := range p.Tests() {
		l := tt.Latency
		if tt.Ops <= 0 || tt.IOPS <= 0 || tt.MBPerSec <= 0 || l.Count != tt.Ops {
			t.Errorf("%s: %d ops, %g IOPS, %g MB/s, %d latencies", tt.Name, tt.Ops, tt.IOPS, tt.MBPerSec, l.Count)
		}
		if !(0 < l.MinUs && l.MinUs <= l.P50Us && l.P50Us <= l.P90Us && l.P90Us <= l.P99Us && l.P99Us <= l.P999Us && l.P999Us <= l.MaxUs) {
			t.Errorf("%s: latencies out of order: %+v", tt.Name, l)
		}
		if !(l.MinUs <= l.MeanUs && l.MeanUs <= l.MaxUs) {
			t.Errorf("%s: mean %g outside [%g, %g]", tt.Name, l.MeanUs, l.MinUs, l.MaxUs)
		}
		// Each operation was in flight for the whole of its latency, so
		// the time spent exceeds ops x mean latency / queue depth.
		if busy := float64(tt.Ops) * l.MeanUs / 1e6 / float64(tt.QueueDepth); busy > tt.Seconds*1.01 {
			t.Errorf("%s: %d ops of %g us mean at QD%d need %gs, but the test took %gs", tt.Name, tt.Ops, l.MeanUs, tt.QueueDepth, busy, tt.Seconds)
		}
		if tt.Seconds < 0.09 || tt.Seconds > 2 {
			t.Errorf("%s ran %gs with a 100ms budget", tt.Name, tt.Seconds)
		}
	}
	if p.RandReadQD32.QueueDepth != 32 || p.RandReadQD1.BlockBytes != 4096 || p.SeqRead.BlockBytes != 1<<20 {
		t.Errorf("test shapes: %+v", p.RandReadQD32)
	}
	if p.Filesystem == "" || p.Path == "" {
		t.Errorf("filesystem %q, path %q", p.Filesystem, p.Path)
	}
	// Whether O_DIRECT works depends on the filesystem under TMPDIR; that
	// the profile says so when it does not, does not.
	if !p.DirectIO && len(p.Warnings) == 0 {
		t.Errorf("direct_io is false on %s without a warning", p.Filesystem)
	}
	r := p.Reference()
	if r.ReadLatency <= 0 || r.WriteLatency <= 0 || r.ReadIOPS <= 0 || r.WriteIOPS <= 0 || r.Drives != 1 || r.Device == "" {
		t.Errorf("Reference() = %+v", r)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"p50_us"`, `"p99_9_us"`, `"rand_write_qd32"`, `"iops"`, `"direct_io"`, `"histogram"`, `"le_us"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var back Profile
	if err := json.Unmarshal(b, &back); err != nil || back.RandReadQD1.IOPS != p.RandReadQD1.IOPS || back.FileSize != p.FileSize {
		t.Errorf("JSON round trip: %v", err)
	}
}

func TestProfileDeviceSomeTests(t *testing.T) {
	skipUnlessLinux(t)
	dir := t.TempDir()
	opts := testOptions()
	opts.Tests = []string{"rand-write-4k-qd32", "rand-read-4k-qd1"}
	var steps []string
	opts.Progress = func(s Step) { steps = append(steps, fmt.Sprintf("%d/%d %s", s.Index, s.Total, s.Name)) }
	p, err := Measure(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(steps, ", "); got != "1/3 fill, 2/3 rand-read-4k-qd1, 3/3 rand-write-4k-qd32" {
		t.Errorf("steps: %s", got)
	}
	if p.RandReadQD1 == nil || p.RandWriteQD32 == nil || p.RandReadQD32 != nil || p.SeqRead != nil || len(p.Tests()) != 2 {
		t.Errorf("ran %d tests: %+v", len(p.Tests()), p.Tests())
	}
	if r := p.Reference(); r.ReadLatency <= 0 || r.WriteIOPS <= 0 || r.WriteLatency != 0 || r.ReadIOPS != 0 {
		t.Errorf("Reference() = %+v, want only read latency and write IOPS", r)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "seq_read") {
		t.Errorf("JSON mentions a test that did not run: %s", b)
	}
	opts.Tests = []string{"rand-read-8k"}
	if _, err := Measure(context.Background(), dir, opts); !errors.Is(err, ErrDeviceOptions) || !strings.Contains(err.Error(), "rand-read-8k") {
		t.Errorf("unknown test: got %v", err)
	}
}

func TestProfileDeviceCancel(t *testing.T) {
	skipUnlessLinux(t)
	// Cancelled in the fill and in the first timed test: the budget of a
	// minute per test means only cancellation can end the run in time.
	for _, at := range []string{"fill", "rand-read-4k-qd1"} {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := testOptions()
			opts.Duration = time.Minute
			var cancelled atomic.Int64
			opts.Progress = func(s Step) {
				if s.Name == at {
					time.AfterFunc(50*time.Millisecond, func() {
						cancelled.Store(time.Now().UnixNano())
						cancel()
					})
				}
			}
			_, err := Measure(ctx, dir, opts)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("got %v, want context.Canceled naming %s", err, dir)
			}
			if d := time.Since(time.Unix(0, cancelled.Load())); d > time.Second {
				t.Errorf("returned %v after the cancellation", d)
			}
			if m := leftovers(t, dir); len(m) != 0 {
				t.Errorf("test file left behind: %v", m)
			}
		})
	}
}

func TestProfileDeviceBadPath(t *testing.T) {
	skipUnlessLinux(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := testOptions()
	huge.Size = 1 << 60
	for _, c := range []struct {
		path, want string
		opts       Options
	}{
		{filepath.Join(dir, "missing"), "does not exist", testOptions()},
		{file, "is not a directory", testOptions()},
		{dir, "not enough free space", huge},
	} {
		_, err := Measure(context.Background(), c.path, c.opts)
		if !errors.Is(err, ErrPath) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrDevicePath naming the path and saying %q", c.path, err, c.want)
		}
	}
	if m := leftovers(t, dir); len(m) != 0 {
		t.Errorf("test file left behind: %v", m)
	}
	if _, err := Measure(context.Background(), dir, Options{Size: units.MiB}); !errors.Is(err, ErrDeviceOptions) || !strings.Contains(err.Error(), "too small") {
		t.Errorf("1MiB file: got %v, want a too-small error", err)
	}
}

// On tmpfs the profile still runs but must not pass memory off as a device.
func TestProfileDeviceMemoryFS(t *testing.T) {
	skipUnlessLinux(t)
	shm := "/dev/shm"
	if fi, err := os.Stat(shm); err != nil || !fi.IsDir() {
		t.Skip("no /dev/shm")
	}
	dir, err := os.MkdirTemp(shm, "memplan-device-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(dir)
	p, err := Measure(context.Background(), dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !memoryFS[p.Filesystem] {
		t.Skipf("%s is %s, not a memory filesystem", shm, p.Filesystem)
	}
	if p.DirectIO || len(p.Warnings) == 0 || !strings.Contains(strings.Join(p.Warnings, "\n"), "RAM") {
		t.Errorf("tmpfs: direct_io=%v warnings=%q", p.DirectIO, p.Warnings)
	}
	if p.Device != nil {
		t.Errorf("tmpfs has no block device, got %+v", p.Device)
	}
}

// The probe journals the test file before it exists: Record learns a path
// that matches DeviceTempPattern while nothing is there yet; a Record
// error stops the profile with nothing created.
func TestProfileDeviceRecordsTheTestFileFirst(t *testing.T) {
	skipUnlessLinux(t)
	dir := t.TempDir()
	opts := testOptions()
	opts.Tests = []string{"rand-read-4k-qd1"}
	var recorded []string
	opts.Record = func(p string) error {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists when it is recorded (%v)", p, err)
		}
		recorded = append(recorded, p)
		return nil
	}
	if _, err := Measure(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	if len(recorded) != 1 || filepath.Dir(recorded[0]) != dir {
		t.Fatalf("recorded %v", recorded)
	}
	if ok, _ := filepath.Match(TempPattern, filepath.Base(recorded[0])); !ok {
		t.Errorf("%s does not match %s, which cleanup looks for", recorded[0], TempPattern)
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	opts.Record = func(string) error { return errors.New("journal is read-only") }
	if _, err := Measure(context.Background(), dir, opts); err == nil || !strings.Contains(err.Error(), "journal is read-only") {
		t.Errorf("a failing record: %v", err)
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Errorf("created despite the failing record: %v", left)
	}
}

// TestClassify: the kernel's rotational flag gives way to the measured
// latency (issue 13: a virtual disk reported rotational answers in 55us).
func TestClassify(t *testing.T) {
	read := func(us float64) *Profile {
		return &Profile{RandReadQD1: &Test{Latency: measure.LatencySummary{MeanUs: us}}}
	}
	vda := &host.SwapTarget{Dir: "/var/tmp", Disk: &host.BlockDevice{Name: "vda"}}
	nvme := &host.SwapTarget{Dir: "/scratch", Disk: &host.BlockDevice{Name: "nvme0n1"}}
	for _, c := range []struct {
		name, kernel string
		t            *host.SwapTarget
		dp           *Profile
		want         string
		noted        bool
	}{
		{"virtual disk reported rotational", "hdd", vda, read(55), "sata-ssd-tlc", true},
		{"nvme reported rotational", "hdd", nvme, read(80), "nvme-ssd-tlc", true},
		{"a real disk", "hdd", vda, read(8200), "hdd", false},
		{"an SSD that seeks", "sata-ssd-tlc", vda, read(6500), "hdd", true},
		{"an SSD", "sata-ssd-tlc", vda, read(90), "sata-ssd-tlc", false},
		{"nothing measured", "hdd", vda, nil, "hdd", false},
		{"read test failed", "hdd", vda, &Profile{}, "hdd", false},
	} {
		got, note := Classify(c.kernel, c.t, c.dp)
		if got != c.want || (note != "") != c.noted {
			t.Errorf("%s: got %q, note %q; want %q, noted %v", c.name, got, note, c.want, c.noted)
		}
		if c.noted && !strings.Contains(note, "filed as \""+c.want+"\"") {
			t.Errorf("%s: the note does not say where the curve is filed: %s", c.name, note)
		}
	}
}
