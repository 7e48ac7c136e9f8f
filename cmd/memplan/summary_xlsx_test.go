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

// summaryText runs recommend --xlsx on workload from the files of a
// testscript archive and returns the workbook's Summary sheet as text,
// one line a row, cells joined by " | ".
func summaryText(t *testing.T, archive, workload string) string {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
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
	if code := run(&stdout, &stderr, []string{"recommend", "-w", filepath.Join(dir, workload), "--max-price-age", "0", "--xlsx", book}); code != 0 {
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
	return strings.Join(all, "\n")
}

// The workbook's Summary says a one-pass profile's curve was inferred, and
// how: in the verdict and where it lists the slowdown factors.
func TestOnePassWorkbookSaysInferred(t *testing.T) {
	text := summaryText(t, "testdata/script/profile_onepass.txtar", "sim.yaml")
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

// Configurations refused far below the curves: the Summary's rejections
// name the run that would measure the nearest of them.
func TestFarBelowWorkbookSaysWhatToMeasure(t *testing.T) {
	text := summaryText(t, "testdata/script/model_basis.txtar", "tiny.yaml")
	want := "fit ratio far below any measured point (measure the job there: memplan profile --fits): 84 (nearest: 768GiB (24 x 32GiB) + zswap + 2 x 1.92 TB enterprise TLC NVMe RAID 0, job sim: fit ratio 0.20 is far below the lowest the sata-ssd-slc curve stands on (0.50): measure the job there (memplan profile --fits 0.50,0.20 -- YOUR JOB))"
	if !strings.Contains(text, want) {
		t.Errorf("Summary sheet lacks %q:\n%s", want, text)
	}
}
