package xlsx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/reports"
)

// synthOutput makes a result with n configurations over 8 platforms, 40
// DIMMs and 60 drives in the three tiers, shaped like the model's: ranked
// by tier, then fleet cost (misses by slowdown).
func synthOutput(n int) reports.Output { return synthOutputScaled(n, 1) }

// synthOutputScaled multiplies every price by scale.
func synthOutputScaled(n int, scale float64) reports.Output {
	rng := rand.New(rand.NewPCG(1, 2))
	part := func(kind string, i int, price float64, gib float64) reports.Part {
		p := money.FromFloat(price * scale)
		return reports.Part{SKU: fmt.Sprintf("%s-%03d", kind, i), Model: fmt.Sprintf("%s model %d", kind, i), Catalog: "synthetic",
			UnitPrice: p, QuotedPrice: p, QuotedCurrency: "USD", CapacityBytes: int64(gib * (1 << 30)), CapacityGiB: gib}
	}
	var platforms, dimms, drives []reports.Part
	for i := range 8 {
		platforms = append(platforms, part("PLAT", i, float64(9000+500*i), 0))
	}
	for i := range 40 {
		dimms = append(dimms, part("DIMM", i, float64(200+37*i), float64(int(16)<<(i%4))))
	}
	for i := range 60 {
		drives = append(drives, part("NVME", i, float64(150+23*i), float64(960*(1+i%4))/1.073741824))
	}
	classes := []string{"nvme-ssd-tlc", "nvme-ssd-slc", "nvme-ssd-qlc", "sata-ssd-mlc"}
	cs := make([]reports.Configuration, n)
	for i := range cs {
		pl, dm := platforms[i%len(platforms)], dimms[rng.IntN(len(dimms))]
		count, servers := 8*(1+rng.IntN(4)), 10+rng.IntN(40)
		twin := i%7 == 6 // the same parts as the one before: a tie on cost
		if twin {
			pl, dm, count, servers = cs[i-1].Platform, cs[i-1].DIMM, cs[i-1].DIMMCount, cs[i-1].Servers
		}
		c := reports.Configuration{
			Platform: pl, DIMM: dm, DIMMCount: count,
			InstalledRAMGiB: float64(count) * dm.CapacityGiB, CriticalJob: "sim", DeadlineHours: 8, Servers: servers,
			Jobs: []reports.Job{}, Notes: []string{},
		}
		c.UsableRAMGiB = c.InstalledRAMGiB - 8
		c.Swap.Kind = "none"
		c.Slowdown, c.MaxSlowdown, c.FitRatio, c.Provenance = 1, 1, 1, "in RAM"
		c.AllDRAM = true
		if i%5 != 0 {
			d, n := drives[rng.IntN(len(drives))], 1+rng.IntN(4)
			repl := rng.IntN(2) * n
			if twin && cs[i-1].Swap.Drive != nil {
				d, n, repl = *cs[i-1].Swap.Drive, cs[i-1].Swap.Drives, cs[i-1].Wear.ReplacementsPerServer
			}
			c.AllDRAM = false
			c.Swap = reports.Swap{Kind: "drive", DeviceClass: classes[i%len(classes)], Drive: &d, Drives: n}
			c.FitRatio = 0.4 + 0.5*rng.Float64()
			c.Slowdown = 1 + 2*(1-c.FitRatio)*rng.Float64()
			c.MaxSlowdown, c.Provenance = c.Slowdown, "published"
			c.Wear = &reports.Wear{ReplacementsPerServer: repl}
		}
		c.SlowdownLow, c.SlowdownHigh = 1+(c.Slowdown-1)*0.8, 1+(c.Slowdown-1)*1.2
		c.RuntimeHours = 6 * c.Slowdown
		c.RuntimeHighHours = 6 * c.SlowdownHigh
		c.MeetsDeadlines = c.RuntimeHours <= c.DeadlineHours
		c.AtRisk = c.MeetsDeadlines && c.RuntimeHighHours > c.DeadlineHours
		c.Jobs = append(c.Jobs, reports.Job{Name: "sim", FitRatio: c.FitRatio, Slowdown: c.Slowdown, SlowdownLow: c.SlowdownLow,
			SlowdownHigh: c.SlowdownHigh, Provenance: c.Provenance, Basis: "synthetic", RuntimeHours: c.RuntimeHours, DeadlineHours: 8, MeetsDeadline: c.MeetsDeadlines})
		c.PlatformCost, c.DIMMsCost = pl.UnitPrice, dm.UnitPrice.Mul(int64(count))
		if d := c.Swap.Drive; d != nil {
			c.DrivesCost = d.UnitPrice.Mul(int64(c.Swap.Drives))
			c.ReplacementsCost = d.UnitPrice.Mul(int64(c.Wear.ReplacementsPerServer))
		}
		c.CostPerServer = money.Sum(c.PlatformCost, c.DIMMsCost, c.DrivesCost, c.ReplacementsCost)
		c.FleetCost = c.CostPerServer.Mul(int64(c.Servers))
		c.ID = fmt.Sprintf("%s/%dx%s/%d", pl.SKU, count, dm.SKU, i)
		c.Label = fmt.Sprintf("configuration %d", i)
		cs[i] = c
	}
	// The model's order (model.rank).
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if ta, tb := tier(a), tier(b); ta != tb {
			return ta < tb
		}
		if a.MeetsDeadlines && a.FleetCost.Float() != b.FleetCost.Float() {
			return a.FleetCost.Float() < b.FleetCost.Float()
		}
		if !a.MeetsDeadlines && a.MaxSlowdown != b.MaxSlowdown {
			return a.MaxSlowdown < b.MaxSlowdown
		}
		if a.CostPerServer.Float() != b.CostPerServer.Float() {
			return a.CostPerServer.Float() < b.CostPerServer.Float()
		}
		if a.MaxSlowdown != b.MaxSlowdown {
			return a.MaxSlowdown < b.MaxSlowdown
		}
		return a.ID < b.ID
	})
	out := reports.Output{
		SchemaVersion: reports.SchemaVersion, MemplanVersion: "bench", Workload: "synthetic", WorkloadFile: "synthetic.yaml",
		Currency: "USD", HorizonYears: 3, Verdict: "synthetic", Advice: []string{}, Warnings: []string{},
		ConfigurationsTotal: n, Rejected: []reports.Rejection{}, Catalogs: []reports.Catalog{}, Factors: []reports.FactorFile{},
	}
	for i := range cs {
		cs[i].Rank = i + 1
	}
	if tier(cs[0]) < 3 {
		cs[0].Recommended = true
		out.RecommendedID = cs[0].ID
		out.Recommended = &cs[0]
		for i := range cs {
			if cs[i].AllDRAM && tier(cs[i]) < 3 {
				cs[i].Baseline = true
				out.BaselineID, out.Baseline = cs[i].ID, &cs[i]
				break
			}
		}
	}
	out.Configurations = cs
	return out
}

// BenchmarkWrite10k writes the workbook for 10,000 configurations, the
// size of a broad catalog search.
func BenchmarkWrite10k(b *testing.B) {
	out := synthOutput(10000)
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := Write(filepath.Join(dir, fmt.Sprintf("plan-%d.xlsx", i)), out, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSyntheticWorkbook checks that a larger result, with ties on cost
// and many misses, builds and that its formulas reproduce its costs and
// the model's ranking, ties included; also with costs so large that the
// ranking cannot fold cost per server into one tie key.
func TestSyntheticWorkbook(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scale  float64
		folded bool
	}{{"dollars", 1, true}, {"huge prices", 1e6, false}} {
		t.Run(tc.name, func(t *testing.T) {
			out := synthOutputScaled(250, tc.scale)
			if out.Recommended == nil || out.Baseline == nil {
				t.Fatal("test premise: the synthetic result has a recommendation and a baseline")
			}
			fleets, meet := map[float64]bool{}, 0
			for _, c := range out.Configurations {
				if c.MeetsDeadlines {
					fleets[c.FleetCost.Float()] = true
					meet++
				}
			}
			if len(fleets) == meet {
				t.Fatal("test premise: some configurations that meet the deadlines cost the same")
			}
			if _, k := order(append([]reports.Configuration{}, out.Configurations...)); (k.tieScale > 0) != tc.folded {
				t.Fatalf("test premise: tie key folded = %v", k.tieScale > 0)
			}
			f, _ := writeAndOpen(t, out)
			rows := configRows(t, f)
			for _, c := range out.Configurations {
				r := rows[c.ID]
				if got := calcNum(t, f, sheetConfigs, cell(cFleet, r)); math.Abs(got-c.FleetCost.Float()) > 1e-6*c.FleetCost.Float() {
					t.Errorf("%s: fleet %v, want %v", c.ID, got, c.FleetCost.Float())
				}
				if got := calcNum(t, f, sheetConfigs, cell(cRank, r)); int(got) != c.Rank {
					t.Errorf("%s: rank %v, want %d", c.ID, got, c.Rank)
				}
			}
			if got := calc(t, f, sheetSummary, cell(colRec, sID)); got != out.RecommendedID {
				t.Errorf("recommended %s, want %s", got, out.RecommendedID)
			}
			if got := calc(t, f, sheetSummary, cell(colBase, sID)); got != out.BaselineID {
				t.Errorf("baseline %s, want %s", got, out.BaselineID)
			}
		})
	}
}
