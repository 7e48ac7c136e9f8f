package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/reports/xlsx"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

type recommendOptions struct {
	inputOptions
	Format string
	Top    int
	Out    string
	Force  bool
	XLSX   string
	Wide   bool
	// Explain adds what lies behind the verdict to the table and Markdown.
	Explain bool

	RankBy      string // "" keeps the workload's options.rank_by
	MirrorSwap  bool   // as the workload's options.mirror_swap: true
	MaxPriceAge string // a duration; "0" turns the stale-price warning off
	BreakEven   bool
	Uncertainty bool
	Runs        int
	Seed        uint64
	PriceSpread string

	// Set from the command line: which of the flags above were given.
	breakEvenSet, runsSet, seedSet, spreadSet bool
	// now is the clock the price ages are measured against; stderr gets
	// progress while the uncertainty runs (only on a terminal).
	now    func() time.Time
	stderr io.Writer
	getenv func(string) string // for $COLUMNS
}

// breakEvenAuto is the size of search up to which the break-even
// analysis runs without being asked: it re-runs the ranking a few dozen
// times, which on a search this size takes well under a second.
const breakEvenAuto = model.TopSearchMin

func (o *recommendOptions) AddFlags(c *cobra.Command) {
	f := c.Flags()
	f.StringVarP(&o.Workload, "workload", "w", "", "workload description (YAML)")
	f.StringArrayVar(&o.Prices, "prices", nil, "price catalog file (your quote); repeatable; the plan is priced from these alone unless the workload's catalogs: names embedded ones or --with-embedded is given")
	f.BoolVar(&o.WithEmbedded, "with-embedded", false, "with --prices: also price from the embedded list prices (catalog "+prices.DefaultCatalog+"); a quoted part with the same SKU replaces the list price")
	f.StringArrayVar(&o.Rates, "rate", nil, "exchange rate CUR=AMOUNT CUR, e.g. EUR=1.08USD (one EUR buys 1.08 USD); repeatable; overrides catalog rates")
	f.StringArrayVar(&o.RatesFiles, "rates", nil, "exchange rates file (YAML: date, source, rates: {EUR: 1.08 USD}); repeatable")
	f.StringArrayVar(&o.Factors, "factors", nil, "slowdown factor file (YAML or JSON, e.g. from memplan probe); repeatable; overrides the defaults")
	f.StringArrayVar(&o.Sets, "set", nil, "what-if: replace one value of the workload, `PATH=VALUE` such as jobs[0].concurrency=10 or jobs[synth].deadline=6h; repeatable; the file is not changed")
	f.StringArrayVar(&o.Scales, "scale", nil, "what-if: multiply every price of a kind, `KIND=FACTOR` such as dram=1.3 (kinds dram, drives, platforms); repeatable")
	f.StringVarP(&o.Format, "format", "f", "table", "output format: "+strings.Join(reports.Formats(), ", "))
	f.IntVar(&o.Top, "top", -1, "show at most N configurations (a search of more than 5,000 then skips those that cannot rank among them); 0 = all")
	// -1 only means "the format's default"; show that instead of the number.
	c.Flags().Lookup("top").DefValue = "10 for table and markdown, all for json, yaml and csv"
	f.StringVarP(&o.Out, "out", "o", "", "write the report to FILE (atomically) instead of standard output; - is standard output")
	f.BoolVar(&o.Wide, "wide", false, "table: full labels, as wide as they need (by default the table fits $COLUMNS or the terminal, 80 columns when piped)")
	f.BoolVar(&o.Explain, "explain", false, "table and markdown: also print what lies behind the verdict (the basis of each slowdown, baseline and savings, total cost of ownership, break-even prices, prices, what was not evaluated) and warnings in full")
	f.StringVar(&o.XLSX, "xlsx", "", "also write an Excel workbook with live cost formulas to `FILE` (.xlsx, atomically; every configuration)")
	f.BoolVar(&o.Force, "force", false, "overwrite the --out and --xlsx files if they exist")
	f.StringVar(&o.RankBy, "rank-by", "", "what the ranking compares, `capital|tco`: the purchase, or purchase + power over the horizon (default: the workload's options.rank_by, else capital)")
	f.BoolVar(&o.MirrorSwap, "mirror-swap", false, "put swap on mirrored drives only (RAID 1, RAID 10 from four drives: twice the drives, a dead drive kills no job), as the workload's options.mirror_swap: true")
	f.StringVar(&o.MaxPriceAge, "max-price-age", "90d", "warn when a price behind the recommendation is older than this (`AGE` such as 90d, 6w; 0 turns the warning off)")
	f.BoolVar(&o.BreakEven, "break-even", false, "compute the DRAM and swap-drive prices at which another configuration would win (default: on when the search evaluated at most 5,000 configurations)")
	f.BoolVar(&o.Uncertainty, "uncertainty", false, "re-run the ranking with prices and slowdowns drawn from their ranges and report how often each configuration wins")
	f.IntVar(&o.Runs, "runs", model.DefaultRuns, "with --uncertainty: Monte Carlo runs")
	f.Uint64Var(&o.Seed, "seed", 1, "with --uncertainty: seed of the draws (the same seed gives the same result)")
	f.StringVar(&o.PriceSpread, "price-spread", "10%", "with --uncertainty: a price's range when its catalog entry gives no price_range, as +/- a `SHARE` of it (0 holds prices fixed)")
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return reports.Formats(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("rank-by", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{model.RankCapital, model.RankTCO}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.MarkFlagFilename("workload", "yaml", "yml")
	_ = c.MarkFlagFilename("prices", "yaml", "yml")
	_ = c.MarkFlagFilename("factors", "yaml", "yml", "json")
	_ = c.MarkFlagFilename("xlsx", "xlsx")
}

func newRecommendCommand(d *deps) *cobra.Command {
	o := recommendOptions{now: d.Now, stderr: d.Stderr, getenv: d.Getenv}
	o.inputOptions.warn = d.Stderr
	c := &cobra.Command{
		Use:   "recommend --workload FILE",
		Short: "Rank server configurations for a workload and recommend the cheapest that meets its deadlines",
		Example: `  memplan recommend --workload examples/eda.yaml
  memplan recommend -w examples/intel-eda-2009.yaml --format json --out plan.json
  memplan recommend -w eda.yaml --prices quote.yaml --factors probe.json
  memplan recommend -w eda.yaml --rank-by tco --uncertainty --runs 2000 --seed 7`,
		Long: `recommend ranks the server configurations the catalogs allow for a workload
and recommends the cheapest that meets every deadline, with the all-DRAM
baseline and the saving against it.

The table (and Markdown) opens with a short verdict: what to buy (parts),
what to configure (kernel settings), what it costs and saves, the tightest
deadlines, how sure the slowdowns are and the command that would make them
surer; then the warnings and the ranked table. --explain adds the basis of
each slowdown, baseline and savings, total cost of ownership, break-even
prices, prices and what was not evaluated.

Swap drives are striped (RAID 0) unless --mirror-swap (or the workload's
options.mirror_swap: true) asks for mirrored ones (RAID 1, RAID 10 from four
drives): twice the drives, each written as much as one of a stripe, reads
from either copy. When the recommendation puts swap on striped drives, its
"Drive failure" line says that a dead drive kills every job with pages on
it, and prices the same server with the drives mirrored next to it.

How robust the answer is (see docs/robustness.md):
  - the total cost of ownership over the horizon (purchase + power) is always
    computed; --rank-by tco ranks by it;
  - the break-even prices (how far DRAM or the swap drive's price must move
    before another configuration wins) are computed by default when the search
    is small (shown with --explain); --break-even asks for them on a larger
    one, and shows them without --explain;
  - --uncertainty re-runs the ranking --runs times with prices and slowdowns
    drawn from their ranges and reports how often each configuration wins and
    how the saving spreads; --seed makes it reproducible.`,
		Args: workloadFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			o.breakEvenSet, o.runsSet, o.seedSet, o.spreadSet = fl.Changed("break-even"), fl.Changed("runs"), fl.Changed("seed"), fl.Changed("price-spread")
			if fl.Changed("top") && o.Top < 0 {
				return usagef("--top %d: expected 0 (all) or a positive number", o.Top)
			}
			return runRecommend(cmd.Context(), o, d.Stdout)
		},
	}
	o.AddFlags(c)
	return c
}

func runRecommend(ctx context.Context, o recommendOptions, stdout io.Writer) error {
	if !validFormat(o.Format) {
		return usagef("unknown --format %q; expected one of %s", o.Format, strings.Join(reports.Formats(), ", "))
	}
	robust, err := o.robustness()
	if err != nil {
		return err
	}
	if err := checkOutputs(o.Force, [2]string{"--out", o.Out}, [2]string{"--xlsx", o.XLSX}); err != nil {
		return err
	}
	if o.XLSX != "" {
		if err := xlsx.CheckPath(o.XLSX, xlsx.Options{Force: o.Force}); err != nil {
			return usagef("%v", err)
		}
	}
	in, whatIfs, err := loadInputsWhatIf(ctx, o.inputOptions)
	if err != nil {
		return err
	}
	in.RankBy, in.MirrorSwap = o.RankBy, o.MirrorSwap
	in.Now, in.MaxPriceAge = o.now(), robust.maxAge
	if o.XLSX == "" && !o.Explain {
		// Only the first --top are shown: the search may skip what
		// cannot rank there. The workbook lists, and --explain counts,
		// every configuration.
		in.Top = defaultTop(o.Top, o.Format)
	}
	res, err := model.Recommend(in)
	if err != nil {
		err = whatIfs.fix(err)
		var ie *yamlx.InputError
		if o.RankBy != "" && errors.As(err, &ie) && ie.Field == model.FieldRankBy {
			// The model points at options.rank_by in the workload, which
			// the flag replaced; say so.
			return fmt.Errorf("--rank-by %s: %w", o.RankBy, err)
		}
		return err
	}
	// A plan made with --set or --scale says so wherever it is shown.
	res.Warnings = append(whatIfs.notes, res.Warnings...)
	ropts, err := o.analyse(ctx, in, res, robust)
	if err != nil {
		return err
	}
	if o.XLSX != "" {
		// The workbook lists every configuration whatever --top says: its
		// ranking is recomputed when a price is edited.
		wo := ropts
		wo.Top = 0
		out := reports.NewOutput(res, wo)
		if err := xlsx.Write(o.XLSX, out, xlsx.Options{Force: o.Force}); err != nil {
			return err
		}
		fmt.Fprintf(o.stderr, "memplan: wrote %s\n", o.XLSX)
	}
	ropts.Top = defaultTop(o.Top, o.Format)
	ropts.Wide, ropts.Explain = o.Wide, o.Explain
	// Asked for by name, the break-even prices are shown without --explain.
	ropts.ShowBreakEven = o.breakEvenSet && o.BreakEven
	if toStdout(o.Out) {
		ropts.Width = termWidth(stdout, o.getenv)
	}
	if o.Format == "json" {
		warnStderr(o.stderr, o.Format, o.Out, res.Warnings)
		return emitJSON(stdout, o.stderr, o.Out, reports.NewOutput(res, ropts))
	}
	var buf bytes.Buffer
	if err := reports.Render(&buf, o.Format, res, ropts); err != nil {
		return err
	}
	warnStderr(o.stderr, o.Format, o.Out, res.Warnings)
	return emit(stdout, o.stderr, o.Out, buf.Bytes())
}

// robustFlags are the checked robustness flags.
type robustFlags struct {
	maxAge time.Duration
	spread float64
	fixed  bool // --price-spread 0: prices held fixed
}

// robustness checks the robustness flags before any input is read, so a
// mistake costs nothing (exit 2).
func (o *recommendOptions) robustness() (robustFlags, error) {
	var r robustFlags
	switch o.RankBy {
	case "", model.RankCapital, model.RankTCO:
	default:
		return r, usagef("unknown --rank-by %q; expected %s (purchase cost) or %s (purchase + power over the horizon)", o.RankBy, model.RankCapital, model.RankTCO)
	}
	age, err := units.ParseDuration(o.MaxPriceAge)
	if err != nil {
		return r, usagef("--max-price-age: %v", err)
	}
	r.maxAge = age.D()
	if !o.Uncertainty {
		for _, f := range []struct {
			set  bool
			name string
		}{{o.runsSet, "--runs"}, {o.seedSet, "--seed"}, {o.spreadSet, "--price-spread"}} {
			if f.set {
				return r, usagef("%s applies to the uncertainty run; add --uncertainty", f.name)
			}
		}
		return r, nil
	}
	if o.Runs < 1 || o.Runs > 1_000_000 {
		return r, usagef("--runs %d: expected a number of runs from 1 to 1,000,000", o.Runs)
	}
	spread, err := units.ParseRatio(o.PriceSpread)
	if err != nil || spread < 0 || spread >= 1 {
		return r, usagef("--price-spread %q: expected a share from 0 to below 1, such as 10%% or 0.1 (+/-10%%); 0 holds prices fixed", o.PriceSpread)
	}
	r.spread, r.fixed = float64(spread), spread == 0
	return r, nil
}

// analyse runs the break-even and uncertainty analyses the flags and the
// output ask for.
func (o *recommendOptions) analyse(ctx context.Context, in model.Input, res *model.Result, r robustFlags) (reports.Options, error) {
	opts := reports.Options{Version: Version()}
	// CSV has no place for break-even points; the workbook, JSON and YAML
	// always show them, the table and Markdown only with --explain or
	// when asked for by name: unasked, they are not computed for a first
	// screen that does not show them.
	shown := o.Format != "csv" || o.XLSX != ""
	if (o.Format == "table" || o.Format == "markdown") && !o.Explain && !o.breakEvenSet && o.XLSX == "" {
		shown = false
	}
	wanted := o.BreakEven
	if !o.breakEvenSet {
		wanted = shown && res.Evaluated+res.Skipped <= breakEvenAuto
		if shown && !wanted && res.Recommended != nil {
			opts.BreakEvenNote = fmt.Sprintf("not computed: the search evaluated %s configurations and the analysis re-runs it a few dozen times; add --break-even to compute it",
				strings.TrimSpace(model.Money(float64(res.Evaluated+res.Skipped), "")))
		}
	}
	if wanted && shown && res.Recommended != nil {
		stop := progress(o.stderr, "break-even prices: re-running the ranking")
		be, err := inBackground(ctx, func() (*model.BreakEvenResult, error) {
			full := res
			if res.Skipped > 0 {
				// The analysis looks for the configuration that takes
				// over among all of them: rank them all.
				in.Top = 0
				var err error
				if full, err = model.Recommend(in); err != nil {
					return nil, err
				}
			}
			return model.BreakEven(in, full)
		})
		stop()
		switch {
		case errors.Is(err, model.ErrNoRecommendation):
		case err != nil:
			return opts, err
		default:
			opts.BreakEven = be
		}
	}
	if o.Uncertainty {
		uo := model.UncertaintyOptions{Runs: o.Runs, Seed: o.Seed, PriceSpread: r.spread, FixedPrices: r.fixed}
		stop := progress(o.stderr, fmt.Sprintf("uncertainty: %s of the ranking", strings.TrimSpace(model.Money(float64(o.Runs), ""))+" runs"))
		u, err := inBackground(ctx, func() (*model.UncertaintyResult, error) { return model.Uncertainty(in, uo) })
		stop()
		if err != nil {
			return opts, err
		}
		opts.Uncertainty = u
	}
	return opts, nil
}

// inBackground runs f and returns its result, or the context's error as
// soon as it is cancelled (Ctrl-C): the model's analyses do not watch a
// context themselves, and the process exits without waiting for them.
func inBackground[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// progress shows what is running, with the time it has taken, on one
// line of w while it runs, when w is a terminal; the line is cleared when
// stop is called. Nothing is written to a pipe or file, so scripts and
// logs see only the result.
func progress(w io.Writer, what string) (stop func()) {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(f, "\r\033[K")
				}
				return
			case <-tick.C:
				// Quick analyses finish before the first tick and print nothing.
				shown = true
				fmt.Fprintf(f, "\r\033[Kmemplan: %s... %s", what, time.Since(start).Round(time.Second/10))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func validFormat(f string) bool {
	for _, x := range reports.Formats() {
		if x == f {
			return true
		}
	}
	return false
}

// defaultTop resolves --top: unset (negative) is 10 rows for the formats
// people read and every row for the ones programs read; 0 is every row.
func defaultTop(top int, format string) int {
	if top >= 0 {
		return top
	}
	if format == "table" || format == "markdown" {
		return 10
	}
	return 0
}

// workloadFlagArgs refuses arguments, and for `recommend eda.yaml` says
// what was meant: the workload is given with -w.
func workloadFlagArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(args[0])); ext == ".yaml" || ext == ".yml" {
		return usagef("%s takes the workload as a flag: memplan %s -w %s", cmd.CommandPath(), cmd.Name(), args[0])
	}
	return usagef("unexpected argument %q (see '%s --help')", args[0], cmd.CommandPath())
}
