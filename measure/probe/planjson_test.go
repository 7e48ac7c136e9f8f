//go:build linux

package probe

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host/hosttest"
)

// TestPlanJSONKeysAreSnakeCase: a plan written to a file names its fields
// in snake_case, nested ones included, and reads back as written.
func TestPlanJSONKeysAreSnakeCase(t *testing.T) {
	h := hosttest.NewFake(t, hosttest.V1Fixture())
	o := planOpts(t)
	o.Backends = []string{measure.BackendFile, measure.BackendEmulated}
	o.EmulateLatency = true
	o.Emulate = []string{"hdd"}
	p, err := MakePlan(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Emulations) == 0 || p.Swap.Disk == nil {
		t.Fatalf("the fixture plan should have an emulation and a swap disk: %+v", p)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, m := range regexp.MustCompile(`"([^"]+)":`).FindAllStringSubmatch(string(b), -1) {
		if m[1] != strings.ToLower(m[1]) {
			bad = append(bad, m[1])
		}
	}
	if len(bad) > 0 {
		t.Errorf("capitalised keys in the plan's JSON: %q", bad)
	}
	var back Plan
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// Compared as written: nil and empty slices read back alike.
	again, err := json.Marshal(&back)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(b) {
		t.Errorf("the plan does not read back as written:\nwrote %s\nread  %s", b, again)
	}
}

// TestPlanReadsGoFieldNames: a plan recorded before the json tags, with
// Go field names as keys, reads into the same fields, the multi-word ones
// that case-insensitive matching misses included.
func TestPlanReadsGoFieldNames(t *testing.T) {
	old := `{"DeviceClass": "hdd", "SwapFileSize": "152MiB", "ZramHotAdd": true, "Runs": 39,
	"Options": {"PageCacheSizes": [0, 1], "Budget": 5000000000, "Seed": 18446744073709551615,
		"Workload": {"DataSize": "64MiB", "WriteMix": 0.5}},
	"Swap": {"MountPoint": "/", "DiskDev": "254:0", "Disk": {"major_minor": "254:0"}},
	"Stages": [{"Name": "emulated hdd", "Emulation": {"RIOPS": 240, "Drive": {"read_iops": 120}}}],
	"Wall": {"LeftOut": ["the device profile"]}}`
	var p Plan
	if err := json.Unmarshal([]byte(old), &p); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		field string
		got   any
		want  any
	}{
		{"DeviceClass", p.DeviceClass, "hdd"},
		{"SwapFileSize", p.SwapFileSize.String(), "152MiB"},
		{"ZramHotAdd", p.ZramHotAdd, true},
		{"Runs", p.Runs, 39},
		{"Options.PageCacheSizes", p.Options.PageCacheSizes, []float64{0, 1}},
		{"Options.Budget", p.Options.Budget.String(), "5s"},
		{"Options.Seed", p.Options.Seed, uint64(18446744073709551615)},
		{"Options.Workload.DataSize", p.Options.Workload.DataSize.String(), "64MiB"},
		{"Options.Workload.WriteMix", p.Options.Workload.WriteMix, 0.5},
		{"Swap.MountPoint", p.Swap.MountPoint, "/"},
		{"Swap.DiskDev", p.Swap.DiskDev, "254:0"},
		{"Stages[0].Emulation.RIOPS", p.Stages[0].Emulation.RIOPS, 240},
		{"Stages[0].Emulation.Drive.ReadIOPS", p.Stages[0].Emulation.Drive.ReadIOPS, 120.0},
		{"Wall.LeftOut", p.Wall.LeftOut, []string{"the device profile"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
		}
	}
	if p.Swap.Disk == nil || p.Swap.Disk.MajorMinor != "254:0" {
		t.Errorf("Swap.Disk = %+v, want major_minor 254:0", p.Swap.Disk)
	}
}

// TestStageRoundsInRAMKey: a stage's in-RAM summary is written under
// in_ram_s, the profile phases' key, and read from the key files written
// before that, in_ram_timed_s, too; with both, in_ram_s wins.
func TestStageRoundsInRAMKey(t *testing.T) {
	b, err := json.Marshal(StageRounds{Stage: "zram", InRAM: measure.Summary{N: 3, Mean: 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"in_ram_s":{"n":3,"mean":1.5,`) || strings.Contains(string(b), oldInRAMKey) {
		t.Errorf("written as %s, want the summary under in_ram_s only", b)
	}
	for _, c := range []struct {
		name, json string
		want       float64
	}{
		{"new key", `{"stage": "zram", "in_ram_s": {"n": 3, "mean": 1.5}}`, 1.5},
		{"old key", `{"stage": "zram", "in_ram_timed_s": {"n": 3, "mean": 2.5}}`, 2.5},
		{"both", `{"stage": "zram", "in_ram_timed_s": {"n": 3, "mean": 2.5}, "in_ram_s": {"n": 3, "mean": 1.5}}`, 1.5},
	} {
		var s StageRounds
		if err := json.Unmarshal([]byte(c.json), &s); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.Stage != "zram" || s.InRAM.N != 3 || s.InRAM.Mean != c.want {
			t.Errorf("%s: read %+v, want stage zram and in-RAM mean %g of 3 runs", c.name, s, c.want)
		}
	}
}
