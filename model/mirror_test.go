package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
)

// mirrorWorkload overflows 128 GiB of RAM with 112 GiB of incompressible
// pages: zram cannot help, so the recommendation puts swap on a drive.
const mirrorWorkload = `
name: mirror
horizon: 3y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 48h, compressibility: 1, access: sweep}
`

// mirrorCatalog is smallCatalog with a drive that lasts the horizon, so
// that wear does not blur the comparison, and bays for the platform.
func mirrorCatalog(bays string) string {
	c := strings.Replace(smallCatalog, "tbw: 20TB", "tbw: 5000TB", 1)
	return strings.Replace(c, "drive_bays: 2", "drive_bays: "+bays, 1)
}

// TestMirrorOfferedNextToDriveSwap: a recommendation with swap on one
// drive comes with its mirror: the same server with a second drive in
// RAID 1, one drive's capacity, priced with both drives, each drive
// written as much as the single one, reads shared (no slower).
func TestMirrorOfferedNextToDriveSwap(t *testing.T) {
	res, err := model.Recommend(input(t, mirrorWorkload, mirrorCatalog("2")))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recommended
	if r == nil || r.Swap.Kind != model.SwapDrive || r.Swap.Drives != 1 {
		t.Fatalf("test premise: swap on one drive, got %+v", r)
	}
	if res.Mirror == nil || res.Mirror.Config == nil {
		t.Fatalf("no mirror offered: %+v", res.Mirror)
	}
	m := res.Mirror.Config
	if !m.Swap.Mirrored || m.Swap.Drives != 2 || m.Swap.Capacity != r.Swap.Capacity {
		t.Errorf("mirror swap %+v: want 2 drives mirrored, capacity %v", m.Swap, r.Swap.Capacity)
	}
	if !strings.HasSuffix(m.ID, "/2xTINY-mirror") || !strings.Contains(m.Label, "2 x Tiny TLC RAID 1") {
		t.Errorf("mirror ID %q label %q", m.ID, m.Label)
	}
	if want := r.Cost.PerServer.Add(money.Units(50)); m.Cost.PerServer != want {
		t.Errorf("mirror costs %v per server, want %v (one more 50 USD drive)", m.Cost.PerServer, want)
	}
	if got, want := float64(m.Wear.HorizonWrites), float64(r.Wear.HorizonWrites); math.Abs(got/want-1) > 0.001 {
		t.Errorf("each mirrored drive takes %v over the horizon, the single drive %v: a mirror writes every page twice", m.Wear.HorizonWrites, r.Wear.HorizonWrites)
	}
	if m.MaxSlowdown > r.MaxSlowdown || !m.Meets {
		t.Errorf("mirror slowdown %v (meets %v), single drive %v: reads from either copy cannot be slower", m.MaxSlowdown, m.Meets, r.MaxSlowdown)
	}
	// Two drives striped write twice as fast as two mirrored: the mirror
	// is no faster than RAID 0 of the same drives.
	if s := configByID(t, res, "8xD16/2xTINY"); m.MaxSlowdown < s.MaxSlowdown {
		t.Errorf("mirror slowdown %v below RAID 0's %v", m.MaxSlowdown, s.MaxSlowdown)
	}
}

// TestMirrorOfferNeedsTheBays: a platform with one bay cannot take the
// second copy; the offer says why instead of pricing it.
func TestMirrorOfferNeedsTheBays(t *testing.T) {
	res, err := model.Recommend(input(t, mirrorWorkload, mirrorCatalog("1")))
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Recommended; r == nil || r.Swap.Drives != 1 {
		t.Fatalf("test premise: swap on one drive, got %+v", r)
	}
	m := res.Mirror
	if m == nil || m.Config != nil || !strings.Contains(m.Reason, "P has 1 drive bays for swap, and the mirror needs 2") {
		t.Errorf("offer %+v: want no mirror, for want of a bay", m)
	}
}

// TestMirrorSwapOptionRanksOnlyMirrors: with options.mirror_swap every
// configuration with swap drives is mirrored, and none is offered on top.
func TestMirrorSwapOptionRanksOnlyMirrors(t *testing.T) {
	res, err := model.Recommend(input(t, mirrorWorkload+"options: {mirror_swap: true}\n", mirrorCatalog("4")))
	if err != nil {
		t.Fatal(err)
	}
	drives := 0
	for _, c := range res.Configs {
		if c.Swap.Drive == nil {
			continue
		}
		drives++
		if !c.Swap.Mirrored || c.Swap.Drives%2 != 0 || !strings.HasSuffix(c.ID, "-mirror") {
			t.Errorf("%s: swap %+v is not mirrored", c.ID, c.Swap)
		}
	}
	if drives == 0 {
		t.Fatal("test premise: configurations with swap drives")
	}
	if c := configByID(t, res, "8xD16/4xTINY-mirror"); !strings.Contains(c.Label, "4 x Tiny TLC RAID 10") {
		t.Errorf("four mirrored drives: label %q, want RAID 10", c.Label)
	}
	if r := res.Recommended; r == nil || !r.Swap.Mirrored || res.Mirror != nil {
		t.Errorf("recommended %+v, offer %+v: want a mirror and no offer", r, res.Mirror)
	}
}
