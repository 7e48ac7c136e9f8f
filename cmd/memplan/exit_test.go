package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What cobra refuses before a command runs is a usage error (exit 2),
// recognised by when it happens rather than by its text. A required flag
// left out used to exit 1: its message matched none of the prefixes the
// exit code was decided by.
func TestCobraRefusalsExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "memplan"`},
		{[]string{"version", "extra"}, `unknown command "extra" for "memplan version"`},
		{[]string{"prices", "show"}, "accepts 1 arg(s), received 0"},
		{[]string{"probe", "device"}, `required flag(s) "path" not set`},
		{[]string{"recommend", "--top", "x"}, `invalid argument "x" for "--top" flag`},
		{[]string{"recommend", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"completion", "tcsh"}, `memplan cannot complete for "tcsh"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, c.args)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("memplan %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr.String(), c.want)
		}
		if strings.Contains(stderr.String(), "invalid input") {
			t.Errorf("memplan %s: the bad-input marker shows: %q", strings.Join(c.args, " "), stderr.String())
		}
	}
	// A command that ran and failed is not a usage error: a quote with no
	// DIMM or drive in it (docs/import.md).
	quote := filepath.Join(t.TempDir(), "cpus.csv")
	if err := os.WriteFile(quote, []byte("SKU,Description,Price\nP1,AMD EPYC 9554 64-core processor,$9800\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"prices", "import", quote, "--date", "2026-03-01"}); code != exitError {
		t.Errorf("importing a quote without parts: exit %d, %s; want 1", code, stderr.String())
	}
}
