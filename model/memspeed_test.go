package model_test

import (
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/model"
)

// dpcCatalog has one platform of 8 channels and 16 slots that runs
// DDR5-4800 at 4800 MT/s with one DIMM per channel and 4000 with two.
const dpcCatalog = `
name: dpc
currency: USD
date: 2026-01-01
source: test
dimms:
  - {sku: D16, model: 16G DDR5-4800, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 100 USD}
  - {sku: D32, model: 32G DDR5-4800, generation: DDR5, type: RDIMM, capacity: 32GiB, speed: 4800, price: 250 USD}
platforms:
  - sku: P
    model: test box
    price: 1000 USD
    memory: {generation: DDR5, types: [RDIMM], slots: 16, channels: 8, dimm_speed: {1: 4800, 2: 4000}}
    drive_bays: 0
    os_reserve: 0GiB
`

// dpcWorkload fits in RAM on 8 x 32 GiB (one DIMM per channel) and on
// 16 x 16 GiB (two).
const dpcWorkload = `
name: dpc
horizon: 3y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 200GiB, runtime: 10h, deadline: 24h%s}
`

func dpcConfigs(t *testing.T, memorySpeed string) (one, two *model.Config) {
	t.Helper()
	res, err := model.Recommend(input(t, strings.Replace(dpcWorkload, "%s", memorySpeed, 1), dpcCatalog))
	if err != nil {
		t.Fatal(err)
	}
	return configByID(t, res, "P/8xD32/noswap"), configByID(t, res, "P/16xD16/noswap")
}

// TestMemorySpeedPerDIMMsPerChannel: the platform's speed for the
// configuration's DIMMs per channel is the configuration's memory speed.
// A job that states no sensitivity runs as long on both; one that
// states half its in-RAM runtime scales with 1/speed runs 0.5 + 0.5 x
// 4800/4000 = 1.1 times as long on the slower memory.
func TestMemorySpeedPerDIMMsPerChannel(t *testing.T) {
	one, two := dpcConfigs(t, "")
	if one.MemorySpeed != 4800 || one.DIMMsPerChannel != 1 || two.MemorySpeed != 4000 || two.DIMMsPerChannel != 2 {
		t.Errorf("memory speeds %d (%d DPC) and %d (%d DPC), want 4800 (1) and 4000 (2)", one.MemorySpeed, one.DIMMsPerChannel, two.MemorySpeed, two.DIMMsPerChannel)
	}
	if one.Jobs[0].Runtime != two.Jobs[0].Runtime || one.Jobs[0].Runtime.D() != 10*time.Hour {
		t.Errorf("without a sensitivity the runtime must not change: %v and %v", one.Jobs[0].Runtime, two.Jobs[0].Runtime)
	}

	one, two = dpcConfigs(t, ", memory_speed: {measured_at: 4800, sensitivity: 50%}")
	if got := one.Jobs[0].Runtime.D(); got != 10*time.Hour {
		t.Errorf("at the measured speed: %v, want 10h", got)
	}
	if got := two.Jobs[0].Runtime.D(); got != 11*time.Hour {
		t.Errorf("at 4000 MT/s: %v, want 11h", got)
	}
}

// TestMemorySpeedDefaultsToTheDIMMs: without dimm_speed the memory runs
// at the DIMM's rated speed, whatever the DIMMs per channel.
func TestMemorySpeedDefaultsToTheDIMMs(t *testing.T) {
	cat := strings.Replace(dpcCatalog, ", dimm_speed: {1: 4800, 2: 4000}", "", 1)
	res, err := model.Recommend(input(t, strings.Replace(dpcWorkload, "%s", ", memory_speed: {measured_at: 4800, sensitivity: 50%}", 1), cat))
	if err != nil {
		t.Fatal(err)
	}
	two := configByID(t, res, "P/16xD16/noswap")
	if two.MemorySpeed != 4800 || two.Jobs[0].Runtime.D() != 10*time.Hour {
		t.Errorf("speed %d, runtime %v: want 4800 and 10h", two.MemorySpeed, two.Jobs[0].Runtime)
	}
}

// TestMemorySpeedUnknownWarns: a job that states its sensitivity, on a
// DIMM without a speed and a platform without dimm_speed, is warned about
// rather than run at the measured speed without a word.
func TestMemorySpeedUnknownWarns(t *testing.T) {
	cat := strings.Replace(dpcCatalog, ", dimm_speed: {1: 4800, 2: 4000}", "", 1)
	cat = strings.Replace(cat, "capacity: 16GiB, speed: 4800,", "capacity: 16GiB,", 1)
	res, err := model.Recommend(input(t, strings.Replace(dpcWorkload, "%s", ", memory_speed: {measured_at: 4800, sensitivity: 50%}", 1), cat))
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "job class j states its sensitivity to memory speed, but DIMM D16 has no speed") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if c := configByID(t, res, "P/16xD16/noswap"); c.MemorySpeed != 0 || c.Jobs[0].Runtime.D() != 10*time.Hour {
		t.Errorf("unknown speed: %d, runtime %v; want 0 and 10h", c.MemorySpeed, c.Jobs[0].Runtime)
	}
}
