//go:build linux

package emulate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// loopAttach binds a free loop device to file with direct I/O and 4 KiB
// logical blocks. bound is called with the device's name as soon as it is
// bound, before it is checked, so the caller records it before anything can
// fail. The loop device is not set to clear itself on last close: the
// emulator detaches it explicitly, in order, and Cleanup can find it by
// name.
func loopAttach(file string, bound func(string)) (string, error) {
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		return "", fmt.Errorf("opening /dev/loop-control (try `modprobe loop`): %w", err)
	}
	defer ctl.Close()
	// O_DIRECT on the backing file as well: the loop driver uses direct
	// I/O only if the file was opened for it or accepts it, and FUSE
	// requires the file system to support it (FOPEN_DIRECT_IO files do).
	back, err := os.OpenFile(file, os.O_RDWR|unix.O_DIRECT, 0)
	if err != nil {
		return "", fmt.Errorf("opening the emulated device's file: %w", err)
	}
	defer back.Close()
	for try := 0; ; try++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return "", fmt.Errorf("finding a free loop device: %w", err)
		}
		dev := fmt.Sprintf("/dev/loop%d", n)
		loop, err := os.OpenFile(dev, os.O_RDWR, 0)
		if err != nil {
			return "", err
		}
		cfg := unix.LoopConfig{Fd: uint32(back.Fd()), Size: pageBytes}
		cfg.Info.Flags = unix.LO_FLAGS_DIRECT_IO
		copy(cfg.Info.File_name[:], file)
		err = unix.IoctlLoopConfigure(int(loop.Fd()), &cfg)
		loop.Close()
		if errors.Is(err, unix.EBUSY) && try < 10 {
			continue // another process took it between GET_FREE and CONFIGURE
		}
		if err != nil {
			return "", fmt.Errorf("binding %s to %s: %w", dev, file, err)
		}
		bound(dev)
		// The kernel falls back to buffered I/O silently when the file
		// cannot do direct I/O; the page cache would then answer reads
		// at memory speed and the emulation would be a lie.
		dio, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "loop/dio"))
		if err != nil || strings.TrimSpace(string(dio)) != "1" {
			return dev, fmt.Errorf("%s over %s does not do direct I/O (sysfs loop/dio %q): the page cache would answer its reads", dev, file, strings.TrimSpace(string(dio)))
		}
		return dev, nil
	}
}

// loopDetach unbinds dev if it is still bound to file; a loop device that is
// unbound, or now bound to something else, is left alone.
func loopDetach(dev, file string) error {
	back, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "loop/backing_file"))
	if err != nil {
		return nil // not bound (the loop directory exists only while bound) or no such device
	}
	if b := strings.TrimSpace(string(back)); b != file && !strings.HasPrefix(b, file+" ") {
		return nil
	}
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENXIO) {
			return nil
		}
		return err
	}
	defer f.Close()
	if err := unix.IoctlSetInt(int(f.Fd()), unix.LOOP_CLR_FD, 0); err != nil && !errors.Is(err, unix.ENXIO) {
		return fmt.Errorf("detaching %s: %w", dev, err)
	}
	return nil
}

// Leftovers lists what emulators left on the host, found without a State:
// FUSE mounts of the emulator and loop devices over files in them. A test
// checks it is empty after teardown; an operator can feed it to Cleanup.
func Leftovers() []State {
	var out []State
	loops := map[string]string{}
	ents, _ := os.ReadDir("/sys/block")
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join("/sys/block", e.Name(), "loop/backing_file")); err == nil {
			loops[strings.TrimSpace(string(b))] = "/dev/" + e.Name()
		}
	}
	swaps, _ := os.ReadFile("/proc/swaps")
	for _, mp := range mounts() {
		s := State{Mountpoint: mp}
		file := s.File()
		for b, dev := range loops {
			if b == file || strings.HasPrefix(b, file+" ") {
				s.Loop = dev
			}
		}
		if s.Loop != "" {
			for _, line := range strings.Split(string(swaps), "\n") {
				if f := strings.Fields(line); len(f) > 0 && f[0] == s.Loop {
					s.Swap = true
				}
			}
		}
		out = append(out, s)
	}
	return out
}
