package model

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/memplan/memplan/factors"
)

var writeAgreements = flag.Bool("write-agreements", false, "rewrite agreetable_gen.go from the embedded factors (go generate)")

// defaultAgreementInputs are the searches recommend runs on the embedded
// factors: every shape at once ("") and each shape alone.
func defaultAgreementInputs(t *testing.T) (map[string]*Factors, map[string][]scenario) {
	fs, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	set := fs.derivedSet()
	sources := set.sources
	if len(sources) < 2 {
		t.Fatalf("the embedded factors have %d joint sources; the table is for a joint derivation", len(sources))
	}
	groups, grids := map[string]*Factors{}, map[string][]scenario{}
	all, _ := fs.shapesFor("")
	groups[""], grids[""] = fs.jointGrid(set, all)
	for _, sh := range all {
		groups[sh.Name], grids[sh.Name] = fs.jointGrid(set, []factors.Shape{sh})
	}
	return groups, grids
}

// tableCase is one agreement search or joint plan the table answers.
type tableCase struct {
	name string
	q    tableQuery
}

// defaultTableCases are the lookups the table is for: the searches
// recommend runs on the embedded factors (every shape at once and each
// shape alone) with the plans on them, for targets that seek and not;
// then every search and plan that crossval and --uncertainty's floor
// (derivedSigma) ask for, each factor set less one curve, as
// CrossValidate makes them.
func defaultTableCases(t *testing.T) []tableCase {
	groups, grids := defaultAgreementInputs(t)
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	sort.Strings(names)
	var cases []tableCase
	for _, name := range names {
		cases = append(cases, tableCase{fmt.Sprintf("shape %q", name), tableQuery{fs: groups[name], grid: grids[name]}})
	}
	for _, name := range names {
		g := groups[name]
		a := g.agreeKnown(grids[name])
		sources := g.jointSources()
		if len(sources) == 0 {
			// The group is the sources alone; jointSources needs the
			// transfer_from curve, which it keeps.
			t.Fatalf("shape %q: no joint sources in the group", name)
		}
		for _, seeks := range []bool{false, true} {
			cases = append(cases, tableCase{fmt.Sprintf("shape %q, seeks %v", name, seeks), tableQuery{fs: g, plan: true, a: a, sources: sources, seeks: seeks}})
		}
	}
	fs, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []tableQuery
	// No model test runs in parallel (t.Parallel), so nothing else
	// searches while the log is set.
	tableLog = func(q tableQuery) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, q)
	}
	func() {
		defer func() { tableLog = nil }()
		CrossValidate(fs)
	}()
	if len(asked) == 0 {
		t.Fatal("crossval on the embedded factors asked for no agreement: the table's second part would be empty")
	}
	for i, q := range asked {
		what := "agreement"
		if q.plan {
			what = fmt.Sprintf("plan (seeks %v)", q.seeks)
		}
		cases = append(cases, tableCase{fmt.Sprintf("crossval lookup %d, %s", i, what), q})
	}
	return cases
}

// TestKnownAgreementsAreCurrent recomputes the agreement searches and
// joint plans for the embedded factors (defaultTableCases) and holds
// knownAgreements and knownPlans to them, entry for entry: a change to the
// search, the grid, the plan or the embedded curves that the table does
// not follow fails here (run go generate ./model).
func TestKnownAgreementsAreCurrent(t *testing.T) {
	cases := defaultTableCases(t)
	want := map[string]agreementRecord{}
	for _, c := range cases {
		if c.q.plan {
			continue
		}
		g, grid := c.q.fs, c.q.grid
		key := g.agreementKey(grid)
		if key == "" {
			t.Fatalf("%s: the agreement's inputs cannot be hashed", c.name)
		}
		if _, done := want[key]; done {
			continue
		}
		a := g.agree(grid)
		want[key] = agreementRecord{Kept: a.kept, Consistent: a.consistent, Misfit: a.misfit, Curves: a.curves}
		if got, ok := knownAgreements[key]; !*writeAgreements && (!ok || !reflect.DeepEqual(got, want[key])) {
			t.Errorf("%s (%d combinations): knownAgreements has %+v (present: %v), the search gives kept %d, consistent %d, misfit %g: run go generate ./model",
				c.name, len(grid), got, ok, len(a.kept), a.consistent, a.misfit)
		}
		// What the lookup hands back is what the search gives.
		if b := g.agreeKnown(grid); !*writeAgreements && (!reflect.DeepEqual(b.kept, a.kept) || b.consistent != a.consistent || b.misfit != a.misfit || b.curves != a.curves || len(b.grid) != len(grid)) {
			t.Errorf("%s: agreeKnown differs from agree", c.name)
		}
	}
	plans := map[string][]planRun{}
	for _, c := range cases {
		if !c.q.plan {
			continue
		}
		g, a, sources, seeks := c.q.fs, c.q.a, c.q.sources, c.q.seeks
		if a.key == "" {
			// An agreement not searched (a job's own curves, which
			// agree by definition): planKeyOf cannot key its plan, and
			// plan computes it every time.
			continue
		}
		// The plan on the agreement the search gives now, not on what a
		// stale table answered.
		r, ok := want[a.key]
		if !ok {
			t.Fatalf("%s: the plan's agreement (key %q) is not among the searches", c.name, a.key)
		}
		a.kept, a.consistent, a.misfit, a.curves = r.Kept, r.Consistent, r.Misfit, r.Curves
		key := planKeyOf(a, sources, seeks)
		if key == "" {
			t.Fatalf("%s: the plan's inputs cannot be hashed", c.name)
		}
		if _, done := plans[key]; done {
			continue
		}
		runs := g.jointPlan(a, sources, seeks, seeks && !searchedLocality(a))
		var rec []planRun
		for _, r := range runs {
			rec = append(rec, planRun{Src: slices.Index(sources, r.src), Grid: r.grid, FitPos: r.s.fitPos, Band: r.s.band, Weight: r.weight, Loc: r.s.localityPos})
		}
		plans[key] = rec
		if *writeAgreements {
			continue
		}
		if _, ok := knownPlans[key]; !ok {
			t.Errorf("%s: no plan in knownPlans: run go generate ./model", c.name)
			continue
		}
		if got := g.plan(a, sources, seeks); !reflect.DeepEqual(got, runs) {
			t.Errorf("%s: the plan from knownPlans differs from jointPlan's (%d runs against %d): run go generate ./model", c.name, len(got), len(runs))
		}
	}
	if !*writeAgreements && len(knownPlans) != len(plans) {
		t.Errorf("knownPlans holds %d plans, the embedded factors need %d: run go generate ./model", len(knownPlans), len(plans))
	}
	if !*writeAgreements && len(knownAgreements) != len(want) {
		t.Errorf("knownAgreements holds %d entries, the embedded factors need %d: run go generate ./model", len(knownAgreements), len(want))
	}
	if !*writeAgreements {
		return
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go generate (TestKnownAgreementsAreCurrent -write-agreements); DO NOT EDIT.\n\npackage model\n\n")
	b.WriteString("// knownAgreements are agree's answers for the embedded factors, keyed\n// by agreementKey (agreetable.go).\nvar knownAgreements = map[string]agreementRecord{\n")
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := want[k]
		fmt.Fprintf(&b, "\t%q: {Kept: %#v, Consistent: %d, Misfit: %#v, Curves: %d},\n", k, r.Kept, r.Consistent, r.Misfit, r.Curves)
	}
	b.WriteString("}\n\n// knownPlans are jointPlan's runs on those agreements, keyed by\n// planKeyOf.\nvar knownPlans = map[string][]planRun{\n")
	keys = keys[:0]
	for k := range plans {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%q: {\n", k)
		for _, r := range plans[k] {
			fmt.Fprintf(&b, "\t\t{Src: %d, Grid: %d, FitPos: %d, Band: %d, Weight: %d, Loc: %#v},\n", r.Src, r.Grid, r.FitPos, r.Band, r.Weight, r.Loc)
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("agreetable_gen.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote agreetable_gen.go: %d agreements, %d plans", len(want), len(plans))
}

// TestAgreementKeyFollowsEveryInput changes each input the search reads
// and checks that the key changes with it, so a lookup can never answer
// for inputs the table was not computed from.
func TestAgreementKeyFollowsEveryInput(t *testing.T) {
	groups, grids := defaultAgreementInputs(t)
	g, grid := groups[""], grids[""]
	base := g.agreementKey(grid)
	if base != g.agreementKey(append([]scenario(nil), grid...)) {
		t.Fatal("the key of the same inputs differs")
	}
	var any *factors.Curve
	for _, k := range g.observedClasses() {
		any = g.Curves[k]
		break
	}
	changes := map[string]func() func(){
		"a point's slowdown": func() func() {
			old := any.Points[0].Slowdown
			any.Points[0].Slowdown += 1e-9
			return func() { any.Points[0].Slowdown = old }
		},
		"a reference's concurrency": func() func() {
			old := any.Reference.Concurrency
			any.Reference.Concurrency++
			return func() { any.Reference.Concurrency = old }
		},
		"the software overhead": func() func() {
			old := g.FaultOverhead
			g.FaultOverhead++
			return func() { g.FaultOverhead = old }
		},
		"the readahead": func() func() {
			old := g.Readahead
			g.Readahead.Pages += 0.5
			return func() { g.Readahead = old }
		},
		"a shape's exponent": func() func() {
			old := grid[0].shape.Exponent
			grid[0].shape.Exponent *= 1.01
			return func() { grid[0].shape.Exponent = old }
		},
		"a combination's write position": func() func() {
			old := grid[len(grid)-1].writePos
			grid[len(grid)-1].writePos += 0.125
			return func() { grid[len(grid)-1].writePos = old }
		},
	}
	for name, change := range changes {
		undo := change()
		if g.agreementKey(grid) == base {
			t.Errorf("changing %s leaves the key as it was", name)
		}
		undo()
		if g.agreementKey(grid) != base {
			t.Fatalf("undoing %s did not restore the key", name)
		}
	}
	if g.agreementKey(grid[1:]) == base {
		t.Error("a grid less one combination has the same key")
	}
}
