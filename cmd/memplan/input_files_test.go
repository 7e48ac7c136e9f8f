//go:build linux

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

// An input path that names /dev/zero (through a symlink), a FIFO or a
// directory is refused before anything is read: exit 2 at once, naming
// the file and what it is. /dev/zero used to be read until the OOM killer
// stopped memplan; a FIFO blocked forever, deaf to Ctrl-C. Each command
// runs in a goroutine so that a regression fails the test instead of
// hanging it.
func TestInputThatIsNotAFileIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub.yaml")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"recommend", "-w", zero}, zero + ": the workload is a character device, not a regular file"},
		{[]string{"recommend", "-w", fifo}, fifo + ": the workload is a named pipe (FIFO), not a regular file"},
		{[]string{"workload", "validate", sub}, sub + ": the workload is a directory, not a regular file"},
		{[]string{"recommend", "-w", "../../examples/eda.yaml", "--prices", fifo}, fifo + ": the price catalog is a named pipe (FIFO)"},
		{[]string{"recommend", "-w", "../../examples/eda.yaml", "--factors", zero}, zero + ": the factor file is a character device"},
		{[]string{"recommend", "-w", "../../examples/eda.yaml", "--rates", fifo}, fifo + ": the rates file is a named pipe (FIFO)"},
		{[]string{"prices", "import", filepath.Join(dir, "q.csv"), "--date", "2026-03-01"}, "q.csv: the quote is a named pipe (FIFO)"},
		{[]string{"report", "--from", fifo}, fifo + ": the result is a named pipe (FIFO)"},
	} {
		if strings.HasSuffix(c.args[2], "q.csv") {
			if err := syscall.Mkfifo(c.args[2], 0o600); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
		type result struct {
			code           int
			stdout, stderr string
		}
		done := make(chan result, 1)
		go func() {
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, c.args)
			done <- result{code, stdout.String(), stderr.String()}
		}()
		select {
		case r := <-done:
			if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
				t.Errorf("memplan %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
			}
			if r.stdout != "" {
				t.Errorf("memplan %s wrote to stdout: %q", strings.Join(c.args, " "), r.stdout)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("memplan %s: still running after 10 s", strings.Join(c.args, " "))
		}
	}
}

// A file larger than any workload is refused by its size, not read.
func TestInputLargerThanTheLimitIsRefused(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"recommend", "-w", big})
	if want := big + ": the workload is larger than memplan reads (100 MiB or more, at most 64 MiB)"; code != exitUsage || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr.String(), want)
	}
}
