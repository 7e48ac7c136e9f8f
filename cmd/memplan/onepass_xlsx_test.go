package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/xuri/excelize/v2"
)

// The workbook's Summary says a one-pass profile's curve was inferred, and
// how: in the verdict and where it lists the slowdown factors. The inputs
// are the testscript's (testdata/script/profile_onepass.txtar).
func TestOnePassWorkbookSaysInferred(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/script/profile_onepass.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	book := filepath.Join(dir, "plan.xlsx")
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"recommend", "-w", filepath.Join(dir, "sim.yaml"), "--max-price-age", "0", "--xlsx", book}); code != 0 {
		t.Fatalf("recommend: exit %d: %s", code, stderr.String())
	}
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, r := range rows {
		all = append(all, strings.Join(r, " | "))
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"The curve of sim was inferred from one run by sampling the pages it referenced (memplan profile --one-pass)",
		"inferred on box from one run by sampling the pages the job referenced (memplan profile --one-pass), not measured under a memory limit",
		"curves: zram-lz4 (inferred)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Summary sheet lacks %q:\n%s", want, text)
		}
	}
}
