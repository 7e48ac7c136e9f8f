//go:build linux

package host

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/units"
	"golang.org/x/sys/unix"
)

// swapTarget is the device and filesystem under --swap-dir.
type SwapTarget struct {
	Dir        string       `json:"dir"`            // absolute, symlinks resolved
	FS         string       `json:"fs"`             // filesystem type
	MountPoint string       `json:"mount_point"`    //
	Source     string       `json:"source"`         // mount source
	Disk       *BlockDevice `json:"disk,omitempty"` // nil when no block device is behind it
	DiskDev    string       `json:"disk_dev"`       // maj:min of the whole disk (what blkio throttles)
}

// locateSwapDir resolves dir to its filesystem and disk using the host's
// /proc/self/mountinfo and /sys.
func locateSwapDir(h Host, dir string) (*SwapTarget, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	t := &SwapTarget{Dir: abs}
	mi, err := h.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	mounts, err := ParseMountInfo(bytes.NewReader(mi))
	if err != nil {
		return nil, err
	}
	m, ok := FindMount(mounts, abs)
	if !ok {
		return t, nil
	}
	t.FS, t.MountPoint, t.Source = m.FSType, m.MountPoint, m.Source
	if fi, err := h.Stat(abs); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			major, minor := int(unix.Major(st.Dev)), int(unix.Minor(st.Dev))
			if bd, err := ResolveBlock("/sys", major, minor); err == nil {
				t.Disk = bd
				if d, err := ReadString(h, "/sys/block/"+bd.Name+"/dev"); err == nil {
					t.DiskDev = d
				}
			}
		}
	}
	return t, nil
}

// deviceClass picks the factor class of the swap file's device: rotational
// disks are "hdd", NVMe namespaces "nvme-ssd-tlc", anything else
// "sata-ssd-tlc" (TLC being what servers ship today).
func (t *SwapTarget) DeviceClass() string {
	if t.Disk == nil {
		return "sata-ssd-tlc"
	}
	switch {
	case t.Disk.Rotational != nil && *t.Disk.Rotational:
		return "hdd"
	case strings.HasPrefix(t.Disk.Name, "nvme"):
		return "nvme-ssd-tlc"
	}
	return "sata-ssd-tlc"
}

func (t *SwapTarget) DeviceName() string {
	d := t.Disk
	switch {
	case d == nil:
		return t.FS + " " + t.Source
	case d.Model != "":
		return strings.TrimSpace(d.Vendor+" "+d.Model) + " (" + d.Name + ")"
	case d.Driver != "":
		return d.Name + " (" + d.Driver + ")"
	}
	return d.Name
}

// Facts describes the machine for the factor file.
func Facts(h Host, layout *CgroupLayout, t *SwapTarget) factors.HostFacts {
	f := factors.HostFacts{}
	f.Hostname, _ = ReadString(h, "/proc/sys/kernel/hostname")
	if f.Hostname == "" {
		f.Hostname, _ = os.Hostname()
	}
	f.Kernel, _ = ReadString(h, "/proc/sys/kernel/osrelease")
	if b, err := h.ReadFile("/proc/cpuinfo"); err == nil {
		model, n := "", 0
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "processor":
				n++
			case "model name":
				if model == "" {
					model = strings.TrimSpace(v)
				}
			}
		}
		if model != "" {
			f.CPU = fmt.Sprintf("%d x %s", n, model)
		}
	}
	if mi, err := ReadMeminfo(h); err == nil {
		f.RAM = units.Bytes(mi["MemTotal"]).String()
	}
	if layout != nil {
		f.Cgroup = layout.String()
	}
	if t != nil {
		f.Device = t.DeviceName()
		f.FS = t.FS
		if t.MountPoint != "" {
			f.FS += " on " + t.MountPoint
		}
	}
	return f
}

// checkSwapDir makes sure dir exists and is a directory on a filesystem
// that can hold a swap file, and finds the device behind it.
func CheckSwapDir(h Host, dir string) (*SwapTarget, error) {
	fi, err := h.Stat(dir)
	switch {
	case isNotExist(err):
		return nil, measure.OptErr("swap-dir", "%s does not exist; give a directory on the device to measure", dir)
	case err != nil:
		return nil, measure.OptErr("swap-dir", "%v", err)
	case !fi.IsDir():
		return nil, measure.OptErr("swap-dir", "%s is not a directory", dir)
	}
	t, err := locateSwapDir(h, dir)
	if err != nil {
		return nil, fmt.Errorf("locating %s: %w", dir, err)
	}
	switch t.FS {
	case "tmpfs", "ramfs", "overlay", "nfs", "nfs4", "cifs", "fuse", "squashfs", "proc", "sysfs", "devtmpfs":
		return nil, measure.OptErr("swap-dir", "%s is on %s, which cannot hold a swap file; give a directory on the device to measure (ext4, xfs)", dir, t.FS)
	}
	return t, nil
}

func DiskName(t *SwapTarget) string {
	if t.Disk == nil {
		return "?"
	}
	return t.Disk.Name
}
