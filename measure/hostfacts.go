package measure

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
	"golang.org/x/sys/unix"
)

// swapTarget is the device and filesystem under --swap-dir.
type swapTarget struct {
	Dir        string       // absolute, symlinks resolved
	FS         string       // filesystem type
	MountPoint string       //
	Source     string       // mount source
	Disk       *BlockDevice // nil when no block device is behind it
	DiskDev    string       // maj:min of the whole disk (what blkio throttles)
}

// locateSwapDir resolves dir to its filesystem and disk using the host's
// /proc/self/mountinfo and /sys.
func locateSwapDir(h Host, dir string) (*swapTarget, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	t := &swapTarget{Dir: abs}
	mi, err := h.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	mounts, err := devParseMountInfo(bytes.NewReader(mi))
	if err != nil {
		return nil, err
	}
	m, ok := devFindMount(mounts, abs)
	if !ok {
		return t, nil
	}
	t.FS, t.MountPoint, t.Source = m.FSType, m.MountPoint, m.Source
	if fi, err := h.Stat(abs); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			major, minor := int(unix.Major(st.Dev)), int(unix.Minor(st.Dev))
			if bd, err := devResolveBlock("/sys", major, minor); err == nil {
				t.Disk = bd
				if d, err := readString(h, "/sys/block/"+bd.Name+"/dev"); err == nil {
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
func (t *swapTarget) deviceClass() string {
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

func (t *swapTarget) deviceName() string {
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

// hostFacts describes the machine for the factor file.
func hostFacts(h Host, layout *CgroupLayout, t *swapTarget) model.HostFacts {
	f := model.HostFacts{}
	f.Hostname, _ = readString(h, "/proc/sys/kernel/hostname")
	if f.Hostname == "" {
		f.Hostname, _ = os.Hostname()
	}
	f.Kernel, _ = readString(h, "/proc/sys/kernel/osrelease")
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
	if mi, err := readMeminfo(h); err == nil {
		f.RAM = units.Bytes(mi["MemTotal"]).String()
	}
	if layout != nil {
		f.Cgroup = layout.String()
	}
	if t != nil {
		f.Device = t.deviceName()
		f.FS = t.FS
		if t.MountPoint != "" {
			f.FS += " on " + t.MountPoint
		}
	}
	return f
}
