//go:build linux

package host_test

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/hosttest"
	"github.com/memplan/memplan/units"
)

func TestDetectCgroupsV1(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	l, err := host.DetectCgroups(h)
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 1 || l.MemParent != "/sys/fs/cgroup/memory/jobs/me" || l.BlkParent != "/sys/fs/cgroup/blkio" || !l.IO {
		t.Errorf("got %+v", l)
	}
	if l.MemPrefix != "4:memory:/jobs/me" || l.BlkPrefix != "7:blkio:" {
		t.Errorf("prefixes %q %q", l.MemPrefix, l.BlkPrefix)
	}
	if l.String() != "v1" {
		t.Errorf("String() = %q", l)
	}
}

func TestDetectCgroupsV2(t *testing.T) {
	h := hosttest.NewFake(t, map[string]string{
		"/proc/self/mountinfo":                  "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"/proc/self/cgroup":                     "0::/user.slice/session-1.scope\n",
		"/sys/fs/cgroup/cgroup.subtree_control": "cpuset cpu io memory pids\n",
	})
	l, err := host.DetectCgroups(h)
	if err != nil {
		t.Fatal(err)
	}
	// v2's no-internal-process rule: the probe's cgroup goes under the root.
	if l.Version != 2 || l.MemParent != "/sys/fs/cgroup" || !l.IO || l.MemPrefix != "0::" {
		t.Errorf("got %+v", l)
	}

	h = hosttest.NewFake(t, map[string]string{
		"/proc/self/mountinfo":                  "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"/proc/self/cgroup":                     "0::/\n",
		"/sys/fs/cgroup/cgroup.subtree_control": "cpu pids\n",
	})
	l, err = host.DetectCgroups(h)
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 0 || !strings.Contains(l.Why, "memory controller is not enabled") {
		t.Errorf("v2 without memory: got %+v", l)
	}
}

func TestDetectCgroupsNone(t *testing.T) {
	h := hosttest.NewFake(t, map[string]string{
		"/proc/self/mountinfo": "25 1 254:0 / / rw - ext4 /dev/vda rw\n",
		"/proc/self/cgroup":    "",
	})
	l, err := host.DetectCgroups(h)
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 0 || l.Why == "" {
		t.Errorf("got %+v", l)
	}
}

func TestCgroupLimitsV1AndV2(t *testing.T) {
	h := hosttest.NewFake(t, map[string]string{
		"/cg1/memory.limit_in_bytes":               "9223372036854771712\n",
		"/cg1/memory.memsw.limit_in_bytes":         "9223372036854771712\n",
		"/cg1/memory.swappiness":                   "60\n",
		"/cg2/memory.max":                          "max\n",
		"/cg2/memory.swap.max":                     "max\n",
		"/cg2/io.max":                              "",
		"/cg1blk/blkio.throttle.read_iops_device":  "",
		"/cg1blk/blkio.throttle.write_iops_device": "",
	})
	c1 := &host.Cgroup{Host: h, Version: 1, Mem: "/cg1", Blk: "/cg1blk"}
	if err := c1.SetLimit(100*units.MiB, 300*units.MiB); err != nil {
		t.Fatal(err)
	}
	if got := h.Read("/cg1/memory.limit_in_bytes") + h.Read("/cg1/memory.memsw.limit_in_bytes"); got != "104857600314572800" {
		t.Errorf("v1 limits: %q", got)
	}
	// Raising the limit above the current memsw must raise memsw first.
	h.Calls = nil
	if err := c1.SetLimit(400*units.MiB, 500*units.MiB); err != nil {
		t.Fatal(err)
	}
	if len(h.Calls) != 2 || !strings.Contains(h.Calls[0], "memsw") {
		t.Errorf("write order %q", h.Calls)
	}
	if err := c1.SetSwappiness(0); err != nil || h.Read("/cg1/memory.swappiness") != "0" {
		t.Errorf("swappiness: %v", err)
	}
	if err := c1.Throttle("8:0", 220, 200); err != nil {
		t.Fatal(err)
	}
	if h.Read("/cg1blk/blkio.throttle.read_iops_device") != "8:0 220" || h.Read("/cg1blk/blkio.throttle.write_iops_device") != "8:0 200" {
		t.Errorf("v1 throttle not written")
	}

	c2 := &host.Cgroup{Host: h, Version: 2, Mem: "/cg2", Blk: "/cg2"}
	if err := c2.SetLimit(100*units.MiB, 100*units.MiB); err != nil {
		t.Fatal(err)
	}
	if h.Read("/cg2/memory.max") != "104857600" || h.Read("/cg2/memory.swap.max") != "0" {
		t.Errorf("v2 limits: %q %q", h.Read("/cg2/memory.max"), h.Read("/cg2/memory.swap.max"))
	}
	if err := c2.SetSwappiness(1); err == nil {
		t.Error("v2 has no per-cgroup swappiness; want an error")
	}
	if err := c2.Throttle("8:0", 220, 0); err != nil || h.Read("/cg2/io.max") != "8:0 riops=220 wiops=max" {
		t.Errorf("v2 throttle: %v %q", err, h.Read("/cg2/io.max"))
	}
}
