package measure

import (
	"os"
	"strings"
	"testing"
)

func TestZramHotAddAndUndo(t *testing.T) {
	h := newFakeHost(t, v1Fixture())
	before := HostState(h)
	j, err := NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	measured := ""
	z, err := setupZram(h, j, "lz4", 64<<20, 32<<20, false, func(dev string) error { measured = dev; return nil })
	if err != nil {
		t.Fatal(err)
	}
	// zram0 is free, but a hot-added device leaves it alone.
	if z.ID != 1 || z.Dev != "/dev/zram1" || measured != "/dev/zram1" {
		t.Fatalf("got %+v (measured %q)", z, measured)
	}
	if got := strings.TrimSpace(h.read("/sys/block/zram1/comp_algorithm")); got != "lzo lzo-rle [lz4] zstd" {
		t.Errorf("comp_algorithm %q", got)
	}
	if !strings.Contains(h.read("/proc/swaps"), "/dev/zram1") {
		t.Error("zram1 is not a swap area")
	}
	if e := j.Entries(); len(e) != 2 || e[0].Op != opZramAdd || e[0].ID != 1 || e[1].Op != opSwapon {
		t.Errorf("journal %+v", e)
	}
	if err := j.UndoAll(); err != nil {
		t.Fatal(err)
	}
	if got := HostState(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}
}

// Over a loop device: the journal has the loop before the swap area, so
// undo turns swap off, detaches the loop device, then removes the zram
// device.
func TestZramOverLoopAndUndo(t *testing.T) {
	h := newFakeHost(t, v1Fixture())
	before := HostState(h)
	j, err := NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	z, err := setupZram(h, j, "lz4", 64<<20, 64<<20, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if z.Dev != "/dev/zram1" || z.SwapDev != "/dev/loop0" || !strings.Contains(h.read("/proc/swaps"), "/dev/loop0") || strings.Contains(h.read("/proc/swaps"), "/dev/zram1") {
		t.Fatalf("got %+v, swaps %q", z, h.read("/proc/swaps"))
	}
	if e := j.Entries(); len(e) != 3 || e[1].Op != opLoop || e[1].Path != "/dev/zram1" || e[2].Op != opSwapon || e[2].Path != "/dev/loop0" {
		t.Errorf("journal %+v", e)
	}
	if !strings.Contains(HostState(h), "loop0: /dev/zram1") {
		t.Errorf("host state does not show the loop device:\n%s", HostState(h))
	}
	h.calls = nil
	if err := j.UndoAll(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.calls, "; "); !strings.Contains(got, "swapoff /dev/loop0; loop detach /dev/loop0") {
		t.Errorf("undo calls: %s", got)
	}
	if got := HostState(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}
}

func TestZramUnknownIDAfterCrash(t *testing.T) {
	// The probe recorded the hot_add but died before learning the number:
	// cleanup removes only devices that were not there before.
	h := newFakeHost(t, v1Fixture())
	before := HostState(h)
	h.ReadFile(zramControl + "/hot_add") // creates zram1
	if err := undo(h, Entry{Op: opZramAdd, ID: -1, Prev: []int{0}}); err != nil {
		t.Fatal(err)
	}
	if exists(h, "/sys/block/zram1") || !exists(h, "/sys/block/zram0") {
		t.Error("wrong devices removed")
	}
	if got := HostState(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}
}

func TestZramFreeDeviceWithoutHotAdd(t *testing.T) {
	fx := v1Fixture()
	delete(fx, "/sys/class/zram-control/hot_add")
	delete(fx, "/sys/class/zram-control/hot_remove")
	h := newFakeHost(t, fx)
	before := HostState(h)
	j, err := NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	z, err := setupZram(h, j, "lz4", 64<<20, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if z.ID != 0 {
		t.Fatalf("used zram%d, want the free zram0", z.ID)
	}
	if err := j.UndoAll(); err != nil {
		t.Fatal(err)
	}
	// Reset first, then the compressor goes back to lzo-rle.
	if got := HostState(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}

	// A device in use is never taken.
	h.put("/sys/block/zram0/disksize", "1073741824\n")
	if _, err := setupZram(h, j, "lz4", 64<<20, 0, false, nil); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("busy device: got %v", err)
	}
}

func TestZramUnavailableAlgorithm(t *testing.T) {
	h := newFakeHost(t, v1Fixture())
	_, err := planZram(h, "zstd")
	if err == nil || !strings.Contains(err.Error(), `"zstd" is not available`) || !strings.Contains(err.Error(), "lzo-rle, lzo, lz4") {
		t.Errorf("got %v", err)
	}
	os.RemoveAll(h.path("/sys/block/zram0"))
	os.RemoveAll(h.path("/sys/class/zram-control"))
	if _, err := planZram(h, "lz4"); err == nil || !strings.Contains(err.Error(), "load the zram module") {
		t.Errorf("no zram: got %v", err)
	}
}
