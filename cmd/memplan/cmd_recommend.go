package main

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/reports/xlsx"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newRecommendCommand) }

type recommendOptions struct {
	inputOptions
	Format string
	Top    int
	Out    string
	Force  bool
	XLSX   string
}

func (o *recommendOptions) AddFlags(c *cobra.Command) {
	f := c.Flags()
	f.StringVarP(&o.Workload, "workload", "w", "", "workload description (YAML)")
	f.StringArrayVar(&o.Prices, "prices", nil, "price catalog file; repeatable; extends or overrides the embedded catalogs")
	f.StringArrayVar(&o.Factors, "factors", nil, "slowdown factor file (YAML or JSON, e.g. from memplan probe); repeatable; overrides the defaults")
	f.StringVarP(&o.Format, "format", "f", "table", "output format: "+strings.Join(reports.Formats(), ", "))
	f.IntVar(&o.Top, "top", -1, "show at most N configurations (default 10 for table and markdown, all for json, yaml and csv; 0 = all)")
	f.StringVarP(&o.Out, "out", "o", "", "write the report to FILE (atomically) instead of standard output")
	f.StringVar(&o.XLSX, "xlsx", "", "also write an Excel workbook with live cost formulas to `FILE` (.xlsx, atomically; every configuration)")
	f.BoolVar(&o.Force, "force", false, "overwrite the --out and --xlsx files if they exist")
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return reports.Formats(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.MarkFlagFilename("workload", "yaml", "yml")
	_ = c.MarkFlagFilename("prices", "yaml", "yml")
	_ = c.MarkFlagFilename("factors", "yaml", "yml", "json")
	_ = c.MarkFlagFilename("xlsx", "xlsx")
}

func newRecommendCommand(stdout, _ io.Writer) *cobra.Command {
	var o recommendOptions
	c := &cobra.Command{
		Use:   "recommend --workload FILE",
		Short: "Rank server configurations for a workload and recommend the cheapest that meets its deadlines",
		Example: `  memplan recommend --workload examples/eda.yaml
  memplan recommend -w examples/intel-eda-2009.yaml --format json --out plan.json
  memplan recommend -w eda.yaml --prices quote.yaml --factors probe.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecommend(cmd.Context(), o, stdout)
		},
	}
	o.AddFlags(c)
	return c
}

func runRecommend(_ context.Context, o recommendOptions, stdout io.Writer) error {
	if !validFormat(o.Format) {
		return usagef("unknown --format %q; expected one of %s", o.Format, strings.Join(reports.Formats(), ", "))
	}
	if o.Out != "" && !o.Force && fileExists(o.Out) {
		return usagef("%s exists; use --force to overwrite it", o.Out)
	}
	if o.XLSX != "" {
		if err := xlsx.CheckPath(o.XLSX, xlsx.Options{Force: o.Force}); err != nil {
			return usagef("%v", err)
		}
	}
	in, err := loadInputs(o.inputOptions)
	if err != nil {
		return err
	}
	res, err := model.Recommend(in)
	if err != nil {
		return err
	}
	if o.XLSX != "" {
		// The workbook lists every configuration whatever --top says: its
		// ranking is recomputed when a price is edited.
		out := reports.NewOutput(res, reports.Options{Version: Version()})
		if err := xlsx.Write(o.XLSX, out, xlsx.Options{Force: o.Force}); err != nil {
			return err
		}
	}
	top := o.Top
	if top < 0 {
		top = 0
		if o.Format == "table" || o.Format == "markdown" {
			top = 10
		}
	}
	var buf bytes.Buffer
	if err := reports.Render(&buf, o.Format, res, reports.Options{Top: top, Version: Version()}); err != nil {
		return err
	}
	if o.Out != "" {
		return writeAtomic(o.Out, buf.Bytes())
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

func validFormat(f string) bool {
	for _, x := range reports.Formats() {
		if x == f {
			return true
		}
	}
	return false
}
