package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestReportExitCodes: a mistake in the call or in the input file is exit
// 2, a failure to write is exit 1, and no failure leaves a workbook.
func TestReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	result := filepath.Join(dir, "plan.json")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"recommend", "-w", "../../examples/intel-eda-2009.yaml", "--format", "json", "--out", result}); code != 0 {
		t.Fatalf("recommend: exit %d: %s", code, stderr.String())
	}
	v2 := filepath.Join(dir, "v2.json")
	if err := os.WriteFile(v2, []byte(`{"schema_version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing.xlsx")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"ok", []string{"--from", result, "--xlsx", filepath.Join(dir, "ok.xlsx")}, 0, ""},
		{"exists", []string{"--from", result, "--xlsx", existing}, 2, "existing.xlsx exists; use --force to overwrite it"},
		{"other schema", []string{"--from", v2, "--xlsx", filepath.Join(dir, "v2.xlsx")}, 2, "schema_version is 2"},
		{"no result", []string{"--from", filepath.Join(dir, "none.json"), "--xlsx", filepath.Join(dir, "none.xlsx")}, 2, "none.json: no such file"},
		{"no --from", []string{"--xlsx", filepath.Join(dir, "x.xlsx")}, 2, "--from RESULT.json is required"},
		{"not xlsx", []string{"--from", result, "--xlsx", filepath.Join(dir, "plan.xls")}, 2, "needs the .xlsx extension"},
		{"no directory", []string{"--from", result, "--xlsx", filepath.Join(dir, "nodir", "plan.xlsx")}, 1, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout.Reset()
			stderr.Reset()
			code := run(&stdout, &stderr, append([]string{"report"}, tc.args...))
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Error("the existing file was changed")
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "existing.xlsx ok.xlsx plan.json v2.json" {
		t.Errorf("directory holds %s", got)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, "ok.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The workbook made from the saved result shows the saved savings.
	v, err := f.CalcCellValue("Summary", "B22", excelize.Options{RawCellValue: true})
	if err != nil || v != "55800" {
		t.Errorf("fleet savings in the workbook: %q (%v), want 55800", v, err)
	}
}
