//go:build linux

package host

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A loop device over a zram device is swap that lives in compressed RAM
// like zram but goes through the kernel's block path like a disk: zram is a
// synchronous device, so the kernel never reads ahead from it, while from
// the loop device it reads clusters of neighbouring pages as it would from
// an SSD. Profiling a command on it counts the major faults the command
// takes with readahead, which a zram profile cannot see.

// LoopAttach binds a free loop device to the block device backing, with
// direct I/O (no page cache in between) and 4 KiB sectors, and marks it to
// detach itself when the last opener closes it. The returned Closer is
// that opener: close it once swapon holds the device (swapoff then
// detaches it) or when setting it up failed.
func (h *OSHost) LoopAttach(backing string) (string, io.Closer, error) {
	ctl, err := os.OpenFile(h.Path("/dev/loop-control"), os.O_RDWR, 0)
	if err != nil {
		return "", nil, err
	}
	defer ctl.Close()
	n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
	if err != nil {
		return "", nil, fmt.Errorf("finding a free loop device: %w", err)
	}
	dev := fmt.Sprintf("/dev/loop%d", n)
	back, err := os.OpenFile(h.Path(backing), os.O_RDWR|unix.O_DIRECT, 0)
	if err != nil {
		return "", nil, err
	}
	defer back.Close()
	loop, err := os.OpenFile(h.Path(dev), os.O_RDWR, 0)
	if err != nil {
		return "", nil, err
	}
	cfg := unix.LoopConfig{Fd: uint32(back.Fd()), Size: uint32(PageSize)}
	cfg.Info.Flags = unix.LO_FLAGS_DIRECT_IO | unix.LO_FLAGS_AUTOCLEAR
	copy(cfg.Info.File_name[:], backing)
	if err := unix.IoctlLoopConfigure(int(loop.Fd()), &cfg); err != nil {
		loop.Close()
		return "", nil, fmt.Errorf("binding %s to %s: %w", dev, backing, err)
	}
	return dev, loop, nil
}

// LoopDetach unbinds a loop device; one that is not bound is left alone.
func (h *OSHost) LoopDetach(dev string) error {
	f, err := os.OpenFile(h.Path(dev), os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENXIO) || errors.Is(err, unix.ENODEV) {
			return nil // gone, or going away on its own (autoclear)
		}
		return err
	}
	defer f.Close()
	if err := unix.IoctlSetInt(int(f.Fd()), unix.LOOP_CLR_FD, 0); err != nil && !errors.Is(err, unix.ENXIO) {
		return fmt.Errorf("detaching %s: %w", dev, err)
	}
	return nil
}

// boundLoops maps each bound loop device's name (loop0) to its backing
// file, by sysfs.
func boundLoops(h Host) map[string]string {
	ents, err := h.ReadDir("/sys/block")
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "loop") {
			continue
		}
		if b, err := ReadString(h, filepath.Join("/sys/block", name, "loop/backing_file")); err == nil && b != "" {
			out[name] = b
		}
	}
	return out
}

// releaseLoops detaches every loop device bound to backing (the undo of
// OpLoop: after a kill -9 the autoclear flag has usually done it already,
// once the swap area on it was turned off).
func releaseLoops(h Host, backing string) error {
	var errs []error
	for name, b := range boundLoops(h) {
		if b != backing {
			continue
		}
		dev := "/dev/" + name
		errs = append(errs, swapoffIfOn(h, dev), h.LoopDetach(dev))
	}
	return errors.Join(errs...)
}

// loopAvailable says why the host cannot put a loop device over zram, or
// "" when it can.
func LoopAvailable(h Host) string {
	if !Exists(h, "/dev/loop-control") {
		return "no /dev/loop-control (the loop driver is not loaded)"
	}
	return ""
}
