package whatif

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

const workload = `# a farm
name: farm
horizon: 3y   # three years
demand: {servers: 4}
jobs:
  - name: synth
    footprint: 22GiB
    concurrency: 4        # jobs at once
    deadline: "8h"
  - {name: sim, footprint: 10GiB, concurrency: 2, deadline: 'it''s 4h'}
`

func mustSets(t *testing.T, args ...string) []Set {
	t.Helper()
	var out []Set
	for _, a := range args {
		s, err := ParseSet(a)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestApplyReplacesWhereWritten(t *testing.T) {
	out, notes, lines, err := Apply("farm.yaml", []byte(workload), schema, mustSets(t,
		"jobs[0].concurrency=10", "jobs[synth].deadline=6h", "jobs[sim].concurrency=3", "jobs[1].deadline=5h30m", "horizon=5y", "demand.servers=8"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"concurrency: 4        #", "concurrency: 10        #",
		`deadline: "8h"`, "deadline: 6h",
		"concurrency: 2,", "concurrency: 3,",
		`deadline: 'it''s 4h'`, "deadline: 5h30m",
		"horizon: 3y   #", "horizon: 5y   #",
		"{servers: 4}", "{servers: 8}",
	).Replace(workload)
	if string(out) != want {
		t.Errorf("edited workload:\n%s\nwant:\n%s", out, want)
	}
	if len(lines.inserted) != 0 {
		t.Errorf("replacing values inserted lines %v", lines.inserted)
	}
	if notes[0] != "what-if: --set jobs[0].concurrency=10 (farm.yaml says 4)" || notes[1] != `what-if: --set jobs[synth].deadline=6h (farm.yaml says "8h")` {
		t.Errorf("notes %q", notes)
	}
}

func TestApplyAddsMissingField(t *testing.T) {
	out, notes, lines, err := Apply("farm.yaml", []byte(workload), schema, mustSets(t, "jobs[0].window=10h", "jobs[1].window=a b: c"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(workload, "  - name: synth\n", "  - window: 10h\n    name: synth\n", 1)
	want = strings.Replace(want, "{name: sim,", `{window: "a b: c", name: sim,`, 1)
	if string(out) != want {
		t.Errorf("edited workload:\n%s\nwant:\n%s", out, want)
	}
	if notes[0] != "what-if: --set jobs[0].window=10h (not in farm.yaml)" {
		t.Errorf("note %q", notes[0])
	}
	// Line 10 of the edited text is line 9 of the file; line 6 is the
	// added one, shown at the mapping it joined.
	for edited, orig := range map[int]int{10: 9, 6: 6, 7: 6, 5: 5} {
		err := lines.Fix(&yamlx.InputError{File: "farm.yaml", Line: edited, Msg: "x"})
		if got := err.(*yamlx.InputError).Line; got != orig {
			t.Errorf("edited line %d maps to %d, want %d", edited, got, orig)
		}
	}
	other := &yamlx.InputError{File: "other.yaml", Line: 10}
	if lines.Fix(other); other.Line != 10 {
		t.Errorf("an error about another file was moved to line %d", other.Line)
	}
}

func TestApplyErrorsNameFlagAndPath(t *testing.T) {
	for arg, want := range map[string]string{
		"jobs[2].concurrency=1":     "--set jobs[2].concurrency=1: jobs has 2 entries, jobs[0] to jobs[1]",
		"jobs[place].concurrency=1": `--set jobs[place].concurrency=1: jobs has no entry named "place"; the names are synth, sim`,
		"jobs.concurrency=1":        `--set jobs.concurrency=1: jobs is a list, so it has no field "concurrency" (pick an entry: jobs[0].concurrency)`,
		"electricity.price=0.2":     `--set electricity.price=0.2: electricity is a single value, so it has no field "price"`,
		"options.mirorr_swap=true":  `--set options.mirorr_swap=true: options has no field "mirorr_swap" (check the spelling; its fields are `,
		"jobs[0].concurency=3":      `--set jobs[0].concurency=3: jobs[0] has no field "concurency" (check the spelling; its fields are access, compressibility, concurrency, `,
		"colour=red":                `--set colour=red: the workload has no field "colour" (check the spelling; its fields are `,
		"demand[0].servers=1":       "--set demand[0].servers=1: demand is not a list, so [0] picks nothing",
		"jobs[0]=x":                 "--set jobs[0]=x: jobs[0] is a mapping in the file; --set replaces one value (set one of its fields: name, footprint, concurrency, deadline)",
		"jobs=x":                    "--set jobs=x: jobs is a list in the file; --set replaces one value (pick an entry, e.g. jobs[0].FIELD)",
		"name[0]=x":                 "--set name[0]=x: name is not a list, so [0] picks nothing",
	} {
		_, _, _, err := Apply("farm.yaml", []byte(workload), schema, mustSets(t, arg))
		if err == nil || !(err.Error() == want || strings.HasSuffix(want, " ") && strings.HasPrefix(err.Error(), want)) || !errors.Is(err, usage.ErrInput) {
			t.Errorf("%s: %v\nwant %s (bad input)", arg, err, want)
		}
	}
	for arg, want := range map[string]string{
		"jobs[0].concurrency": `--set "jobs[0].concurrency": expected PATH=VALUE`,
		"jobs[0].x=":          "--set jobs[0].x=: no value",
		"jobs[].x=1":          `--set jobs[].x=1: "jobs[]" is not a path step`,
	} {
		if _, err := ParseSet(arg); err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, usage.ErrInput) {
			t.Errorf("ParseSet(%q) = %v, want %q", arg, err, want)
		}
	}
	_, _, _, err := Apply("farm.yaml", []byte(workload), schema, mustSets(t, "horizon=1y", "horizon=2y"))
	if err == nil || !strings.Contains(err.Error(), "set twice") {
		t.Errorf("two sets of one path: %v", err)
	}
}

// schema is the type a workload decodes into.
var schema = reflect.TypeOf(model.Workload{})

// TestApplyCreatesMissingMappings: a field the schema knows is set even
// when the file leaves out the mapping it belongs in, and the mappings
// along the path are added with it, on one line.
func TestApplyCreatesMissingMappings(t *testing.T) {
	const bare = "name: farm\nhorizon: 3y\njobs:\n  - {name: synth, footprint: 22GiB, concurrency: 4, deadline: 8h, runtime: 4h, jobs_per_day: 10}\n"
	out, notes, lines, err := Apply("farm.yaml", []byte(bare), schema, mustSets(t, "options.mirror_swap=true", "demand.servers=3"))
	if err != nil {
		t.Fatal(err)
	}
	want := "demand: {servers: 3}\noptions: {mirror_swap: true}\nname: farm\nhorizon: 3y\njobs:\n" + strings.SplitN(bare, "jobs:\n", 2)[1]
	if string(out) != want {
		t.Errorf("edited workload:\n%s\nwant:\n%s", out, want)
	}
	if notes[0] != "what-if: --set options.mirror_swap=true (not in farm.yaml)" {
		t.Errorf("note %q", notes[0])
	}
	w, err := model.ParseWorkload("farm.yaml", out)
	if err != nil {
		t.Fatalf("edited workload does not load: %v", err)
	}
	if !w.Options.MirrorSwap || w.Demand.Servers != 3 {
		t.Errorf("loaded options %+v, demand %+v; want mirror_swap and 3 servers", w.Options, w.Demand)
	}
	// Both added lines point back at line 1, where they were added.
	for edited, orig := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2} {
		err := lines.Fix(&yamlx.InputError{File: "farm.yaml", Line: edited, Msg: "x"})
		if got := err.(*yamlx.InputError).Line; got != orig {
			t.Errorf("edited line %d maps to %d, want %d", edited, got, orig)
		}
	}
	// A mapping written empty, or in flow style, takes the field inside.
	for file, want := range map[string]string{
		"options: {}\n" + bare:                 "options: {mirror_swap: true}\n",
		"options: {zswap_pool: 20%}\n" + bare:  "options: {mirror_swap: true, zswap_pool: 20%}\n",
		"options:\n  zswap_pool: 20%\n" + bare: "options:\n  mirror_swap: true\n  zswap_pool: 20%\n",
	} {
		out, _, _, err := Apply("farm.yaml", []byte(file), schema, mustSets(t, "options.mirror_swap=true"))
		if err != nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("%q: got %q, %v; want it to start %q", file, out, err, want)
		}
	}
}

func TestExplainNamesTheFlags(t *testing.T) {
	err := Explain(&yamlx.InputError{File: "farm.yaml", Line: 8, Field: "jobs[0].concurrency", Msg: "got 0, expected 1 or more"}, mustSets(t, "jobs[0].concurrency=0"))
	want := "--set jobs[0].concurrency=0: the workload with this value does not load: jobs[0].concurrency: got 0, expected 1 or more"
	if err.Error() != want || !errors.Is(err, usage.ErrInput) {
		t.Errorf("%v\nwant %s", err, want)
	}
}

func TestScale(t *testing.T) {
	for arg, want := range map[string]float64{"dram=1.3": 1.3, "DIMMs=130%": 1.3, "drives=+30%": 1.3, "platforms=-20%": 0.8} {
		s, err := ParseScale(arg)
		if err != nil || s.Factor < want-1e-12 || s.Factor > want+1e-12 {
			t.Errorf("ParseScale(%q) = %+v, %v; want factor %g", arg, s, err, want)
		}
	}
	for arg, want := range map[string]string{
		"cpu=2":   `--scale cpu=2: unknown kind "cpu"; expected dram, drives, platforms`,
		"dram=0":  `--scale dram=0: "0" is not a factor`,
		"dram=x":  `--scale dram=x: "x" is not a factor`,
		"dram":    `--scale "dram": expected KIND=FACTOR`,
		"dram=-2": `--scale dram=-2: "-2" is not a factor`,
	} {
		if _, err := ParseScale(arg); err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, usage.ErrInput) {
			t.Errorf("ParseScale(%q) = %v, want %q", arg, err, want)
		}
	}
	rng := []units.Money{{Amount: 400, Currency: "USD"}, {Amount: 500, Currency: "USD"}}
	set := &prices.Set{
		DIMMs:  []prices.DIMM{{SKU: "D", Price: units.Money{Amount: 455, Currency: "USD"}, PriceRange: rng}},
		Drives: []prices.Drive{{SKU: "S", Price: units.Money{Amount: 310, Currency: "USD"}}},
	}
	dram, _ := ParseScale("dram=1.3")
	notes, err := ApplyScales(set, []Scale{dram})
	if err != nil {
		t.Fatal(err)
	}
	if d := set.DIMMs[0]; d.Price.Amount != 591.5 || d.PriceRange[0].Amount != 520 || d.PriceRange[1].Amount != 650 {
		t.Errorf("scaled DIMM %s, range %v; want 591.5, [520 650]", d.Price, d.PriceRange)
	}
	if rng[0].Amount != 400 || set.Drives[0].Price.Amount != 310 {
		t.Errorf("scaling DRAM changed the catalog's range (%v) or the drive (%s)", rng, set.Drives[0].Price)
	}
	if len(notes) != 1 || notes[0] != "what-if: --scale dram=1.3: 1 DIMM priced at 1.3 x the catalog price" {
		t.Errorf("notes %q", notes)
	}
	if _, err := ApplyScales(set, []Scale{dram, dram}); err == nil || !strings.Contains(err.Error(), "both scale dram") {
		t.Errorf("two scales of DRAM: %v", err)
	}
}
