//go:build linux

package host

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/units"
	"golang.org/x/sys/unix"
)

const ZramControl = "/sys/class/zram-control"

// ZramDevices lists the zram device numbers present (/sys/block/zramN).
func ZramDevices(h Host) []int {
	ents, err := h.ReadDir("/sys/block")
	if err != nil {
		return nil
	}
	var ids []int
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), "zram"); ok {
			if id, err := strconv.Atoi(n); err == nil {
				ids = append(ids, id)
			}
		}
	}
	sort.Ints(ids)
	return ids
}

func newZramDevices(h Host, prev []int) []int {
	old := map[int]bool{}
	for _, id := range prev {
		old[id] = true
	}
	var out []int
	for _, id := range ZramDevices(h) {
		if !old[id] {
			out = append(out, id)
		}
	}
	return out
}

func ZramSys(id int) string { return fmt.Sprintf("/sys/block/zram%d", id) }
func zramDev(id int) string { return fmt.Sprintf("/dev/zram%d", id) }

// zramFree reports whether an existing device is unused: no disk size, not
// a swap area. (A mounted zram always has a disk size.)
func zramFree(h Host, id int, swaps []SwapArea) bool {
	ds, err := ReadString(h, ZramSys(id)+"/disksize")
	if err != nil || ds != "0" {
		return false
	}
	for _, s := range swaps {
		if s.Filename == zramDev(id) {
			return false
		}
	}
	return true
}

// zramAlgorithms reads what a device offers: the selected compressor and
// the available ones.
func zramAlgorithms(h Host, id int) (string, []string, error) {
	s, err := ReadString(h, ZramSys(id)+"/comp_algorithm")
	if err != nil {
		return "", nil, err
	}
	sel, avail := ParseCompAlgorithm(s)
	return sel, avail, nil
}

// zramPlan says which device the probe would use, without changing anything.
type zramPlan struct {
	HotAdd bool
	ID     int // existing free device when !HotAdd
	Avail  []string
}

func PlanZram(h Host, alg string) (zramPlan, error) {
	ids := ZramDevices(h)
	swaps, _ := readSwaps(h)
	hotAdd := Exists(h, ZramControl+"/hot_add")
	free := -1
	for _, id := range ids {
		if zramFree(h, id, swaps) {
			free = id
			break
		}
	}
	probe := free
	if probe < 0 && len(ids) > 0 {
		probe = ids[0]
	}
	var avail []string
	if probe >= 0 {
		_, avail, _ = zramAlgorithms(h, probe)
	}
	if !hotAdd && free < 0 {
		if len(ids) == 0 {
			return zramPlan{}, errors.New("no zram devices and no " + ZramControl + "/hot_add (load the zram module)")
		}
		return zramPlan{}, errors.New("every zram device is in use and the kernel cannot hot-add one")
	}
	if avail != nil && !slices.Contains(avail, alg) {
		return zramPlan{Avail: avail}, fmt.Errorf("zram compressor %q is not available on this kernel (available: %s)", alg, strings.Join(avail, ", "))
	}
	return zramPlan{HotAdd: hotAdd, ID: free, Avail: avail}, nil
}

// zramSwap is a zram device the probe set up as swap.
type ZramSwap struct {
	ID        int
	Dev       string
	SwapDev   string // Dev, or the loop device over it
	Algorithm string
	Size      units.Bytes
}

// setupZram prepares a zram swap device: a hot-added one when the kernel can
// (so nothing that exists is touched), else an unused existing one whose
// compressor is restored afterwards. Every change is journaled first.
// before is called between configuring the device and enabling swap on
// it (to measure its raw latency). With overLoop, swap goes on a loop
// device bound to it (see loop.go).
func SetupZram(h Host, j *Journal, alg string, size, memLimit units.Bytes, overLoop bool, before func(dev string) error) (*ZramSwap, error) {
	p, err := PlanZram(h, alg)
	if err != nil {
		return nil, err
	}
	var id int
	if p.HotAdd {
		idx, err := j.Record(Entry{Op: OpZramAdd, ID: -1, Prev: ZramDevices(h)})
		if err != nil {
			return nil, err
		}
		s, err := ReadString(h, ZramControl+"/hot_add")
		if err != nil {
			return nil, fmt.Errorf("hot-adding a zram device: %w", err)
		}
		if id, err = strconv.Atoi(s); err != nil {
			return nil, fmt.Errorf("hot-adding a zram device: %s returned %q", ZramControl+"/hot_add", s)
		}
		if err := j.Update(idx, func(e *Entry) { e.ID = id }); err != nil {
			return nil, err
		}
	} else {
		id = p.ID
		sel, _, err := zramAlgorithms(h, id)
		if err != nil {
			return nil, err
		}
		// Undo order matters: reset the device before restoring its
		// compressor (the kernel refuses while it has a disk size).
		if _, err := j.Record(Entry{Op: OpWrite, Path: ZramSys(id) + "/comp_algorithm", Old: sel, New: alg}); err != nil {
			return nil, err
		}
		if _, err := j.Record(Entry{Op: OpZramReset, ID: id}); err != nil {
			return nil, err
		}
	}
	sys := ZramSys(id)
	if err := WriteString(h, sys+"/comp_algorithm", alg); err != nil {
		return nil, fmt.Errorf("selecting zram compressor %s: %w", alg, err)
	}
	if memLimit > 0 {
		if err := WriteString(h, sys+"/mem_limit", strconv.FormatInt(int64(memLimit), 10)); err != nil {
			return nil, err
		}
	}
	if err := WriteString(h, sys+"/disksize", strconv.FormatInt(int64(size), 10)); err != nil {
		return nil, fmt.Errorf("sizing %s: %w", zramDev(id), err)
	}
	dev := zramDev(id)
	if err := waitFor(h, dev, 5*time.Second); err != nil {
		return nil, err
	}
	if before != nil {
		if err := before(dev); err != nil {
			return nil, err
		}
	}
	if err := h.WriteSwapHeader(dev, size); err != nil {
		return nil, err
	}
	swapDev := dev
	if overLoop {
		if _, err := j.Record(Entry{Op: OpLoop, Path: dev}); err != nil {
			return nil, err
		}
		ld, hold, err := h.LoopAttach(dev)
		if err != nil {
			return nil, fmt.Errorf("binding a loop device to %s: %w", dev, err)
		}
		// Once swap holds the loop device, it detaches itself at swapoff.
		defer hold.Close()
		swapDev = ld
	}
	if _, err := j.Record(Entry{Op: OpSwapon, Path: swapDev}); err != nil {
		return nil, err
	}
	if err := h.Swapon(swapDev, SwapPriority); err != nil {
		return nil, err
	}
	return &ZramSwap{ID: id, Dev: dev, SwapDev: swapDev, Algorithm: alg, Size: size}, nil
}

// swapPriority puts the probe's swap area ahead of any the host has.
const SwapPriority = 32767

func waitFor(h Host, name string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for !Exists(h, name) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not appear", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// releaseZram empties a device the probe configured and, if it hot-added
// it, removes it again.
func releaseZram(h Host, id int, remove bool) error {
	sys := ZramSys(id)
	if !Exists(h, sys) {
		return nil
	}
	if err := swapoffIfOn(h, zramDev(id)); err != nil {
		return err
	}
	var err error
	for i := 0; i < 50; i++ {
		if err = WriteString(h, sys+"/reset", "1"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // busy while udev still has it open
	}
	if err != nil {
		return fmt.Errorf("resetting %s: %w", zramDev(id), err)
	}
	if remove {
		for i := 0; i < 50; i++ {
			if err = WriteString(h, ZramControl+"/hot_remove", strconv.Itoa(id)); err == nil || !Exists(h, sys) {
				return nil
			}
			time.Sleep(50 * time.Millisecond)
		}
		return fmt.Errorf("removing %s: %w", zramDev(id), err)
	}
	return nil
}

// zramLatency measures the 4 KiB read and write time of a configured zram
// device with O_DIRECT on pages of the given content, then discards them
// so they do not count in the device's statistics.
func zramLatency(h Host, dev, content string, pages int) (read, write []time.Duration, err error) {
	f, err := h.OpenDirect(dev)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	buf, err := unix.Mmap(-1, 0, int(PageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Munmap(buf)
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&buf[0])), len(buf)/8)
	x := uint64(0x5eed)
	// Page 0 will hold the swap header; use the pages after it.
	for i := 1; i <= pages; i++ {
		measure.FillPage(words, content, int64(i), &x)
		t := time.Now()
		if _, err := f.WriteAt(buf, int64(i)*PageSize); err != nil {
			return nil, nil, fmt.Errorf("writing %s: %w", dev, err)
		}
		write = append(write, time.Since(t))
	}
	for k := 0; k < pages; k++ {
		x = measure.Xorshift(x)
		i := 1 + int64(x%uint64(pages))
		t := time.Now()
		if _, err := f.ReadAt(buf, i*PageSize); err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", dev, err)
		}
		read = append(read, time.Since(t))
	}
	rng := [2]uint64{uint64(PageSize), uint64(pages) * uint64(PageSize)}
	_, _, _ = unix.Syscall(unix.SYS_IOCTL, f.Fd(), blkDiscard, uintptr(unsafe.Pointer(&rng[0])))
	return read, write, nil
}

// BLKDISCARD from include/uapi/linux/fs.h.
const blkDiscard = 0x1277

// ZramLatency is the raw 4 KiB access time of the zram device.
type ZramLatency struct {
	Algorithm string  `json:"algorithm"`
	Content   string  `json:"content"`
	ReadMean  float64 `json:"read_mean_us"`
	ReadP50   float64 `json:"read_p50_us"`
	WriteMean float64 `json:"write_mean_us"`
	WriteP50  float64 `json:"write_p50_us"`
	Pages     int     `json:"pages"`
}

// measureZramLatency times 4 KiB O_DIRECT reads and writes of pages of the
// given content on a configured zram device that is not yet swap.
func MeasureZramLatency(h Host, dev, alg, content string) (*ZramLatency, error) {
	const pages = 2000
	rd, wr, err := zramLatency(h, dev, content, pages)
	if err != nil {
		return nil, err
	}
	mean := func(d []time.Duration) float64 {
		var t time.Duration
		for _, x := range d {
			t += x
		}
		return float64(t.Nanoseconds()) / float64(len(d)) / 1e3
	}
	return &ZramLatency{Algorithm: alg, Content: content, Pages: pages,
		ReadMean: mean(rd), ReadP50: median(rd), WriteMean: mean(wr), WriteP50: median(wr)}, nil
}

func median(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	c := append([]time.Duration(nil), d...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return float64(c[len(c)/2].Nanoseconds()) / 1e3
}
