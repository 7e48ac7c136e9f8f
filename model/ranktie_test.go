package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
)

// tieCatalog is smallCatalog with a second drive, ZBIG: the same device
// as TINY but with an endurance that lasts any horizon, at a price set
// by the test. Its SKU sorts after TINY's, so that the ID, the ranking's
// last tie-break, would put TINY first.
func tieCatalog(zbigPrice string) string {
	return strings.Replace(smallCatalog, "platforms:", fmt.Sprintf(`  - {sku: ZBIG, model: Big TLC, class: nvme-ssd, nand: TLC, capacity: 512GB, price: %s,
     read_latency: 80us, write_latency: 20us, read_iops: 500000, write_iops: 100000, tbw: 100000TB}
platforms:`, zbigPrice), 1)
}

const wearWorkload = `
name: wear
horizon: 5y
demand: {servers: 1}
jobs:
  - {name: j, footprint: 240GiB, runtime: 20h, deadline: 24h, compressibility: 1}
options: {dram_only: false}
`

// TestRankTiePrefersDrivesThatLast: a drive that wears out and is
// bought again costs, replacements included, exactly what a drive that
// lasts the horizon costs: the one that needs no replacement ranks
// first, though the slowdowns are equal and the ID would put the other
// first.
func TestRankTiePrefersDrivesThatLast(t *testing.T) {
	res, err := model.Recommend(input(t, wearWorkload, tieCatalog("1000 USD")))
	if err != nil {
		t.Fatal(err)
	}
	tiny := configByID(t, res, "8xD16/1xTINY")
	if tiny.Wear == nil || tiny.Wear.Replacements < 1 {
		t.Fatalf("test premise: TINY wears out, wear %+v", tiny.Wear)
	}
	// ZBIG at TINY's price plus its replacements.
	price := tiny.Cost.Drives.Add(tiny.Cost.Replacements)
	res, err = model.Recommend(input(t, wearWorkload, tieCatalog(price.String()+" USD")))
	if err != nil {
		t.Fatal(err)
	}
	tiny, big := configByID(t, res, "8xD16/1xTINY"), configByID(t, res, "8xD16/1xZBIG")
	if big.Wear != nil && big.Wear.Replacements > 0 {
		t.Fatalf("test premise: ZBIG lasts the horizon, wear %+v", big.Wear)
	}
	if tiny.Cost.Fleet != big.Cost.Fleet || tiny.Cost.PerServer != big.Cost.PerServer {
		t.Fatalf("test premise: a tie on cost, got %v (TINY, %d replacements) and %v (ZBIG)", tiny.Cost.PerServer, tiny.Wear.Replacements, big.Cost.PerServer)
	}
	if tiny.Meets != big.Meets || tiny.AtRisk != big.AtRisk || model.ReportedRatio(tiny.MaxSlowdown) != model.ReportedRatio(big.MaxSlowdown) {
		t.Fatalf("test premise: the same device in the same tier, slowdowns %v and %v", tiny.MaxSlowdown, big.MaxSlowdown)
	}
	if big.Rank != tiny.Rank-1 {
		t.Errorf("at equal cost the drive that lasts should rank just before the one replaced: ZBIG #%d, TINY #%d", big.Rank, tiny.Rank)
	}
}

// TestTieLessPrefersNoReplacement: the tie order puts a key whose drives
// last first, before the slowdown and the ID are consulted.
func TestTieLessPrefersNoReplacement(t *testing.T) {
	worn := model.RankKey{Tier: model.TierMeets, Replaced: true, Slowdown: 1.01, ID: "a"}
	lasts := model.RankKey{Tier: model.TierMeets, Slowdown: 1.02, ID: "b"}
	if !lasts.TieLess(worn) || worn.TieLess(lasts) {
		t.Errorf("drives that last should break the tie before the slowdown")
	}
	if !model.RankLess(worn, lasts, 100, 100, 101, 101) {
		t.Errorf("a lower cost still ranks first, replacements and all")
	}
	if !model.RankLess(lasts, worn, 100, 100, 100, 100) {
		t.Errorf("at equal cost the drives that last rank first")
	}
}
