//go:build linux

package host

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/units"
)

// CgroupLayout says where the probe can create cgroups on this host and
// which controllers it gets. It is detected, never assumed: v1 when the
// memory controller sits on a v1 hierarchy, v2 when the unified hierarchy
// offers it.
type CgroupLayout struct {
	Version   int    `json:"version"`    // 1 or 2; 0 when no memory controller is usable
	MemParent string `json:"mem_parent"` // directory under which the probe's cgroup is created
	BlkParent string `json:"blk_parent"` // v1 blkio directory ("" when absent); v2: MemParent
	// MemPrefix/BlkPrefix are /proc/self/cgroup lines up to the path: a
	// child in <MemParent>/x shows the line MemPrefix + "/x".
	MemPrefix string `json:"mem_prefix"`
	BlkPrefix string `json:"blk_prefix"`
	IO        bool   `json:"io"`            // I/O throttling available
	Why       string `json:"why,omitempty"` // why Version is 0 or IO is false
}

func (l *CgroupLayout) String() string {
	switch l.Version {
	case 1:
		return "v1"
	case 2:
		return "v2"
	}
	return "none"
}

// DetectCgroups finds the memory (and blkio/io) controllers for this
// process. The probe's cgroups go below this process's own cgroup on v1
// (so limits set above it still apply) and below the root on v2 (whose
// no-internal-process rule forbids children next to our own process).
func DetectCgroups(h Host) (*CgroupLayout, error) {
	mi, err := h.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	mounts, err := ParseMountInfo(bytes.NewReader(mi))
	if err != nil {
		return nil, err
	}
	cg, err := h.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	type member struct{ id, path string }
	v1 := map[string]member{} // controller -> membership
	var v2path string
	hasV2 := false
	for _, line := range strings.Split(strings.TrimSpace(string(cg)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2path, hasV2 = parts[2], true
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			v1[c] = member{parts[0], parts[2]}
		}
	}
	l := &CgroupLayout{}
	dirFor := func(m Mount, cgPath string) string {
		rel := cgPath
		if m.Root != "/" {
			rel = strings.TrimPrefix(cgPath, m.Root)
		}
		return path.Join(m.MountPoint, rel)
	}
	var memMount, blkMount, v2Mount *Mount
	for i := range mounts {
		m := &mounts[i]
		switch m.FSType {
		case "cgroup":
			for _, o := range strings.Split(m.SuperOpts, ",") {
				switch o {
				case "memory":
					memMount = m
				case "blkio":
					blkMount = m
				}
			}
		case "cgroup2":
			if v2Mount == nil {
				v2Mount = m
			}
		}
	}
	if mem, ok := v1["memory"]; ok && memMount != nil {
		l.Version = 1
		l.MemParent = dirFor(*memMount, mem.path)
		l.MemPrefix = mem.id + ":" + strings.Join(v1Controllers(cg, mem.id), ",") + ":" + strings.TrimSuffix(mem.path, "/")
		if blk, ok := v1["blkio"]; ok && blkMount != nil {
			l.BlkParent = dirFor(*blkMount, blk.path)
			l.BlkPrefix = blk.id + ":" + strings.Join(v1Controllers(cg, blk.id), ",") + ":" + strings.TrimSuffix(blk.path, "/")
			l.IO = Exists(h, l.BlkParent+"/blkio.throttle.read_iops_device")
		}
		if !l.IO {
			l.Why = "no v1 blkio hierarchy with throttling"
		}
		return l, nil
	}
	if hasV2 && v2Mount != nil {
		root := v2Mount.MountPoint
		ctl, _ := ReadString(h, root+"/cgroup.subtree_control")
		have := map[string]bool{}
		for _, c := range strings.Fields(ctl) {
			have[c] = true
		}
		if !have["memory"] {
			l.Why = fmt.Sprintf("the memory controller is not enabled for child cgroups in %s/cgroup.subtree_control (memplan does not change that)", root)
			return l, nil
		}
		l.Version = 2
		l.MemParent = root
		l.BlkParent = root
		rel := "/"
		if v2Mount.Root != "/" {
			rel = v2Mount.Root
		}
		_ = v2path
		l.MemPrefix = "0::" + strings.TrimSuffix(rel, "/")
		l.BlkPrefix = l.MemPrefix
		l.IO = have["io"]
		if !l.IO {
			l.Why = "the io controller is not enabled in " + root + "/cgroup.subtree_control"
		}
		return l, nil
	}
	l.Why = "no memory cgroup controller is mounted (neither a v1 memory hierarchy nor cgroup2 with memory)"
	return l, nil
}

// v1Controllers returns the controller list of hierarchy id as written in
// /proc/self/cgroup ("cpu,cpuacct" for co-mounted ones).
func v1Controllers(cg []byte, id string) []string {
	for _, line := range strings.Split(strings.TrimSpace(string(cg)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && parts[0] == id {
			return strings.Split(parts[1], ",")
		}
	}
	return nil
}

// cgroup is one cgroup the probe created: a directory in the memory
// hierarchy and, on v1 when I/O is throttled, one in blkio.
type Cgroup struct {
	Host         Host
	Version      int
	Mem, Blk     string // directories; blk == mem on v2, "" when unused
	Lines        []string
	limitWritten bool
}

// unlimited is how the kernel reports "no limit" on v1 (rounded to pages).
const unlimited units.Bytes = -1

func (c *Cgroup) memFile(name string) string { return c.Mem + "/" + name }

// setLimit sets the memory limit and the memory+swap limit (v1 semantics;
// on v2 swap.max gets memsw-mem). -1 means no limit.
func (c *Cgroup) SetLimit(mem, memsw units.Bytes) error {
	if c == nil {
		if mem >= 0 || memsw >= 0 {
			return ErrNoCgroup
		}
		return nil
	}
	num := func(b units.Bytes, v2 bool) string {
		if b < 0 {
			if v2 {
				return "max"
			}
			return "-1"
		}
		return strconv.FormatInt(int64(b), 10)
	}
	if c.Version == 2 {
		swap := units.Bytes(-1)
		if memsw >= 0 && mem >= 0 {
			swap = max(memsw-mem, 0)
		}
		if err := WriteString(c.Host, c.memFile("memory.max"), num(mem, true)); err != nil {
			return err
		}
		if Exists(c.Host, c.memFile("memory.swap.max")) {
			return WriteString(c.Host, c.memFile("memory.swap.max"), num(swap, true))
		}
		return nil
	}
	hasMemsw := Exists(c.Host, c.memFile("memory.memsw.limit_in_bytes"))
	if !hasMemsw {
		return WriteString(c.Host, c.memFile("memory.limit_in_bytes"), num(mem, false))
	}
	// memsw must never be below the memory limit: raise memsw first when
	// the new limit exceeds the current memsw.
	cur, _ := ReadString(c.Host, c.memFile("memory.memsw.limit_in_bytes"))
	curSw, _ := strconv.ParseInt(cur, 10, 64)
	first, second := "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"
	v1, v2 := mem, memsw
	if mem < 0 || (curSw > 0 && int64(mem) > curSw) {
		first, second, v1, v2 = second, first, memsw, mem
	}
	if err := WriteString(c.Host, c.memFile(first), num(v1, false)); err != nil {
		return err
	}
	return WriteString(c.Host, c.memFile(second), num(v2, false))
}

// hasMemsw reports whether swap use can be limited (v1 swap accounting, v2
// memory.swap.max).
func (c *Cgroup) CanLimitSwap() bool {
	if c.Version == 2 {
		return Exists(c.Host, c.memFile("memory.swap.max"))
	}
	return Exists(c.Host, c.memFile("memory.memsw.limit_in_bytes"))
}

// setSwappiness sets the per-cgroup swappiness (v1 only).
func (c *Cgroup) SetSwappiness(v int) error {
	if c == nil {
		return ErrNoCgroup
	}
	if c.Version != 1 {
		return errors.ErrUnsupported
	}
	return WriteString(c.Host, c.memFile("memory.swappiness"), strconv.Itoa(v))
}

func (c *Cgroup) AddProc(pid int) error {
	if c == nil {
		return nil
	}
	p := strconv.Itoa(pid)
	if err := WriteString(c.Host, c.memFile("cgroup.procs"), p); err != nil {
		return err
	}
	if c.Blk != "" && c.Blk != c.Mem {
		return WriteString(c.Host, c.Blk+"/cgroup.procs", p)
	}
	return nil
}

func (c *Cgroup) Stat() (map[string]int64, error) {
	return readKeyValues(c.Host, c.memFile("memory.stat"))
}

// Usage is the memory the cgroup is charged for now, the figure its limit
// holds down (memory.usage_in_bytes, on v2 memory.current).
func (c *Cgroup) Usage() (units.Bytes, error) {
	return c.readBytes("memory.usage_in_bytes", "memory.current")
}

// peak is the highest memory use since the cgroup was created.
func (c *Cgroup) Peak() (units.Bytes, error) {
	return c.readBytes("memory.max_usage_in_bytes", "memory.peak")
}

// readBytes reads a memory controller file holding one byte count: v1's
// name on a v1 hierarchy, v2's on v2.
func (c *Cgroup) readBytes(v1, v2 string) (units.Bytes, error) {
	if c == nil {
		return 0, ErrNoCgroup
	}
	name := v1
	if c.Version == 2 {
		name = v2
	}
	s, err := ReadString(c.Host, c.memFile(name))
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return units.Bytes(v), err
}

// oomKills counts processes the kernel killed for this cgroup's limit.
func (c *Cgroup) OomKills() int64 {
	if c == nil {
		return 0
	}
	name := "memory.oom_control"
	if c.Version == 2 {
		name = "memory.events"
	}
	kv, err := readKeyValues(c.Host, c.memFile(name))
	if err != nil {
		return 0
	}
	return kv["oom_kill"]
}

// pressure reads the cgroup's own PSI (v2); v1 has none and callers fall
// back to /proc/pressure/memory.
func (c *Cgroup) pressure() (PSI, bool) {
	if c == nil || c.Version != 2 {
		return PSI{}, false
	}
	p, err := readPSI(c.Host, c.memFile("memory.pressure"))
	return p, err == nil
}

// throttle limits the cgroup's read and write IOPS on a whole disk
// ("maj:min"); 0 removes the limit.
func (c *Cgroup) Throttle(dev string, riops, wiops int) error {
	if c == nil || c.Blk == "" {
		return errors.New("no blkio/io controller for this cgroup")
	}
	if c.Version == 2 {
		v := func(n int) string {
			if n <= 0 {
				return "max"
			}
			return strconv.Itoa(n)
		}
		return WriteString(c.Host, c.Blk+"/io.max", fmt.Sprintf("%s riops=%s wiops=%s", dev, v(riops), v(wiops)))
	}
	if err := WriteString(c.Host, c.Blk+"/blkio.throttle.read_iops_device", fmt.Sprintf("%s %d", dev, max(riops, 0))); err != nil {
		return err
	}
	return WriteString(c.Host, c.Blk+"/blkio.throttle.write_iops_device", fmt.Sprintf("%s %d", dev, max(wiops, 0)))
}

// procs lists the processes in the cgroup.
// Threads lists the threads in the cgroup's memory hierarchy directory
// (tasks on v1, cgroup.threads on v2): every thread of every process, whose
// /proc/TID/schedstat says how long it waited for a CPU.
func (c *Cgroup) Threads() []int {
	name := "/tasks"
	if c.Version == 2 {
		name = "/cgroup.threads"
	}
	return idsIn(c.Host, c.Mem+name)
}

func ProcsIn(h Host, dir string) []int {
	return idsIn(h, dir+"/cgroup.procs")
}

func idsIn(h Host, file string) []int {
	b, err := h.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// removeCgroupDir kills what is left inside a cgroup the probe created
// (only the probe's own children can be there), then removes it, retrying
// while the kernel finishes tearing the processes down.
func removeCgroupDir(h Host, dir string, kill func(pid int)) error {
	if !Exists(h, dir) {
		return nil
	}
	// Children first (run leaves inside the probe's cgroup).
	if ents, err := h.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				if err := removeCgroupDir(h, dir+"/"+e.Name(), kill); err != nil {
					return err
				}
			}
		}
	}
	var err error
	for i := 0; i < 100; i++ {
		for _, pid := range ProcsIn(h, dir) {
			kill(pid)
		}
		if err = h.Remove(dir); err == nil || isNotExist(err) {
			return nil
		}
		time.Sleep(time.Duration(min(10*(i+1), 200)) * time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", dir, err)
}

func (c *Cgroup) ProcLines() []string {
	if c == nil {
		return nil
	}
	return c.Lines
}

func (c *Cgroup) Name() string {
	if c == nil {
		return "(no cgroup)"
	}
	return c.Mem
}

func (c *Cgroup) IsV2() bool { return c != nil && c.Version == 2 }

var ErrNoCgroup = errors.New("no memory cgroup")
