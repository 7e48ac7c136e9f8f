// Command memplan tells whether to buy more DRAM or less DRAM plus a fast
// swap device, and measures the slowdown factors that decision rests on.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/memplan/memplan/internal/usage"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1 // the command failed
	exitUsage       = 2 // bad flags or input files
	exitInterrupted = 130
)

func main() {
	// The emulated swap device's server is memplan re-executed: it must
	// take over before anything else runs (measure/host/emulate).
	serveEmulatorIfChild()
	if handled, code := maybeHelper(); handled {
		os.Exit(code)
	}
	tuneGC()
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// run executes memplan with args (without the program name) in this
// process and returns the exit code.
func run(stdout, stderr io.Writer, args []string) int {
	return runWith(processDeps(stdout, stderr, append([]string{os.Args[0]}, args...)))
}

// runWith executes the command line d.Args and returns the process exit
// code. A SIGINT, SIGTERM or SIGHUP cancels the context every long
// operation watches.
func runWith(d *deps) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	root := newRootCommand(d)
	var started bool
	cobraRefusals(root, &started)
	root.SetArgs(d.Args[1:])
	err := root.ExecuteContext(ctx)
	if err != nil && !started {
		err = usage.Wrap(err)
	}
	return exitCode(ctx, d.Stderr, err)
}

// exitCode prints err and says how memplan ends: 2 for the person's
// mistake, 1 for a failure, 130 when interrupted. A mistake is an error
// that matches usage.ErrInput (every package's bad-input errors, the
// commands' own checks, and what cobra refused before a command ran; see
// runWith), or a file the person named that does not exist or is a
// directory.
func exitCode(ctx context.Context, stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		// The user pressed Ctrl-C (or sent SIGTERM): say so in words.
		fmt.Fprintln(stderr, "memplan:", strings.ReplaceAll(err.Error(), context.Canceled.Error(), "interrupted"))
		return exitInterrupted
	}
	fmt.Fprintln(stderr, "memplan:", message(err))
	switch {
	case errors.Is(err, usage.ErrInput), errors.Is(err, fs.ErrNotExist),
		errors.Is(err, syscall.EISDIR): // a directory where a file was expected is bad input
		return exitUsage
	}
	return exitError
}

// message is the error as a person reads it: the sentinel that marks bad
// input for the exit code ("invalid input: ") says nothing the message
// does not, and errors wrapped on the way up would repeat it.
func message(err error) string {
	return strings.ReplaceAll(err.Error(), usage.ErrInput.Error()+": ", "")
}

// usagef is a mistake in how memplan was called (exit status 2).
func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// cobraRefusals marks what cobra itself refuses (an unknown command, the
// wrong number of arguments, a required flag left out) as bad input. Those
// errors carry no type, but cobra returns them before it runs a command,
// so every command's Run records that it started, and an error from a
// command line on which none started is cobra's. Flag values that do not
// parse reach the root's flag error function instead (newRootCommand).
func cobraRefusals(c *cobra.Command, started *bool) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			*started = true
			return run(cmd, args)
		}
	}
	if run := c.Run; run != nil {
		c.Run = func(cmd *cobra.Command, args []string) {
			*started = true
			run(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		cobraRefusals(sub, started)
	}
}

// helpers (main_linux.go) lets subsystems that re-execute memplan as a
// child take over before cobra parses anything. Each returns whether it
// handled the invocation and the exit code.
func maybeHelper() (bool, int) {
	for _, h := range helpers {
		if ok, code := h(); ok {
			return true, code
		}
	}
	return false, 0
}
