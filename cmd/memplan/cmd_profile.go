//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/profile"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports/measured"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

type profileOptions struct {
	profile.Options
	Out      string
	Force    bool
	Validate bool
	labelOptions
}

func (o *profileOptions) AddFlags(c *cobra.Command) {
	d := profile.DefaultOptions()
	o.Options = d
	f := c.Flags()
	f.StringVarP(&o.Out, "out", "o", "memplan-profile.json", "profile to write (a factor file); YAML when it ends in .yaml or .yml, JSON otherwise")
	f.BoolVar(&o.Force, "force", false, "overwrite --out FILE if it exists")
	f.Float64SliceVar(&o.Fits, "fits", profile.DefaultProfileFits, "fit ratios (memory limit / the command's resident peak), each above 0 and at most 1")
	f.IntVar(&o.Runs, "runs", profile.DefaultProfileRuns, "repetitions of each fit ratio and of the in-RAM run")
	f.Var(&ratioFlag{&o.Precision}, "precision", "repeat past --runs until every point's 95% interval is within this of its mean (e.g. 5%), --budget is spent, or 100 rounds ran")
	f.Var(&budgetFlag{&o.Budget, &o.OneRunBudget}, "budget", "with --precision: wall-time budget for the rounds it adds (e.g. 2h; default none); with --one-run: the extra wall time over the command's time without a limit (default 25%)")
	f.BoolVar(&o.OneRun, "one-run", false, "run the command once under a memory limit that steps through the fit ratios while it runs, and measure each fit's slowdown from the command's own progress (docs/profile.md, \"One run\"): for jobs too long to run at every fit ratio")
	f.Var(&bytesFlag{&o.OneRunPeak}, "peak", "with --one-run: the footprint the command is known to reach (e.g. 3GiB, from sacct's MaxRSS or an earlier run); the limits are fits of it from the start, as in whole runs, so a command that grows until its end can be stepped")
	f.StringVar(&o.Prior, "prior", "", "with --one-run: a profile memplan profile --one-pass wrote of the same command; the fits the run does not reach take its inferred figures and bands, marked source: sampler (measured fits keep theirs)")
	f.BoolVar(&o.OnePass, "one-pass", false, "run the command once without a memory limit and infer its curve from the pages it references (docs/profile.md, \"One pass\"): for jobs too long to run at every fit ratio")
	f.StringVar(&o.OverheadFrom, "fault-overhead-from", "", "with --one-pass: price each page needed back with the fault_overhead measured in FILE (a memplan probe or multi-run profile of this host) instead of the model's default 20us")
	f.StringVar(&o.Backend, "backend", d.Backend, "swap backend the profile is measured on: zram or file (a swap file in --swap-dir)")
	f.StringVar(&o.SwapDir, "swap-dir", "", "directory on the device to measure for the swap file (--backend file, --validate-backend file)")
	f.BoolVar(&o.Validate, "validate", false, "also measure on the other backend and compare with what the transfer model predicts for it")
	f.StringVar(&o.Options.Validate, "validate-backend", "", "backend --validate measures on (default: file after zram, zram after file)")
	f.StringVar(&o.ZramAlgorithm, "zram-algorithm", d.ZramAlgorithm, "zram compressor: lz4, zstd, lzo-rle, ... (what the kernel offers)")
	f.StringVar(&o.DeviceClass, "device-class", "", "factor class of the swap file's device (default: from the device: hdd, nvme-ssd-tlc or sata-ssd-tlc)")
	f.BoolVar(&o.DeviceProfile, "device-profile", d.DeviceProfile, "measure the swap directory's 4 KiB latency and IOPS (the file curve's reference)")
	f.BoolVar(&o.Readahead, "readahead", d.Readahead, "after zram, run each fit ratio once on a loop device over zram to count the command's major faults with the kernel's swap readahead (block devices)")
	f.DurationVar(&o.DeviceDuration, "device-duration", d.DeviceDuration, "time budget of each device-profile test")
	f.StringVar(&o.StdoutFile, "stdout", "", "write the command's standard output to FILE (each run overwrites it) instead of passing it through")
	f.StringVar(&o.StderrFile, "stderr", "", "write the command's standard error to FILE (each run overwrites it) instead of passing it through")
	f.Float64Var(&o.MaxSlowdown, "max-slowdown", d.MaxSlowdown, "stop a run at this multiple of the unconstrained run's time (its slowdown then counts as a lower bound)")
	f.DurationVar(&o.MinRuntime, "min-runtime", d.MinRuntime, "refuse commands that finish faster than this without a memory limit")
	// Everything after the command's name belongs to the command.
	f.SetInterspersed(false)
	_ = c.MarkFlagDirname("swap-dir")
	_ = c.MarkFlagFilename("out", "json", "yaml", "yml")
	_ = c.MarkFlagFilename("fault-overhead-from", "json", "yaml", "yml")
	_ = c.MarkFlagFilename("prior", "json", "yaml", "yml")
}

func newProfileCommand(d *deps) *cobra.Command {
	var o profileOptions
	c := &cobra.Command{
		Use:   "profile [flags] -- COMMAND [ARG...]",
		Short: "Measure how much slower a real command gets with part of its memory on swap, and write its profile",
		Long: `Run COMMAND once without a memory limit to learn its peak memory and runtime,
then again in a memory cgroup at each fit ratio (memory limit = fit x peak) with
a swap backend available (zram by default, or a swap file in --swap-dir), and
write a profile: a factor file with this command's own slowdown curve, which a
workload's "profile:" field points at so that 'memplan recommend' uses it for
that job class. --validate measures the command on the other backend too and
reports how well the transfer model predicted it.

With --one-run the command runs once: memplan steps its cgroup's memory
limit through the fit ratios while it runs, cycle after cycle, and measures
each fit's slowdown from the command's own progress (its user CPU time),
within --budget extra wall time (default 25%). Fits past the command's knee
are reported as not measured, or, with --prior FILE (a one-pass profile of
the same command), take the sampler's inferred figures, marked as such. A
command whose footprint grows until its end needs --peak (the footprint it
will reach).

The command runs as it would from this shell (same directory and
environment, standard input /dev/null); its output is passed through unless
--stdout/--stderr name files. A command that fails is reported as a failure,
never as a slowdown.

Like 'memplan probe', profile records every change to the host in a journal
before making it and undoes all of them when it ends, fails or is interrupted;
after a kill -9 run 'memplan probe cleanup'. Needs root. See docs/profile.md.`,
		Example: `  sudo memplan profile --out sim.profile.json -- ./run_sim.sh big_design
  sudo memplan profile --validate --swap-dir /var/tmp --stdout /dev/null -- sort -S 300M big.txt
  sudo memplan profile --backend file --swap-dir /mnt/ssd --fits 0.9,0.75,0.6,0.5 -- python3 lookup.py
  sudo memplan profile --one-run --budget 10% --out sim.profile.json -- ./run_sim.sh big_design
  sudo memplan profile --one-run --prior sim.onepass.json --out sim.profile.json -- ./run_sim.sh big_design`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Command = args
			if err := o.prepare(cmd, args); err != nil {
				return err
			}
			o.Invocation = strings.Join(d.Args, " ")
			if o.StateDir == "" {
				o.StateDir = host.StateDir(d.Getenv)
			}
			return runProfile(cmd.Context(), o, d.Host(), d.Stdout, d.Stderr)
		},
	}
	o.AddFlags(c)
	o.labelOptions.AddFlags(c)
	return c
}

func runProfile(ctx context.Context, o profileOptions, h host.Host, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(o.Command) == 0 {
		return usagef("no command given: put the command to profile after --, e.g. memplan profile --out sim.profile.json -- ./run_sim.sh big_design")
	}
	if o.Runs < 1 {
		// measure fills in a zero; on the command line it is a mistake.
		return usagef("--runs: %d repetitions is out of range; expected 1 to 100", o.Runs)
	}
	if o.Validate && o.Options.Validate == "" {
		o.Options.Validate = measure.BackendFile
		if o.Backend == measure.BackendFile {
			o.Options.Validate = measure.BackendZram
		}
	}
	if o.Out != "" && !o.Force && fileExists(o.Out) {
		return usagef("%s exists; use --force to overwrite it, or --out another file", o.Out)
	}
	o.Stdout, o.Stderr = stdout, stderr

	stop := interruptNotice(stderr, "profile", o.StateDir)
	defer stop()
	prog := newProgress(stderr, "profile")
	rep, err := profile.Profile(ctx, h, o.Options, prog)
	prog.Close()
	if err != nil {
		var oe *measure.OptionError
		switch {
		case errors.As(err, &oe):
			return usagef("%v", err)
		case ctx.Err() != nil:
			fmt.Fprintln(stderr, "memplan profile: interrupted; every change to the host was undone")
		}
		return err
	}
	ff := rep.Factors(Version())
	o.apply(ff)
	measured.WriteProfile(stdout, rep, ff)
	if o.Out == "" {
		return nil
	}
	data, err := factors.Encode(o.Out, ff)
	if err != nil {
		return err
	}
	if _, err := model.ParseFactors(o.Out, data); err != nil {
		return fmt.Errorf("the profile does not load (a bug in memplan): %w", err)
	}
	if err := writeAtomic(o.Out, data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s; point a job at it in a workload file:\n", o.Out)
	fmt.Fprintf(stdout, "  jobs:\n    - name: ...\n      profile: %s\n", o.Out)
	if c := rep.CompressionRatio(); c >= 1 {
		fmt.Fprintf(stdout, "      compressibility: %.2f   # what zram reached on this command's pages\n", c)
	}
	if rep.DirtyMeasured() {
		fmt.Fprintf(stdout, "      dirty_share: %.2f      # swap-outs per swap-in, measured\n", rep.Dirty)
	}
	return nil
}

// budgetFlag is --budget: a duration (--precision's wall-time budget) or a
// share ending in % (--one-run's extra wall time).
type budgetFlag struct {
	d     *time.Duration
	share *float64
}

func (f *budgetFlag) String() string {
	if f.d != nil && *f.d > 0 {
		return f.d.String()
	}
	return ""
}

func (f *budgetFlag) Set(s string) error {
	if strings.HasSuffix(strings.TrimSpace(s), "%") {
		r, err := units.ParseRatio(s)
		if err != nil {
			return err
		}
		if r <= 0 {
			return fmt.Errorf("%s extra wall time is out of range for --one-run; expected above 0%% and at most 400%%", s)
		}
		*f.share = float64(r)
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is neither a duration (2h, for --precision) nor a share of the run's time (25%%, for --one-run)", s)
	}
	*f.d = d
	return nil
}

func (f *budgetFlag) Type() string { return "duration|share" }

// ratioFlag reads a share as units.ParseRatio does: "0.05" or "5%".
type ratioFlag struct{ v *float64 }

func (f *ratioFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return fmt.Sprintf("%g%%", 100**f.v)
}

func (f *ratioFlag) Set(s string) error {
	r, err := units.ParseRatio(s)
	if err != nil {
		return err
	}
	*f.v = float64(r)
	return nil
}

func (f *ratioFlag) Type() string { return "share" }

// bytesFlag is a size flag (3GiB, 512MiB).
type bytesFlag struct{ v *units.Bytes }

func (f *bytesFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return f.v.String()
}

func (f *bytesFlag) Set(s string) error {
	b, err := units.ParseBytes(s)
	if err != nil {
		return err
	}
	*f.v = b
	return nil
}

func (f *bytesFlag) Type() string { return "size" }
