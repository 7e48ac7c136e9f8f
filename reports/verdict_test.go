package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
)

// edaInput loads a workload priced with the embedded catalog current, as
// `memplan recommend --workload FILE` does for examples/eda.yaml.
func edaInput(t testing.TB, path string) model.Input {
	t.Helper()
	w, err := model.LoadWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := prices.Embedded("current")
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(cat)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	jf, err := model.LoadJobProfiles(w, []*factors.File{model.DefaultFactors()})
	if err != nil {
		t.Fatal(err)
	}
	flags := model.Flags{Rate: "--rate", Rates: "--rates", Prices: "--prices", WithEmbedded: "--with-embedded", MaxPriceAge: "--max-price-age"}
	return model.Input{Workload: w, Prices: set, Factors: fs, JobFactors: jf, Flags: flags}
}

// edaCase is examples/eda.yaml with its break-even prices, as the command
// computes them by default, and its default ten rows.
func edaCase(t testing.TB) reportCase {
	t.Helper()
	in := edaInput(t, "../examples/eda.yaml")
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	be, err := model.BreakEven(in, res)
	if err != nil {
		t.Fatal(err)
	}
	return reportCase{name: "eda", res: res, opts: Options{Top: 10, Version: "test", BreakEven: be}}
}

// maxDefaultLines bounds the first screen of examples/eda.yaml: the
// verdict, the warnings, the ranking and a pointer to --explain.
const maxDefaultLines = 45

func TestDefaultTableOfEDAFitsOneScreen(t *testing.T) {
	tc := edaCase(t)
	out := render(t, "table", tc.res, tc.opts)
	if n := strings.Count(out, "\n"); n > maxDefaultLines {
		t.Errorf("the default table of eda.yaml is %d lines, more than %d:\n%s", n, maxDefaultLines, out)
	}
	for _, moved := range []string{"Basis of each slowdown", "Not evaluated", "Break-even", "Total cost of ownership", "Prices:", "derived jointly"} {
		if strings.Contains(out, moved) {
			t.Errorf("%q belongs under --explain, not on the first screen:\n%s", moved, out)
		}
	}
	lines := strings.Split(out, "\n")
	for _, want := range []string{"Buy: 16 servers, each: ", "Configure: a zram swap device of 25% of RAM", "Costs: ", "Saves: ", "Deadlines: ", "How sure: ", "To be surer: ", "More: --explain"} {
		if lineWith(lines, want) == "" {
			t.Errorf("no line starting %q:\n%s", want, out)
		}
	}
	// zram is a setting, not a part: it is configured, not bought.
	if l := lineWith(lines, "Buy: "); strings.Contains(l, "zram") {
		t.Errorf("the Buy line names a kernel setting: %q", l)
	}
	ex := render(t, "table", tc.res, Options{Top: 10, BreakEven: tc.opts.BreakEven, Explain: true})
	for _, want := range []string{"\nBaseline and savings:\n", "\nTotal cost of ownership:\n", "\nBreak-even prices: ", "\nBasis of each slowdown:\n", "\nPrices:\n", "\nNot evaluated:\n"} {
		if !strings.Contains(ex, want) {
			t.Errorf("--explain lacks %q:\n%s", want, ex)
		}
	}
}

// TestVerdictNamesOneVocabulary: the words of the reports' own sentences
// for the model that carries a curve to another device is the model's.
func TestVerdictNamesOneVocabulary(t *testing.T) {
	for _, tc := range append(cases(t), edaCase(t)) {
		for _, f := range []string{"table", "markdown"} {
			opts := tc.opts
			opts.Explain = true
			if out := render(t, f, tc.res, opts); strings.Contains(out, "service-time model") {
				t.Errorf("%s %s: says \"service-time model\"; the model is called the swap-path model", tc.name, f)
			}
		}
	}
}

// manyClasses writes a workload of n job classes, each a small nightly
// job with its own deadline, priced like eda.yaml.
func manyClasses(t *testing.T, n int) string {
	var b strings.Builder
	b.WriteString("name: many classes\nhorizon: 3y\njobs:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: class-%03d, footprint: 8GiB, runtime: %dm, concurrency: 4, deadline: 8h, jobs_per_day: 2, compressibility: 2}\n", i, 60+i)
	}
	path := filepath.Join(t.TempDir(), "many.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestVerdictOfTwoHundredClassesStaysShort(t *testing.T) {
	res, err := model.Recommend(edaInput(t, manyClasses(t, 200)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended == nil || len(res.Recommended.Jobs) != 200 {
		t.Fatalf("expected a recommendation running 200 job classes; verdict %q", res.Verdict)
	}
	out := render(t, "table", res, Options{Top: 10})
	verdict := out[:strings.Index(out, "\n\n")]
	if n := strings.Count(verdict, "\n") + 1; n > 16 {
		t.Errorf("the verdict of 200 job classes is %d lines:\n%s", n, verdict)
	}
	if n := strings.Count(out, "\n"); n > maxDefaultLines {
		t.Errorf("the default table is %d lines with 200 job classes:\n%s", n, out)
	}
	// The tightest is the longest job: class-199 runs 259 minutes of 8h.
	flat := flatText(verdict)
	if !strings.Contains(flat, "Deadlines: all 200 job classes meet theirs; the 3 tightest: class-199 ") ||
		!strings.Contains(flat, "(every class: --explain)") {
		t.Errorf("the verdict should count the classes and name the tightest three:\n%s", verdict)
	}
	if c := strings.Count(out, "class-"); c != 3 {
		t.Errorf("the first screen names %d job classes, want the 3 tightest:\n%s", c, out)
	}
	md := render(t, "markdown", res, Options{Top: 10})
	if c := strings.Count(md, "class-"); c != 3 {
		t.Errorf("the Markdown report names %d job classes without --explain, want 3", c)
	}
	// --explain lists every class, with its runtime and deadline.
	ex := render(t, "table", res, Options{Top: 10, Explain: true})
	for i := 0; i < 200; i++ {
		if !strings.Contains(ex, fmt.Sprintf("job class class-%03d:", i)) {
			t.Fatalf("--explain does not list class-%03d", i)
		}
	}
}

// TestShortWarnings: the first screen drops a warning's asides; --explain
// prints it whole.
func TestShortWarnings(t *testing.T) {
	w := "the embedded catalog current holds list prices of 2026-03, 278 days old (more than 90); price your own quote with --prices FILE (`memplan prices show current` is a starting point), or pass --max-price-age 0 to accept them"
	want := "the embedded catalog current holds list prices of 2026-03, 278 days old; price your own quote with --prices FILE, or pass --max-price-age 0 to accept them"
	if got := shortWarning(w); got != want {
		t.Errorf("shortWarning:\n got %q\nwant %q", got, want)
	}
	if got := shortWarning("a (nested (aside)) b"); got != "a b" {
		t.Errorf("nested asides: got %q", got)
	}
	tc := cases(t)[2] // nothing-meets: one warning
	tc.res.Warnings = []string{w}
	if out := flatText(render(t, "table", tc.res, tc.opts)); !strings.Contains(out, "Warning: "+want) {
		t.Errorf("the default table should carry the short warning:\n%s", out)
	}
	tc.opts.Explain = true
	if out := flatText(render(t, "table", tc.res, tc.opts)); !strings.Contains(out, "Warning: "+w) {
		t.Errorf("--explain should carry the whole warning:\n%s", out)
	}
}

// TestVerdictSaysWearAndRisk: when the recommended drives wear out and the
// recommendation is at risk and extrapolated, the verdict says so in
// words, and zswap over two drives is a setting over parts.
func TestVerdictSaysWearAndRisk(t *testing.T) {
	out := NewOutput(noMeetResult(), Options{})
	r := out.Configurations[1] // 512GiB + zswap + 2 x 1.92 TB TLC NVMe, wears out
	r.Recommended, r.MeetsDeadlines, r.AtRisk = true, true, true
	for i := range r.Jobs {
		r.Jobs[i].MeetsDeadline, r.Jobs[i].AtRisk = true, r.Jobs[i].Name == "synth"
	}
	out.Recommended, out.RecommendedID = &r, r.ID
	var text []string
	for _, l := range briefLines(out) {
		text = append(text, l.String())
	}
	got := strings.Join(text, "\n")
	for _, want := range []string{
		"Buy: 4 servers, each: Two-socket 1U server, 16 DIMM slots (2S-DDR5-16DIMM); 16 x 32 GB DDR5-5600 RDIMM (DDR5-5600-RDIMM-32G); 2 x 1.92 TB enterprise TLC NVMe (NVME-TLC-1T9) for swap.",
		"Configure: swap on the 2 x 1.92TB TLC NVMe striped as RAID 0 (3.49TiB) with zswap (lz4 compressor) in front of it;",
		"Wear: the 2 x 1.92TB TLC NVMe wear out under swap writes and each is replaced once over 5 years, 620 USD per server, included in the cost.",
		"Risk: its slowdown is extrapolated beyond the fit ratios the curves were measured at; no configuration meets every deadline with certainty; at the high end of the slowdown range a job would miss (synth: up to 14h24m of 10h).",
		"How sure: derived by the swap-path model from your measurements (host eval-01) of other devices, not measured on this one;",
		"To be surer: `memplan probe --swap-dir DIR` with DIR on the swap device: it measures the device itself.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, got)
		}
	}
}

// TestRiskTextSaysBeyondPublished: a recommendation at risk only because
// it moves more memory out of RAM than production deployments report says
// that, not that a job would miss at the top of its band.
func TestRiskTextSaysBeyondPublished(t *testing.T) {
	c := &Configuration{AtRisk: true, Jobs: []Job{{Name: "sim", FitRatio: 0.6, Slowdown: 1.02, AtRisk: true, BeyondPublished: true,
		RuntimeHours: 5.1, RuntimeHighHours: 6, DeadlineHours: 8}}}
	got := riskText(c)
	for _, want := range []string{"moves 40% of sim's memory out of RAM at a slowdown of 1.02", "Meta's TMO 20-32%", "at risk until the job is measured"} {
		if !strings.Contains(got, want) {
			t.Errorf("riskText = %q, want it to say %q", got, want)
		}
	}
	if strings.Contains(got, "would miss") {
		t.Errorf("riskText = %q says a job would miss, but its high end is within the deadline", got)
	}
}

// A job measured in one run whose figure at its fit rests on the sampler's
// prior says both in How sure.
func TestSureTextNamesTheSamplersFit(t *testing.T) {
	basis := model.Basis{Kind: model.BasisCurve, Provenance: factors.Measured, Host: "box", OneRun: true, Sampler: true}.String()
	c := &Configuration{Jobs: []Job{{Name: "sim", FitRatio: 0.5, Slowdown: 1.4, SlowdownLow: 1.2, SlowdownHigh: 2.1, Provenance: factors.Measured, Basis: basis}}}
	sure, _ := sureText(Output{}, c)
	for _, want := range []string{
		"measured on your hardware in one run under a stepped memory limit (memplan profile --one-run)",
		"; at its fit ratio, which the run did not reach, the figure is the one-pass sampler's (--prior): inferred, not measured; sim's slowdown 1.40",
	} {
		if !strings.Contains(sure, want) {
			t.Errorf("how sure: %q\nlacks %q", sure, want)
		}
	}
	c.Jobs[0].Basis = model.Basis{Kind: model.BasisCurve, Provenance: factors.Measured, Host: "box", OneRun: true}.String()
	if sure, _ := sureText(Output{}, c); strings.Contains(sure, "sampler") {
		t.Errorf("a measured fit's how sure names the sampler: %q", sure)
	}
}

// A search that skipped configurations says how many, that they rank
// after every row shown, and names a cheaper alternative by its rank
// only where that rank holds among all configurations (RanksExact).
func TestSkippedSearchNamesOnlyExactRanks(t *testing.T) {
	for _, exact := range []int{12, 50} {
		tc := edaCase(t)
		res := *tc.res
		res.Skipped, res.RanksExact = 12345, exact
		table := flatText(render(t, "table", &res, tc.opts))
		md := flatText(render(t, "markdown", &res, tc.opts))
		note := "Showing 10 of 108 configurations evaluated; 12,345 more rank after every one shown and were not evaluated (--top 0 evaluates them all)."
		for what, out := range map[string]string{"table": table, "markdown": md} {
			if !strings.Contains(out, note) {
				t.Errorf("ranks exact to %d: the %s lacks %q:\n%s", exact, what, note, out)
			}
		}
		// The alternative ranks 45th among those evaluated.
		want, not := "Maybe cheaper: 512GiB (16 x 32GiB)", "Maybe cheaper: #45,"
		if exact >= 45 {
			want, not = not, want
		}
		if !strings.Contains(table, want) || strings.Contains(table, not) {
			t.Errorf("ranks exact to %d: want %q, not %q, in:\n%s", exact, want, not, table)
		}
		js := render(t, "json", &res, tc.opts)
		for _, kv := range []string{`"configurations_skipped": 12345`, fmt.Sprintf(`"ranks_exact": %d`, exact)} {
			if !strings.Contains(js, kv) {
				t.Errorf("the JSON lacks %s", kv)
			}
		}
	}
}

// How sure decides by the job's basis facts, not its words: each fact
// gives its wording, a basis text that names --one-run (or any other
// fact) with the facts recorded as false gives none of them, and a file
// written before the facts were recorded (nil) is read from its text.
func TestSureTextDecidesByBasisFacts(t *testing.T) {
	job := func(prov string, f *BasisFacts, basis string) *Configuration {
		return &Configuration{Jobs: []Job{{Name: "sim", FitRatio: 0.5, Slowdown: 1.4, SlowdownLow: 1.2, SlowdownHigh: 2.1,
			Provenance: prov, Basis: basis, BasisFacts: f}}}
	}
	words := map[string]string{
		"from":    "derived by the swap-path model from your measurements",
		"onerun":  "in one run under a stepped memory limit",
		"sampler": "the figure is the one-pass sampler's",
		"carried": "carried to this one by the swap-path model",
	}
	allText := "measured on box " + model.OneRunBasis + "; " + model.SamplerBasis + "; carried to this device and load (measured)"
	for _, tc := range []struct {
		name  string
		prov  string
		facts *BasisFacts
		want  []string
	}{
		{"derived from measurements", model.Derived, &BasisFacts{FromMeasurements: true}, []string{"from"}},
		{"derived from publications", model.Derived, &BasisFacts{}, nil},
		{"one run", factors.Measured, &BasisFacts{OneRun: true}, []string{"onerun"}},
		{"one run with the sampler", factors.Measured, &BasisFacts{OneRun: true, Sampler: true}, []string{"onerun", "sampler"}},
		{"carried", factors.Measured, &BasisFacts{Carried: true}, []string{"carried"}},
		{"text names every fact, facts say none", factors.Measured, &BasisFacts{}, nil},
		{"old file: read from the text", factors.Measured, nil, []string{"onerun", "sampler", "carried"}},
		{"old derived file: read from the text", model.Derived, nil, []string{"from"}},
	} {
		sure, _ := sureText(Output{}, job(tc.prov, tc.facts, allText))
		for k, w := range words {
			if want := slices.Contains(tc.want, k); strings.Contains(sure, w) != want {
				t.Errorf("%s: %q says %q: %v, want %v", tc.name, sure, w, !want, want)
			}
		}
	}
}

// A break-even point that does not exist because the recommendation keeps
// winning is known by its method; a file written before that method was
// recorded is read from its note.
func TestKeepsWinningByMethod(t *testing.T) {
	for _, tc := range []struct {
		pt   BreakEvenPoint
		want bool
	}{
		{BreakEvenPoint{Method: model.BreakEvenNone}, true},
		{BreakEvenPoint{Method: "bisection", Note: "keeps winning however far this price falls"}, false},
		{BreakEvenPoint{Note: "keeps winning however far this price falls (checked to 1/1000 of today's)"}, true},
		{BreakEvenPoint{Note: "keeps winning across the searched range"}, false},
	} {
		if got := keepsWinning(tc.pt); got != tc.want {
			t.Errorf("%+v: keeps winning %v, want %v", tc.pt, got, tc.want)
		}
	}
}
