//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTerminalChecks: a pseudo-terminal is a terminal with the width it
// was given; a pipe, a file and /dev/null (a character device, but no
// terminal) are not, and have no width.
func TestTerminalChecks(t *testing.T) {
	pty := openPTY(t)
	if err := unix.IoctlSetWinsize(int(pty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: 132, Row: 40}); err != nil {
		t.Fatal(err)
	}
	if !isTerminal(pty) {
		t.Error("a pseudo-terminal is not a terminal")
	}
	if got := terminalWidth(pty); got != 132 {
		t.Errorf("pseudo-terminal width %d, want 132", got)
	}
	t.Setenv("COLUMNS", "")
	if got := termWidth(pty, os.Getenv); got != 132 {
		t.Errorf("table width %d on the pseudo-terminal, want 132", got)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, f := range map[string]*os.File{"pipe": w, "/dev/null": null, "file": file} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
		if got := terminalWidth(f); got != 0 {
			t.Errorf("%s has width %d", name, got)
		}
		if got := termWidth(f, os.Getenv); got != 80 {
			t.Errorf("table width %d for a %s, want 80", got, name)
		}
	}
}
