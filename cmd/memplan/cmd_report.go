package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/reports/chart"
	"github.com/memplan/memplan/reports/diff"
	"github.com/memplan/memplan/reports/xlsx"
	"github.com/spf13/cobra"
)

type reportOptions struct {
	From   string
	XLSX   string
	Format string
	Force  bool
	Out    string
	Top    int
	Wide   bool
	Diff   bool   // compare two results (the arguments) instead
	Chart  string // draw a chart instead of the table: cost or fit
	// Explain adds what lies behind the verdict to the table and Markdown.
	Explain bool
	// formatSet: --format was given, so it is printed even with --xlsx.
	formatSet bool
	getenv    func(string) string // for $COLUMNS
}

func (o *reportOptions) AddFlags(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&o.From, "from", "", "the `RESULT.json` to render, as written by memplan recommend --format json")
	f.StringVar(&o.XLSX, "xlsx", "", "write an Excel workbook with live cost formulas to `FILE` (.xlsx, atomically)")
	f.StringVarP(&o.Format, "format", "f", "table", "print the result in this format: "+strings.Join(reports.Formats(), ", ")+" (with --xlsx, only when given)")
	f.BoolVar(&o.Force, "force", false, "overwrite the --out and --xlsx files if they exist")
	f.BoolVar(&o.Wide, "wide", false, "table: full labels, as wide as they need (by default the table fits $COLUMNS or the terminal, 80 columns when piped)")
	f.BoolVar(&o.Explain, "explain", false, "table and markdown: also print what lies behind the verdict (the basis of each slowdown, baseline and savings, total cost of ownership, break-even prices, prices, what was not evaluated) and warnings in full")
	f.StringVarP(&o.Out, "out", "o", "", "write the report to `FILE` (atomically) instead of standard output; - is standard output")
	f.BoolVar(&o.Diff, "diff", false, "compare two saved results, `A.json B.json` (before, after): what changed in the recommendation, its cost and slowdowns, and which recorded inputs differ")
	f.StringVar(&o.Chart, "chart", "", "draw the configurations in the terminal: `cost` (the default: fleet cost against the critical job's runtime as a share of its deadline) or fit (slowdown against fit ratio, over the factor curves); --chart=fit")
	f.Lookup("chart").NoOptDefVal = "cost"
	f.IntVar(&o.Top, "top", -1, "show at most N of the saved configurations; 0 = all (the workbook always has all)")
	c.Flags().Lookup("top").DefValue = "10 for table and markdown, all for json, yaml and csv"
	_ = c.MarkFlagFilename("from", "json")
	_ = c.MarkFlagFilename("xlsx", "xlsx")
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return reports.Formats(), cobra.ShellCompDirectiveNoFileComp
	})
}

func newReportCommand(d *deps) *cobra.Command {
	o := reportOptions{getenv: d.Getenv}
	c := &cobra.Command{
		Use:   "report --from RESULT.json [--xlsx FILE] [--out FILE] | report --diff A.json B.json",
		Short: "Render a saved result again, or as an Excel workbook procurement can edit",
		Long: `report reads a result saved with ` + "`memplan recommend --format json`" + ` and renders it
without running the model again: as a table or another --format, or with
--xlsx as an Excel workbook whose costs are formulas over editable unit
prices, electricity price and PUE (see docs/excel.md). The break-even prices
and the uncertainty run saved in the result are shown as they were computed;
report does not compute them (recommend --uncertainty does).

With --diff A.json B.json, report compares two saved results instead: the
recommendation before and after (and where each ranks the other's choice),
its cost and its job classes' slowdowns, and the inputs the results record
that differ: --set and --scale what-ifs, part prices, job classes' memory
and deadlines, catalogs, factor curves, rates, horizon and power price (see
docs/whatif.md).`,
		Example: `  memplan recommend -w eda.yaml --format json --out plan.json
  memplan report --from plan.json --xlsx plan.xlsx
  memplan report --from plan.json --format markdown
  memplan report --diff plan.json dram-up.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Diff {
				if len(args) != 2 {
					return usagef("--diff compares two results: memplan report --diff A.json B.json (got %d %s)", len(args), plural(len(args), "argument", "arguments"))
				}
				return nil
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Diff {
				for _, f := range []string{"from", "xlsx", "format", "top", "wide", "chart", "explain"} {
					if cmd.Flags().Changed(f) {
						return usagef("--%s does not apply to --diff, which prints a comparison of its two results", f)
					}
				}
				return runReportDiff(cmd.Context(), o, args[0], args[1], d.Stdout, d.Stderr)
			}
			o.formatSet = cmd.Flags().Changed("format")
			if cmd.Flags().Changed("top") && o.Top < 0 {
				return usagef("--top %d: expected 0 (all) or a positive number", o.Top)
			}
			return runReport(cmd.Context(), o, d.Stdout, d.Stderr)
		},
	}
	o.AddFlags(c)
	return c
}

func runReport(ctx context.Context, o reportOptions, stdout, stderr io.Writer) error {
	if o.From == "" {
		return usagef("--from RESULT.json is required: a result saved with `memplan recommend --format json --out RESULT.json`")
	}
	if !validFormat(o.Format) {
		return usagef("unknown --format %q; expected one of %s", o.Format, strings.Join(reports.Formats(), ", "))
	}
	if err := checkOutputs(o.Force, [2]string{"--out", o.Out}, [2]string{"--xlsx", o.XLSX}); err != nil {
		return err
	}
	if o.XLSX != "" {
		if err := xlsx.CheckPath(o.XLSX, xlsx.Options{Force: o.Force}); err != nil {
			return usagef("%v", err)
		}
	}
	out, err := readResult(ctx, o.From)
	if err != nil {
		return err
	}
	if o.XLSX != "" {
		if err := xlsx.Write(o.XLSX, out, xlsx.Options{Force: o.Force}); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "memplan: wrote %s\n", o.XLSX)
		if !o.formatSet && o.Out == "" {
			return nil
		}
	}
	if o.Chart != "" {
		if o.formatSet {
			return usagef("--chart draws the configurations; --format does not apply")
		}
		draw := map[string]func(io.Writer, reports.Output) error{"cost": chart.CostRuntime, "fit": chart.SlowdownFit}[o.Chart]
		if draw == nil {
			return usagef("--chart=%s: expected cost (fleet cost against runtime) or fit (slowdown against fit ratio)", o.Chart)
		}
		var buf bytes.Buffer
		if err := draw(&buf, out); err != nil {
			return err
		}
		return emit(stdout, stderr, o.Out, buf.Bytes())
	}
	if top := defaultTop(o.Top, o.Format); top > 0 && len(out.Configurations) > top {
		out.Configurations = out.Configurations[:top]
	}
	if o.Format == "json" {
		warnStderr(stderr, o.Format, o.Out, out.Warnings)
		return emitJSON(stdout, stderr, o.Out, out)
	}
	var buf bytes.Buffer
	width := 0
	if toStdout(o.Out) {
		width = termWidth(stdout, o.getenv)
	}
	if err := reports.RenderOutputOptions(&buf, o.Format, out, reports.Options{Width: width, Wide: o.Wide, Explain: o.Explain}); err != nil {
		return err
	}
	warnStderr(stderr, o.Format, o.Out, out.Warnings)
	return emit(stdout, stderr, o.Out, buf.Bytes())
}

// readResult reads a saved result; a file that is not one is a bad input
// (exit 2), named with its path.
func readResult(ctx context.Context, path string) (reports.Output, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return reports.Output{}, inputErr(fmt.Errorf("%s: no such file; save a result with `memplan recommend --format json --out %s`", path, strings.TrimSuffix(path, filepath.Ext(path))+".json"))
		}
		return reports.Output{}, err
	}
	// A YAML or CSV result (or a workload) is not what report reads: say
	// what it wants instead of a JSON parser's complaint.
	br := bufio.NewReader(bytes.NewReader(data))
	if first := firstByte(br); first != '{' {
		base := strings.TrimSuffix(path, filepath.Ext(path))
		return reports.Output{}, inputErr(fmt.Errorf("%s is not a JSON result: report reads the JSON that `memplan recommend --format json --out %s.json` writes (a YAML, CSV or table result cannot be read back)", path, base))
	}
	out, err := reports.ReadOutput(br)
	if err != nil {
		return reports.Output{}, inputErr(fmt.Errorf("%s: %w", path, err))
	}
	return out, nil
}

// inputErr marks a bad input file for the exit code without changing
// its message.
func inputErr(err error) error { return usage.Wrap(err) }

// firstByte returns the first byte that is not white space, or 0.
func firstByte(r *bufio.Reader) byte {
	for i := 0; ; i++ {
		b, err := r.Peek(i + 1)
		if err != nil || len(b) <= i {
			return 0
		}
		if c := b[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
		if i > 4096 {
			return 0
		}
	}
}

// runReportDiff compares two saved results.
func runReportDiff(ctx context.Context, o reportOptions, pathA, pathB string, stdout, stderr io.Writer) error {
	if err := checkOutputs(o.Force, [2]string{"--out", o.Out}); err != nil {
		return err
	}
	a, err := readResult(ctx, pathA)
	if err != nil {
		return err
	}
	b, err := readResult(ctx, pathB)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := diff.Write(&buf, a, b, pathA, pathB); err != nil {
		return err
	}
	return emit(stdout, stderr, o.Out, buf.Bytes())
}
