package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/memplan/memplan/workload/acct"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// acctInput is an accounting file and how to read it: the flags import
// and backtest share.
type acctInput struct {
	Slurm, CSV string
	SlurmJSON  string
	LSF, Bacct string
	SGE        string
	LSFUnit    string
	LSFPerTask bool
	LSFYear    int
	Columns    []string
}

type workloadImportOptions struct {
	acctInput
	Out      string
	Force    bool
	ClassBy  string
	Quantile float64
	Deadline string
	Nodes    int
	SkipBad  bool
	Name     string
}

func newWorkloadImportCommand(d *deps) *cobra.Command {
	var o workloadImportOptions
	c := &cobra.Command{
		Use:   "import (--slurm FILE | --slurm-json FILE | --lsf FILE | --bacct FILE | --sge FILE | --csv FILE) [--out FILE]",
		Short: "Write a workload file from scheduler accounting records",
		Long: `Reads Slurm accounting (sacct --parsable2 or --json), LSF's lsb.acct or
bacct -l, a Grid Engine accounting file, or a CSV with named columns and
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
	o.acctInput.addFlags(f)
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
	path, format, err := o.input()
	if err != nil {
		return err
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
	mapping, err := o.mapping()
	if err != nil {
		return err
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
	src, err := o.source(path, in, mapping)
	if err != nil {
		return err
	}
	res, err := acct.Import(src, acct.Options{Name: o.Name, ClassBy: o.ClassBy, Quantile: o.Quantile, Deadline: deadline,
		Nodes: o.Nodes, SkipBad: o.SkipBad, Source: path, Format: format.name, Peak: format.peak, Request: format.request, Elapsed: format.elapsed})
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

// importFormat is an input format and the names of its fields.
type importFormat struct{ name, peak, request, elapsed string }

var importFormats = map[string]importFormat{
	"slurm":      {"Slurm sacct", "", "", ""},
	"slurm-json": {"Slurm sacct --json", "TRESUsageInMax mem (largest step)", "requested TRES mem", "elapsed"},
	"lsf":        {"LSF lsb.acct", "maxRMem", "rusage mem", "run time"},
	"bacct":      {"LSF bacct -l", "MEM", "rusage mem", "run time"},
	"sge":        {"Grid Engine", "ru_maxrss or maxvmem", "h_vmem", "ru_wallclock"},
	"csv":        {"CSV", "peak", "requested", "elapsed"},
}

// input returns the one input file given and its format.
func (o acctInput) input() (string, importFormat, error) {
	var path, name string
	n := 0
	for _, in := range []struct{ flag, v string }{{"slurm", o.Slurm}, {"slurm-json", o.SlurmJSON}, {"lsf", o.LSF}, {"bacct", o.Bacct}, {"sge", o.SGE}, {"csv", o.CSV}} {
		if in.v != "" {
			path, name = in.v, in.flag
			n++
		}
	}
	if n != 1 {
		return "", importFormat{}, usagef("give one input: --slurm, --slurm-json, --lsf, --bacct, --sge or --csv FILE")
	}
	return path, importFormats[name], nil
}

// source opens the reader of the input's format.
func (o acctInput) source(path string, in io.Reader, mapping map[string]string) (acct.Source, error) {
	units := map[string]int64{"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
	unit, ok := units[strings.ToUpper(o.LSFUnit)]
	if !ok {
		return nil, usagef("--lsf-unit %q: expected KB, MB, GB or TB (LSF_UNIT_FOR_LIMITS)", o.LSFUnit)
	}
	lo := acct.LSFOptions{Unit: unit, PerTask: o.LSFPerTask, Year: o.LSFYear}
	switch {
	case o.Slurm != "":
		return acct.NewSlurm(path, in)
	case o.SlurmJSON != "":
		return acct.NewSlurmJSON(path, in)
	case o.LSF != "":
		return acct.NewLSBAcct(path, in, lo), nil
	case o.Bacct != "":
		return acct.NewBacctL(path, in, lo), nil
	case o.SGE != "":
		return acct.NewGridEngine(path, in), nil
	}
	return acct.NewCSV(path, in, mapping)
}

func (o *acctInput) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Slurm, "slurm", "", "read Slurm `FILE` (sacct --parsable2 output)")
	f.StringVar(&o.SlurmJSON, "slurm-json", "", "read Slurm `FILE` (sacct --json output)")
	f.StringVar(&o.LSF, "lsf", "", "read LSF's lsb.acct `FILE` (JOB_FINISH records)")
	f.StringVar(&o.Bacct, "bacct", "", "read LSF `FILE` of bacct -l output")
	f.StringVar(&o.SGE, "sge", "", "read a Grid Engine accounting `FILE` (accounting(5))")
	f.StringVar(&o.LSFUnit, "lsf-unit", "MB", "with --lsf or --bacct, the unit of a bare rusage mem: the cluster's LSF_UNIT_FOR_LIMITS (KB, MB, GB, TB)")
	f.BoolVar(&o.LSFPerTask, "lsf-per-task", false, "with --lsf or --bacct, the cluster sets RESOURCE_RESERVE_PER_TASK=Y: a bare rusage mem is per task, not per host")
	f.IntVar(&o.LSFYear, "lsf-year", 0, "with --bacct, the year of times bacct printed without one")
	f.StringVar(&o.CSV, "csv", "", "read a CSV `FILE` with a header naming its columns (name, peak, elapsed, submit, start, end, state, requested, partition, account, id)")
	f.StringSliceVar(&o.Columns, "columns", nil, "with --csv, the header of a column named otherwise, as ROLE=HEADER (e.g. peak=MaxMemGB,name=Job)")
}

func (o acctInput) mapping() (map[string]string, error) {
	if len(o.Columns) > 0 && o.CSV == "" {
		return nil, usagef("--columns applies to --csv only")
	}
	mapping := map[string]string{}
	for _, c := range o.Columns {
		role, head, ok := strings.Cut(c, "=")
		if !ok || role == "" || strings.TrimSpace(head) == "" {
			return nil, usagef("--columns %q: expected ROLE=HEADER, e.g. peak=MaxMemGB", c)
		}
		mapping[strings.ToLower(strings.TrimSpace(role))] = strings.TrimSpace(head)
	}
	return mapping, nil
}

// open checks the flags, opens the input and returns its source, its
// path and format, and the file to close when done.
func (o acctInput) open() (acct.Source, string, importFormat, io.Closer, error) {
	path, format, err := o.input()
	if err != nil {
		return nil, "", format, nil, err
	}
	mapping, err := o.mapping()
	if err != nil {
		return nil, "", format, nil, err
	}
	in, err := os.Open(path)
	if err != nil {
		return nil, "", format, nil, err
	}
	src, err := o.source(path, in, mapping)
	if err != nil {
		in.Close()
		return nil, "", format, nil, err
	}
	return src, path, format, in, nil
}
