//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/model"
)

func TestParseLabels(t *testing.T) {
	got, err := parseLabels([]string{"class=gen5-nvme", " host = node07 ", "run=2026-12-01T10:00"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"class": "gen5-nvme", "host": "node07", "run": "2026-12-01T10:00"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"class", "=x", "class=", "a b=c", "-x=1"} {
		if _, err := parseLabels([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestProbeLabels runs a small real probe with labels and reads the stamp
// back from the factor file it wrote: the labels, the version and every
// flag with the value it ran with.
func TestProbeLabels(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	before := host.State(host.NewOSHost())
	out := filepath.Join(t.TempDir(), "p.json")
	cmd := exec.Command(memplanBinary(t), "probe", "--quick", "--backends", "zram", "--data-size", "64MiB", "--fit", "0.75,0.5", "--reps", "2",
		"--device-profile=false", "--swap-dir", t.TempDir(), "--out", out, "--label", "class=gen5-nvme", "--label", "host=node07")
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("probe: %v\n%s", err, b)
	}
	hostUnchanged(t, before)
	ff, err := model.LoadFactors(out)
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := factors.GetStamp(ff)
	if err != nil || !ok {
		t.Fatalf("no stamp in %s: %v", out, err)
	}
	if s.Command != "probe" || s.Version != Version() || len(s.Binary) != 64 {
		t.Errorf("stamp: command %q version %q binary %q", s.Command, s.Version, s.Binary)
	}
	if !reflect.DeepEqual(s.Labels, map[string]string{"class": "gen5-nvme", "host": "node07"}) {
		t.Errorf("labels %v", s.Labels)
	}
	for k, v := range map[string]string{"data-size": "64MiB", "fit": "[0.750000,0.500000]", "backends": "[zram]", "pattern": "zipf", "quick": "true"} {
		if s.Flags[k] != v {
			t.Errorf("flag %s = %q, want %q", k, s.Flags[k], v)
		}
	}
	if _, has := s.Flags["label"]; has {
		t.Error("the labels are repeated among the flags")
	}
}

func TestSwapInUse(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		meminfo string
		want    int64
	}{
		{"MemTotal: 100 kB\nSwapTotal:    2048 kB\nSwapFree:     1024 kB\n", 1024 * 1024},
		{"SwapTotal: 0 kB\nSwapFree: 0 kB\n", 0},
		{"MemTotal: 100 kB\n", 0},
	} {
		p := filepath.Join(dir, "meminfo")
		if err := os.WriteFile(p, []byte(c.meminfo), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := swapInUse(p); int64(got) != c.want {
			t.Errorf("%q: %d, want %d", c.meminfo, got, c.want)
		}
	}
}
