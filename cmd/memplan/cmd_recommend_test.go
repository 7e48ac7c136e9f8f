package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
)

const intelWorkload = "../../examples/intel-eda-2009.yaml"

// flat joins wrapped lines so that a sentence can be found wherever the
// table broke it.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestRecommendExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"ok", []string{"--uncertainty", "--runs", "20"}, 0, ""},
		{"bad --rank-by", []string{"--rank-by", "bogus"}, 2, `unknown --rank-by "bogus"`},
		{"bad --max-price-age", []string{"--max-price-age", "soon"}, 2, "--max-price-age"},
		{"--runs alone", []string{"--runs", "10"}, 2, "add --uncertainty"},
		{"--seed alone", []string{"--seed", "3"}, 2, "add --uncertainty"},
		{"no runs", []string{"--uncertainty", "--runs", "-1"}, 2, "--runs -1"},
		{"bad spread", []string{"--uncertainty", "--price-spread", "wide"}, 2, "--price-spread"},
		{"spread of 1", []string{"--uncertainty", "--price-spread", "1"}, 2, "--price-spread"},
		// The RUB catalog cannot price the default (USD) electricity.
		{"tco without a price", []string{"--rank-by", "tco"}, 2, "--rank-by tco:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, append([]string{"recommend", "-w", intelWorkload}, tc.args...))
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
			if tc.code != 0 && stdout.Len() > 0 {
				t.Errorf("a failed call printed a report:\n%s", stdout.String())
			}
		})
	}
}

// TestUncertaintyJSON: the uncertainty run in the JSON is reproducible
// with a seed and its shares sum to 1.
func TestUncertaintyJSON(t *testing.T) {
	get := func(seed string) (reports.Output, string) {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, []string{"recommend", "-w", intelWorkload, "--uncertainty", "--runs", "200", "--seed", seed, "--price-spread", "30%", "--format", "json"}); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		out, err := reports.ReadOutput(strings.NewReader(stdout.String()))
		if err != nil {
			t.Fatal(err)
		}
		return out, stdout.String()
	}
	a, aText := get("7")
	_, bText := get("7")
	if aText != bText {
		t.Error("the same seed gave different files")
	}
	u := a.Uncertainty
	if u == nil || u.Runs != 200 || u.Seed != 7 || u.PriceSpread != 0.3 || u.RunsMet != 200 {
		t.Fatalf("uncertainty %+v", u)
	}
	sum, runs := 0.0, 0
	for _, w := range u.Winners {
		sum += w.Share
		runs += w.Runs
	}
	if math.Abs(sum-1) > 1e-12 || runs != u.RunsMet {
		t.Errorf("winner shares sum to %.15f over %d runs (runs met %d)", sum, runs, u.RunsMet)
	}
	if len(u.Winners) < 2 || u.Winners[0].ID != a.RecommendedID {
		t.Errorf("with a 30%% spread the recommendation should win most runs, not all: %+v", u.Winners)
	}
	if s := u.Savings; s == nil || s.N != 200 || !(s.P5 <= s.P50 && s.P50 <= s.P95) || s.P5 <= 0 {
		t.Errorf("savings distribution %+v", s)
	}
	if c, _ := get("8"); c.Uncertainty.Savings.Mean == u.Savings.Mean {
		t.Error("seeds 7 and 8 gave the same mean saving")
	}
}

// TestBreakEvenTable: the Intel example's table states, with --explain,
// the break-even prices model/breakeven_test.go computes by hand.
func TestBreakEvenTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"recommend", "-w", intelWorkload}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "Break-even") {
		t.Errorf("the break-even prices belong under --explain:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"recommend", "-w", intelWorkload, "--explain"}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := flat(stdout.String())
	for _, want := range []string{
		"Break-even prices: how far one price must move, all else at today's prices, before the recommendation stops being the cheapest (by purchase cost):",
		// 150,000 + 12 x 4,600 k + 27,000 = 150,000 + 12 x 11,500 k at k = 27,000 / 82,800.
		"- DRAM (every DIMM price, by one factor) would have to fall to 0.33x today's price before 96GiB (12 x 8GiB), no swap takes over: " +
			"4 GB DDR3-1066 registered ECC at 1,500 RUB (375 RUB/GB; today 4,600 RUB), 8 GB DDR3-1066 registered ECC at 3,750 RUB (468.75 RUB/GB; today 11,500 RUB).",
		// No other swap configuration meets the day without risk (four
		// X25-Ms: 8h38m), so all-DRAM takes over at 205,200 + 27,000 k = 288,000.
		"- The Intel X25-E 64GB (SLC) would have to rise to 3.07x today's price (82,800 RUB, 1,293.75 RUB/GB) before 96GiB (12 x 8GiB), no swap takes over.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout.String())
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr is not a terminal, so no progress: %q", stderr.String())
	}
}

func intelOptions(format string) recommendOptions {
	return recommendOptions{
		inputOptions: inputOptions{Workload: intelWorkload},
		Format:       format, Top: -1, MaxPriceAge: "90d", Runs: model.DefaultRuns, Seed: 1, PriceSpread: "10%",
		now: time.Now, stderr: &bytes.Buffer{},
	}
}

// TestStalePricesUseTheClock: the age of the 2009 catalog's prices is
// measured against the injected clock.
func TestStalePricesUseTheClock(t *testing.T) {
	for _, tc := range []struct {
		now  string
		age  string
		warn string
	}{
		{"2009-12-01", "90d", ""},
		{"2010-03-01", "90d", "holds list prices of 2009-10, 151 days old (more than 90)"},
		{"2010-03-01", "26w", ""},
		{"2026-11-29", "0", ""},
	} {
		o := intelOptions("json")
		now, _ := time.Parse("2006-01-02", tc.now)
		o.now, o.MaxPriceAge = func() time.Time { return now }, tc.age
		var buf bytes.Buffer
		if err := runRecommend(context.Background(), o, &buf); err != nil {
			t.Fatal(err)
		}
		out, err := reports.ReadOutput(&buf)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(out.Warnings, "\n")
		if (tc.warn == "") != (got == "") || !strings.Contains(got, tc.warn) {
			t.Errorf("%s with --max-price-age %s: warnings %q, want %q", tc.now, tc.age, got, tc.warn)
		}
	}
}

// TestBreakEvenAuto: break-even runs by default on a small search where
// it is shown (the table with --explain, JSON), not on a large one (with
// a note saying how to ask), nor for the table's first screen, which
// does not show it; --break-even asks.
func TestBreakEvenAuto(t *testing.T) {
	o := intelOptions("table")
	o.Explain = true
	in, err := loadInputs(context.Background(), o.inputOptions)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts, err := o.analyse(ctx, in, res, robustFlags{})
	if err != nil || opts.BreakEven == nil || opts.BreakEvenNote != "" {
		t.Fatalf("small search: break-even %v, note %q, err %v", opts.BreakEven != nil, opts.BreakEvenNote, err)
	}
	res.Evaluated = breakEvenAuto + 1
	opts, err = o.analyse(ctx, in, res, robustFlags{})
	if err != nil || opts.BreakEven != nil || !strings.Contains(opts.BreakEvenNote, "add --break-even") || !strings.Contains(opts.BreakEvenNote, "5,001 configurations") {
		t.Fatalf("large search: break-even %v, note %q, err %v", opts.BreakEven != nil, opts.BreakEvenNote, err)
	}
	var buf bytes.Buffer
	opts.Explain = true
	if err := reports.Render(&buf, "table", res, opts); err != nil || !strings.Contains(flat(buf.String()), "Break-even prices: not computed: the search evaluated 5,001 configurations") {
		t.Errorf("the table should say break-even was skipped (%v):\n%s", err, buf.String())
	}
	o.BreakEven, o.breakEvenSet = true, true
	if opts, err = o.analyse(ctx, in, res, robustFlags{}); err != nil || opts.BreakEven == nil {
		t.Fatalf("--break-even on a large search: %v, %v", opts.BreakEven != nil, err)
	}
	o.BreakEven = false
	if opts, err = o.analyse(ctx, in, res, robustFlags{}); err != nil || opts.BreakEven != nil || opts.BreakEvenNote != "" {
		t.Fatalf("--break-even=false: %v, %q, %v", opts.BreakEven != nil, opts.BreakEvenNote, err)
	}
	// The first screen does not show it, the JSON does.
	res.Evaluated = 10
	for _, f := range []string{"table", "markdown", "json"} {
		o = intelOptions(f)
		opts, err = o.analyse(ctx, in, res, robustFlags{})
		if want := f == "json"; err != nil || (opts.BreakEven != nil) != want {
			t.Errorf("%s without --explain on a search of %d: break-even computed %v, want %v (%v)", f, res.Evaluated, opts.BreakEven != nil, want, err)
		}
	}
	// CSV has no place for it.
	o = intelOptions("csv")
	if opts, err = o.analyse(ctx, in, res, robustFlags{}); err != nil || opts.BreakEven != nil || opts.BreakEvenNote != "" {
		t.Fatalf("csv: %v, %q, %v", opts.BreakEven != nil, opts.BreakEvenNote, err)
	}
}

// TestAnalysesCancelled: Ctrl-C during an analysis returns at once with
// the context's error (exit 130), without waiting for the model.
func TestAnalysesCancelled(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	_, err := inBackground(ctx, func() (int, error) {
		<-release // a model run that would take long
		return 1, nil
	})
	if err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}

	o := intelOptions("table")
	o.Uncertainty = true
	// Cancelled before the model runs, the inputs' reading stops (and says
	// so: "reading workload: interrupted").
	if err := runRecommend(ctx, o, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("recommend with a cancelled context: %v", err)
	}
	var stderr bytes.Buffer
	if code := exitCode(ctx, &stderr, fmt.Errorf("ranking configurations: %w", context.Canceled)); code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if got := stderr.String(); got != "memplan: ranking configurations: interrupted\n" {
		t.Errorf("stderr %q, want the interruption in words", got)
	}
}
