package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
