package model_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// qaEdit replaces line n (1-based) of src, which must contain old, with
// repl (several lines if it holds newlines; none if empty).
type qaEdit struct {
	n         int
	old, repl string
}

func qaApply(t testing.TB, src string, edits ...qaEdit) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.n < 1 || e.n > len(lines) || !strings.Contains(lines[e.n-1], e.old) {
			t.Fatalf("line %d is %q, expected it to contain %q", e.n, lines[e.n-1], e.old)
		}
		if e.repl == "" {
			lines = append(lines[:e.n-1], lines[e.n:]...)
		} else {
			lines[e.n-1] = e.repl
		}
	}
	return strings.Join(lines, "\n")
}

// qaWant is what one bad input's error must say.
type qaWant struct {
	line  int    // exact line; 0 = the file as a whole
	field string // exact field path; "" = none
	has   []string
}

var qaGoInternals = regexp.MustCompile(`\b(model|prices|units|yamlx)\.[A-Z]\w*|\[\][a-z]|map\[|goroutine|panic:`)

// qaCheckErrPosition checks only that err is an input error for file at
// the wanted line and field, for rows whose message is wrong by a known bug.
func qaCheckErrPosition(t *testing.T, file string, err error, w qaWant) {
	t.Helper()
	var ie *yamlx.InputError
	if !errors.Is(err, yamlx.ErrInput) || !errors.As(err, &ie) {
		t.Fatalf("not an *yamlx.InputError: %v", err)
	}
	if ie.File != file || ie.Line != w.line || ie.Field != w.field {
		t.Errorf("got %s:%d field %q, want %s:%d field %q: %v", ie.File, ie.Line, ie.Field, file, w.line, w.field, err)
	}
}

func qaCheckErr(t *testing.T, file string, err error, w qaWant) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", file)
	}
	msg := err.Error()
	if !errors.Is(err, yamlx.ErrInput) {
		t.Errorf("errors.Is(err, yamlx.ErrInput) = false: %v", err)
	}
	var ie *yamlx.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an *yamlx.InputError: %v", err, err)
	}
	if ie.File != file {
		t.Errorf("file %q, want %q", ie.File, file)
	}
	prefix := file + ": "
	if w.line > 0 {
		prefix = fmt.Sprintf("%s:%d:", file, w.line)
	}
	if !strings.HasPrefix(msg, prefix) || ie.Line != w.line {
		t.Errorf("want the message to start with %q (line %d), got line %d: %q", prefix, w.line, ie.Line, msg)
	}
	if ie.Field != w.field {
		t.Errorf("field %q, want %q: %q", ie.Field, w.field, msg)
	}
	if w.field != "" && !strings.Contains(msg, "field "+w.field+":") {
		t.Errorf("message does not name field %s: %q", w.field, msg)
	}
	for _, h := range w.has {
		if !strings.Contains(msg, h) {
			t.Errorf("message lacks %q: %q", h, msg)
		}
	}
	if leak := qaGoInternals.FindString(msg); leak != "" {
		t.Errorf("message leaks Go internals (%q): %q", leak, msg)
	}
}

// qaWorkload is valid; the bad-input cases edit single lines of it, so the
// line numbers in the cases are the ones errors must report.
const qaWorkload = `name: nightly sims
horizon: 3y
jobs:
  - name: sim
    footprint: 48GiB
    runtime: 5h
    concurrency: 4
    deadline: 8h
    jobs_per_day: 64
    compressibility: 2.5
    dirty_share: 40%
  - name: timing
    footprint: 200GiB
    runtime: 9h
    deadline: 12h
    window: 12h
    jobs_per_day: 2
options:
  zram_sizes: [25%, 50%]
  zswap_pool: 20%
  max_swap_drives: 4
`

func TestParseWorkloadDefaults(t *testing.T) {
	w, err := model.ParseWorkload("w.yaml", []byte(qaWorkload))
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "nightly sims" || w.File != "w.yaml" || math.Abs(w.HorizonYears()-3) > 1e-9 {
		t.Errorf("name %q file %q horizon %g years", w.Name, w.File, w.HorizonYears())
	}
	sim, timing := w.Jobs[0], w.Jobs[1]
	if sim.Footprint != 48*units.GiB || sim.Runtime.D() != 5*time.Hour || sim.Concurrency != 4 || sim.Compressibility != 2.5 || sim.DirtyShare != 0.4 {
		t.Errorf("sim = %+v", sim)
	}
	// Left out: concurrency 1, daily window 24h, default compressibility
	// and dirty share.
	if timing.Concurrency != 1 || timing.Window.D() != 12*time.Hour || timing.Compressibility != model.DefaultCompressibility || timing.DirtyShare != model.DefaultDirtyShare {
		t.Errorf("timing = %+v", timing)
	}
	if sim.Window.D() != 24*time.Hour {
		t.Errorf("default window %v, want 24h", sim.Window)
	}
	if o := w.Options; len(o.ZramShares) != 2 || o.ZramShares[1] != 0.5 || o.ZswapPool != 0.2 || o.MaxDrives != 4 {
		t.Errorf("options = %+v", o)
	}

	minimal := "name: m\ndemand: {servers: 3}\njobs:\n  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h}\n"
	w, err = model.ParseWorkload("m.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w.HorizonYears()-3) > 1e-9 || w.Demand.Servers != 3 || w.Options.ZswapPool != model.DefaultZswapPool || len(w.Options.ZramShares) != 2 {
		t.Errorf("defaults: horizon %g, demand %+v, options %+v", w.HorizonYears(), w.Demand, w.Options)
	}
}

func TestExampleWorkloadsParse(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		w, err := model.LoadWorkload(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(w.Jobs) == 0 || w.File != f {
			t.Errorf("%s: %d jobs, file %q", f, len(w.Jobs), w.File)
		}
		for _, c := range w.Catalogs {
			if _, err := prices.Embedded(c); err != nil {
				t.Errorf("%s names catalog %q: %v", f, c, err)
			}
		}
	}
}

func TestLoadWorkloadResolvesProfile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "w.yaml")
	src := "name: p\ndemand: {servers: 1}\njobs:\n  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h, profile: prof/j.json}\n  - {name: k, footprint: 1GiB, runtime: 1h, deadline: 2h, profile: /abs/k.json}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := model.LoadWorkload(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Jobs[0].Profile; got != filepath.Join(dir, "prof", "j.json") {
		t.Errorf("relative profile resolved to %q", got)
	}
	if got := w.Jobs[1].Profile; got != "/abs/k.json" {
		t.Errorf("absolute profile changed to %q", got)
	}
	_, err = model.LoadWorkload(filepath.Join(dir, "missing.yaml"))
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	bad := qaApply(t, qaWorkload, qaEdit{5, "footprint", "    footprint: 48 gigs"})
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = model.LoadWorkload(p)
	qaCheckErr(t, p, err, qaWant{5, "jobs[0].footprint", []string{`got "48 gigs"`}})
}

func TestParseWorkloadBadInput(t *testing.T) {
	tests := []struct {
		name  string
		edits []qaEdit
		src   string
		want  qaWant
	}{
		{name: "unknown field", edits: []qaEdit{{7, "concurrency", "    concurency: 4"}},
			want: qaWant{7, "jobs[0].concurency", []string{"unknown field", "check the spelling"}}},
		{name: "unknown top-level field", edits: []qaEdit{{2, "horizon", "horizn: 3y"}},
			want: qaWant{2, "horizn", []string{"unknown field"}}},
		{name: "unknown option", edits: []qaEdit{{21, "max_swap_drives", "  max_drives: 4"}},
			want: qaWant{21, "options.max_drives", []string{"unknown field"}}},
		{name: "wrong unit for footprint", edits: []qaEdit{{5, "footprint", "    footprint: 48 gigs"}},
			want: qaWant{5, "jobs[0].footprint", []string{`got "48 gigs"`, `expected a size such as "48GiB"`}}},
		{name: "wrong unit for deadline", edits: []qaEdit{{8, "deadline", "    deadline: 8 hours"}},
			want: qaWant{8, "jobs[0].deadline", []string{`got "8 hours"`, `expected a duration such as "8h"`}}},
		{name: "negative runtime", edits: []qaEdit{{6, "runtime", "    runtime: -1h"}},
			want: qaWant{6, "jobs[0].runtime", []string{`got "-1h"`, "expected a duration"}}},
		{name: "bytes where a duration goes", edits: []qaEdit{{14, "runtime", "    runtime: 9GiB"}},
			want: qaWant{14, "jobs[1].runtime", []string{`got "9GiB"`, "expected a duration"}}},
		{name: "text where a number goes", edits: []qaEdit{{7, "concurrency", "    concurrency: four"}},
			want: qaWant{7, "jobs[0].concurrency", []string{`got text "four"`, "expected a whole number"}}},
		{name: "zero footprint", edits: []qaEdit{{5, "footprint", "    footprint: 0"}},
			want: qaWant{5, "jobs[0].footprint", []string{"missing or zero", "22GiB"}}},
		{name: "zero runtime", edits: []qaEdit{{6, "runtime", "    runtime: 0s"}},
			want: qaWant{6, "jobs[0].runtime", []string{"missing or zero"}}},
		{name: "missing deadline", edits: []qaEdit{{15, "deadline", ""}},
			want: qaWant{12, "jobs[1].deadline", []string{"missing or zero", "8h"}}},
		{name: "negative concurrency", edits: []qaEdit{{7, "concurrency", "    concurrency: -2"}},
			want: qaWant{7, "jobs[0].concurrency", []string{"got -2", "1 or more"}}},
		{name: "deadline beyond the window", edits: []qaEdit{{15, "deadline", "    deadline: 13h"}},
			want: qaWant{15, "jobs[1].deadline", []string{"deadline 13h is longer than the daily window 12h"}}},
		{name: "window beyond a day", edits: []qaEdit{{16, "window", "    window: 25h"}},
			want: qaWant{16, "jobs[1].window", []string{"got 25h", "at most 24h"}}},
		{name: "no demand", edits: []qaEdit{{17, "jobs_per_day", ""}},
			want: qaWant{12, "jobs[1].jobs_per_day", []string{"every job class needs jobs_per_day", "demand: {servers: N}"}}},
		{name: "negative jobs per day", edits: []qaEdit{{9, "jobs_per_day", "    jobs_per_day: -64"}},
			want: qaWant{9, "jobs[0].jobs_per_day", []string{"got -64", "expected a positive number"}}},
		{name: "compressibility below 1", edits: []qaEdit{{10, "compressibility", "    compressibility: 0.5"}},
			want: qaWant{10, "jobs[0].compressibility", []string{"got 0.5", "compression ratio of 1 or more"}}},
		{name: "dirty share above 1", edits: []qaEdit{{11, "dirty_share", "    dirty_share: 150%"}},
			want: qaWant{11, "jobs[0].dirty_share", []string{"got 1.5", "between 0 and 1"}}},
		{name: "duplicate job name", edits: []qaEdit{{12, "name: timing", "  - name: sim"}},
			want: qaWant{12, "jobs[1].name", []string{`duplicate job class name "sim"`}}},
		{name: "blank job name", edits: []qaEdit{{4, "name: sim", `  - name: " "`}},
			want: qaWant{4, "jobs[0].name", []string{"missing"}}},
		{name: "zram size above 200%", edits: []qaEdit{{19, "zram_sizes", "  zram_sizes: [25%, 300%]"}},
			want: qaWant{19, "options.zram_sizes[1]", []string{"got 3", "share of RAM"}}},
		{name: "zram mem_limit above RAM", edits: []qaEdit{{20, "zswap_pool", "  zram_mem_limit: 150%"}},
			want: qaWant{20, "options.zram_mem_limit", []string{"got 1.5", "share of RAM"}}},
		{name: "zram mem_limit zero", edits: []qaEdit{{20, "zswap_pool", "  zram_mem_limit: 0%"}},
			want: qaWant{20, "options.zram_mem_limit", []string{"got 0", "leave it out for no limit"}}},
		{name: "zswap pool above 90%", edits: []qaEdit{{20, "zswap_pool", "  zswap_pool: 95%"}},
			want: qaWant{20, "options.zswap_pool", []string{"got 0.95"}}},
		{name: "negative drive cap", edits: []qaEdit{{21, "max_swap_drives", "  max_swap_drives: -1"}},
			want: qaWant{21, "options.max_swap_drives", []string{"cannot be negative"}}},
		{name: "mirror_swap not a yes or no", edits: []qaEdit{{21, "max_swap_drives", "  mirror_swap: twice"}},
			want: qaWant{21, "options.mirror_swap", []string{`got text "twice"`}}},
		{name: "memory speed sensitivity above 1", edits: []qaEdit{{11, "dirty_share", "    dirty_share: 40%\n    memory_speed: {measured_at: 4800, sensitivity: 150%}"}},
			want: qaWant{12, "jobs[0].memory_speed.sensitivity", []string{"got 1.5", "between 0 and 1", "1/memory speed"}}},
		{name: "memory speed sensitivity missing", edits: []qaEdit{{11, "dirty_share", "    dirty_share: 40%\n    memory_speed:\n      measured_at: 4800"}},
			want: qaWant{13, "jobs[0].memory_speed.sensitivity", []string{"missing"}}},
		{name: "memory speed measured at zero", edits: []qaEdit{{11, "dirty_share", "    dirty_share: 40%\n    memory_speed:\n      measured_at: 0\n      sensitivity: 30%"}},
			want: qaWant{13, "jobs[0].memory_speed.measured_at", []string{"got 0", "MT/s"}}},
		{name: "memory speed as a size", edits: []qaEdit{{11, "dirty_share", "    dirty_share: 40%\n    memory_speed:\n      measured_at: 4800MHz\n      sensitivity: 30%"}},
			want: qaWant{13, "jobs[0].memory_speed.measured_at", []string{`got text "4800MHz"`}}},
		{name: "horizon under a day", edits: []qaEdit{{2, "horizon", "horizon: 12h"}},
			want: qaWant{2, "horizon", []string{"got 12h", "at least a day"}}},
		{name: "lower-case currency", edits: []qaEdit{{1, "name", "name: nightly sims\ncurrency: usd"}},
			want: qaWant{2, "currency", []string{`got "usd"`, "three-letter currency code"}}},
		{name: "negative fleet", edits: []qaEdit{{2, "horizon", "horizon: 3y\ndemand:\n  servers: -1"}},
			want: qaWant{4, "demand.servers", []string{"got -1", "positive number of servers"}}},
		{name: "no jobs", src: "name: nothing\njobs: []\n",
			want: qaWant{2, "jobs", []string{"missing", "at least one job class"}}},
		{name: "jobs left out", src: "name: nothing\nhorizon: 1y\n",
			want: qaWant{0, "jobs", []string{"missing"}}},
		{name: "empty file", src: "\n",
			want: qaWant{0, "", []string{"file is empty"}}},
		{name: "two documents", src: qaWorkload + "---\n" + qaWorkload,
			want: qaWant{22, "", []string{"more than one YAML document"}}},
		{name: "unclosed quote", edits: []qaEdit{{13, "footprint", `    footprint: "200GiB`}},
			want: qaWant{13, "", []string{"YAML syntax", "check indentation and quoting"}}},
		{name: "scalar where a list is expected", edits: []qaEdit{{20, "zswap_pool", "  zswap_pool: 20%\n  platforms: P1"}},
			want: qaWant{21, "options.platforms", []string{`got text "P1"`, "expected a list"}}},
		// Known bugs.
		{name: "type error in the first key of a mapping", edits: []qaEdit{{19, "zram_sizes", "  zram_sizes: 25%"}},
			want: qaWant{19, "options.zram_sizes", []string{`got text "25%"`, "expected a list"}}},
		{name: "type error in a flow-style job", src: "name: m\ndemand: {servers: 1}\njobs:\n  - {name: j, footprint: 1GiB, runtime: 1h, deadline: 2h, concurrency: many}\n",
			want: qaWant{4, "jobs[0].concurrency", []string{`got text "many"`, "expected a whole number"}}},
		{name: "a mapping where a list is expected", src: "name: m\njobs:\n  name: j\n  footprint: 1GiB\n",
			want: qaWant{3, "jobs", []string{"got a mapping", "expected a list"}}},
		{name: "a list where a mapping is expected", edits: []qaEdit{{19, "zram_sizes", "  - zram_sizes: [25%]"}, {20, "zswap_pool", ""}, {21, "max_swap_drives", ""}},
			want: qaWant{19, "options", []string{"got a list", "expected a mapping"}}},
		{name: "NaN jobs per day", edits: []qaEdit{{9, "jobs_per_day", "    jobs_per_day: .nan"}},
			want: qaWant{9, "jobs[0].jobs_per_day", []string{"expected a finite number"}}},
		{name: "infinite jobs per day", edits: []qaEdit{{9, "jobs_per_day", "    jobs_per_day: .inf"}},
			want: qaWant{9, "jobs[0].jobs_per_day", []string{"expected a finite number"}}},
		{name: "horizon overflowing int64", edits: []qaEdit{{2, "horizon", "horizon: 300y"}},
			want: qaWant{2, "horizon", []string{"300y"}}},
		{name: "deadline overflowing int64", edits: []qaEdit{{8, "deadline", "    deadline: 106752d"}},
			want: qaWant{8, "jobs[0].deadline", []string{"106752d"}}},
		{name: "footprint x concurrency overflowing int64", edits: []qaEdit{{5, "footprint", "    footprint: 4000PiB"}},
			want: qaWant{5, "jobs[0].footprint", []string{"4000"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" {
				src = qaApply(t, qaWorkload, tt.edits...)
			}
			w, err := model.ParseWorkload("workload.yaml", []byte(src))
			if err == nil {
				t.Fatalf("no error; parsed %+v", w.Jobs)
			}
			if w != nil {
				t.Error("partial workload returned along with the error")
			}
			qaCheckErr(t, "workload.yaml", err, tt.want)
		})
	}
}

// Recommend-level input errors: checks that need the catalogs and the
// workload together.

func qaFactors(t testing.TB) *model.Factors {
	t.Helper()
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// qaSet merges the embedded "current" catalog with inline ones, given as
// file name, YAML pairs.
func qaSet(t testing.TB, extra ...string) *prices.Set {
	t.Helper()
	cur, err := prices.Embedded("current")
	if err != nil {
		t.Fatal(err)
	}
	cats := []*prices.Catalog{cur}
	for i := 0; i+1 < len(extra); i += 2 {
		c, err := prices.Parse(extra[i], []byte(extra[i+1]))
		if err != nil {
			t.Fatal(err)
		}
		cats = append(cats, c)
	}
	set, err := prices.Merge(cats...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func qaParseWorkload(t testing.TB, file, src string) *model.Workload {
	t.Helper()
	w, err := model.ParseWorkload(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func qaEDA(t testing.TB) *model.Workload {
	t.Helper()
	w, err := model.LoadWorkload("../examples/eda.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestRecommendRejectsDIMMNoPlatformTakes(t *testing.T) {
	const head = "name: extra\ncurrency: USD\ndate: 2026-03-01\nsource: unit test\ndimms:\n" +
		"  - sku: DDR5-EXTRA-64G\n    model: 64 GB DDR5 RDIMM\n    generation: DDR5\n    type: RDIMM\n    capacity: 64GiB\n    speed: 5600\n    price: 650 USD\n"
	tests := []struct {
		name, dimm string
		has        []string
	}{
		{"wrong generation", "  - sku: DDR4-64G\n    model: 64 GB DDR4 RDIMM\n    generation: DDR4\n    type: RDIMM\n    capacity: 64GiB\n    speed: 3200\n    price: 300 USD\n",
			[]string{"DIMM DDR4-64G (DDR4 RDIMM 64GiB) is not allowed on any platform", "2S-DDR5-24DIMM takes DDR5, not DDR4", "2S-DDR5-32DIMM takes DDR5, not DDR4"}},
		{"wrong type", "  - sku: LR-64G\n    model: 64 GB DDR5 LRDIMM\n    generation: DDR5\n    type: LRDIMM\n    capacity: 64GiB\n    speed: 5600\n    price: 800 USD\n",
			[]string{"DIMM LR-64G", "takes RDIMM, not LRDIMM"}},
		{"too large", "  - sku: R-256G\n    model: 256 GB DDR5 RDIMM\n    generation: DDR5\n    type: RDIMM\n    capacity: 256GiB\n    speed: 5600\n    price: 4000 USD\n",
			[]string{"DIMM R-256G", "takes DIMMs up to 128GiB, not 256GiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := qaSet(t, "extra-dimms.yaml", head+tt.dimm)
			res, err := model.Recommend(model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t)})
			if res != nil {
				t.Error("a result came back along with the error")
			}
			// The bad DIMM is the second entry; its item starts on line 13.
			qaCheckErr(t, "extra-dimms.yaml", err, qaWant{13, "dimms[1]", append(tt.has, "fix the DIMM's generation/type/capacity")})
		})
	}
}

func TestRecommendFootprintExceedsEveryConfiguration(t *testing.T) {
	src := qaApply(t, qaWorkload, qaEdit{13, "footprint", "    footprint: 4PiB"})
	w := qaParseWorkload(t, "big.yaml", src)
	res, err := model.Recommend(model.Input{Workload: w, Prices: qaSet(t), Factors: qaFactors(t)})
	if res != nil {
		t.Error("a result came back along with the error")
	}
	qaCheckErr(t, "big.yaml", err, qaWant{13, "jobs[1].footprint", []string{
		"1 concurrent jobs x 4PiB = 4PiB exceeds every configuration",
		"at most 4088GiB usable RAM", // 32 x 128GiB - 8GiB reserve
		"lower the footprint or concurrency",
	}})
}

// Concurrency x footprint past int64 wraps around, and the wrapped
// (negative) figure "fits" in any server.
func TestRecommendFootprintOverflow(t *testing.T) {
	src := qaApply(t, qaWorkload, qaEdit{5, "footprint", "    footprint: 4000PiB"})
	w, err := model.ParseWorkload("ovf.yaml", []byte(src))
	if err != nil {
		// Rejecting it at parse time is a fine fix too.
		qaCheckErr(t, "ovf.yaml", err, qaWant{5, "jobs[0].footprint", nil})
		return
	}
	res, err := model.Recommend(model.Input{Workload: w, Prices: qaSet(t), Factors: qaFactors(t)})
	if err == nil {
		t.Fatalf("recommended %q for 4 x 4000PiB", res.Recommended.Label)
	}
	qaCheckErr(t, "ovf.yaml", err, qaWant{5, "jobs[0].footprint", nil})
}

const qaEURCatalog = `name: eu-drives
currency: EUR
date: 2026-03-01
source: EU distributor quote
drives:
  - sku: EU-TLC-3T8
    model: 3.84 TB TLC NVMe (EU)
    class: nvme-ssd
    nand: TLC
    capacity: 3.84TB
    price: 400
    read_latency: 85us
    write_latency: 20us
    read_iops: 1100000
    write_iops: 180000
    dwpd: 1
`

func TestRecommendCurrencyMixWithoutRate(t *testing.T) {
	set := qaSet(t, "eu.yaml", qaEURCatalog)
	res, err := model.Recommend(model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t), Flags: cliFlags})
	if err == nil || res != nil {
		t.Fatalf("USD and EUR without a rate: result %v, error %v", res != nil, err)
	}
	if !errors.Is(err, yamlx.ErrInput) {
		t.Errorf("not an input error: %v", err)
	}
	for _, want := range []string{"prices in EUR cannot be compared with prices in USD", "--rate EUR=<amount>USD", "rates: {EUR: <amount> USD}", "currency:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// A workload currency no catalog can reach is refused at the
	// workload's currency line, naming the catalog (and not suggesting to
	// set the currency it sets).
	w := qaEDA(t)
	w.Currency = "JPY"
	_, err = model.Recommend(model.Input{Workload: w, Prices: qaSet(t), Factors: qaFactors(t)})
	if err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "field currency: got JPY, but the prices of catalog current (embedded:current) are in USD and no exchange rate connects the two") {
		t.Errorf("workload currency without a rate: %v", err)
	}
}

// The currency-mix error names neither the catalog that brings the second
// currency nor a line in it: it should read like
// "eu.yaml:2: field currency: prices in EUR, but ... no rate to USD".
func TestRecommendCurrencyMixNamesTheFile(t *testing.T) {
	set := qaSet(t, "eu.yaml", qaEURCatalog)
	_, err := model.Recommend(model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t)})
	var ie *yamlx.InputError
	if !errors.As(err, &ie) || ie.File != "eu.yaml" || ie.Line == 0 {
		t.Errorf("error %q does not point into eu.yaml", err)
	}
}

func TestRecommendConvertsWithRates(t *testing.T) {
	withRate := qaEURCatalog + "rates:\n  EUR: 1.10 USD\n"
	set := qaSet(t, "eu.yaml", withRate)
	res, err := model.Recommend(model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Currency != "USD" {
		t.Errorf("report currency %s, want USD (the first platform's)", res.Currency)
	}
	var eu *model.Config
	for i := range res.Configs {
		if c := &res.Configs[i]; c.Swap.Drive != nil && c.Swap.Drive.SKU == "EU-TLC-3T8" && c.Swap.Drives == 1 && c.Swap.Kind == model.SwapDrive {
			eu = c
			break
		}
	}
	if eu == nil {
		t.Fatal("no configuration with one EU-TLC-3T8")
	}
	// 400 EUR at 1.10 USD per EUR.
	if d := eu.Swap.Drive; d.Price != money.Units(440) || d.Quoted != (units.Money{Amount: 400, Currency: "EUR"}) {
		t.Errorf("EU drive priced %v USD quoted %v, want 440 USD quoted 400.00 EUR", d.Price, d.Quoted)
	}
	if eu.Cost.Drives != money.Units(440) {
		t.Errorf("drive cost %v, want 440", eu.Cost.Drives)
	}
	want := money.Sum(eu.Cost.Platform, eu.DIMM.Price.Mul(int64(eu.DIMMCount)), money.Units(440), eu.Cost.Replacements)
	if eu.Cost.PerServer != want {
		t.Errorf("per-server cost %v, want %v", eu.Cost.PerServer, want)
	}

	// Reported in EUR, the USD parts convert the other way (to the cent).
	w := qaEDA(t)
	w.Currency = "EUR"
	res, err = model.Recommend(model.Input{Workload: w, Prices: set, Factors: qaFactors(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Currency != "EUR" {
		t.Fatalf("currency %s, want EUR", res.Currency)
	}
	for _, c := range res.Configs {
		// Exactly the quote divided by 1.10, half to even to the cent.
		if want := money.FromRat(new(big.Rat).Quo(c.DIMM.Quoted.Exact(), big.NewRat(110, 100))); c.DIMM.Quoted.Currency == "USD" && c.DIMM.Price != want {
			t.Fatalf("%s: DIMM %v priced %v EUR, want %v", c.ID, c.DIMM.Quoted, c.DIMM.Price, want)
		}
		if c.Platform.Quoted.Amount == 12500 && c.Platform.Price != money.Cents(1136364) {
			t.Fatalf("%s: platform priced %v EUR, want 11363.64", c.ID, c.Platform.Price)
		}
		if d := c.Swap.Drive; d != nil && d.Quoted.Currency == "EUR" && d.Price != money.FromFloat(d.Quoted.Amount) {
			t.Fatalf("%s: EUR drive re-priced to %v", c.ID, d.Price)
		}
	}
}

func TestRecommendUnknownPlatformOption(t *testing.T) {
	src := qaApply(t, qaWorkload, qaEdit{21, "max_swap_drives", "  max_swap_drives: 4\n  platforms: [2S-DDR5-24DIMM, 2S-DDR9]"})
	w := qaParseWorkload(t, "opt.yaml", src)
	res, err := model.Recommend(model.Input{Workload: w, Prices: qaSet(t), Factors: qaFactors(t)})
	if res != nil {
		t.Error("a result came back along with the error")
	}
	qaCheckErr(t, "opt.yaml", err, qaWant{22, "options.platforms[1]", []string{`no platform with sku "2S-DDR9"`, "2S-DDR5-24DIMM, 2S-DDR5-32DIMM"}})
}

func TestRecommendRequiresAllInputs(t *testing.T) {
	if _, err := model.Recommend(model.Input{}); err == nil {
		t.Error("Recommend with nothing succeeded")
	}
}
