package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/profile"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

func init() {
	subcommands = append(subcommands, newProfileCommand)
}

type profileOptions struct {
	profile.ProfileOptions
	Out      string
	Force    bool
	Validate bool
	labelOptions
}

func (o *profileOptions) AddFlags(c *cobra.Command) {
	d := profile.DefaultProfileOptions()
	o.ProfileOptions = d
	f := c.Flags()
	f.StringVarP(&o.Out, "out", "o", "memplan-profile.json", "profile to write (a factor file); YAML when it ends in .yaml or .yml, JSON otherwise")
	f.BoolVar(&o.Force, "force", false, "overwrite --out FILE if it exists")
	f.Float64SliceVar(&o.Fits, "fits", profile.DefaultProfileFits, "fit ratios (memory limit / the command's resident peak), each above 0 and at most 1")
	f.IntVar(&o.Runs, "runs", profile.DefaultProfileRuns, "repetitions of each fit ratio and of the in-RAM run")
	f.Var(&ratioFlag{&o.Precision}, "precision", "repeat past --runs until every point's 95% interval is within this of its mean (e.g. 5%), --budget is spent, or 100 rounds ran")
	f.BoolVar(&o.OnePass, "one-pass", false, "run the command once without a memory limit and infer its curve from the pages it references (docs/profile.md, \"One pass\"): for jobs too long to run at every fit ratio")
	f.DurationVar(&o.Budget, "budget", 0, "wall-time budget for the rounds --precision adds (default: none)")
	f.StringVar(&o.Backend, "backend", d.Backend, "swap backend the profile is measured on: zram or file (a swap file in --swap-dir)")
	f.StringVar(&o.SwapDir, "swap-dir", "", "directory on the device to measure for the swap file (--backend file, --validate-backend file)")
	f.BoolVar(&o.Validate, "validate", false, "also measure on the other backend and compare with what the transfer model predicts for it")
	f.StringVar(&o.ProfileOptions.Validate, "validate-backend", "", "backend --validate measures on (default: file after zram, zram after file)")
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
}

func newProfileCommand(stdout, stderr io.Writer) *cobra.Command {
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

The command runs as it would from this shell (same directory and
environment, standard input /dev/null); its output is passed through unless
--stdout/--stderr name files. A command that fails is reported as a failure,
never as a slowdown.

Like 'memplan probe', profile records every change to the host in a journal
before making it and undoes all of them when it ends, fails or is interrupted;
after a kill -9 run 'memplan probe cleanup'. Needs root. See docs/profile.md.`,
		Example: `  sudo memplan profile --out sim.profile.json -- ./run_sim.sh big_design
  sudo memplan profile --validate --swap-dir /var/tmp --stdout /dev/null -- sort -S 300M big.txt
  sudo memplan profile --backend file --swap-dir /mnt/ssd --fits 0.9,0.75,0.6,0.5 -- python3 lookup.py`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Command = args
			if err := o.prepare(cmd, args); err != nil {
				return err
			}
			o.Invocation = strings.Join(os.Args, " ")
			return runProfile(cmd.Context(), o, stdout, stderr)
		},
	}
	o.AddFlags(c)
	o.labelOptions.AddFlags(c)
	return c
}

func runProfile(ctx context.Context, o profileOptions, stdout, stderr io.Writer) error {
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
	if o.Validate && o.ProfileOptions.Validate == "" {
		o.ProfileOptions.Validate = measure.BackendFile
		if o.Backend == measure.BackendFile {
			o.ProfileOptions.Validate = measure.BackendZram
		}
	}
	if o.Out != "" && !o.Force && fileExists(o.Out) {
		return usagef("%s exists; use --force to overwrite it, or --out another file", o.Out)
	}
	o.Stdout, o.Stderr = stdout, stderr

	if o.StateDir == "" {
		o.StateDir = host.StateDir(os.Getenv)
	}
	stop := interruptNotice(stderr, "profile", o.StateDir)
	defer stop()
	prog := newProgress(stderr, "profile")
	rep, err := profile.Profile(ctx, host.NewOSHost(), o.ProfileOptions, prog)
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
	writeProfileSummary(stdout, rep, ff)
	if o.Out == "" {
		return nil
	}
	data, err := encodeFactors(o.Out, ff)
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
	fmt.Fprintf(stdout, "      dirty_share: %.2f      # swap-outs per swap-in, measured\n", rep.Dirty)
	return nil
}

// interruptNotice tells the person what happens on Ctrl-C: the first
// SIGINT or SIGTERM cancels the root context and the host's changes are
// undone; a second one stops at once and lists what is left.
func interruptNotice(stderr io.Writer, name, stateDir string) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				n++
				if n == 1 {
					fmt.Fprintf(stderr, "memplan %s: %s; undoing the changes to the host%s\n", name, signalWhat(sig), againHint())
					continue
				}
				if !interactive() {
					// Schedulers send signal sequences (LSF: INT, TERM,
					// KILL; a job script passing TERM on while Slurm
					// sends its own): only a person at a terminal means
					// "stop now" by a second one.
					fmt.Fprintf(stderr, "memplan %s: %s again; still undoing the changes to the host (not on a terminal: only SIGKILL stops this, and then 'memplan probe cleanup' finishes it)\n", name, signalWhat(sig))
					continue
				}
				left := host.PendingChanges(host.NewOSHost(), stateDir)
				if len(left) == 0 {
					fmt.Fprintf(stderr, "memplan %s: stopped; nothing of memplan's is left on the host\n", name)
				} else {
					fmt.Fprintf(stderr, "memplan %s: stopped with %d change(s) still on the host:\n", name, len(left))
					for _, l := range left {
						fmt.Fprintln(stderr, "  ", l)
					}
					fmt.Fprintf(stderr, "memplan %s: run 'memplan probe cleanup' to undo them\n", name)
				}
				os.Exit(exitInterrupted)
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// writeProfileSummary prints what was measured, the validation and the
// predictions for devices that were not measured.
func writeProfileSummary(w io.Writer, r *profile.ProfileReport, ff *model.FactorFile) {
	h := r.Host
	fmt.Fprintf(w, "memplan profile of %s\n", strings.Join(quoteArgs(r.Command), " "))
	fmt.Fprintf(w, "host %s: %s, %s RAM, kernel %s, cgroup %s\n", h.Hostname, h.CPU, h.RAM, h.Kernel, h.Cgroup)
	s := r.Sizing
	fmt.Fprintf(w, "unconstrained run: %.2fs, exit status %d, resident peak %s (cgroup peak %s with page cache), %d major faults\n",
		s.Wall, s.ExitCode, r.Footprint, r.PeakCharged, s.MajFlt)
	if r.OnePass != nil {
		writeOnePassSummary(w, r, ff)
		return
	}
	a := r.Phases[0]
	fmt.Fprintf(w, "in RAM: %.3fs (trimmed mean of %d run(s); mean %.3fs, sd %.3fs)\n", a.Baseline(), a.InRAM.N, a.InRAM.Mean, a.InRAM.SD)
	if z := r.ZramLatency; z != nil {
		fmt.Fprintf(w, "zram %s raw 4 KiB: read %.1fus, write %.1fus (mean, %s pages)\n", z.Algorithm, z.ReadMean, z.WriteMean, z.Content)
	}
	if d := r.Device; d != nil && d.RandReadQD1 != nil {
		wr := 0.0
		if d.RandWriteQD1 != nil {
			wr = d.RandWriteQD1.Latency.MeanUs
		}
		fmt.Fprintf(w, "device profile of %s (%s): 4 KiB read %.0fus, write %.0fus (mean, QD1)\n", d.Path, d.DeviceName(), d.RandReadQD1.Latency.MeanUs, wr)
	}
	fmt.Fprintf(w, "elapsed %s\n\n", units.Duration(time.Duration(r.Elapsed*float64(time.Second))))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "backend\tclass\tfit\tlimit\tslowdown\t95% CI\truns\tmajor faults\tswap-ins\tswap-outs\tPSI some\tzram ratio\tus/fault\t")
	for _, ph := range r.Phases {
		for _, pt := range ph.Points {
			runs := fmt.Sprintf("%d", pt.Slowdown.N)
			if pt.Failed > 0 || pt.Censored > 0 {
				runs = fmt.Sprintf("%d/%d", pt.Slowdown.N-pt.Censored, len(pt.Runs))
				if pt.Censored > 0 {
					runs += fmt.Sprintf(" (%d capped)", pt.Censored)
				}
			}
			if pt.Slowdown.N == 0 {
				what := "failed"
				if pt.OOMKilled > 0 {
					what = "OOM-killed"
				}
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\t\t%s\t\t\t\t\t\t\t\n", ph.Name, ph.Class, pt.Fit, pt.Limit, what, runs)
				continue
			}
			if pt.Censored == pt.Slowdown.N {
				// Every run hit the cap: only a lower bound, no counters.
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t>= %.2f\t\t%s\t\t\t\t\t\t\t\n", ph.Name, ph.Class, pt.Fit, pt.Limit, pt.Slowdown.Mean, runs)
				continue
			}
			ratio, perFault := "", ""
			if pt.ZramRatio > 0 {
				ratio = fmt.Sprintf("%.2f", pt.ZramRatio)
			}
			if pt.FaultTime > 0 {
				perFault = fmt.Sprintf("%.1f", pt.FaultTime*1e6)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%.2f\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.2fs\t%s\t%s\t\n",
				ph.Name, ph.Class, pt.Fit, pt.Limit, pt.Slowdown.Mean, ci(pt.Slowdown), runs, pt.MajFlt, pt.SwapIns, pt.SwapOuts, pt.PSISome, ratio, perFault)
		}
	}
	tw.Flush()

	t := r.Transfer
	fmt.Fprintf(w, "\ndirty share %.2f (%s)\n", r.Dirty, r.DirtyNote)
	if t.PerFault > 0 {
		fmt.Fprintf(w, "one page swapped in on %s cost %.1fus, of which %.1fus is the device: %.1fus of software overhead (the model assumes %.3gus)\n",
			a.Name, t.PerPage, t.DeviceTime, t.Calibrated, t.ModelOverhead)
	}
	if rr := r.Readahead; rr != nil {
		fmt.Fprintf(w, "readahead on %s:", rr.Device)
		for _, p := range rr.Points {
			if p.Failed != "" {
				fmt.Fprintf(w, " fit %.2f failed (%s);", p.Fit, p.Failed)
				continue
			}
			fmt.Fprintf(w, " fit %.2f %.0f major faults / %.0f pages in;", p.Fit, p.MajFlt, p.SwapIns)
		}
		fmt.Fprintln(w)
	}
	if ra := t.Readahead; ra.Faults > 0 {
		fmt.Fprintf(w, "on a block device this command takes %.2f major faults and reads %.2f pages per page it needs back (%s)\n", ra.Faults, ra.Pages, t.ReadaheadSource)
	} else {
		fmt.Fprintf(w, "readahead: %s\n", t.ReadaheadSource)
	}
	fmt.Fprintf(w, "transfer to other devices: %s (%s); fault_overhead %s\n", transferName(t.Method), t.Why, t.FaultOverhead)

	if v := r.Validation; v != nil {
		ref := v.Reference
		fmt.Fprintf(w, "\nvalidation: %s (%s, %s: read %s, write %s) predicted from %s\n", v.To, v.ToClass, ref.Device, ref.ReadLatency, ref.WriteLatency, v.From)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "fit\t%s\t%s measured (95%% CI)\tprofile's model\terror\tdefault model\terror\t%s's counts\terror\tfaults %s / %s\tpages in %s / %s\t\n",
			v.From, v.To, v.To, v.From, v.To, v.From, v.To)
		for _, row := range v.Rows {
			meas := fmt.Sprintf("%.2f (%.2f-%.2f)", row.Measured, row.MeasuredLo, row.MeasuredHi)
			pct := func(e float64) string { return fmt.Sprintf("%+.0f%%", 100*e) }
			fe, re, oe := pct(row.FaultsErr), pct(row.RatioErr), pct(row.OwnErr)
			to, pto := fmt.Sprintf("%.0f", row.FaultsTo), fmt.Sprintf("%.0f", row.PagesTo)
			if row.Capped {
				// The measurement is a lower bound: so is each error.
				meas = fmt.Sprintf(">= %.2f (capped)", row.Measured)
				fe, re, oe, to, pto = "("+fe+")", "("+re+")", "("+oe+")", "-", "-"
			}
			fmt.Fprintf(tw, "%.2f\t%.2f\t%s\t%.2f (%.2f-%.2f)\t%s\t%.2f (%.2f-%.2f)\t%s\t%.2f\t%s\t%.0f / %s\t%.0f / %s\t\n",
				row.Fit, row.MeasuredFrom, meas, row.Faults, row.FaultsLo, row.FaultsHi, fe,
				row.Ratio, row.RatioLo, row.RatioHi, re, row.Own, oe, row.FaultsFrom, to, row.PagesFrom, pto)
		}
		tw.Flush()
		fmt.Fprintf(w, "mean |error|: profile's model %.0f%% (largest %.0f%%), default model %.0f%% (largest %.0f%%); diagnostic with %s's own counts %.0f%%\n",
			100*v.FaultsMAE, 100*v.FaultsMax, 100*v.RatioMAE, 100*v.RatioMax, v.To, 100*v.OwnMAE)
	}

	if preds := r.Predictions(ff); len(preds) > 0 {
		fmt.Fprintf(w, "\npredicted slowdown on other devices, carried from this command's curves (one job at a time; 95%% band):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "class\tdevice\tbasis\t")
		for _, pt := range preds[0].Points {
			fmt.Fprintf(tw, "fit %.2f\t", pt.Fit)
		}
		fmt.Fprintln(tw)
		for _, p := range preds {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", p.Class, p.Device, p.Provenance)
			for _, pt := range p.Points {
				fmt.Fprintf(tw, "%.2f (%.2f-%.2f)\t", pt.Slowdown, pt.Low, pt.High)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

func transferName(m string) string {
	if m == profile.TransferFaults {
		return "pages counted x measured cost per page"
	}
	return "the model's default service-time ratio"
}

func quoteArgs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return out
}

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

// writeOnePassSummary prints a one-pass profile: what was sampled and the
// inferred curve with its bands.
func writeOnePassSummary(w io.Writer, r *profile.ProfileReport, ff *model.FactorFile) {
	sm := r.OnePass.Result.Samples
	fmt.Fprintf(w, "one pass: %d window reads in %d sweeps (%s, %s), %d process(es) followed; the curve below is inferred, not measured\n\n",
		sm.Windows, sm.Sweeps, sm.Method, sm.Split, sm.Processes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tfit\tslowdown\tband\t")
	for _, c := range ff.Curves {
		for _, p := range c.Points {
			band := ""
			if len(p.CI) == 2 {
				band = fmt.Sprintf("%.2f-%.2f", p.CI[0], p.CI[1])
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t\n", c.Class, p.Fit, p.Slowdown, band)
		}
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
