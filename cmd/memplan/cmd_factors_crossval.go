package main

import (
	"io"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/spf13/cobra"
)

type crossvalOptions struct {
	format string
}

func newFactorsCrossvalCommand(d *deps) *cobra.Command {
	var o crossvalOptions
	c := &cobra.Command{
		Use:   "crossval [FILE...]",
		Short: "Predict every point of the factor files from their other curves (leave-one-out)",
		Long: `Predict every published or measured point of the given factor files
(default: the embedded ones) from each of their other curves, carried to the
point's own device and load, and say whether it falls inside the predicted
band. A user who probed three devices sees how far memplan's transfer of a
curve to another device can be trusted on their own data.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runCrossval(d.Stdout, o, args) },
	}
	c.Flags().StringVar(&o.format, "format", "table", "output format: table or json")
	return c
}

func runCrossval(stdout io.Writer, o crossvalOptions, args []string) error {
	if o.format != "table" && o.format != "json" {
		return usagef("--format %q: expected table or json", o.format)
	}
	files := []*factors.File{model.DefaultFactors()}
	if len(args) > 0 {
		// The given files' curves, under the defaults' overhead, shapes
		// and compressors where the files do not set their own.
		files = []*factors.File{model.DefaultParameters()}
		for _, p := range args {
			f, err := model.LoadFactors(p)
			if err != nil {
				return err
			}
			files = append(files, f)
		}
	}
	fs, err := model.MergeFactors(files...)
	if err != nil {
		return err
	}
	if len(fs.Curves) < 2 {
		return usagef("crossval needs at least two curves to predict one from another; %s %s", plural(len(fs.Curves), "curve", "curves"), "given")
	}
	return reports.RenderCrossval(stdout, o.format, model.CrossValidate(fs))
}
