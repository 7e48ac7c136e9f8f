//go:build linux

package host_test

import (
	"os"
	"strings"
	"testing"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/hosttest"
)

func TestZramHotAddAndUndo(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	before := host.State(h)
	j, err := host.NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	measured := ""
	z, err := host.SetupZram(h, j, "lz4", 64<<20, 32<<20, false, func(dev string) error { measured = dev; return nil })
	if err != nil {
		t.Fatal(err)
	}
	// zram0 is free, but a hot-added device leaves it alone.
	if z.ID != 1 || z.Dev != "/dev/zram1" || measured != "/dev/zram1" {
		t.Fatalf("got %+v (measured %q)", z, measured)
	}
	if got := strings.TrimSpace(h.Read("/sys/block/zram1/comp_algorithm")); got != "lzo lzo-rle [lz4] zstd" {
		t.Errorf("comp_algorithm %q", got)
	}
	if !strings.Contains(h.Read("/proc/swaps"), "/dev/zram1") {
		t.Error("zram1 is not a swap area")
	}
	if e := j.Entries(); len(e) != 2 || e[0].Op != host.OpZramAdd || e[0].ID != 1 || e[1].Op != host.OpSwapon {
		t.Errorf("journal %+v", e)
	}
	if err := j.UndoAll(); err != nil {
		t.Fatal(err)
	}
	if got := host.State(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}
}

// Over a loop device: the journal has the loop before the swap area, so
// undo turns swap off, detaches the loop device, then removes the zram
// device.
func TestZramOverLoopAndUndo(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	before := host.State(h)
	j, err := host.NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	z, err := host.SetupZram(h, j, "lz4", 64<<20, 64<<20, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if z.Dev != "/dev/zram1" || z.SwapDev != "/dev/loop0" || !strings.Contains(h.Read("/proc/swaps"), "/dev/loop0") || strings.Contains(h.Read("/proc/swaps"), "/dev/zram1") {
		t.Fatalf("got %+v, swaps %q", z, h.Read("/proc/swaps"))
	}
	if e := j.Entries(); len(e) != 3 || e[1].Op != host.OpLoop || e[1].Path != "/dev/zram1" || e[2].Op != host.OpSwapon || e[2].Path != "/dev/loop0" {
		t.Errorf("journal %+v", e)
	}
	if !strings.Contains(host.State(h), "loop0: /dev/zram1") {
		t.Errorf("host state does not show the loop device:\n%s", host.State(h))
	}
	h.Calls = nil
	if err := j.UndoAll(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.Calls, "; "); !strings.Contains(got, "swapoff /dev/loop0; loop detach /dev/loop0") {
		t.Errorf("undo calls: %s", got)
	}
	if got := host.State(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}
}

func TestZramUnknownIDAfterCrash(t *testing.T) {
	// The probe recorded the hot_add but died before learning the number:
	// cleanup removes only devices that were not there before.
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	before := host.State(h)
	h.ReadFile(host.ZramControl + "/hot_add") // creates zram1
	if err := host.Undo(h, host.Entry{Op: host.OpZramAdd, ID: -1, Prev: []int{0}}); err != nil {
		t.Fatal(err)
	}
	if host.Exists(h, "/sys/block/zram1") || !host.Exists(h, "/sys/block/zram0") {
		t.Error("wrong devices removed")
	}
	if got := host.State(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}
}

func TestZramFreeDeviceWithoutHotAdd(t *testing.T) {
	fx := hosttest.V1Fixture()
	delete(fx, "/sys/class/zram-control/hot_add")
	delete(fx, "/sys/class/zram-control/hot_remove")
	h := hosttest.NewFake(t, fx)
	before := host.State(h)
	j, err := host.NewJournal(h, t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	z, err := host.SetupZram(h, j, "lz4", 64<<20, 0, false, nil)
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
	if got := host.State(h); got != before {
		t.Errorf("host state changed:\n%s\n---\n%s", before, got)
	}

	// A device in use is never taken.
	h.Put("/sys/block/zram0/disksize", "1073741824\n")
	if _, err := host.SetupZram(h, j, "lz4", 64<<20, 0, false, nil); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("busy device: got %v", err)
	}
}

func TestZramUnavailableAlgorithm(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	_, err := host.PlanZram(h, "zstd")
	if err == nil || !strings.Contains(err.Error(), `"zstd" is not available`) || !strings.Contains(err.Error(), "lzo-rle, lzo, lz4") {
		t.Errorf("got %v", err)
	}
	os.RemoveAll(h.Path("/sys/block/zram0"))
	os.RemoveAll(h.Path("/sys/class/zram-control"))
	if _, err := host.PlanZram(h, "lz4"); err == nil || !strings.Contains(err.Error(), "load the zram module") {
		t.Errorf("no zram: got %v", err)
	}
}
