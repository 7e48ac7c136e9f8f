//go:build linux

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memplan/memplan/measure/host"
	"github.com/spf13/cobra"
)

func newProbeCleanupCommand(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "cleanup",
		Short: "Undo what an interrupted probe left on the host (after kill -9), from its journal",
		Long: `Read the probe's journal (` + host.DefaultStateDir + `/probe-journal.json, or under
$` + host.StateDirEnv + `) and undo every change it lists, newest first: stop and
remove the probe's workload processes and cgroups, swapoff and delete its swap
file, reset and remove the zram device it added, restore zswap parameters and
swappiness. Changes the probe did not make are never touched. Safe to run
when there is nothing to clean up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProbeCleanup(cmd.Context(), d.Host(), host.StateDir(d.Getenv), d.Stdout, d.Stderr)
		},
	}
}

func runProbeCleanup(_ context.Context, h host.Host, stateDir string, stdout, _ io.Writer) error {
	if !fileExists(stateDir) {
		fmt.Fprintf(stdout, "nothing to clean up: no state directory %s\n", stateDir)
		return nil
	}
	j, err := host.OpenJournal(h, stateDir)
	if err != nil {
		return err
	}
	defer j.Close()
	entries := j.Entries()
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "nothing to clean up: %s lists no changes\n", j.Path())
		return nil
	}
	if !h.IsRoot() {
		return fmt.Errorf("%s lists %d change(s) to the host; undoing them needs root (sudo memplan probe cleanup)", j.Path(), len(entries))
	}
	fmt.Fprintf(stdout, "undoing %d change(s) listed in %s:\n", len(entries), j.Path())
	for i := len(entries) - 1; i >= 0; i-- {
		fmt.Fprintf(stdout, "  %s\n", entries[i])
	}
	if err := j.UndoAll(); err != nil {
		return fmt.Errorf("some changes could not be undone and stay in %s: %w", j.Path(), err)
	}
	fmt.Fprintln(stdout, "done: the host is as it was before the probe")
	return nil
}
