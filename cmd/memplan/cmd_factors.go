package main

import (
	"fmt"
	"strings"

	"github.com/memplan/memplan/model"
	"github.com/spf13/cobra"
)

func newFactorsCommand(d *deps) *cobra.Command {
	c := &cobra.Command{Use: "factors", Short: "Show and check slowdown factor files"}
	c.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the embedded default slowdown factors (YAML, with their sources)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := d.Stdout.Write(model.DefaultFactorsSource())
			return err
		},
	}, &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check factor files (YAML or JSON) and list their curves",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var failed []error
			for _, f := range args {
				ff, err := model.LoadFactors(f)
				if err != nil {
					failed = append(failed, err)
					continue
				}
				var cs []string
				for _, c := range ff.Curves {
					cs = append(cs, fmt.Sprintf("%s (%s, %d %s)", c.Class, c.Provenance, len(c.Points), plural(len(c.Points), "point", "points")))
				}
				fmt.Fprintf(d.Stdout, "%s: ok: %s: %s\n", f, ff.Name, strings.Join(cs, ", "))
			}
			return joinErrors(failed)
		},
	})
	c.AddCommand(newFactorsCrossvalCommand(d))
	c.AddCommand(newFactorsMergeCommand(d))
	return c
}
