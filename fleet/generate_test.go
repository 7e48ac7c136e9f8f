package fleet

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/<name>, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./fleet -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (go test ./fleet -update rewrites it):\n%s", path, got)
	}
}

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestGenerateGolden(t *testing.T) {
	cases := []struct {
		name string
		c    Config
	}{
		{"ansible", Config{Engine: Ansible, Run: "r1", Dir: "fleet", Invocation: "--engine ansible --probe-args \"--quick --swap-dir /var/tmp --data-size 256MiB\" --out fleet --run r1",
			ProbeArgs: []string{"--quick", "--swap-dir", "/var/tmp", "--data-size", "256MiB"}, TimeLimit: time.Hour}},
		{"ansible-profile", Config{Engine: Ansible, Run: "r2", Dir: "fleet", Invocation: "--engine ansible --run r2 -- ./sim.sh 'big design'",
			ProbeArgs: []string{"--fits", "0.9,0.5"}, Profile: []string{"./sim.sh", "big design"}, TimeLimit: 3 * time.Hour}},
		{"slurm", Config{Engine: Slurm, Run: "r1", Dir: "/shared/fleet", Invocation: "--engine slurm --nodes node[01-08] --class gen5-nvme --partition gen5",
			ProbeArgs: []string{"--quick", "--swap-dir", "/scratch"}, TimeLimit: 90 * time.Minute, Class: "gen5-nvme", Tasks: 8, Partition: "gen5"}},
		{"lsf", Config{Engine: LSF, Run: "r1", Dir: "/shared/fleet", Invocation: "--engine lsf --tasks 4 --parallel 2 --class eda-big --constraint mem>500000",
			ProbeArgs: []string{"--quick", "--swap-dir", "/scratch"}, TimeLimit: 2 * time.Hour, Class: "eda-big", Tasks: 4, Parallel: 2, Constraint: "mem>500000", HostLabel: "%N-%a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.c.SHA256 = sum
			files, err := Generate(c.c)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				golden(t, filepath.Join("golden", c.name, f.Name), f.Data)
			}
		})
	}
}

func TestGenerateRefuses(t *testing.T) {
	base := Config{Engine: Slurm, Run: "r1", Dir: "/shared/fleet", TimeLimit: time.Hour, Class: "c", Tasks: 2, SHA256: sum}
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Engine = "pbs" }, `--engine "pbs": expected one of ansible, slurm, lsf`},
		{func(c *Config) { c.Run = "a/b" }, `--run "a/b": use letters`},
		{func(c *Config) { c.Dir = "fleet" }, "must be absolute for slurm"},
		{func(c *Config) { c.Tasks = 0 }, "give --nodes LIST or --tasks N"},
		{func(c *Config) { c.Class = "" }, `--class ""`},
		{func(c *Config) { c.HostLabel = "node" }, `--host-label "node"`},
		{func(c *Config) { c.TimeLimit = time.Minute }, "--time-limit 1m0s: must be longer than the grace time 2m0s"},
		{func(c *Config) { c.ProbeArgs = []string{"--out", "x.json"} }, "--probe-args: --out is set by the generated files"},
	}
	for _, c := range cases {
		cfg := base
		c.edit(&cfg)
		if _, err := Generate(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestExpandHosts(t *testing.T) {
	got, err := ExpandHosts("node[01-03,07],gpu1, rack2-n[8-10]x")
	if err != nil {
		t.Fatal(err)
	}
	want := "node01 node02 node03 node07 gpu1 rack2-n8x rack2-n9x rack2-n10x"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	for _, bad := range []string{"node[1-", "node[3-1]", "node[a-b]", ""} {
		if _, err := ExpandHosts(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
