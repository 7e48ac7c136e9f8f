package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/reports/xlsx"
	"github.com/memplan/memplan/workload/backtest"
	"github.com/spf13/cobra"
)

type backtestOptions struct {
	inputOptions
	acctInput
	Config  string
	ClassBy string
	SkipBad bool
	Format  string
	Out     string
	XLSX    string
	Force   bool
}

func newBacktestCommand(d *deps) *cobra.Command {
	var o backtestOptions
	o.inputOptions.warn = d.Stderr
	c := &cobra.Command{
		Use:   "backtest --workload FILE (--slurm FILE | --slurm-json FILE | --lsf FILE | --bacct FILE | --sge FILE | --csv FILE)",
		Short: "Replay the jobs a scheduler recorded against a recommended configuration",
		Long: `backtest ranks the configurations for the workload as recommend does, takes
the recommended one (or --config ID), and replays every completed job of the
accounting records against it at the job's own peak: per job class the share
of jobs whose peak exceeds what the configuration holds in RAM (they would
swap), the predicted slowdown of those, the share that would not fit in RAM
and swap, and the share that would miss the class's deadline; and what
Kubernetes VPA's rule (p90 of peaks + 15%) and "largest peak + 10%" would
have reserved for the same history. Give the same accounting flags and
--class-by as to workload import. See docs/import-workload.md.

With --xlsx FILE it also writes the workbook recommend --xlsx writes, with
two more sheets: Backtest (per class the jobs replayed and the deadline
misses on the plan and as the jobs ran, the deadlines editable) and
Backtest jobs (one row per replayed job, up to 20,000; see docs/excel.md).

  memplan workload import --slurm sacct.txt --out farm.yaml
  memplan backtest -w farm.yaml --slurm sacct.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBacktest(cmd.Context(), o, d.Stdout, d.Stderr)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.Workload, "workload", "w", "", "workload description (YAML), e.g. from memplan workload import")
	f.StringArrayVar(&o.Prices, "prices", nil, "price catalog file; repeatable (as recommend)")
	f.BoolVar(&o.WithEmbedded, "with-embedded", false, "with --prices: also price from the embedded list prices (as recommend)")
	f.StringArrayVar(&o.Rates, "rate", nil, "exchange rate CUR=AMOUNT CUR; repeatable (as recommend)")
	f.StringArrayVar(&o.RatesFiles, "rates", nil, "exchange rates file; repeatable (as recommend)")
	f.StringArrayVar(&o.Factors, "factors", nil, "slowdown factor file; repeatable (as recommend)")
	o.acctInput.addFlags(f)
	f.StringVar(&o.Config, "config", "", "replay against the configuration with this `ID` (from recommend's output) instead of the recommended one")
	f.StringVar(&o.ClassBy, "class-by", "name", "group jobs into classes as workload import did: name, partition or account")
	f.BoolVar(&o.SkipBad, "skip-bad", false, "count bad records as skipped instead of stopping")
	f.StringVarP(&o.Format, "format", "f", "table", "output format: table or json")
	f.StringVarP(&o.Out, "out", "o", "", "write the report to FILE (atomically) instead of standard output")
	f.StringVar(&o.XLSX, "xlsx", "", "also write the plan's Excel workbook with Backtest sheets to `FILE` (.xlsx, atomically)")
	f.BoolVar(&o.Force, "force", false, "overwrite the --out and --xlsx files if they exist")
	_ = c.MarkFlagFilename("xlsx", "xlsx")
	return c
}

func runBacktest(ctx context.Context, o backtestOptions, stdout, stderr io.Writer) error {
	if o.Format != "table" && o.Format != "json" {
		return usagef("unknown --format %q; expected table or json", o.Format)
	}
	switch o.ClassBy {
	case "name", "partition", "account":
	default:
		return usagef("--class-by %q: expected name, partition or account", o.ClassBy)
	}
	if err := checkOutputs(o.Force, [2]string{"--out", o.Out}, [2]string{"--xlsx", o.XLSX}); err != nil {
		return err
	}
	if o.XLSX != "" {
		if err := xlsx.CheckPath(o.XLSX, xlsx.Options{Force: o.Force}); err != nil {
			return usagef("%v", err)
		}
	}
	if _, _, err := o.input(); err != nil {
		return err
	}
	in, err := loadInputs(ctx, o.inputOptions)
	if err != nil {
		return err
	}
	res, err := model.Recommend(in)
	if err != nil {
		return err
	}
	cfg := res.Recommended
	if o.Config != "" {
		cfg = nil
		for i := range res.Configs {
			if res.Configs[i].ID == o.Config {
				cfg = &res.Configs[i]
			}
		}
		if cfg == nil {
			return usagef("--config %s: no such configuration among the %d ranked for %s (see memplan recommend -w %s --top 0)", o.Config, len(res.Configs), o.Workload, o.Workload)
		}
	}
	if cfg == nil {
		return usagef("no configuration meets every deadline of %s: nothing to replay against; give --config ID (see memplan recommend -w %s)", o.Workload, o.Workload)
	}
	plan, err := backtest.FromConfig(in, cfg)
	if err != nil {
		return err
	}
	if o.XLSX != "" {
		plan.Keep = xlsx.BacktestJobs + 1 // one over: the sheet then says the list is too long
	}
	src, path, _, closer, err := o.acctInput.open()
	if err != nil {
		return err
	}
	defer closer.Close()
	r, err := backtest.Run(src, path, o.ClassBy, plan, o.SkipBad)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if o.Format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else if err := backtest.WriteTable(&buf, r); err != nil {
		return err
	}
	if o.XLSX != "" {
		// The workbook lists every configuration, as recommend's does.
		out := reports.NewOutput(res, reports.Options{Version: Version()})
		if err := xlsx.Write(o.XLSX, out, xlsx.Options{Force: o.Force, Backtest: r}); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "memplan: wrote %s\n", o.XLSX)
	}
	if n := len(r.Unplanned); n > 0 && o.Format == "json" {
		fmt.Fprintf(stderr, "memplan: jobs of %d class(es) the workload does not have were not replayed: %s\n", n, strings.Join(keys(r.Unplanned), ", "))
	}
	return emit(stdout, stderr, o.Out, buf.Bytes())
}

// keys are m's keys in order.
func keys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
