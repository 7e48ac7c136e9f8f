//go:build !linux

package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// On systems other than Linux, memplan recommends, reports, prices and
// checks files; measuring needs the Linux host being measured (its swap,
// zram and cgroups), so probe and profile only say so.

type hostFunc = func() any

func osHost() hostFunc { return nil }

func serveEmulatorIfChild() {}

var helpers []func() (bool, int)

func hostCommands(d *deps) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range []struct{ name, short string }{
		{"probe", "Measure slowdown curves on this machine (Linux only)"},
		{"profile", "Measure your own job's slowdown curve (Linux only)"},
	} {
		out = append(out, &cobra.Command{
			Use:                c.name,
			Short:              c.short,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return fmt.Errorf("memplan %s needs Linux: it measures with the kernel's swap, zram and cgroups, and this memplan was built for %s; run it on the Linux server you want to measure (recommend, report, prices, factors and workload work here)", cmd.Name(), runtime.GOOS)
			},
		})
	}
	return out
}
