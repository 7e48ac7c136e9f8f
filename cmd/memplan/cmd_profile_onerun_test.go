//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// writeMACDesign writes a Verilog design of n pipelined multiply-accumulate
// stages for yosys to synthesise: a logic-synthesis job like the EDA
// farms' (yosys is from Debian; the design is generated here).
func writeMACDesign(path string, n int) error {
	var b strings.Builder
	b.WriteString("module top(input clk, input [31:0] a, input [31:0] b, output [31:0] y);\nreg [31:0] s0;\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "reg [31:0] s%d; always @(posedge clk) s%d <= (s%d * (a ^ 32'd%d)) + (b >> %d) + (s%d[%d] ? a : b);\n",
			i+1, i+1, i, (uint64(i)*2654435761)%(1<<32), i%31, i, i%32)
	}
	fmt.Fprintf(&b, "always @(posedge clk) s0 <= a + b;\nassign y = s%d;\nendmodule\n", n)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// oneRunExtra is what the test reads of extra.one_run.
type oneRunExtra struct {
	Cycles     int     `json:"cycles"`
	Wall       float64 `json:"wall_s"`
	InRAM      float64 `json:"in_ram_estimate_s"`
	ExtraShare float64 `json:"extra_share"`
	Slices     []struct {
		Fit    float64 `json:"fit"`
		Limit  string  `json:"limit_bytes"` // "120MiB"; absent without a limit
		Delays struct {
			Run float64 `json:"on_cpu_s"`
		} `json:"delays"`
	} `json:"slices"`
}

// TestProfileOneRunRealPrograms profiles two programs nobody here wrote
// with --one-run (CPython holding a dictionary under skewed lookups, and
// yosys synthesising a generated design) and sets each point against
// whole runs of the same command at the same fit ratio (a multi-run
// profile with two runs per fit, the lesser counting), run just before. Asserted: the host is
// left as it was (task_delayacct included), the profile is a measured
// one-run curve whose run stepped its limit through at least two cycles
// with delay accounting per slice, and the whole-run slowdown lies inside
// the one-run band, widened by the whole runs' own noise (their in-RAM
// runs' spread), at all but one of the points both measured. The fits
// stay where these programs slow down moderately: where they thrash the
// user-time clock cannot follow (docs/profile.md, "One run").
func TestProfileOneRunRealPrograms(t *testing.T) {
	requireRoot(t)
	requireTool(t, "python3")
	requireTool(t, "yosys")
	lockProbeTests(t)
	bin := memplanBinary(t)
	data := t.TempDir()
	script := filepath.Join(data, "dict.py")
	if err := os.WriteFile(script, []byte(dictScript), 0o644); err != nil {
		t.Fatal(err)
	}
	design := filepath.Join(data, "mac.v")
	if err := writeMACDesign(design, 16); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cmd  []string
		fits string
		out  string
		// peak: the one run is given --peak, the footprint the whole
		// runs measured, as its refusal tells a user to for a command
		// whose footprint grows until its end (yosys here: on a slow
		// host its first limits came at a third of its final
		// footprint, and no slice ran near a fit).
		peak bool
	}{
		{"python-dict", []string{"python3", script, "1000000", "10000000", "8"}, "0.95,0.9,0.8", "300000000\n", false},
		{"yosys", []string{"yosys", "-q", "-p", "synth -top top", design}, "0.9,0.75,0.6", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := host.State(host.NewOSHost())
			dir := t.TempDir()
			run := func(args ...string) {
				t.Helper()
				cmd := hostCommand(bin, append(args, append([]string{"--"}, c.cmd...)...)...)
				cmd.Env = append(os.Environ(), host.StateDirEnv+"="+t.TempDir())
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				t0 := time.Now()
				if err := cmd.Run(); err != nil {
					t.Fatalf("memplan %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
				}
				t.Logf("memplan %s took %s:\n%s", args[0:2], time.Since(t0).Round(time.Second), stdout.String())
			}
			whole := filepath.Join(dir, "whole.json")
			run("profile", "--runs", "2", "--fits", c.fits, "--readahead=false", "--device-profile=false", "--stdout", "/dev/null", "--out", whole)
			wf, err := model.LoadFactors(whole)
			if err != nil {
				t.Fatal(err)
			}
			one := filepath.Join(dir, "one.json")
			cmdOut := filepath.Join(dir, "stdout.txt")
			args := []string{"profile", "--one-run", "--fits", c.fits, "--stdout", cmdOut, "--out", one}
			if c.peak {
				prof, _ := wf.Extra["profile"].(map[string]any)
				peak, err := units.ParseBytes(fmt.Sprint(prof["peak_resident_bytes"]))
				if err != nil || peak <= 0 {
					t.Fatalf("%s: extra.profile.peak_resident_bytes %v: %v", whole, prof["peak_resident_bytes"], err)
				}
				args = append(args, "--peak", peak.String())
			}
			run(args...)
			hostUnchanged(t, before)
			if got, _ := os.ReadFile(cmdOut); string(got) != c.out {
				t.Errorf("the command's stdout file holds %q, want %q", got, c.out)
			}

			ff, err := model.LoadFactors(one)
			if err != nil {
				t.Fatal(err)
			}
			if len(ff.Curves) != 1 || ff.Curves[0].Provenance != factors.Measured || ff.Curves[0].Method != factors.OneRunMethod {
				t.Fatalf("%s: want one measured curve with method one-run, got %+v", one, ff.Curves)
			}
			if prof, _ := ff.Extra["profile"].(map[string]any); prof["method"] != factors.OneRunMethod {
				t.Errorf("extra.profile.method %v, want one-run", prof["method"])
			}
			var ex oneRunExtra
			raw, _ := json.Marshal(ff.Extra["one_run"])
			if err := json.Unmarshal(raw, &ex); err != nil {
				t.Fatal(err)
			}
			limited, withDelays := 0, 0
			for _, s := range ex.Slices {
				if s.Fit > 0 && s.Limit != "" {
					limited++
				}
				if s.Delays.Run > 0 {
					withDelays++
				}
			}
			if ex.Cycles < 2 || limited < 2 || withDelays == 0 {
				t.Errorf("the one run went through %d cycles with %d limited slices, %d with delay accounting; want at least 2, 2 and 1", ex.Cycles, limited, withDelays)
			}

			noise := wholeRunNoise(t, wf)
			misses, both := 0, 0
			var b strings.Builder
			fmt.Fprintf(&b, "%s: one run (%d cycles, %.1fs, %+.0f%% over its in-RAM estimate) against whole runs (in-RAM spread %.0f%%)\n",
				c.name, ex.Cycles, ex.Wall, 100*ex.ExtraShare, 100*noise)
			for _, wp := range wf.Curves[0].Points {
				// A busy host only ever slows a run down: the least of the
				// whole runs at a fit is the one the rest of the host
				// disturbed least.
				if len(wp.Samples) > 0 {
					wp.Slowdown = math.Max(slices.Min(wp.Samples), 1)
				}
				op := pointAtFit(ff.Curves[0].Points, wp.Fit)
				if op == nil {
					fmt.Fprintf(&b, "  fit %.2f: whole runs %.2f, one run: not measured\n", wp.Fit, wp.Slowdown)
					continue
				}
				lo, hi := op.Slowdown, op.Slowdown
				if len(op.CI) == 2 {
					lo, hi = op.CI[0], op.CI[1]
				}
				both++
				in := wp.Slowdown >= lo/(1+noise) && wp.Slowdown <= hi*(1+noise)
				if !in {
					misses++
				}
				fmt.Fprintf(&b, "  fit %.2f: whole runs %.2f, one run %.2f (%.2f-%.2f): %+.0f%%, inside the widened band %v\n",
					wp.Fit, wp.Slowdown, op.Slowdown, lo, hi, 100*(op.Slowdown/wp.Slowdown-1), in)
			}
			t.Log(b.String())
			if both == 0 {
				t.Fatalf("%s: the one run measured none of the fits the whole runs did", c.name)
			}
			if misses > 1 {
				t.Errorf("%s: the whole-run slowdown lies outside the one-run band at %d of %d points; at most one may", c.name, misses, both)
			}
		})
	}
}

// wholeRunNoise is how far apart the whole runs' in-RAM runs were
// (max/min - 1), at least 10%.
func wholeRunNoise(t *testing.T, ff *factors.File) float64 {
	t.Helper()
	phases, _ := ff.Extra["phases"].([]any)
	if len(phases) == 0 {
		t.Fatal("the whole-run profile has no phases in extra")
	}
	ph, _ := phases[0].(map[string]any)
	s, _ := ph["in_ram_s"].(map[string]any)
	lo, _ := s["min"].(float64)
	hi, _ := s["max"].(float64)
	if lo <= 0 {
		return 0.1
	}
	return math.Max(hi/lo-1, 0.1)
}

func pointAtFit(pts []factors.Point, fit float64) *factors.Point {
	for i := range pts {
		if math.Abs(pts[i].Fit-fit) < 1e-9 {
			return &pts[i]
		}
	}
	return nil
}

// growScript allocates 4 MiB more every 0.1 s until it holds mib MiB,
// writing to a random sample of what it holds between allocations: a
// footprint that grows until the end, like a simulator keeping its
// waveforms.
const growScript = `import random, sys, time
mib = int(sys.argv[1])
chunks = []
while len(chunks) * 4 < mib:
    chunks.append(bytearray(4 << 20))
    end = time.time() + 0.1
    while time.time() < end:
        c = random.choice(chunks)
        for _ in range(64):
            c[random.randrange(0, len(c), 4096)] ^= 1
`

// With --peak the one run of a command that grows until its end sets its
// limits as fits of the stated footprint from the start: early limits lie
// above what the command holds (they bind only once it has grown to
// them, as in a whole run), and fits are measured; a reference after a
// limit that bound reads the command's pages back. The host is left as
// it was.
func TestProfileOneRunPeakStepsAGrowingCommand(t *testing.T) {
	requireRoot(t)
	requireTool(t, "python3")
	lockProbeTests(t)
	before := host.State(host.NewOSHost())
	dir := t.TempDir()
	script := filepath.Join(dir, "grow.py")
	if err := os.WriteFile(script, []byte(growScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "grow.json")
	cmd := hostCommand(memplanBinary(t), "profile", "--one-run", "--peak", "600MiB", "--fits", "0.9,0.6",
		"--stdout", "/dev/null", "--out", out, "--", "python3", script, "600")
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+t.TempDir())
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("memplan profile --one-run --peak: %v\n%s", err, msg)
	}
	hostUnchanged(t, before)
	ff, err := model.LoadFactors(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ff.Curves) != 1 || len(ff.Curves[0].Points) == 0 {
		t.Fatalf("%s: want a measured curve with points, got %+v", out, ff.Curves)
	}
	var ex struct {
		Slices []struct {
			Fit       float64     `json:"fit"`
			Limit     units.Bytes `json:"limit_bytes"`
			Footprint units.Bytes `json:"footprint_bytes"`
			Least     units.Bytes `json:"footprint_min_bytes"`
			Progress  float64     `json:"progress_s"`
			SwappedIn units.Bytes `json:"swapped_in_bytes"`
		} `json:"slices"`
		Leak struct {
			Loop string `json:"loop"`
		} `json:"accounting_leak"`
	}
	raw, _ := json.Marshal(ff.Extra["one_run"])
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	above := 0
	for _, s := range ex.Slices {
		if s.Fit > 0 && s.Limit > 0 && s.Limit > s.Footprint {
			above++
		}
	}
	if above == 0 {
		t.Errorf("no constrained slice had its limit above what the command held: --peak did not set the limits\n%s", raw)
	}
	// Each counted part's least footprint is recorded (what "not measured
	// at the peak" reads), and on a command still growing it is below the
	// slice's largest.
	grew := 0
	for i, s := range ex.Slices {
		if s.Progress <= 0 {
			continue
		}
		if s.Least <= 0 || s.Least > s.Footprint {
			t.Errorf("slice %d: least footprint %s, largest %s\n%s", i, s.Least, s.Footprint, raw)
		}
		if s.Least < s.Footprint {
			grew++
		}
	}
	if grew == 0 {
		t.Errorf("no slice's least footprint was below its largest on a growing command\n%s", raw)
	}
	// A reference after a limit that bound reads the command's swapped
	// pages back (host.SwapIn, for real).
	var readBack units.Bytes
	for _, s := range ex.Slices {
		if s.Fit == 0 {
			readBack += s.SwappedIn
		}
	}
	if readBack == 0 {
		t.Errorf("no reference slice read the command's pages back from swap\n%s", raw)
	}
	// The clock's leak was timed on the run's own swap (host.TimeSwapLoop),
	// not on minor faults.
	if ex.Leak.Loop != "swap faults" {
		t.Errorf("accounting leak timed on %q, want swap faults", ex.Leak.Loop)
	}
}
