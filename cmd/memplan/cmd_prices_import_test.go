package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/prices"
)

const importCSV = `Part #,Description,Qty,Unit Price,Extended
M321R8GA0BB0-CQK,Samsung 64GB DDR5-5600 ECC RDIMM,16,"$1,234.56","$19,752.96"
MZQL23T8HCLS,Samsung PM9A3 3.84TB NVMe U.2 TLC 1 DWPD,2,$480.00,$960.00
,,Subtotal,,"$20,712.96"
`

func runMemplan(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(&out, &errb, args)
	return code, out.String(), errb.String()
}

func TestPricesImport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "quote.csv")
	out := filepath.Join(dir, "vendor.yaml")
	if err := os.WriteFile(in, []byte(importCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"prices", "import", in, "--date", "2026-03-01", "--source", "Vendor X quote 1234", "--out", out}
	code, stdout, stderr := runMemplan(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing (the catalog went to --out)", stdout)
	}
	for _, want := range []string{"recognised 2 parts (1 DIMM, 1 drive) in USD", `row 4: "Subtotal": a total, tax, shipping or discount line`, "wrote " + out} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	c, err := prices.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Source != "Vendor X quote 1234" || len(c.DIMMs) != 1 || len(c.Drives) != 1 || c.DIMMs[0].Price.Amount != 1234.56 {
		t.Errorf("catalog: %+v", c)
	}

	// An existing --out is left alone without --force.
	if err := os.WriteFile(out, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runMemplan(t, args...)
	if code != exitUsage || !strings.Contains(stderr, "exists; use --force") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if data, _ := os.ReadFile(out); string(data) != "keep me\n" {
		t.Errorf("--out was overwritten without --force: %q", data)
	}
	if code, _, stderr = runMemplan(t, append(args, "--force")...); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
	if _, err := prices.Load(out); err != nil {
		t.Error(err)
	}

	// Writing over the quote itself is refused even with --force.
	code, _, stderr = runMemplan(t, "prices", "import", in, "--date", "2026-03-01", "--out", in, "--force")
	if code != exitUsage || !strings.Contains(stderr, "is the quote itself") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}

	// Without --out the catalog goes to standard output.
	code, stdout, _ = runMemplan(t, "prices", "import", in, "--date", "2026-03-01")
	if code != 0 || !strings.Contains(stdout, "sku: M321R8GA0BB0-CQK") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}

func TestPricesImportFailures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cpu := write("cpu.csv", "SKU,Description,Price\nP1,Intel Xeon Gold 6430,$2150\n")
	out := filepath.Join(dir, "out.yaml")
	code, _, stderr := runMemplan(t, "prices", "import", cpu, "--date", "2026-03-01", "--out", out)
	if code == 0 || !strings.Contains(stderr, "no DIMM, drive or server was imported") || !strings.Contains(stderr, "row 2") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if fileExists(out) {
		t.Error("a catalog was written although nothing was imported")
	}
	noPrice := write("noprice.csv", "Part;Description;Qty\nA1;64GB DDR5 RDIMM;2\n")
	code, _, stderr = runMemplan(t, "prices", "import", noPrice)
	if code != exitUsage || !strings.Contains(stderr, "no unit price column") || !strings.Contains(stderr, "--map") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runMemplan(t, "prices", "import", noPrice, "--map", "desc=B,price=H")
	if code != exitUsage || !strings.Contains(stderr, "--map price=H") || !strings.Contains(stderr, "the file has columns A to C only") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for _, bad := range [][]string{{"--map", "cost=F"}, {"--date", "March"}, {"--dimm-type", "SODIMM"}, {"--drive-read-latency", "fast"}, {"--currency", "dollars"}} {
		code, _, stderr = runMemplan(t, append([]string{"prices", "import", noPrice}, bad...)...)
		if code != exitUsage || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
	code, _, stderr = runMemplan(t, "prices", "import", write("q.ods", "x"))
	if code != exitUsage || !strings.Contains(stderr, "reads .xlsx and .csv") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
