package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal: a person reads what is
// written there (progress bars, a line rewritten in place) or types there
// (a second Ctrl-C). Pipes, files, /dev/null and schedulers' logs are not.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalWidth is the width in columns of the terminal f, 0 when f is
// not a terminal or does not say.
func terminalWidth(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}
