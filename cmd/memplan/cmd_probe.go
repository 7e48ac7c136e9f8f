//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/probe"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports/measured"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

type probeOptions struct {
	probe.Options
	Out   string
	Force bool
	Plan  bool
	labelOptions
}

func (o *probeOptions) AddFlags(c *cobra.Command) {
	d := probe.DefaultOptions()
	o.Options = d
	f := c.Flags()
	f.StringVar(&o.SwapDir, "swap-dir", "", "directory on the candidate device for the swap file (default: the state directory, "+host.DefaultStateDir+")")
	f.StringVarP(&o.Out, "out", "o", "memplan-probe.json", "factor file to write; YAML when it ends in .yaml or .yml, JSON otherwise")
	f.BoolVar(&o.Force, "force", false, "overwrite --out FILE if it exists")
	f.BoolVar(&o.Plan, "plan", false, "print what the probe would do on this host and change nothing")
	f.BoolVar(&o.Quick, "quick", false, "small sizes, fewer fit ratios and repetitions: finishes in a few minutes")
	f.StringSliceVar(&o.Scenarios, "scenario", d.Scenarios, "what to measure: curves, swappiness, pagecache, swapdemo, copy (comma-separated)")
	f.StringSliceVar(&o.Backends, "backends", d.Backends, "swap backends for the curves: zram, file, zswap, none, emulated")
	f.Float64SliceVar(&o.Fits, "fit", nil, "fit ratios (memory limit / footprint), each above 0 and at most 1 (default 1,0.9,0.75,0.6,0.5; --quick 0.9,0.75,0.5)")
	f.IntVar(&o.Reps, "reps", 0, "rounds per backend, each an in-RAM run and every fit ratio once in a random order, closed by one more in-RAM run; a slowdown is over the in-RAM runs next to it (default 5; --quick 3)")
	f.Var(&ratioFlag{&o.Precision}, "precision", "repeat past --reps until every point's 95% interval is within this of its mean (e.g. 5%), --budget is spent, or 100 rounds ran")
	f.DurationVar(&o.PrecisionBudget, "budget", 0, "wall-time budget for the rounds --precision adds, per backend (default: none)")
	f.StringVar(&o.ZramAlgorithm, "zram-algorithm", d.ZramAlgorithm, "zram compressor: lz4, zstd, lzo-rle, ... (what the kernel offers)")
	f.StringVar(&o.ZswapCompressor, "zswap-compressor", "", "zswap compressor (default: the zram algorithm)")
	f.StringVar(&o.DeviceClass, "device-class", "", "factor class of the swap-file device (default: from the device: hdd, nvme-ssd-tlc or sata-ssd-tlc)")
	f.StringSliceVar(&o.Emulate, "emulate", nil, "catalog classes to emulate by IOPS throttling (default: every class not present)")
	f.BoolVar(&o.EmulateLatency, "emulate-latency", false, "emulate the Intel study's drives (sata-ssd-slc, sata-ssd-mlc, hdd) with their latency on a FUSE-backed loop device instead of IOPS throttling (docs/probe.md)")
	f.BoolVar(&o.DeviceProfile, "device-profile", d.DeviceProfile, "measure the swap device's 4 KiB latency and IOPS (the curve's reference)")
	f.Float64Var(&o.MaxSlowdown, "max-slowdown", 0, "stop a run at this multiple of the in-RAM time and estimate from its rate (default 40; --quick 25)")
	f.Float64Var(&o.ScenarioFit, "scenario-fit", d.ScenarioFit, "fit ratio of the swappiness scenario (and of zswap/none under --quick)")
	f.IntSliceVar(&o.Swappiness, "swappiness", d.Swappiness, "swappiness values the swappiness scenario compares (swap off is always added)")
	f.Float64SliceVar(&o.PageCacheSizes, "pagecache-sizes", nil, "writer file sizes for the page-cache scenario, as multiples of the memory limit (default 0,0.5,1,2,4; --quick 0,1,4)")
	addExperimentFlags(f, &o.Options)
	f.TextVar(&o.Workload.DataSize, "data-size", units.Bytes(0), "anonymous data of the workload (default: RAM/16 between 256MiB and 2GiB; --quick 192MiB)")
	f.TextVar(&o.Workload.CodeSize, "code-size", units.Bytes(0), "mapped \"code\" file of the workload (default: data/8)")
	f.StringVar(&o.Workload.Pattern, "pattern", d.Workload.Pattern, "page access pattern: uniform, zipf, sequential")
	f.Float64Var(&o.Workload.ZipfS, "zipf-s", d.Workload.ZipfS, "skew of the zipf pattern (above 1)")
	f.StringVar(&o.Workload.Content, "content", d.Workload.Content, "data content: zeros, compressible, random (decides what zram is worth)")
	f.Float64Var(&o.Workload.WriteMix, "write-mix", d.Workload.WriteMix, "share of page visits that write")
	f.IntVar(&o.Workload.Passes, "passes", d.Workload.Passes, "reads of each visited page: the CPU work done per page of memory")
	f.Float64Var(&o.Workload.Rounds, "rounds", 0, "timed page visits per run, in multiples of the data pages (default 4; --quick 8)")
	f.Uint64Var(&o.Seed, "seed", d.Seed, "random seed of the access pattern and of the order of each backend's runs (recorded in the report)")
	_ = c.MarkFlagDirname("swap-dir")
	_ = c.MarkFlagFilename("out", "json", "yaml", "yml")
}

func newProbeCommand(d *deps) *cobra.Command {
	var o probeOptions
	c := &cobra.Command{
		Use:   "probe [--swap-dir DIR] [--out FILE]",
		Short: "Measure slowdown factors on this host: swap file, zram, zswap, no swap, emulated drives",
		Long: `Measure how much slower a memory-hungry workload gets when part of its memory
lives on swap, at several fit ratios (memory limit / footprint), against a swap
file on --swap-dir, zram, zswap in front of the swap file, no swap, and catalog
drives emulated by IOPS throttling. The workload is memplan itself, confined in
a memory cgroup. The result is a factor file for 'memplan recommend --factors'.

The probe changes the host (swap areas, zram, zswap parameters, cgroups); it
records every change in a journal before making it and undoes all of them when
it ends, fails or is interrupted. After a kill -9, run 'memplan probe cleanup'.
Without root it measures only the in-RAM baseline and the device profile.
See docs/probe.md.`,
		Example: `  sudo memplan probe --swap-dir /mnt/candidate-ssd --out probe.json
  sudo memplan probe --quick --swap-dir /var/tmp
  sudo memplan probe --plan --swap-dir /mnt/candidate-ssd
  sudo memplan probe --scenario swappiness,pagecache --swap-dir /var/tmp
  sudo memplan probe --scenario swapdemo,pagecache,copy --swap-dir /var/tmp
  sudo memplan probe cleanup`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Command = strings.Join(d.Args, " ")
			if err := o.prepare(cmd, args); err != nil {
				return err
			}
			if o.StateDir == "" {
				o.StateDir = host.StateDir(d.Getenv)
			}
			return runProbe(cmd.Context(), o, d.Host(), d.Stdout, d.Stderr)
		},
	}
	o.AddFlags(c)
	o.labelOptions.AddFlags(c)
	c.AddCommand(newProbeCleanupCommand(d), newProbeDeviceCommand(d))
	return c
}

func runProbe(ctx context.Context, o probeOptions, h host.Host, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.SwapDir == "" {
		o.SwapDir = o.StateDir
		if !fileExists(o.SwapDir) && !o.Plan {
			return usagef("--swap-dir is not given and the state directory %s does not exist; give --swap-dir DIR on the device to measure", o.SwapDir)
		}
	}
	if !o.Plan && o.Out != "" && !o.Force && fileExists(o.Out) {
		return usagef("%s exists; use --force to overwrite it, or --out another file", o.Out)
	}
	plan, err := probe.MakePlan(h, o.Options)
	if err != nil {
		var oe *measure.OptionError
		if errors.As(err, &oe) {
			return usagef("%v", err)
		}
		return err
	}
	if o.Plan {
		measured.WritePlan(stdout, plan)
		return nil
	}

	// The root command's context is cancelled on the first SIGINT or
	// SIGTERM and the probe then undoes its changes; a second signal means
	// "stop now": say what is left and exit.
	stop := interruptNotice(stderr, "probe", plan.Options.StateDir)
	defer stop()

	prog := newProbeProgress(stderr)
	rep, err := probe.RunPlan(ctx, h, plan, prog)
	prog.Close()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "memplan probe: interrupted; every change to the host was undone")
		}
		return err
	}
	ff := rep.Factors(Version())
	o.apply(ff)
	measured.WriteProbe(stdout, rep, ff)
	if o.Out == "" {
		return nil
	}
	data, err := factors.Encode(o.Out, ff)
	if err != nil {
		return err
	}
	if err := writeAtomic(o.Out, data); err != nil {
		return err
	}
	if len(ff.Curves) == 0 {
		fmt.Fprintf(stdout, "\nwrote %s: it holds the measurements but no slowdown curves, so 'memplan recommend --factors' cannot use it\n", o.Out)
		return nil
	}
	if _, err := model.ParseFactors(o.Out, data); err != nil {
		return fmt.Errorf("the factor file the probe wrote does not load (a bug in memplan): %w", err)
	}
	fmt.Fprintf(stdout, "\nwrote %s; use it with: memplan recommend --workload FILE --factors %s\n", o.Out, o.Out)
	return nil
}
