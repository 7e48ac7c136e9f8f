package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

const backtestHistory = "../../workload/backtest/testdata/history.txt"

func importHistory(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "farm.yaml")
	if code, _, stderr := runMemplan(t, "workload", "import", "--slurm", backtestHistory, "--nodes", "4", "--out", out); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	return out
}

// backtest replays the imported history against the recommended
// configuration: a table by default, JSON on request, one class each.
func TestBacktestRecommended(t *testing.T) {
	farm := importHistory(t)
	code, stdout, stderr := runMemplan(t, "backtest", "-w", farm, "--slurm", backtestHistory)
	if code != 0 || !strings.Contains(stdout, "Backtest of ") || !strings.Contains(stdout, "against 144 job(s)") ||
		!strings.Contains(stdout, "over RAM") || !strings.Contains(stdout, "VPA p90+15%") || !strings.Contains(stdout, "sim: not replayed: 3 FAILED") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMemplan(t, "backtest", "-w", farm, "--slurm", backtestHistory, "-f", "json")
	var r struct {
		Config  string
		Classes []struct {
			Name      string
			Completed int
			InRAM     int `json:"in_ram"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.Config == "" || len(r.Classes) != 2 || r.Classes[0].Completed != 117 || r.Classes[1].Completed != 24 {
		t.Fatalf("exit %d, %+v\n%s\n%s", code, r, stdout, stderr)
	}
}

// Mistakes are usage errors, and a bad record names file, line and field;
// nothing is written.
func TestBacktestErrors(t *testing.T) {
	farm := importHistory(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "sacct.txt")
	out := filepath.Join(dir, "bt.txt")
	os.WriteFile(bad, []byte("JobID|JobName|Partition|Account|State|Submit|Start|End|Elapsed|ReqMem|MaxRSS|AllocCPUS\n"+
		"1|sim_1|p|a|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|2Q|1\n"), 0o644)
	code, _, stderr := runMemplan(t, "backtest", "-w", farm, "--slurm", bad, "--out", out)
	if want := "memplan: " + bad + `:2: field MaxRSS: "2Q": expected a size such as 1234K, 512M or 16G`; code != exitUsage || strings.TrimSpace(stderr) != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written on error", out)
	}
	for _, args := range [][]string{
		{"-w", farm},
		{"-w", farm, "--slurm", bad, "--lsf", bad},
		{"-w", farm, "--slurm", backtestHistory, "--config", "no/such/config"},
		{"-w", farm, "--slurm", backtestHistory, "--format", "xlsx"},
		{"-w", farm, "--slurm", backtestHistory, "--class-by", "user"},
	} {
		if code, _, stderr := runMemplan(t, append([]string{"backtest"}, args...)...); code != exitUsage || !strings.HasPrefix(stderr, "memplan: ") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// backtest --xlsx writes the plan's workbook with the Backtest sheets,
// whose job counts are the replay's; an existing file is refused without
// --force, before anything is read.
func TestBacktestWorkbook(t *testing.T) {
	farm := importHistory(t)
	book := filepath.Join(t.TempDir(), "bt.xlsx")
	code, _, stderr := runMemplan(t, "backtest", "-w", farm, "--slurm", backtestHistory, "--xlsx", book)
	if code != 0 || !strings.Contains(stderr, "memplan: wrote "+book) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheets := strings.Join(f.GetSheetList(), ",")
	if !strings.HasSuffix(sheets, ",Backtest,Backtest jobs") || !strings.HasPrefix(sheets, "Summary,") {
		t.Errorf("sheets %s", sheets)
	}
	for ref, want := range map[string]string{"A5": "sim", "B5": "117", "A6": "sta_signoff", "B6": "24"} {
		if got, _ := f.GetCellValue("Backtest", ref, excelize.Options{RawCellValue: true}); got != want {
			t.Errorf("Backtest!%s = %q, want %q", ref, got, want)
		}
	}
	if rows, _ := f.GetRows("Backtest jobs"); len(rows) != 1+117+24 {
		t.Errorf("Backtest jobs has %d rows, want a header and 141 jobs", len(rows))
	}
	code, _, stderr = runMemplan(t, "backtest", "-w", farm, "--slurm", backtestHistory, "--xlsx", book)
	if code != exitUsage || !strings.Contains(stderr, "exists") {
		t.Errorf("existing --xlsx: exit %d, %s", code, stderr)
	}
}
