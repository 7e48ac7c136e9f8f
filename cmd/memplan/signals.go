package main

import (
	"os"
	"syscall"
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
