package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/memplan/memplan/workload/acct"
	"github.com/spf13/cobra"
)

type workloadImportOptions struct {
	Slurm, CSV string
	Columns    []string
	Out        string
	Force      bool
	ClassBy    string
	Quantile   float64
	Deadline   string
	Nodes      int
	SkipBad    bool
	Name       string
}

func newWorkloadImportCommand(d *deps) *cobra.Command {
	var o workloadImportOptions
	c := &cobra.Command{
		Use:   "import (--slurm FILE | --csv FILE) [--out FILE]",
		Short: "Write a workload file from scheduler accounting records",
		Long: `Reads Slurm accounting (sacct --parsable2) or a CSV with named columns and
writes a commented workload file: per job class the footprint (a quantile
of peak memory), runtime, concurrency, jobs per day and a deadline, each
with where it came from. A summary of what was kept and skipped goes to
standard error. See docs/import-workload.md.

  sacct --parsable2 --allusers --starttime 2026-01-01 \
    --format=JobID,JobName,Partition,Account,State,Submit,Start,End,Elapsed,ReqMem,MaxRSS,AveRSS,NTasks,NNodes,AllocCPUS > sacct.txt
  memplan workload import --slurm sacct.txt --out farm.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorkloadImport(o, d.Stdout, d.Stderr)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Slurm, "slurm", "", "read Slurm `FILE` (sacct --parsable2 output)")
	f.StringVar(&o.CSV, "csv", "", "read a CSV `FILE` with a header naming its columns (name, peak, elapsed, submit, start, end, state, requested, partition, account, id)")
	f.StringSliceVar(&o.Columns, "columns", nil, "with --csv, the header of a column named otherwise, as ROLE=HEADER (e.g. peak=MaxMemGB,name=Job)")
	f.StringVarP(&o.Out, "out", "o", "", "write the workload to `FILE` (atomically) instead of standard output")
	f.BoolVar(&o.Force, "force", false, "overwrite --out FILE if it exists")
	f.StringVar(&o.ClassBy, "class-by", "name", "group jobs into classes by job name (trailing digits stripped), partition or account")
	f.Float64Var(&o.Quantile, "quantile", 0.95, "footprint is this quantile of the class's peak memory")
	f.StringVar(&o.Deadline, "deadline", "", "deadline for every class, e.g. 8h (default: p95 of submit-to-end times)")
	f.IntVar(&o.Nodes, "nodes", 1, "servers the jobs ran on: concurrency per server is the class's most jobs at once divided by this")
	f.BoolVar(&o.SkipBad, "skip-bad", false, "count bad records as skipped, with the reason, instead of stopping")
	f.StringVar(&o.Name, "name", "", "workload name (default: imported from FILE)")
	return c
}

func runWorkloadImport(o workloadImportOptions, stdout, stderr io.Writer) error {
	if (o.Slurm == "") == (o.CSV == "") {
		return usagef("give one input: --slurm FILE or --csv FILE")
	}
	if len(o.Columns) > 0 && o.CSV == "" {
		return usagef("--columns applies to --csv only")
	}
	path, format := o.Slurm, "Slurm sacct"
	if o.CSV != "" {
		path, format = o.CSV, "CSV"
	}
	if o.Nodes < 1 {
		return usagef("--nodes %d: expected 1 or more servers", o.Nodes)
	}
	var deadline time.Duration
	if o.Deadline != "" {
		d, err := time.ParseDuration(o.Deadline)
		if err != nil || d <= 0 {
			return usagef("--deadline %q: expected a duration such as 8h or 90m", o.Deadline)
		}
		deadline = d
	}
	mapping := map[string]string{}
	for _, c := range o.Columns {
		role, head, ok := strings.Cut(c, "=")
		if !ok || role == "" || strings.TrimSpace(head) == "" {
			return usagef("--columns %q: expected ROLE=HEADER, e.g. peak=MaxMemGB", c)
		}
		mapping[strings.ToLower(strings.TrimSpace(role))] = strings.TrimSpace(head)
	}
	if o.Out != "" {
		if absPath(o.Out) == absPath(path) {
			return usagef("--out %s is the input itself; write the workload to another file", o.Out)
		}
		if !o.Force && fileExists(o.Out) {
			return usagef("%s exists; use --force to overwrite it", o.Out)
		}
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	var src acct.Source
	if o.Slurm != "" {
		src, err = acct.NewSlurm(path, in)
	} else {
		src, err = acct.NewCSV(path, in, mapping)
	}
	if err != nil {
		return err
	}
	res, err := acct.Import(src, acct.Options{Name: o.Name, ClassBy: o.ClassBy, Quantile: o.Quantile, Deadline: deadline,
		Nodes: o.Nodes, SkipBad: o.SkipBad, Source: path, Format: format})
	if err != nil {
		return err
	}
	io.WriteString(stderr, res.Summary)
	if o.Out == "" {
		_, err = stdout.Write(res.YAML)
		return err
	}
	if err := writeAtomic(o.Out, res.YAML); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s (%d %s); review it, then: memplan recommend -w %s\n", o.Out, res.Classes, plural(res.Classes, "job class", "job classes"), o.Out)
	return nil
}
