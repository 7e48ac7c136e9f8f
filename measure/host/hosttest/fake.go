//go:build linux

package hosttest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// Fake is a fixture tree standing in for /proc and /sys, with swapon,
// swapoff, zram hot_add/reset and the like acting on the tree the way the
// kernel would.
type Fake struct {
	*host.OSHost
	t         *testing.T
	RootUser  bool
	Free      units.Bytes
	mu        sync.Mutex
	Killed    []int
	Paused    []int // Pause calls: pid stopped, -pid continued
	SwappedIn []int // SwapIn calls
	SwapInErr error // what SwapIn returns
	Calls     []string
	locked    bool
}

func NewFake(t *testing.T, files map[string]string) *Fake {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Fake{OSHost: &host.OSHost{Root: dir}, t: t, RootUser: true, Free: 100 * units.GiB}
}

func (f *Fake) Call(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls = append(f.Calls, fmt.Sprintf(format, args...))
}

func (f *Fake) Read(name string) string {
	b, err := f.OSHost.ReadFile(name)
	if err != nil {
		f.t.Fatalf("fixture %s: %v", name, err)
	}
	return string(b)
}

func (f *Fake) Put(name, content string) {
	p := f.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *Fake) IsRoot() bool { return f.RootUser }

// Lock is a lock of this fixture host only, so fixture tests do not
// collide with real probes running elsewhere on the machine.
func (f *Fake) Lock() (io.Closer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.locked {
		return nil, host.ErrBusy
	}
	f.locked = true
	return closerFunc(func() error {
		f.mu.Lock()
		f.locked = false
		f.mu.Unlock()
		return nil
	}), nil
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }
func (f *Fake) Kill(pid int) error {
	f.mu.Lock()
	f.Killed = append(f.Killed, pid)
	f.mu.Unlock()
	return nil
}

// Pause records the stop (pid) or continue (-pid) in Paused.
func (f *Fake) Pause(pid int, stop bool) error {
	f.mu.Lock()
	if !stop {
		pid = -pid
	}
	f.Paused = append(f.Paused, pid)
	f.mu.Unlock()
	return nil
}

// SwapIn records pid in SwappedIn, reads nothing back and returns
// SwapInErr.
func (f *Fake) SwapIn(pid int) (units.Bytes, error) {
	f.mu.Lock()
	f.SwappedIn = append(f.SwappedIn, pid)
	f.mu.Unlock()
	return 0, f.SwapInErr
}

func (f *Fake) Statfs(dir string) (units.Bytes, int64, error) {
	if _, err := f.Stat(dir); err != nil {
		return 0, 0, err
	}
	return f.Free, 0xEF53, nil
}

func (f *Fake) ReadFile(name string) ([]byte, error) {
	if name == host.ZramControl+"/hot_add" {
		id := len(host.ZramDevices(f))
		for host.Exists(f, host.ZramSys(id)) {
			id++
		}
		f.Put(host.ZramSys(id)+"/disksize", "0\n")
		f.Put(host.ZramSys(id)+"/comp_algorithm", "lzo [lzo-rle] lz4 zstd\n")
		f.Put(host.ZramSys(id)+"/mem_limit", "0\n")
		f.Put(host.ZramSys(id)+"/reset", "")
		f.Put("/dev/zram"+fmt.Sprint(id), "")
		f.Call("hot_add %d", id)
		return []byte(fmt.Sprintf("%d\n", id)), nil
	}
	return f.OSHost.ReadFile(name)
}

func (f *Fake) WriteFile(name string, data []byte) error {
	v := strings.TrimSpace(string(data))
	switch {
	case name == host.ZramControl+"/hot_remove":
		f.Call("hot_remove %s", v)
		if err := os.RemoveAll(f.Path("/sys/block/zram" + v)); err != nil {
			return err
		}
		return os.Remove(f.Path("/dev/zram" + v))
	case strings.HasPrefix(name, "/sys/block/zram") && strings.HasSuffix(name, "/reset"):
		f.Call("reset %s", name)
		return f.OSHost.WriteFile(strings.TrimSuffix(name, "reset")+"disksize", []byte("0\n"))
	case strings.HasPrefix(name, "/sys/block/zram") && strings.HasSuffix(name, "/comp_algorithm"):
		sel, avail := host.ParseCompAlgorithm(f.Read(name))
		_ = sel
		if !slices.Contains(avail, v) {
			return fmt.Errorf("writing %q to %s: invalid argument", v, name)
		}
		var out []string
		for _, a := range avail {
			if a == v {
				a = "[" + a + "]"
			}
			out = append(out, a)
		}
		return f.OSHost.WriteFile(name, []byte(strings.Join(out, " ")+"\n"))
	}
	f.Call("write %s %s", name, v)
	return f.OSHost.WriteFile(name, data)
}

func (f *Fake) MakeSwapFile(name string, size units.Bytes) error {
	f.Call("mkswap %s %s", name, size)
	fh, err := os.OpenFile(f.Path(name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return fh.Close()
}

func (f *Fake) WriteSwapHeader(dev string, size units.Bytes) error {
	f.Call("swap header %s", dev)
	return nil
}

func (f *Fake) LoopAttach(backing string) (string, io.Closer, error) {
	f.Call("loop attach %s", backing)
	f.Put("/sys/block/loop0/loop/backing_file", backing+"\n")
	return "/dev/loop0", io.NopCloser(nil), nil
}

func (f *Fake) LoopDetach(dev string) error {
	f.Call("loop detach %s", dev)
	f.Put("/sys/block/loop0/loop/backing_file", "")
	return nil
}

func (f *Fake) Swapon(name string, prio int) error {
	f.Call("swapon %s", name)
	typ := "file"
	if strings.HasPrefix(name, "/dev/") {
		typ = "partition"
	}
	f.Put("/proc/swaps", f.Read("/proc/swaps")+fmt.Sprintf("%s\t%s\t1024\t0\t%d\n", name, typ, prio))
	return nil
}

func (f *Fake) Swapoff(name string) error {
	f.Call("swapoff %s", name)
	var keep []string
	for _, l := range strings.SplitAfter(f.Read("/proc/swaps"), "\n") {
		if l != "" && !strings.HasPrefix(l, name+"\t") {
			keep = append(keep, l)
		}
	}
	f.Put("/proc/swaps", strings.Join(keep, ""))
	return nil
}

// V1Fixture is a cgroup v1 host like the CI machine: memory and blkio on
// v1 hierarchies, an empty cgroup2 mount, one unused zram device, zswap
// off, no swap.
func V1Fixture() map[string]string {
	return map[string]string{
		"/proc/swaps":   "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
		"/proc/meminfo": "MemTotal:       24731708 kB\nMemFree:        23068472 kB\nMemAvailable:   24331760 kB\n",
		"/proc/self/mountinfo": `25 1 254:0 / / rw,relatime - ext4 /dev/vda rw
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`,
		"/proc/self/cgroup":       "7:blkio:/\n4:memory:/jobs/me\n0::/\n",
		"/proc/sys/vm/swappiness": "60\n",
		"/proc/vmstat":            "pswpin 0\npswpout 0\n",
		"/proc/pressure/memory":   "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"/sys/fs/cgroup/memory/jobs/me/memory.limit_in_bytes":  "9223372036854771712\n",
		"/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device": "",
		"/sys/fs/cgroup/unified/cgroup.subtree_control":        "\n",
		"/sys/block/zram0/disksize":                            "0\n",
		"/sys/block/zram0/comp_algorithm":                      "[lzo-rle] lzo lz4\n",
		"/sys/block/zram0/reset":                               "",
		"/sys/block/zram0/mem_limit":                           "0\n",
		"/dev/zram0":                                           "",
		"/sys/block/vda/dev":                                   "254:0\n",
		"/sys/class/zram-control/hot_add":                      "",
		"/sys/class/zram-control/hot_remove":                   "",
		"/sys/module/zswap/parameters/enabled":                 "N\n",
		"/sys/module/zswap/parameters/compressor":              "lzo\n",
		"/sys/module/zswap/parameters/max_pool_percent":        "20\n",
		"/swap/":  "",
		"/state/": "",
	}
}
