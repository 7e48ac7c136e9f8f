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

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/measure"
)

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1 // the command failed
	exitUsage       = 2 // bad flags or input files
	exitInterrupted = 130
)

func main() {
	if handled, code := maybeHelper(); handled {
		os.Exit(code)
	}
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
	root.SetArgs(d.Args[1:])
	err := root.ExecuteContext(ctx)
	return exitCode(ctx, d.Stderr, err)
}

func exitCode(ctx context.Context, stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		// The user pressed Ctrl-C (or sent SIGTERM): say so in words.
		fmt.Fprintln(stderr, "memplan:", strings.ReplaceAll(err.Error(), context.Canceled.Error(), "interrupted"))
		return exitInterrupted
	}
	fmt.Fprintln(stderr, "memplan:", message(err))
	switch {
	case errors.Is(err, yamlx.ErrInput), errors.As(err, &ue), isCobraUsage(err), errors.Is(err, fs.ErrNotExist),
		errors.Is(err, syscall.EISDIR): // a directory where a file was expected is bad input
		return exitUsage
	}
	return exitError
}

// message is the error as a person reads it: the sentinel that marks bad
// input for the exit code ("invalid input: ") says nothing the message
// does not, and errors wrapped on the way up would repeat it.
func message(err error) string {
	return strings.ReplaceAll(err.Error(), yamlx.ErrInput.Error()+": ", "")
}

// isCobraUsage recognises cobra's own argument errors, which carry no type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command ", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least ", "invalid argument "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// usageError marks a mistake in how memplan was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// helpers lets subsystems that re-execute memplan as a child take over
// before cobra parses anything. Each returns whether it handled the
// invocation and the exit code. The probe's and the profiler's workload is
// memplan itself (measure.WorkloadMain).
var helpers = []func() (bool, int){measure.WorkloadMain}

func maybeHelper() (bool, int) {
	for _, h := range helpers {
		if ok, code := h(); ok {
			return true, code
		}
	}
	return false, 0
}
