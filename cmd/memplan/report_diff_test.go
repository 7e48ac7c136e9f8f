package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportDiffGolden compares real results, made by recommend with what-ifs
// on the Intel study, and holds the comparison to golden files
// (testdata/diff; go test ./cmd/memplan -run TestReportDiffGolden -update).
func TestReportDiffGolden(t *testing.T) {
	dir := t.TempDir()
	const workload = "../../examples/intel-eda-2009.yaml"
	results := map[string][]string{
		"base":     nil,
		"dram-30":  {"--scale", "dram=0.3"},
		"deadline": {"--set", "jobs[0].concurrency=3", "--set", "jobs[0].deadline=7h"},
		"drives":   {"--scale", "drives=+50%", "--set", "horizon=5y"},
		"runtime":  {"--set", "jobs[0].runtime=5h", "--set", "jobs[0].window=20h"},
	}
	for name, extra := range results {
		var stdout, stderr bytes.Buffer
		args := append([]string{"recommend", "-w", workload, "--max-price-age", "0", "--format", "json", "--out", filepath.Join(dir, name+".json")}, extra...)
		if code := run(&stdout, &stderr, args); code != 0 {
			t.Fatalf("recommend %v: exit %d: %s", extra, code, stderr.String())
		}
	}
	for _, tc := range []struct{ golden, a, b string }{
		{"dram-30.txt", "base", "dram-30"},
		{"deadline.txt", "base", "deadline"},
		{"drives.txt", "base", "drives"},
		{"runtime.txt", "base", "runtime"},
		{"same.txt", "base", "base"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, []string{"report", "--diff", filepath.Join(dir, tc.a+".json"), filepath.Join(dir, tc.b+".json")})
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			got := strings.ReplaceAll(stdout.String(), dir+string(filepath.Separator), "")
			path := filepath.Join("testdata", "diff", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("report --diff %s %s:\n%s\nwant (%s):\n%s", tc.a, tc.b, got, path, want)
			}
		})
	}
}

func TestReportDiffUsage(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"recommend", "-w", "../../examples/intel-eda-2009.yaml", "--format", "json", "--out", plan}); code != 0 {
		t.Fatalf("recommend: exit %d: %s", code, stderr.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--diff", plan}, "--diff compares two results: memplan report --diff A.json B.json (got 1 argument)"},
		{[]string{"--diff", plan, plan, "--xlsx", "x.xlsx"}, "--xlsx does not apply to --diff"},
		{[]string{"--diff", plan, filepath.Join(dir, "none.json")}, "none.json: no such file"},
		{[]string{plan}, `unknown command "` + plan + `"`},
	} {
		stdout.Reset()
		stderr.Reset()
		code := run(&stdout, &stderr, append([]string{"report"}, tc.args...))
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("report %v: exit %d, %q; want exit 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestReportChartGolden draws the Intel study's configurations and holds
// the charts to testdata/diff/chart*.txt (-update rewrites them).
func TestReportChartGolden(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.json")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"recommend", "-w", "../../examples/intel-eda-2009.yaml", "--max-price-age", "0", "--format", "json", "--out", plan}); code != 0 {
		t.Fatalf("recommend: exit %d: %s", code, stderr.String())
	}
	for flag, golden := range map[string]string{"--chart": "chart.txt", "--chart=fit": "chart-fit.txt"} {
		stdout.Reset()
		if code := run(&stdout, &stderr, []string{"report", "--from", plan, flag}); code != 0 {
			t.Fatalf("report %s: exit %d: %s", flag, code, stderr.String())
		}
		path := filepath.Join("testdata", "diff", golden)
		if *update {
			if err := os.WriteFile(path, stdout.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if stdout.String() != string(want) {
			t.Errorf("report %s:\n%s\nwant (%s):\n%s", flag, stdout.String(), path, want)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"report", "--from", plan, "--chart", "--format", "json"}); code != 2 || !strings.Contains(stderr.String(), "--format does not apply") {
		t.Errorf("--chart --format json: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"report", "--from", plan, "--chart=cpu"}); code != 2 || !strings.Contains(stderr.String(), "--chart=cpu: expected cost") {
		t.Errorf("--chart=cpu: exit %d, %q", code, stderr.String())
	}
}
