package main

import (
	"io"
	"os"
	"time"
)

// deps is what every command is built from, handed to each constructor the
// way gh hands its cmdutil.Factory: the streams, the clock, the invocation,
// the environment and the host the probe and the profiler change. Commands
// take these from here rather than from package os (only the checks for a
// terminal on the process's own standard input look there), so a test can
// build one with buffers, a fixed clock or a fake host.
type deps struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	// Now is the clock prices age against and fleet runs are named by.
	Now func() time.Time
	// Args is the whole command line as started (os.Args, program name
	// first): what the probe's journal and factor files record.
	Args []string
	// Getenv reads the environment.
	Getenv func(string) string
	// Host is the machine memplan measures and changes (Linux only:
	// deps_linux.go; elsewhere the probe and the profiler are stubs).
	Host hostFunc
}

// processDeps is the running process: its standard streams, the wall
// clock, its arguments and environment, and this host.
func processDeps(stdout, stderr io.Writer, args []string) *deps {
	return &deps{
		Stdout: stdout,
		Stderr: stderr,
		Stdin:  os.Stdin,
		Now:    time.Now,
		Args:   args,
		Getenv: os.Getenv,
		Host:   osHost(),
	}
}
