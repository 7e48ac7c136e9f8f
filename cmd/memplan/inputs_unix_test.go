//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSoon runs memplan and fails the test, instead of hanging it, when
// memplan does not return within a few seconds.
func runSoon(t *testing.T, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, args)
		done <- result{code, stderr.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(10 * time.Second):
		t.Fatalf("memplan %s did not return within 10s", strings.Join(args, " "))
		return 0, ""
	}
}

// Inputs that are not regular files are refused at once with exit 2:
// /dev/zero through a link used to be read until the OOM killer stopped
// memplan, and a FIFO blocked in open for ever, deaf to Ctrl-C and
// SIGTERM (issue 27).
func TestInputsNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoCSV := filepath.Join(dir, "quote.csv")
	if err := syscall.Mkfifo(fifoCSV, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoJSON := filepath.Join(dir, "result.json")
	if err := syscall.Mkfifo(fifoJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	const (
		isZero = " (a link to /dev/zero): is a character device, which may never end (such as /dev/zero), not a regular file; memplan reads its inputs only from regular files\n"
		isFIFO = ": is a FIFO (named pipe), which could wait forever for a writer, not a regular file; memplan reads its inputs only from regular files\n"
		isDir  = ": is a directory, not a regular file; memplan reads its inputs only from regular files\n"
	)
	out := filepath.Join(dir, "out.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"recommend", "-w", zero, "--out", out}, "memplan: reading workload: " + zero + isZero},
		{[]string{"recommend", "-w", fifo, "--out", out}, "memplan: reading workload: " + fifo + isFIFO},
		{[]string{"recommend", "-w", "../../examples/eda.yaml", "--prices", fifo, "--out", out}, "memplan: reading price catalog: " + fifo + isFIFO},
		{[]string{"recommend", "-w", "../../examples/eda.yaml", "--rates", zero, "--out", out}, "memplan: reading rates: " + zero + isZero},
		{[]string{"recommend", "-w", "../../examples/eda.yaml", "--factors", dir, "--out", out}, "memplan: reading factors: " + dir + isDir},
		{[]string{"report", "--from", fifoJSON, "--out", out}, "memplan: " + fifoJSON + isFIFO},
		{[]string{"prices", "import", fifoCSV, "--date", "2026-03-01", "--out", out}, "memplan: reading quote: " + fifoCSV + isFIFO},
	} {
		code, stderr := runSoon(t, c.args...)
		if code != exitUsage || stderr != c.want {
			t.Errorf("memplan %s: exit %d\n%s\nwant exit 2 and\n%s", strings.Join(c.args, " "), code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("memplan %s wrote %s", strings.Join(c.args, " "), out)
			os.Remove(out)
		}
	}
}
