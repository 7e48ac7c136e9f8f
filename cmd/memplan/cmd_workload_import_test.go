package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture of workload/acct imports, and recommend runs on the result.
func TestWorkloadImportRecommend(t *testing.T) {
	out := filepath.Join(t.TempDir(), "farm.yaml")
	code, _, stderr := runMemplan(t, "workload", "import", "--slurm", "../../workload/acct/testdata/sacct.txt", "--out", out)
	if code != 0 || !strings.Contains(stderr, "wrote "+out+" (2 job classes)") {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runMemplan(t, "recommend", "-w", out)
	if code != 0 || !strings.Contains(stdout, "sim 2h of 3h30m") || !strings.Contains(stdout, "sta_signoff 9h of 10h10m") {
		t.Fatalf("recommend: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestWorkloadImportBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "sacct.txt")
	out := filepath.Join(dir, "farm.yaml")
	os.WriteFile(in, []byte("JobID|JobName|Partition|Account|State|Submit|Start|End|Elapsed|ReqMem|MaxRSS|AveRSS|NTasks|NNodes|AllocCPUS\n"+
		"1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|4000Xc|1G|||1|4\n"), 0o644)
	code, _, stderr := runMemplan(t, "workload", "import", "--slurm", in, "--out", out)
	if want := "memplan: " + in + `:2: field ReqMem: "4000Xc": expected a size such as 1234K, 512M or 16G`; code != exitUsage || strings.TrimSpace(stderr) != want {
		t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written on error", out)
	}
	for _, args := range [][]string{
		{"--slurm", in, "--csv", in},
		{"--slurm", in, "--quantile", "1.5"},
		{"--slurm", in, "--class-by", "user"},
		{"--slurm", in, "--deadline", "soon"},
	} {
		if code, _, stderr := runMemplan(t, append([]string{"workload", "import"}, args...)...); code != exitUsage || !strings.HasPrefix(stderr, "memplan: ") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// Each scheduler's fixture imports and recommend runs on the result.
func TestWorkloadImportFormatsRecommend(t *testing.T) {
	for _, args := range [][]string{
		{"--lsf", "../../workload/acct/testdata/lsb.acct"},
		{"--bacct", "../../workload/acct/testdata/bacct-l.txt", "--lsf-year", "2026"},
		{"--sge", "../../workload/acct/testdata/sge-accounting"},
		{"--slurm-json", "../../workload/acct/testdata/sacct.json"},
	} {
		out := filepath.Join(t.TempDir(), "farm.yaml")
		code, _, stderr := runMemplan(t, append([]string{"workload", "import", "--out", out}, args...)...)
		if code != 0 || !strings.Contains(stderr, "wrote "+out+" (2 job classes)") {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		code, stdout, stderr := runMemplan(t, "recommend", "-w", out)
		if code != 0 || !strings.Contains(stdout, "sta_signoff") {
			t.Fatalf("%v: recommend: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
}

// A bad LSF record stops the import with file, line and field; nothing
// is written.
func TestWorkloadImportLSFBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "lsb.acct")
	out := filepath.Join(dir, "farm.yaml")
	os.WriteFile(in, []byte(`"JOB_FINISH" "10.108" 1772445610 101`+"\n"), 0o644)
	code, _, stderr := runMemplan(t, "workload", "import", "--lsf", in, "--out", out)
	if want := "memplan: " + in + ":1: field numAskedHosts: missing: the record has 4 fields"; code != exitUsage || strings.TrimSpace(stderr) != want {
		t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written on error", out)
	}
	for _, args := range [][]string{
		{"--lsf", in, "--sge", in},
		{"--lsf", in, "--lsf-unit", "PB"},
	} {
		if code, _, stderr := runMemplan(t, append([]string{"workload", "import"}, args...)...); code != exitUsage || !strings.HasPrefix(stderr, "memplan: ") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
