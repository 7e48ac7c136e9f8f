//go:build linux

package host

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/units"
)

func TestParseSwaps(t *testing.T) {
	in := `Filename				Type		Size		Used		Priority
/dev/zram1                              partition	307200		1024		32767
/var/tmp/my\040swap                     file		1048572		0		-2
`
	got, err := parseSwaps(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []SwapArea{
		{Filename: "/dev/zram1", Type: "partition", Size: 307200 * units.KiB, Used: units.MiB, Priority: 32767},
		{Filename: "/var/tmp/my swap", Type: "file", Size: 1048572 * units.KiB, Used: 0, Priority: -2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d areas, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("area %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	empty, err := parseSwaps(strings.NewReader("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"))
	if err != nil || len(empty) != 0 {
		t.Errorf("header only: got %v, %v", empty, err)
	}
	_, err = parseSwaps(strings.NewReader("Filename Type Size Used Priority\n/dev/x partition lots 0 1\n"))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), `"/dev/x partition lots 0 1"`) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad size: got %v, want ErrParse quoting line 2", err)
	}
	if _, err := parseSwaps(strings.NewReader("nonsense\n")); !errors.Is(err, ErrParse) {
		t.Errorf("missing header: got %v", err)
	}
}

func TestParseMeminfo(t *testing.T) {
	in := `MemTotal:       24731708 kB
MemAvailable:   24331760 kB
HugePages_Total:       0
Zswapped:           1024 kB
`
	m, err := parseMeminfo(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if m["MemTotal"] != 24731708*units.KiB || m["MemAvailable"] != 24331760*units.KiB || m["Zswapped"] != units.MiB || m["HugePages_Total"] != 0 {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"MemTotal: lots kB\n", "MemTotal: 12 MB\n", "no colon here\n"} {
		if _, err := parseMeminfo(strings.NewReader(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("%q: got %v, want ErrParse", bad, err)
		}
	}
}

func TestParseVmstatAndMemoryStat(t *testing.T) {
	vm := "nr_free_pages 1068706\npswpin 12\npswpout 34\nzswpin 5\n"
	m, err := parseKeyValues("/proc/vmstat", strings.NewReader(vm))
	if err != nil {
		t.Fatal(err)
	}
	if m["pswpin"] != 12 || m["pswpout"] != 34 || m["zswpin"] != 5 {
		t.Errorf("vmstat: got %v", m)
	}
	// cgroup v1 memory.stat: limits near 2^63 do not fit int64 after
	// rounding in some kernels; they are clamped, not errors.
	ms := "cache 42115072\nrss 7020544\npgmajfault 3\nhierarchical_memory_limit 18446744073709551615\n"
	m, err = parseKeyValues("memory.stat", strings.NewReader(ms))
	if err != nil {
		t.Fatal(err)
	}
	if m["pgmajfault"] != 3 || m["hierarchical_memory_limit"] <= 0 {
		t.Errorf("memory.stat: got %v", m)
	}
	// v2 memory.events
	ev, err := parseKeyValues("memory.events", strings.NewReader("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n"))
	if err != nil || ev["oom_kill"] != 1 {
		t.Errorf("memory.events: got %v, %v", ev, err)
	}
	_, err = parseKeyValues("memory.stat", strings.NewReader("cache 1\nrss one\n"))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "memory.stat line 2") {
		t.Errorf("bad value: got %v", err)
	}
}

func TestParsePSI(t *testing.T) {
	in := "some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=789\n"
	p, err := parsePSI("/proc/pressure/memory", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Some.Avg10 != 1.5 || p.Some.Avg60 != 0.25 || p.Some.Total != 123456*time.Microsecond || p.Full.Total != 789*time.Microsecond {
		t.Errorf("got %+v", p)
	}
	// cpu.pressure on older kernels has only a "some" line.
	if _, err := parsePSI("cpu.pressure", strings.NewReader("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")); err != nil {
		t.Errorf("some only: %v", err)
	}
	for _, bad := range []string{"", "many avg10=0 avg60=0 avg300=0 total=0\n", "some avg10=x avg60=0 avg300=0 total=0\n", "some avg10=0\n"} {
		if _, err := parsePSI("memory.pressure", strings.NewReader(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("%q: got %v, want ErrParse", bad, err)
		}
	}
}

func TestParseMMStat(t *testing.T) {
	in := "163840000 58982400 60817408        0 60817408     1234        0       12        3\n"
	m, err := parseMMStat(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := MMStat{OrigData: 163840000, ComprData: 58982400, MemUsed: 60817408, MemUsedMax: 60817408, SamePages: 1234, HugePages: 12}
	if m != want {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if r := m.Ratio(); r < 2.69 || r > 2.70 {
		t.Errorf("ratio %g, want about 2.69", r)
	}
	// An empty device has ratio 0; one holding only zero pages uses no
	// memory at all.
	if r := (MMStat{}).Ratio(); r != 0 {
		t.Errorf("empty ratio %g", r)
	}
	if r := (MMStat{OrigData: 100 * units.Bytes(PageSize)}).Ratio(); r != 100 {
		t.Errorf("same-filled ratio %g", r)
	}
	if _, err := parseMMStat(strings.NewReader("1 2 3\n")); !errors.Is(err, ErrParse) {
		t.Errorf("short line: got %v", err)
	}
}

func TestParseCompAlgorithm(t *testing.T) {
	sel, avail := ParseCompAlgorithm("[lzo-rle] lzo lz4 zstd\n")
	if sel != "lzo-rle" || strings.Join(avail, ",") != "lzo-rle,lzo,lz4,zstd" {
		t.Errorf("got %q %v", sel, avail)
	}
}

func TestParseMountInfo(t *testing.T) {
	in := `35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 1 0:40 / /mnt/my\040disk rw - ext4 /dev/sdb1 rw
`
	m, err := ParseMountInfo(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m[0].SuperOpts != "rw,memory" || m[1].FSType != "cgroup2" || m[2].MountPoint != "/mnt/my disk" {
		t.Errorf("got %+v", m)
	}
	if _, err := ParseMountInfo(strings.NewReader("garbage\n")); !errors.Is(err, ErrParse) {
		t.Errorf("garbage: got %v", err)
	}
}

func TestParseCPUStat(t *testing.T) {
	in := "cpu  1000 50 300 8000 200 10 40 25 0 0\ncpu0 500 25 150 4000 100 5 20 12 0 0\ncpu1 500 25 150 4000 100 5 20 13 0 0\nintr 1\nprocs_running 3\n"
	c, err := parseCPUStat("/proc/stat", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	// busy = user + nice + system + irq + softirq, in USER_HZ (100/s).
	if c.CPUs != 2 || c.Busy != 14 || c.Idle != 82 || c.Steal != 0.25 {
		t.Errorf("got %+v", c)
	}
	if _, err := parseCPUStat("/proc/stat", strings.NewReader("cpu 1 2 x\n")); !errors.Is(err, ErrParse) {
		t.Errorf("short line: %v", err)
	}
	if _, err := parseCPUStat("/proc/stat", strings.NewReader("intr 1\n")); !errors.Is(err, ErrParse) {
		t.Errorf("no cpu line: %v", err)
	}
	if on, w, err := parseSchedstat("/proc/1/schedstat", []byte("123456789 2500000000 42\n")); err != nil || on != 123456789 || w.Seconds() != 2.5 {
		t.Errorf("schedstat: %v %v %v", on, w, err)
	}
	if _, _, err := parseSchedstat("/proc/1/schedstat", []byte("x\n")); !errors.Is(err, ErrParse) {
		t.Errorf("bad schedstat: %v", err)
	}
	// /proc/PID/stat: kswapd0 (flags 0xa42840 has PF_KTHREAD) and a
	// process whose name holds ") (" and spaces.
	kswapd := "95 (kswapd0) S 2 0 0 0 -1 10758208 0 0 0 0 150 2350 0 0 20 0 1 0 30 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	if st, ok := parseProcStat([]byte(kswapd)); !ok || !st.kthread || st.cpu != 25 || st.name != "kswapd0" || !reclaimThread(st.name) {
		t.Errorf("kswapd0: %+v %v, want 25s, a reclaim kernel thread", st, ok)
	}
	odd := "4242 (a) (b c) R 1 4242 4242 0 -1 4194560 100 0 0 0 700 300 0 0 20 0 1 0 99 0 0\n"
	if st, ok := parseProcStat([]byte(odd)); !ok || st.kthread || st.cpu != 10 || st.name != "a) (b c" {
		t.Errorf("odd name: %+v %v, want 10s, not a kernel thread", st, ok)
	}
	if _, ok := parseProcStat([]byte("1 (init S 0\n")); ok {
		t.Error("a truncated stat line parsed")
	}
	for name, want := range map[string]bool{"kworker/u8:2-flush-254:0": true, "kcompactd0": true, "ksoftirqd/0": false, "nfsd": false, "jbd2/vda1-8": false} {
		if reclaimThread(name) != want {
			t.Errorf("reclaimThread(%q) = %v", name, !want)
		}
	}
}

// TestReclaimThreads: this host's kernel threads (kthreadd, pid 2, at
// least) are read as kernel threads, and its reclaim threads (kswapd0 on
// every kernel with memory) are found.
func TestReclaimThreads(t *testing.T) {
	b, err := os.ReadFile("/proc/2/stat")
	if err != nil {
		t.Skipf("no /proc/2/stat: %v", err)
	}
	if st, ok := parseProcStat(b); !ok || !st.kthread || st.name != "kthreadd" {
		t.Fatalf("kthreadd's stat %q read as %+v", b, st)
	}
	k := ReclaimThreads(NewOSHost())
	ts, err := ReadCPUTimes(NewOSHost())
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range k {
		sum += v
	}
	t.Logf("%d reclaim and I/O kernel threads, %.2f CPU-s of the host's %.2f busy", len(k), sum, ts.Busy)
	if len(k) == 0 || ts.Reclaim == nil || sum > ts.Busy+1 {
		t.Errorf("reclaim threads %v (ReadCPUTimes: %d) against the host's busy %.2f", k, len(ts.Reclaim), ts.Busy)
	}
}
