package main

import (
	"strings"

	"github.com/memplan/memplan/internal/usage"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// commands are memplan's top-level commands, each built from d: the one
// list of what memplan can do (help sorts them by name).
func commands(d *deps) []*cobra.Command {
	cmds := []*cobra.Command{
		newRecommendCommand(d),
		newReportCommand(d),
		newWorkloadCommand(d),
		newBacktestCommand(d),
		newPricesCommand(d),
		newFactorsCommand(d),
		newFleetCommand(d),
		newVersionCommand(d),
	}
	return append(cmds, hostCommands(d)...) // probe and profile: main_linux.go
}

func newRootCommand(d *deps) *cobra.Command {
	root := &cobra.Command{
		Use:   "memplan",
		Short: "Decide between more DRAM and less DRAM plus fast swap, with measurements",
		Long: `memplan ranks server configurations (DIMM population x swap device) by cost
for a workload with deadlines, using price catalogs and slowdown factors that
are either published defaults or measured on your hardware with memplan probe.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(d.Stdout)
	root.SetErr(d.Stderr)
	root.SetIn(d.Stdin)
	root.AddCommand(commands(d)...)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usage.Errorf("%w (see '%s --help')", err, c.CommandPath())
	})
	strictCompletion(root)
	quietDefaults(root)
	return root
}

// strictCompletion makes `memplan completion tcsh` (a shell cobra cannot
// complete) a usage error instead of help text and exit 0.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name the shell: memplan completion %s", strings.Join(shells, "|"))
			}
			return usagef("memplan cannot complete for %q; it completes %s", args[0], strings.Join(shells, ", "))
		}
	}
}

// quietDefaults keeps help from showing a default twice: a flag whose
// usage already says what its default is (often one that depends on other
// flags, like "default: RAM/16") must not also get pflag's "(default 0B)".
func quietDefaults(c *cobra.Command) {
	for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "(default") {
				f.DefValue = zeroDefault(f.Value.Type())
			}
		})
	}
	for _, sub := range c.Commands() {
		quietDefaults(sub)
	}
}

// zeroDefault is the default text pflag treats as "no default" for a type.
func zeroDefault(typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "count":
		return "0"
	case "bool":
		return "false"
	case "duration":
		return "0s"
	case "stringSlice", "stringArray", "ipSlice":
		return "[]"
	}
	return ""
}
