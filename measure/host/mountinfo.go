//go:build linux

package host

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memplan/memplan/units"
)

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

// Mount is one line of /proc/self/mountinfo: the device, the root of the
// mount within its filesystem, where it is mounted, the filesystem type,
// the source and the superblock options. Paths are unescaped.
type Mount struct {
	Major, Minor int
	Root         string
	MountPoint   string
	FSType       string
	Source       string
	SuperOpts    string
}

// ParseMountInfo parses /proc/<pid>/mountinfo (proc(5)); the cgroup
// detection, the swap directory's device and the device profile all read
// it through this.
func ParseMountInfo(r io.Reader) ([]Mount, error) {
	var out []Mount
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
			return nil, parseErr("/proc/self/mountinfo", line, sc.Text(), "expected \"id parent major:minor root mountpoint options ... - fstype source options\"")
		}
		maj, min, ok := strings.Cut(f[2], ":")
		ma, err1 := strconv.Atoi(maj)
		mi, err2 := strconv.Atoi(min)
		if !ok || err1 != nil || err2 != nil {
			return nil, parseErr("/proc/self/mountinfo", line, sc.Text(), fmt.Sprintf("bad major:minor %q", f[2]))
		}
		m := Mount{Major: ma, Minor: mi, Root: unescapeOctal(f[3]), MountPoint: unescapeOctal(f[4]), FSType: f[sep+1], Source: unescapeOctal(f[sep+2])}
		if sep+3 < len(f) {
			m.SuperOpts = f[sep+3]
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// FindMount returns the mount holding path (absolute, symlinks resolved):
// the longest mount point that contains it, the last one mounted on ties.
func FindMount(mounts []Mount, path string) (Mount, bool) {
	best, found := Mount{}, false
	for _, m := range mounts {
		if !under(path, m.MountPoint) {
			continue
		}
		if !found || len(m.MountPoint) >= len(best.MountPoint) {
			best, found = m, true
		}
	}
	return best, found
}

func under(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// ResolveBlock describes the block device major:minor under sysRoot
// (normally /sys), following partitions to their disk and single-member
// device-mapper or md layers to the disk below.
func ResolveBlock(sysRoot string, major, minor int) (*BlockDevice, error) {
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
		if pathExists(filepath.Join(p, "partition")) {
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
		if name := readAttr(p, "dm", "name"); name != "" {
			layer += " (" + name + ")"
		}
		bd.Stack = append(bd.Stack, layer)
		if len(slaves) > 1 {
			for _, s := range slaves {
				bd.Members = append(bd.Members, slaveDiskName(filepath.Join(p, "slaves", s.Name())))
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
				models[readAttr(mp, "device", "model")] = true
				if rot := readAttr(mp, "queue", "rotational"); rot != "" && bd.Rotational == nil {
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
		bd.Model = readAttr(p, "device", "model")
		bd.Vendor = readAttr(p, "device", "vendor")
	}
	for _, link := range []string{"device/driver", "device/device/driver"} {
		if t, err := os.Readlink(filepath.Join(p, link)); err == nil {
			bd.Driver = filepath.Base(t)
			break
		}
	}
	if rot := readAttr(p, "queue", "rotational"); rot != "" {
		r := rot == "1"
		bd.Rotational = &r
	}
	bd.LogicalBlockSize, _ = strconv.Atoi(readAttr(p, "queue", "logical_block_size"))
	bd.PhysicalBlockSize, _ = strconv.Atoi(readAttr(p, "queue", "physical_block_size"))
	if s := readAttr(p, "queue", "scheduler"); s != "" {
		bd.Scheduler = s
		if i, j := strings.Index(s, "["), strings.Index(s, "]"); i >= 0 && j > i {
			bd.Scheduler = s[i+1 : j]
		}
	}
	if sectors, err := strconv.ParseInt(readAttr(p, "size"), 10, 64); err == nil {
		bd.Size = units.Bytes(sectors * 512) // sysfs counts 512-byte sectors whatever the block size
	}
	return bd, nil
}

// slaveDiskName names the disk a slaves/ entry stands for (a partition's disk).
func slaveDiskName(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return filepath.Base(p)
	}
	if pathExists(filepath.Join(r, "partition")) {
		return filepath.Base(filepath.Dir(r))
	}
	return filepath.Base(r)
}

func readAttr(elem ...string) string {
	b, err := os.ReadFile(filepath.Join(elem...))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
