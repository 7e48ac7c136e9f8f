//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/memplan/memplan/measure/host"
)

// interactive reports whether a person is at a terminal on standard input:
// then a second Ctrl-C means "stop now"; under a scheduler, Ansible or
// nohup a second signal is part of a sequence and must not cut the undo.
var interactive = func() bool { return isTerminal(os.Stdin) }

func againHint() string {
	if interactive() {
		return " (interrupt again to stop at once)"
	}
	return ""
}

func signalWhat(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	case syscall.SIGHUP:
		return "hung up (SIGHUP)"
	}
	return "interrupted"
}

// interruptNotice tells the person what happens on Ctrl-C: the first
// SIGINT or SIGTERM cancels the root context and the host's changes are
// undone; a second one stops at once and lists what is left.
func interruptNotice(stderr io.Writer, name, stateDir string) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				n++
				if n == 1 {
					fmt.Fprintf(stderr, "memplan %s: %s; undoing the changes to the host%s\n", name, signalWhat(sig), againHint())
					continue
				}
				if !interactive() {
					// Schedulers send signal sequences (LSF: INT, TERM,
					// KILL; a job script passing TERM on while Slurm
					// sends its own): only a person at a terminal means
					// "stop now" by a second one.
					fmt.Fprintf(stderr, "memplan %s: %s again; still undoing the changes to the host (not on a terminal: only SIGKILL stops this, and then 'memplan probe cleanup' finishes it)\n", name, signalWhat(sig))
					continue
				}
				left := host.PendingChanges(host.NewOSHost(), stateDir)
				if len(left) == 0 {
					fmt.Fprintf(stderr, "memplan %s: stopped; nothing of memplan's is left on the host\n", name)
				} else {
					fmt.Fprintf(stderr, "memplan %s: stopped with %d change(s) still on the host:\n", name, len(left))
					for _, l := range left {
						fmt.Fprintln(stderr, "  ", l)
					}
					fmt.Fprintf(stderr, "memplan %s: run 'memplan probe cleanup' to undo them\n", name)
				}
				os.Exit(exitInterrupted)
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
