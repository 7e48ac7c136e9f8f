package model_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
)

// leanBoth runs the lean search with its branch and bound and without.
func leanBoth(t *testing.T, in model.Input) (pruned, whole model.LeanResult) {
	t.Helper()
	var err error
	if pruned, err = model.LeanSearch(in); err != nil {
		t.Fatal(err)
	}
	restore := model.SetLeanPruning(false)
	defer restore()
	if whole, err = model.LeanSearch(in); err != nil {
		t.Fatal(err)
	}
	return pruned, whole
}

// sameWinner fails unless the pruned lean search found the configurations
// the whole one did, figure for figure, and Recommend's own ranking picks
// the same ones at the same costs.
func sameWinner(t *testing.T, name string, in model.Input, pruned, whole model.LeanResult) {
	t.Helper()
	for _, p := range []struct {
		what string
		a, b *model.Config
	}{{"recommendation", pruned.Recommended, whole.Recommended}, {"baseline", pruned.Baseline, whole.Baseline}} {
		if (p.a == nil) != (p.b == nil) {
			t.Errorf("%s: %s pruned %v, whole %v", name, p.what, p.a != nil, p.b != nil)
			continue
		}
		if p.a != nil && !reflect.DeepEqual(p.a, p.b) {
			t.Errorf("%s: %s pruned %s %+v, whole %s %+v", name, p.what, p.a.ID, p.a.Cost, p.b.ID, p.b.Cost)
		}
	}
	full, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		what string
		a, b *model.Config
	}{{"recommendation", pruned.Recommended, full.Recommended}, {"baseline", pruned.Baseline, full.Baseline}} {
		if (p.a == nil) != (p.b == nil) {
			t.Errorf("%s: %s lean %v, Recommend %v", name, p.what, p.a != nil, p.b != nil)
			continue
		}
		if p.a != nil && (p.a.ID != p.b.ID || p.a.Cost != p.b.Cost || p.a.Servers != p.b.Servers) {
			t.Errorf("%s: %s lean %s %+v x %d, Recommend %s %+v x %d", name, p.what, p.a.ID, p.a.Cost, p.a.Servers, p.b.ID, p.b.Cost, p.b.Servers)
		}
	}
	if pruned.Evaluated > whole.Evaluated {
		t.Errorf("%s: the pruned search evaluated %d configurations, the whole one %d", name, pruned.Evaluated, whole.Evaluated)
	}
}

func TestLeanSearchFindsTheWinnerOnEveryExample(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		for _, by := range []string{model.RankCapital, model.RankTCO} {
			in := loadRobust(t, f)
			in.RankBy = by
			if by == model.RankTCO && in.Workload.Electricity == nil && strings.Contains(f, "intel") {
				// Its catalog is in RUB, with no rate to the default's USD.
				ep, err := model.ParseEnergyPrice("5 RUB/kWh")
				if err != nil {
					t.Fatal(err)
				}
				in.Workload.Electricity = &ep
			}
			pruned, whole := leanBoth(t, in)
			sameWinner(t, filepath.Base(f)+" by "+by, in, pruned, whole)
			restore := model.SetLeanBatch(1)
			p1, err := model.LeanSearch(in)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			sameWinner(t, filepath.Base(f)+" by "+by+", batches of 1", in, p1, whole)
			t.Logf("%s by %s: %s, %d of %d configurations evaluated", filepath.Base(f), by, pruned.Recommended.ID, pruned.Evaluated, whole.Evaluated)
		}
	}
}

// On a large catalog most swap configurations cost more at no slowdown
// than the recommendation: the pruned search must skip them.
func TestLeanSearchSkipsWhatCannotWin(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole search of a 2,000-DIMM catalog takes seconds")
	}
	c, err := prices.Parse("bench-large.yaml", qaLargeCatalog(2000, 400))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	in := model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t)}
	pruned, whole := leanBoth(t, in)
	sameWinner(t, "2,000 DIMMs x 400 drives", in, pruned, whole)
	if pruned.Evaluated*4 > whole.Evaluated {
		t.Errorf("the pruned search evaluated %d of %d configurations; at least three in four cost more than the winner at no slowdown", pruned.Evaluated, whole.Evaluated)
	}
	t.Logf("%d of %d configurations evaluated", pruned.Evaluated, whole.Evaluated)
}

func TestLeanSearchFindsTheWinnerOnRandomCatalogs(t *testing.T) {
	n := 48
	if testing.Short() {
		n = 12
	}
	pruned := 0
	for seed := range uint64(n) {
		in := randomInput(t, seed)
		name := fmt.Sprintf("seed %d by %s", seed, in.RankBy)
		p, w := leanBoth(t, in)
		sameWinner(t, name, in, p, w)
		// Looking at the best after every configuration prunes the most,
		// and reaches ties a batch would evaluate anyway.
		restore := model.SetLeanBatch(1)
		p1, err := model.LeanSearch(in)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		sameWinner(t, name+", batches of 1", in, p1, w)
		if p1.Evaluated < w.Evaluated {
			pruned++
		}
	}
	// The draws must exercise the pruning, or the comparison says nothing.
	if pruned < n/4 {
		t.Errorf("the search pruned something in %d of %d random catalogs", pruned, n)
	}
}

// Uncertainty draws prices and slowdowns and runs the lean search: the
// pruning must not move any figure of its result.
func TestUncertaintyIsTheSameWithoutPruning(t *testing.T) {
	cases := []struct {
		name string
		in   model.Input
		opts model.UncertaintyOptions
	}{
		{"eda", loadRobust(t, "../examples/eda.yaml"), model.UncertaintyOptions{Runs: 40, Seed: 7, PriceSpread: 0.3}},
		{"eda fixed slowdowns", loadRobust(t, "../examples/eda.yaml"), model.UncertaintyOptions{Runs: 20, Seed: 8, FixedSlowdowns: true}},
		{"intel", loadIntel(t), model.UncertaintyOptions{Runs: 200, Seed: 9, PriceSpread: 0.3}},
	}
	tco := loadRobust(t, "../examples/eda.yaml")
	tco.RankBy = model.RankTCO
	cases = append(cases, struct {
		name string
		in   model.Input
		opts model.UncertaintyOptions
	}{"eda by tco", tco, model.UncertaintyOptions{Runs: 40, Seed: 10, PriceSpread: 0.3}})
	for seed := range uint64(6) {
		in := randomInput(t, 100+seed)
		cases = append(cases, struct {
			name string
			in   model.Input
			opts model.UncertaintyOptions
		}{fmt.Sprintf("random %d", 100+seed), in, model.UncertaintyOptions{Runs: 30, Seed: seed, PriceSpread: 0.4}})
	}
	for i, c := range cases {
		batch := 64
		if i%2 == 1 {
			batch = 1 // the best looked at after every configuration: pruning the most
		}
		restore := model.SetLeanBatch(batch)
		a, err := model.Uncertainty(c.in, c.opts)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		restore = model.SetLeanPruning(false)
		b, err := model.Uncertainty(c.in, c.opts)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: pruned %+v\nwhole %+v", c.name, a, b)
		}
	}
}

// Uncertainty finds today's recommendation by a lean search: it must be
// Recommend's.
func TestUncertaintyStartsFromRecommendsAnswer(t *testing.T) {
	ins := []model.Input{loadIntel(t), loadRobust(t, "../examples/eda.yaml"), edaSweep(t)}
	for seed := range uint64(12) {
		ins = append(ins, randomInput(t, 300+seed))
	}
	for i, in := range ins {
		res, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		u, err := model.Uncertainty(in, model.UncertaintyOptions{Runs: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if res.Recommended != nil {
			want = res.Recommended.ID
		}
		if u.Recommended != want {
			t.Errorf("input %d (%s): uncertainty starts from %q, Recommend recommends %q", i, res.Workload, u.Recommended, want)
		}
	}
}

// BreakEven re-runs the lean search at trial prices.
func TestBreakEvenIsTheSameWithoutPruning(t *testing.T) {
	for _, in := range []model.Input{loadIntel(t), edaSweep(t), randomInput(t, 200), randomInput(t, 201)} {
		res, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Recommended == nil {
			continue
		}
		a, err := model.BreakEven(in, res)
		if err != nil {
			t.Fatal(err)
		}
		restore := model.SetLeanPruning(false)
		b, err := model.BreakEven(in, res)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: pruned %+v\nwhole %+v", res.Workload, a, b)
		}
	}
}

// randomInput is a small random catalog and workload. Prices sit on a
// coarse grid and some drives are copies of the one before under another
// SKU, so that costs tie and the tie rules decide.
func randomInput(t testing.TB, seed uint64) model.Input {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x6c65616e))
	var b strings.Builder
	b.WriteString("name: random\ncurrency: USD\ndate: 2026-03-01\nsource: leansearch_test\ndimms:\n")
	caps := []int{16, 32, 64, 96, 128, 256}
	for i := range 3 + r.IntN(10) {
		c := caps[r.IntN(len(caps))]
		// Whole dollars per GiB: kits of the same size often cost the same.
		price := c * (8 + r.IntN(3))
		fmt.Fprintf(&b, "  - sku: D%02d-%dG\n    model: %d GB DDR5 RDIMM\n    generation: DDR5\n    type: RDIMM\n    capacity: %dGiB\n    speed: 5600\n    price: %d USD\n", i, c, c, c, price)
	}
	b.WriteString("drives:\n")
	type drive struct {
		class, nand     string
		gb, price       int
		readUS, writeUS int
		riops, wiops    int
		dwpd            float64
	}
	var last drive
	for i := range 2 + r.IntN(9) {
		d := last
		if i == 0 || r.IntN(4) != 0 {
			switch r.IntN(3) {
			case 0:
				d = drive{class: "nvme-ssd", nand: "TLC", readUS: 20 + r.IntN(100), writeUS: 10 + r.IntN(30), riops: 200000 + r.IntN(1000000), wiops: 30000 + r.IntN(300000), dwpd: []float64{0.3, 1, 3, 10}[r.IntN(4)]}
			case 1:
				d = drive{class: "sata-ssd", nand: "MLC", readUS: 60 + r.IntN(90), writeUS: 50 + r.IntN(80), riops: 30000 + r.IntN(60000), wiops: 3000 + r.IntN(30000), dwpd: []float64{0.3, 1, 3}[r.IntN(3)]}
			default:
				d = drive{class: "hdd", readUS: 5000 + r.IntN(5000), writeUS: 5000 + r.IntN(5000), riops: 80 + r.IntN(100), wiops: 80 + r.IntN(100)}
			}
			d.gb = []int{240, 480, 960, 1920, 3840}[r.IntN(5)]
			d.price = 25 * (2 + r.IntN(40))
		}
		last = d
		fmt.Fprintf(&b, "  - sku: S%02d\n    model: %d GB %s\n    class: %s\n    capacity: %dGB\n    price: %d USD\n    read_latency: %dus\n    write_latency: %dus\n    read_iops: %d\n    write_iops: %d\n",
			i, d.gb, d.class, d.class, d.gb, d.price, d.readUS, d.writeUS, d.riops, d.wiops)
		if d.nand != "" {
			fmt.Fprintf(&b, "    nand: %s\n", d.nand)
		}
		if d.dwpd > 0 {
			fmt.Fprintf(&b, "    dwpd: %g\n    warranty_years: 5\n", d.dwpd)
		}
	}
	b.WriteString("platforms:\n")
	for i := range 1 + r.IntN(3) {
		slots := []int{8, 12, 16, 24, 32}[r.IntN(5)]
		channels := slots
		if r.IntN(2) == 0 && slots%2 == 0 {
			channels = slots / 2
		}
		fmt.Fprintf(&b, "  - sku: P%d\n    model: platform %d\n    price: %d USD\n    sockets: %d\n    memory: {generation: DDR5, types: [RDIMM], slots: %d, channels: %d, max_dimm_capacity: 256GiB}\n    drive_bays: %d\n    os_reserve: 4GiB\n",
			i, i, 500*(8+r.IntN(20)), 1+r.IntN(2), slots, channels, 1+r.IntN(8))
		// zram costs nothing and so often wins; without it drives do,
		// and swap on a drive ties on cost with zswap on the same drive.
		switch r.IntN(3) {
		case 0:
			b.WriteString("    software_swap: [zram, zswap]\n")
		case 1:
			b.WriteString("    software_swap: [zswap]\n")
		}
	}
	cat, err := prices.Parse("random.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, b.String())
	}
	set, err := prices.Merge(cat)
	if err != nil {
		t.Fatal(err)
	}

	var wb strings.Builder
	wb.WriteString("name: random\nhorizon: 3y\n")
	fixed := r.IntN(5) == 0
	if fixed {
		fmt.Fprintf(&wb, "demand:\n  servers: %d\n", 1+r.IntN(20))
	}
	wb.WriteString("jobs:\n")
	for i := range 1 + r.IntN(3) {
		runtime := 60 + r.IntN(600) // minutes
		deadline := runtime + runtime*r.IntN(150)/100
		fmt.Fprintf(&wb, "  - name: job%d\n    footprint: %dGiB\n    runtime: %dm\n    concurrency: %d\n    deadline: %dm\n    compressibility: %.1f\n",
			i, 8+r.IntN(300), runtime, 1+r.IntN(12), deadline, 1.2+2*r.Float64())
		if !fixed || r.IntN(2) == 0 {
			fmt.Fprintf(&wb, "    jobs_per_day: %d\n", 1+r.IntN(800))
		}
		if window := deadline/60 + 1 + r.IntN(12); window < 24 && r.IntN(2) == 0 {
			fmt.Fprintf(&wb, "    window: %dh\n", window)
		}
	}
	w, err := model.ParseWorkload("random-workload.yaml", []byte(wb.String()))
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, wb.String())
	}
	rankBy := model.RankCapital
	if seed%2 == 1 {
		rankBy = model.RankTCO
	}
	return model.Input{Workload: w, Prices: set, Factors: qaFactors(t), RankBy: rankBy}
}

// The branch and bound rests on the floor: no configuration may cost less
// than its floor, nor meet the deadlines where the floor says none can.
func TestCostFloorIsBelowEveryCost(t *testing.T) {
	var ins []model.Input
	for _, f := range []string{"../examples/eda.yaml", "../examples/intel-eda-2009.yaml"} {
		ins = append(ins, loadRobust(t, f))
	}
	tco := loadRobust(t, "../examples/eda.yaml")
	tco.RankBy = model.RankTCO
	ins = append(ins, tco)
	for seed := range uint64(48) {
		ins = append(ins, randomInput(t, seed))
	}
	for i, in := range ins {
		bad, err := model.FloorViolations(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("input %d: %s", i, b)
		}
	}
}

// A search with Input.Top skips what cannot rank among the first Top or
// before the baseline, and what it keeps is what the full search ranks
// there: on a generated catalog of 1,500 DIMMs and 300 drives (ranked by
// purchase cost and by TCO), the first RanksExact configurations, the
// recommendation, the baseline, the savings, the verdict and the mirror
// offer are identical, every configuration of the full search that meets
// every deadline at no more than the baseline's cost is among those
// evaluated (as the reports' cheaper alternatives need), and the skipped
// and evaluated add up to what the full search enumerated.
func TestTopSearchKeepsTheFirstConfigurationsOfTheFullSearch(t *testing.T) {
	set := qaGeneratedSet(t, 1500, 300)
	for _, rankBy := range []string{model.RankCapital, model.RankTCO} {
		in := model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t), RankBy: rankBy}
		full, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, top := range []int{1, 10} {
			t.Run(fmt.Sprintf("%s/top%d", rankBy, top), func(t *testing.T) {
				in := in
				in.Top = top
				got, err := model.Recommend(in)
				if err != nil {
					t.Fatal(err)
				}
				if got.Skipped == 0 || got.Evaluated >= full.Evaluated {
					t.Fatalf("skipped %d, evaluated %d of the full search's %d: nothing was pruned", got.Skipped, got.Evaluated, full.Evaluated)
				}
				if got.RanksExact < top || got.RanksExact > len(got.Configs) {
					t.Fatalf("RanksExact %d, want at least %d and at most the %d configurations", got.RanksExact, top, len(got.Configs))
				}
				for i := range got.RanksExact {
					if !reflect.DeepEqual(got.Configs[i], full.Configs[i]) {
						t.Fatalf("rank %d: %s, the full search ranks %s there", i+1, got.Configs[i].ID, full.Configs[i].ID)
					}
				}
				for _, x := range []struct {
					what      string
					got, want any
				}{
					{"recommended", got.Recommended, full.Recommended}, {"baseline", got.Baseline, full.Baseline},
					{"savings", got.Savings, full.Savings}, {"verdict", got.Verdict, full.Verdict}, {"mirror", got.Mirror, full.Mirror},
				} {
					if !reflect.DeepEqual(x.got, x.want) {
						t.Errorf("%s: %+v, the full search's %+v", x.what, x.got, x.want)
					}
				}
				if got.Baseline == nil || got.Baseline.Rank > got.RanksExact {
					t.Errorf("the baseline's rank is not among the %d exact ones", got.RanksExact)
				}
				byID := map[string]model.Config{}
				for _, c := range got.Configs {
					byID[c.ID] = c
				}
				bound := full.Baseline.Cost.Fleet
				if rankBy == model.RankTCO {
					bound = full.Baseline.Cost.TCOFleet
				}
				for _, c := range full.Configs {
					cost := c.Cost.Fleet
					if rankBy == model.RankTCO {
						cost = c.Cost.TCOFleet
					}
					// At risk, it may have been proven out of tier 1
					// and skipped (TestLeanProbeSkipsOnlyWhatRanksAfterTier1).
					if !c.Meets || c.AtRisk || bound.Less(cost) {
						continue
					}
					k, ok := byID[c.ID]
					if !ok {
						t.Fatalf("%s (rank %d) meets every deadline with margin and costs no more than the baseline, but was skipped", c.ID, c.Rank)
					}
					k.Rank = c.Rank
					if !reflect.DeepEqual(k, c) {
						t.Fatalf("%s: evaluated differently from the full search", c.ID)
					}
				}
				rejected := func(r *model.Result) int {
					n := 0
					for _, v := range r.Rejected {
						n += v
					}
					return n
				}
				if a, b := got.Evaluated+rejected(got)+got.Skipped, full.Evaluated+rejected(full); a != b {
					t.Errorf("evaluated %d + rejected %d + skipped %d = %d, the full search's evaluated and rejected %d", got.Evaluated, rejected(got), got.Skipped, a, b)
				}
				t.Logf("top %d: evaluated %d of %d, skipped %d, ranks exact to %d", top, got.Evaluated, full.Evaluated, got.Skipped, got.RanksExact)
			})
		}
	}
}

// TestLeanProbeSkipsOnlyWhatRanksAfterTier1 runs the search for the first
// rows with the proofs out of tier 1 (provenNotTier1) and without: the
// proofs must skip configurations, every one of them out of tier 1 in the
// full search, and change nothing the report shows from the first rows
// (their figures, the baseline and its rank, the savings, the verdict and
// its note on an unknown access pattern, which can name an at-risk
// configuration), nor the refusals counted and noted.
func TestLeanProbeSkipsOnlyWhatRanksAfterTier1(t *testing.T) {
	set := qaGeneratedSet(t, 1500, 300)
	for _, rankBy := range []string{model.RankCapital, model.RankTCO} {
		in := model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t), RankBy: rankBy}
		full, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		tierOf := map[string]int{}
		for _, c := range full.Configs {
			tierOf[c.ID] = model.RankTier(c.Meets, c.AtRisk)
		}
		in.Top = 10
		probed, err := model.Recommend(in)
		if err != nil {
			t.Fatal(err)
		}
		restore := model.SetLeanProbing(false)
		plain, err := model.Recommend(in)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		kept := map[string]bool{}
		for _, c := range probed.Configs {
			kept[c.ID] = true
		}
		proven := 0
		for _, c := range plain.Configs {
			if kept[c.ID] {
				continue
			}
			proven++
			if tierOf[c.ID] == model.TierMeets {
				t.Fatalf("%s: %s meets every deadline with margin in the full search, but the probe skipped it", rankBy, c.ID)
			}
		}
		if proven == 0 || probed.Skipped <= plain.Skipped {
			t.Fatalf("%s: the probe skipped %d of the %d configurations the search without it evaluates (skipped %d against %d)", rankBy, proven, len(plain.Configs), probed.Skipped, plain.Skipped)
		}
		if probed.RanksExact != plain.RanksExact {
			t.Errorf("%s: ranks exact to %d with the probe, %d without", rankBy, probed.RanksExact, plain.RanksExact)
		}
		for i := range probed.RanksExact {
			if !reflect.DeepEqual(probed.Configs[i], plain.Configs[i]) {
				t.Fatalf("%s: rank %d is %s with the probe, %s without", rankBy, i+1, probed.Configs[i].ID, plain.Configs[i].ID)
			}
		}
		for _, x := range []struct {
			what      string
			got, want any
		}{
			{"recommended", probed.Recommended, plain.Recommended}, {"baseline", probed.Baseline, plain.Baseline},
			{"savings", probed.Savings, plain.Savings}, {"verdict", probed.Verdict, plain.Verdict},
		} {
			if !reflect.DeepEqual(x.got, x.want) {
				t.Errorf("%s: %s %+v with the probe, %+v without", rankBy, x.what, x.got, x.want)
			}
		}
		all := func(r *model.Result) int {
			n := r.Evaluated + r.Skipped
			for _, v := range r.Rejected {
				n += v
			}
			return n
		}
		if a, b := all(probed), all(plain); a != b {
			t.Errorf("%s: evaluated, rejected and skipped %d with the probe, %d without", rankBy, a, b)
		}
		// A configuration job refuses is evaluated, never proven: the
		// reasons and their notes are the search's without the probe.
		if !reflect.DeepEqual(probed.Rejected, plain.Rejected) || !reflect.DeepEqual(probed.RejectedNotes, plain.RejectedNotes) {
			t.Errorf("%s: refused %v, noted %v with the probe; %v, %v without", rankBy, probed.Rejected, probed.RejectedNotes, plain.Rejected, plain.RejectedNotes)
		}
		t.Logf("%s: the probe skipped %d of the %d configurations evaluated without it", rankBy, proven, len(plain.Configs))
	}
}

// TestZswapFloorOnBothKindsOfPair checks the lean search's zswap floors
// (model.CheckZswapFloors) on the medium catalog, whose SATA and HDD
// drives have curves of their own: a pair there is derived jointly on
// the pool's side only, and the pool's runs lead.
func TestZswapFloorOnBothKindsOfPair(t *testing.T) {
	set := qaGeneratedSet(t, 300, 60)
	n, err := model.CheckZswapFloors(model.Input{Workload: qaEDA(t), Prices: set, Factors: qaFactors(t)}, 40)
	if err != nil {
		t.Fatal(err)
	}
	if n["joint"] < 10 || n["pool leads"] < 10 {
		t.Fatalf("checked %v figures, want at least 10 of each kind of pair", n)
	}
	t.Logf("checked %v figures", n)
}

// qaGeneratedSet is qaLargeCatalog's catalog of the given size, parsed
// and merged.
func qaGeneratedSet(t *testing.T, dimms, drives int) *prices.Set {
	t.Helper()
	c, err := prices.Parse("bench-medium.yaml", qaLargeCatalog(dimms, drives))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	return set
}
