//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/testinput"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/onepass"
	"github.com/memplan/memplan/model"
)

// memplan profile measures real programs nobody here wrote: GNU sort with a
// large buffer on a generated file, and CPython holding a large dictionary
// under skewed random lookups. They run as root (CI), each on zram and,
// for --validate, on a swap file in a temporary directory; the profile then
// feeds 'memplan recommend'.

// dictScript holds n entries and looks up keys drawn with a skew towards
// the low ones (which were allocated first, so the hot set is contiguous):
// most lookups hit, a share that grows as memory shrinks has to fault.
const dictScript = `import random, sys
n, lookups, skew = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
d = {}
for i in range(n):
    d[i] = "value-%024d" % i
rnd = random.Random(42)
s = 0
for _ in range(lookups):
    s += len(d[int(n * rnd.random() ** skew)])
print(s)
`

// writeRandomLines writes size bytes of random alphanumeric lines of 20-80
// characters, like the sort benchmarks' inputs.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not installed; the profile tests measure it (install it; they must not be skipped)", name)
	}
}

// validationRow is a row of extra.validation in the profile.
type validationRow struct {
	Fit          float64 `json:"fit"`
	MeasuredFrom float64 `json:"measured_from"`
	Measured     float64 `json:"measured"`
	Capped       bool    `json:"capped"`
	Faults       float64 `json:"faults_predicted"`
	FaultsErr    float64 `json:"faults_error"`
	Ratio        float64 `json:"ratio_predicted"`
	RatioErr     float64 `json:"ratio_error"`
	Own          float64 `json:"own_counts_predicted"`
	OwnErr       float64 `json:"own_counts_error"`
}

func TestProfileRealPrograms(t *testing.T) {
	requireRoot(t)
	requireTool(t, "sort")
	requireTool(t, "python3")
	requireTool(t, "gcc")
	lockProbeTests(t)
	bin := memplanBinary(t)
	data := t.TempDir()
	lines := filepath.Join(data, "lines.txt")
	if err := testinput.Lines(lines, 200<<20); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(data, "dict.py")
	if err := os.WriteFile(script, []byte(dictScript), 0o644); err != nil {
		t.Fatal(err)
	}
	csrc := filepath.Join(data, "gen.c")
	if err := testinput.C(csrc, 300); err != nil {
		t.Fatal(err)
	}
	swapDir := t.TempDir()
	start := time.Now()
	var compared []onePassRow
	for _, c := range []struct {
		name string
		cmd  []string
		out  string // what the command prints
		// compiler: the compiler job, whose curve is flat (it reuses
		// little of what it touches); it is profiled only to set the
		// one-pass curve against, not held to the checks of the others.
		compiler bool
	}{
		{"sort", []string{"sort", "-S", "300M", lines, "-o", "/dev/null"}, "", false},
		{"python-dict", []string{"python3", script, "1000000", "1500000", "8"}, "45000000\n", false},
		{"gcc", []string{"gcc", "-O2", "-c", csrc, "-o", filepath.Join(data, "gen.o")}, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := host.State(host.NewOSHost())
			dir := t.TempDir()
			prof := filepath.Join(dir, c.name+".profile.json")
			cmdOut := filepath.Join(dir, "stdout.txt")
			args := append([]string{"profile", "--out", prof, "--validate", "--swap-dir", swapDir, "--runs", "2",
				"--max-slowdown", "15", "--device-duration", "1s", "--stdout", cmdOut, "--"}, c.cmd...)
			cmd := hostCommand(bin, args...)
			cmd.Env = append(os.Environ(), host.StateDirEnv+"="+t.TempDir())
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("memplan profile: %v\n%s\n%s", err, stdout.String(), stderr.String())
			}
			t.Logf("memplan profile of %s took %s:\n%s", c.name, time.Since(t0).Round(time.Second), stdout.String())
			hostUnchanged(t, before)
			// The fit ratios run in a random order within each round, and a
			// closing in-RAM run makes 2 x (1 + 3) + 1 = 9.
			if !regexp.MustCompile(`profile: zram-lz4 fit 0\.9 \[[2-8]/9\]`).MatchString(stderr.String()) {
				t.Errorf("no plain progress lines on a non-terminal stderr:\n%s", stderr.String())
			}
			if got, _ := os.ReadFile(cmdOut); string(got) != c.out {
				t.Errorf("the command's stdout file holds %q, want %q", got, c.out)
			}

			ff, err := model.LoadFactors(prof)
			if err != nil {
				t.Fatal(err)
			}
			if !c.compiler {
				checkProfileFile(t, ff, c.cmd)
				checkValidation(t, c.name, ff)
				checkRecommend(t, bin, dir, prof, c.name, ff)
			}
			compared = append(compared, compareOnePass(t, bin, dir, c.name, c.cmd, ff)...)
		})
	}
	t.Logf("the profiles took %s", time.Since(start).Round(time.Second))
	logOnePassSummary(t, compared)
}

// onePassRow is one one-pass prediction against the multi-run profile.
type onePassRow struct {
	job string
	onepass.Comparison
}

// compareOnePass runs the one-pass profile of the same command (one run,
// no memory limit, the sampler following it) and sets its predictions,
// with the default fault overhead (what a one-pass profile knows alone),
// against every curve the multi-run profile measured (zram and the swap
// file), and logs the table. It asserts the profile's method only: the
// one-pass curve is a prior, not a measurement, and its band misses real
// jobs (a CI run of 2026-12-03: the dictionary at fit 0.75 measured 2.39
// on zram against a band of 1.00-2.29, and 6.19 on the file against
// 1.00-3.07). The one run measures instead (TestProfileOneRunRealPrograms
// holds it to the whole runs).
func compareOnePass(t *testing.T, bin, dir, name string, command []string, multi *factors.File) []onePassRow {
	t.Helper()
	before := host.State(host.NewOSHost())
	op := filepath.Join(dir, name+".one-pass.json")
	args := append([]string{"profile", "--one-pass", "--out", op, "--stdout", "/dev/null", "--"}, command...)
	cmd := hostCommand(bin, args...)
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("memplan profile --one-pass: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	hostUnchanged(t, before)
	ff, err := model.LoadFactors(op)
	if err != nil {
		t.Fatal(err)
	}
	if prof, _ := ff.Extra["profile"].(map[string]any); prof == nil || prof["method"] != "one-pass" {
		t.Errorf("%s: extra.profile %v, want method one-pass", op, ff.Extra["profile"])
	}
	// sort -S 300M over 200 MiB spills to temporary files: its cgroup is
	// charged about twice its resident peak, and the profile says that one
	// pass does not see that page cache (and prints it).
	if name == "sort" {
		notes, _ := json.Marshal(ff.Extra["notes"])
		if !strings.Contains(string(notes), "page cache: the job's cgroup was charged up to") || !strings.Contains(stdout.String()+stderr.String(), "page cache: the job's cgroup") {
			t.Errorf("sort's one-pass profile does not flag its page cache: notes %s\n%s", notes, stdout.String())
		}
	}
	res, err := onepass.FromFactors(ff)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := onepass.Compare(res, multi)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: one pass (%d reads in %d sweeps, sampler %.1f%% of %.1fs) against the multi-run profile\n",
		name, res.Samples.Windows, res.Samples.Sweeps, 100*res.Samples.CostShare, res.Samples.Elapsed.Seconds())
	var out []onePassRow
	outside, apart := 0, 0
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-9s %-18s fit %.2f: measured %.2f %v, one pass %.2f (%.2f-%.2f): %+4.0f%% inside %v overlap %v\n",
			r.Class, r.Costs, r.Fit, r.Measured, r.MeasuredCI, r.Predicted.Slowdown, r.Predicted.Low, r.Predicted.High, 100*r.Error, r.Inside, r.Overlap)
		if r.Costs != "default overhead" {
			continue
		}
		out = append(out, onePassRow{name, r})
		if !r.Inside {
			outside++
		}
		if !r.Overlap {
			apart++
			t.Logf("%s on %s at fit %g: measured %.2f %v lies outside the one-pass band %.2f-%.2f beyond its own interval",
				name, r.Class, r.Fit, r.Measured, r.MeasuredCI, r.Predicted.Low, r.Predicted.High)
		}
	}
	fmt.Fprintf(&b, "the measured value lies outside the one-pass band at %d of %d points, beyond its own interval at %d", outside, len(out), apart)
	t.Log(b.String())
	return out
}

// logOnePassSummary logs how many one-pass points met the targets.
func logOnePassSummary(t *testing.T, rows []onePassRow) {
	t.Helper()
	within, inside := 0, 0
	for _, r := range rows {
		if math.Abs(r.Error) <= 0.25 {
			within++
		}
		if r.Inside {
			inside++
		}
	}
	t.Logf("one pass against the multi-run profiles: %d of %d points within 25%%, %d of %d measured values inside the one-pass band", within, len(rows), inside, len(rows))
}

// writeGeneratedC writes a C file of n functions of chained multiplies,
// shifts and branches for gcc -O2 to optimise (the compiler job of the
// one-pass comparison; bench/onepass/testdata/gencc.py writes the same
// kind of file for the full-size runs).
func checkProfileFile(t *testing.T, ff *factors.File, cmd []string) {
	t.Helper()
	var zram *factors.Curve
	for i := range ff.Curves {
		if ff.Curves[i].Class == "zram-lz4" {
			zram = &ff.Curves[i]
		}
	}
	if zram == nil || ff.TransferFrom != "zram-lz4" || len(ff.Curves) != 2 {
		t.Fatalf("curves %+v, transfer_from %q; want a measured zram-lz4 curve and the swap file's", ff.Curves, ff.TransferFrom)
	}
	if zram.Provenance != factors.Measured || zram.Host == "" || zram.Reference.Concurrency != 1 || zram.Reference.ReadLatency <= 0 {
		t.Errorf("zram curve %+v", zram)
	}
	// The curve states the size of the job it was measured on, so that
	// recommend can say when a job class is far from it.
	if zram.Reference.Footprint < 1<<20 {
		t.Errorf("zram curve's reference footprint %v, want the command's resident peak", zram.Reference.Footprint)
	}
	pts := zram.Points // sorted by fit, descending
	// On a host that has run zram for a day, sort's runs at fit 0.5 were
	// OOM-killed in their cgroup in 2 of 4 suite runs (both runs each
	// time), and passed alone. The profile must then say so in its notes
	// and keep the fits it measured; the point is missing, not invented.
	if len(pts) == 2 && pts[0].Fit == 0.9 && pts[1].Fit == 0.75 {
		notes := fmt.Sprint(ff.Extra["notes"])
		if !strings.Contains(notes, "zram-lz4 at fit 0.5") || !strings.Contains(notes, "OOM-killed") {
			t.Fatalf("zram points %+v and no OOM kill at fit 0.5 in the notes: %s", pts, notes)
		}
		t.Logf("fit 0.5 on zram was OOM-killed, and the profile says so: %s", notes)
	} else if len(pts) != 3 || pts[0].Fit != 0.9 || pts[2].Fit != 0.5 {
		t.Fatalf("zram points %+v", pts)
	}
	// Less memory, more faults: compared end to end, since neighbouring
	// points can overlap in the noise of a shared host.
	if last := pts[len(pts)-1]; !(last.Slowdown > pts[0].Slowdown) {
		t.Errorf("slowdown at fit %g (%.2f) is not above fit 0.9 (%.2f)", last.Fit, last.Slowdown, pts[0].Slowdown)
	}
	prof, _ := ff.Extra["profile"].(map[string]any)
	if prof == nil || prof["exit_status"] != 0 || prof["peak_resident_bytes"] == nil ||
		!strings.Contains(fmt.Sprint(prof["command_line"]), cmd[0]) {
		t.Errorf("extra.profile %v", prof)
	}
	if ff.FaultOverhead <= 0 {
		t.Errorf("fault_overhead %s", ff.FaultOverhead)
	}
}

// checkValidation logs the prediction errors and holds the chosen form to a
// bound loose enough for a shared two-core host: the target is 25%.
func checkValidation(t *testing.T, name string, ff *factors.File) {
	t.Helper()
	raw, err := json.Marshal(ff.Extra["validation"])
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		From, To  string
		Rows      []validationRow `json:"rows"`
		FaultsMAE float64         `json:"faults_mean_abs_error"`
		RatioMAE  float64         `json:"ratio_mean_abs_error"`
		Better    string          `json:"better"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || len(v.Rows) == 0 {
		t.Fatalf("extra.validation %s: %v", raw, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: predicted slowdown on %s from %s (error = predicted/measured - 1)\n", name, v.To, v.From)
	fmt.Fprintf(&b, "  fit   %-8s  %-8s  profile's model  error   default  error   own counts  error\n", v.From, v.To)
	for _, r := range v.Rows {
		capped := ""
		if r.Capped {
			capped = " (capped: measured is a lower bound)"
		}
		fmt.Fprintf(&b, "  %.2f  %-8.2f  %-8.2f  %-15.2f  %+5.0f%%  %-7.2f  %+5.0f%%  %-10.2f  %+5.0f%%%s\n",
			r.Fit, r.MeasuredFrom, r.Measured, r.Faults, 100*r.FaultsErr, r.Ratio, 100*r.RatioErr, r.Own, 100*r.OwnErr, capped)
	}
	fmt.Fprintf(&b, "  mean |error|: profile's model %.0f%%, default model %.0f%%; better: %s", 100*v.FaultsMAE, 100*v.RatioMAE, v.Better)
	t.Log(b.String())
	// The profile's model (measured overhead, readahead, pages counted per
	// fit ratio) within a factor of two at every fit down to 0.5 (the
	// issue's target is 25%, which a busy two-core CI host cannot promise
	// for every run: bench/results/profile-validate-2026-12-01.md has the
	// measured errors).
	for _, r := range v.Rows {
		if r.Capped || r.Fit < 0.5 {
			continue
		}
		if math.Abs(r.FaultsErr) > 1 {
			t.Errorf("fit %g: the profile's model predicts %.2f on %s, measured %.2f (error %+.0f%%)", r.Fit, r.Faults, v.To, r.Measured, 100*r.FaultsErr)
		}
	}
	// For a command that reads its memory in order the default model (one
	// fault per page, 2us) misses by a factor of two or more; for random
	// access it can land close by luck, and the profile then uses it.
	if name == "sort" && !(v.FaultsMAE < v.RatioMAE && v.Better == "faults") {
		t.Errorf("the profile's model (mean error %.0f%%) does not beat the default model (%.0f%%) for sort", 100*v.FaultsMAE, 100*v.RatioMAE)
	}
	// The readahead runs always count; the curve carries the counts when
	// the profile's model is the one chosen.
	raw, _ = json.Marshal(ff.Extra["readahead"])
	var ra struct {
		Faults float64 `json:"faults_per_page"`
		Pages  float64 `json:"pages_per_page"`
	}
	if err := json.Unmarshal(raw, &ra); err != nil || ra.Faults <= 0 || ra.Faults > 1 || ra.Pages < ra.Faults {
		t.Errorf("extra.readahead %s (%v)", raw, err)
	}
	counted := v.Better == "faults"
	if counted != (ff.Readahead != nil) {
		t.Errorf("better %s but readahead in the profile %+v", v.Better, ff.Readahead)
	}
	// (A point whose runs were capped or failed carries none either way.)
	withCounts := 0
	for _, p := range ff.Curves[0].Points {
		if p.PageRate > 0 {
			withCounts++
			// A point whose readahead run hit the time cap carries no
			// block-device counts (the model then uses the profile's
			// readahead); one that carries them carries both.
			if (p.BlockFaultRate > 0) != (p.BlockPageRate > 0) || p.BlockPageRate < p.BlockFaultRate {
				t.Errorf("%s point at fit %g: %+v", ff.Curves[0].Class, p.Fit, p)
			}
		}
	}
	if counted != (withCounts > 0) {
		t.Errorf("better %s, but %d of the %s points carry counts", v.Better, withCounts, ff.Curves[0].Class)
	}
}

// checkRecommend runs a workload whose job points at the profile through
// recommend and checks that the job's slowdowns come from its own measured
// curve.
func checkRecommend(t *testing.T, bin, dir, prof, job string, ff *factors.File) {
	t.Helper()
	w := filepath.Join(dir, "workload.yaml")
	src := fmt.Sprintf(`name: profiled %[1]s farm
catalogs: [current]
demand: {servers: 10}
jobs:
  - name: %[1]s
    footprint: 48GiB
    runtime: 1h
    concurrency: 16
    deadline: 12h
    compressibility: 2.5
    dirty_share: 1
    profile: %[2]s
`, job, filepath.Base(prof))
	if err := os.WriteFile(w, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Warnings (the embedded prices' age) go to stderr; the JSON is stdout.
	var errOut bytes.Buffer
	rc := exec.Command(bin, "recommend", "--workload", w, "--format", "json", "--top", "1000")
	rc.Stderr = &errOut
	out, err := rc.Output()
	if err != nil {
		t.Fatalf("recommend: %v\n%s%s", err, out, errOut.String())
	}
	var res struct {
		Configurations []struct {
			Swap struct {
				Kind string `json:"kind"`
			} `json:"swap"`
			Jobs []struct {
				Name, Provenance, Basis string
			} `json:"jobs"`
		} `json:"configurations"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("recommend JSON: %v\n%.500s", err, out)
	}
	host := ff.Curves[0].Host
	measured, derived := 0, 0
	for _, c := range res.Configurations {
		for _, j := range c.Jobs {
			if j.Name != job {
				continue
			}
			switch {
			case j.Provenance == factors.Measured && strings.Contains(j.Basis, "measured on "+host):
				measured++
			case j.Provenance == model.Derived && fromOwnCurves(j.Basis):
				derived++
			}
		}
	}
	if measured == 0 || derived == 0 {
		t.Errorf("no configuration uses %s's measured curve (%d) or derives from it (%d):\n%.2000s", job, measured, derived, out)
	}
	// The table names the recommended configuration's basis (under
	// --explain): this job's curve as measured, or carried from it to a
	// drive class.
	table, err := exec.Command(bin, "recommend", "--workload", w, "--explain").CombinedOutput()
	// The table wraps its lines: compare with the spaces collapsed.
	flat := strings.Join(strings.Fields(string(table)), " ")
	if err != nil || !strings.Contains(flat, "measured on "+host) && !fromOwnCurves(flat) {
		t.Errorf("recommend's table does not show the measured provenance: %v\n%s", err, table)
	}
}

// hogScript holds mib MiB and touches it for seconds.
const hogScript = `import sys, time
mib, seconds = int(sys.argv[1]), float(sys.argv[2])
data = bytearray(mib << 20)
for i in range(0, len(data), 4096):
    data[i] = 1
end = time.time() + seconds
while time.time() < end:
    for i in range(0, len(data), 4096 * 3):
        data[i] ^= 1
`

// startProfile starts memplan profile of a memory hog and returns it with
// a channel of its stderr lines.
func startProfile(t *testing.T, state string) *probeProc {
	t.Helper()
	requireTool(t, "python3")
	script := filepath.Join(t.TempDir(), "hog.py")
	if err := os.WriteFile(script, []byte(hogScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(memplanBinary(t), "profile", "--out", filepath.Join(t.TempDir(), "p.json"), "--validate",
		"--swap-dir", t.TempDir(), "--runs", "1", "--device-profile=false", "--", "python3", script, "128", "3")
	cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
	return startProc(t, cmd, state)
}

func TestProfileSignals(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			before := host.State(host.NewOSHost())
			state := t.TempDir()
			p := startProfile(t, state)
			// Mid-run: zram is swap and the command runs at its limit.
			p.waitFor(t, "profile: zram-lz4 in RAM")
			time.Sleep(time.Second)
			if swaps, _ := os.ReadFile("/proc/swaps"); !strings.Contains(string(swaps), "zram") {
				t.Errorf("zram is not swap mid-run:\n%s", swaps)
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != exitInterrupted {
				t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, p.output())
			}
			if !strings.Contains(p.output(), "every change to the host was undone") {
				t.Errorf("stderr does not say the host was restored:\n%s", p.output())
			}
			hostUnchanged(t, before)
			if left := host.PendingChanges(host.NewOSHost(), state); len(left) != 0 {
				t.Errorf("the journal still lists %q", left)
			}
		})
	}
}

// A kill -9 mid-run leaves zram (and, during the readahead runs, a loop
// device over it carrying swap); cleanup replays the journal and the host
// is as it was.
func TestProfileKill9ThenCleanup(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	for _, stage := range []struct{ name, wait, swap string }{
		{"zram", "profile: zram-lz4 in RAM", "zram"},
		{"readahead", "profile: readahead on /dev/loop", "/dev/loop"},
	} {
		t.Run(stage.name, func(t *testing.T) {
			before := host.State(host.NewOSHost())
			state := t.TempDir()
			p := startProfile(t, state)
			p.waitFor(t, stage.wait)
			time.Sleep(time.Second)
			if swaps, _ := os.ReadFile("/proc/swaps"); !strings.Contains(string(swaps), stage.swap) {
				t.Errorf("%s is not swap mid-run:\n%s", stage.swap, swaps)
			}
			p.kill9(t, state)
			out := cleanup(t, state)
			if !strings.Contains(out, "zram") || !strings.Contains(out, "done: the host is as it was") {
				t.Errorf("cleanup output:\n%s", out)
			}
			hostUnchanged(t, before)
		})
	}
}

// TestProfileBadCommands: the command's failure is reported as such, with
// its exit status, and nothing is left on the host.
func TestProfileBadCommands(t *testing.T) {
	requireRoot(t)
	lockProbeTests(t)
	before := host.State(host.NewOSHost())
	bin := memplanBinary(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"exits 1", []string{"--", "sh", "-c", "echo cannot open design >&2; exit 1"}, exitError, "exit status 1"},
		{"too short", []string{"--", "true"}, exitError, "too fast to measure"},
		{"no command", nil, exitUsage, "no command given"},
		{"fits out of range", []string{"--fits", "0.9,1.5", "--", "true"}, exitUsage, "fit ratio 1.5 is out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := hostCommand(bin, append([]string{"profile", "--out", filepath.Join(t.TempDir(), "p.json")}, c.args...)...)
			state := t.TempDir()
			cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.code || !strings.Contains(string(out), c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, c.code, c.want, out)
			}
			if c.name == "exits 1" && !strings.Contains(string(out), "cannot open design") {
				t.Errorf("the command's stderr is neither passed through nor quoted:\n%s", out)
			}
			hostUnchanged(t, before)
			if left := host.PendingChanges(host.NewOSHost(), state); len(left) != 0 {
				t.Errorf("the journal still lists %q", left)
			}
		})
	}
}

// startProc starts cmd and collects its stderr lines for waitFor (the
// probe tests' probeProc).
// kill9 kills the process with SIGKILL mid-run and checks that its journal
// in state lists what it left for cleanup.
func (p *probeProc) kill9(t *testing.T, state string) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	if left := host.PendingChanges(host.NewOSHost(), state); len(left) == 0 {
		t.Fatal("the journal lists nothing after kill -9 mid-run")
	}
}

func startProc(t *testing.T, cmd *exec.Cmd, state string) *probeProc {
	t.Helper()
	// An os.Pipe, not StderrPipe: Wait closes a StderrPipe as soon as the
	// process exits, and the last lines (what a second Ctrl-C prints, say)
	// could be lost before the reader got them. This read end stays open
	// until the reader sees EOF.
	errPipe, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = errW
	p := &probeProc{cmd: cmd, lines: make(chan string, 256), state: state}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errW.Close()
	go func() {
		defer close(p.lines)
		defer errPipe.Close()
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

// fromOwnCurves reports whether a basis derives a figure from the profile's
// own measured curves: from its zram-lz4 curve alone, or jointly from its
// curves (zram-lz4 and the swap file's).
func fromOwnCurves(basis string) bool {
	return strings.Contains(basis, "zram-lz4 curve (measured)") || strings.Contains(basis, "zram-lz4 curves (measured)")
}

// The one run stops the command while it writes a lower limit: on
// SIGINT, SIGTERM, a second SIGTERM right after the first, and after
// kill -9 followed by cleanup, the host is as it was and no process of
// the command is left, stopped or running.
func TestProfileOneRunSignals(t *testing.T) {
	requireRoot(t)
	requireTool(t, "python3")
	lockProbeTests(t)
	for _, how := range []string{"SIGINT", "SIGTERM", "SIGTERM twice", "kill -9"} {
		t.Run(how, func(t *testing.T) {
			before := host.State(host.NewOSHost())
			state := t.TempDir()
			script := filepath.Join(t.TempDir(), "hog.py")
			if err := os.WriteFile(script, []byte(hogScript), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(memplanBinary(t), "profile", "--one-run", "--fits", "0.6,0.4",
				"--out", filepath.Join(t.TempDir(), "p.json"), "--", "python3", script, "256", "60")
			cmd.Env = append(os.Environ(), host.StateDirEnv+"="+state)
			p := startProc(t, cmd, state)
			p.waitFor(t, "one run, stepped memory limit")
			// Long enough for the first drops (0.5 s slices).
			time.Sleep(4 * time.Second)
			if n := len(procsRunning(script)); n == 0 {
				t.Fatalf("the command is not running mid-run\n%s", p.output())
			}
			switch how {
			case "kill -9":
				p.kill9(t, state)
				out := cleanup(t, state)
				if !strings.Contains(out, "done: the host is as it was") {
					t.Errorf("cleanup output:\n%s", out)
				}
			default:
				sig := syscall.SIGTERM
				if how == "SIGINT" {
					sig = syscall.SIGINT
				}
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if how == "SIGTERM twice" {
					time.Sleep(50 * time.Millisecond)
					_ = p.cmd.Process.Signal(sig) // may have exited already
				}
				if code := p.wait(t); code != exitInterrupted {
					t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, p.output())
				}
			}
			hostUnchanged(t, before)
			if left := host.PendingChanges(host.NewOSHost(), state); len(left) != 0 {
				t.Errorf("the journal still lists %q", left)
			}
			if pids := procsRunning(script); len(pids) != 0 {
				t.Errorf("processes of the command left after %s: %v", how, pids)
			}
		})
	}
}

// procsRunning lists the processes whose command line names arg (zombies
// and exiting processes have none).
func procsRunning(arg string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(arg)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
