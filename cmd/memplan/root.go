package main

import (
	"io"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// subcommands registers constructors for top-level commands; each command's
// file adds itself in init so the root does not need editing.
var subcommands []func(stdout, stderr io.Writer) *cobra.Command

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "memplan",
		Short: "Decide between more DRAM and less DRAM plus fast swap, with measurements",
		Long: `memplan ranks server configurations (DIMM population x swap device) by cost
for a workload with deadlines, using price catalogs and slowdown factors that
are either published defaults or measured on your hardware with memplan probe.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, mk := range subcommands {
		root.AddCommand(mk(stdout, stderr))
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err.Error() + " (see '" + c.CommandPath() + " --help')"}
	})
	return root
}
