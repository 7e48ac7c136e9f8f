package model_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/money"
)

// centsCatalog has prices with cents that float64 cannot hold: 0.1 and
// 0.2 are the classic pair (their float64 sum is 0.30000000000000004).
const centsCatalog = `
name: cents
currency: USD
date: 2026-01-01
source: test
dimms:
  - {sku: D16, model: 16G, generation: DDR5, type: RDIMM, capacity: 16GiB, speed: 4800, price: 99.10 USD}
platforms:
  - sku: P
    model: test box
    price: 1234.20 USD
    memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}
    drive_bays: 0
    os_reserve: 0GiB
`

// A fleet sized from the largest jobs_per_day memplan accepts costs
// exactly its servers times the per-server cost, to the cent, as math/big
// computes it from the written prices.
func TestFleetCostFromLargeVolumeIsExact(t *testing.T) {
	in := input(t, `
name: big
jobs:
  - {name: j, footprint: 100GiB, runtime: 7h, deadline: 8h, jobs_per_day: 1000000000}
`, centsCatalog)
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Recommended
	if c == nil {
		t.Fatal("nothing recommended")
	}
	// 24h / 7h = 3 waves a day: 3 jobs per server-day, 333,333,334 servers.
	if c.Servers != 333_333_334 {
		t.Fatalf("servers %d, want 333,333,334", c.Servers)
	}
	cents := func(s string) *big.Int {
		r, _ := new(big.Rat).SetString(s)
		r.Mul(r, big.NewRat(100, 1))
		if !r.IsInt() {
			t.Fatalf("%s is not whole cents", s)
		}
		return r.Num()
	}
	per := new(big.Int).Add(cents("1234.20"), new(big.Int).Mul(big.NewInt(8), cents("99.10")))
	fleet := new(big.Int).Mul(per, big.NewInt(int64(c.Servers)))
	if c.Cost.PerServer.Cents() != per.Int64() || c.Cost.Fleet.Cents() != fleet.Int64() {
		t.Errorf("per server %v, fleet %v; math/big says %s and %s cents", c.Cost.PerServer, c.Cost.Fleet, per, fleet)
	}
	// 2,027.00 x 333,333,334 = 675,666,668,018.00.
	if got := c.Cost.Fleet.String(); got != "675666668018.00" {
		t.Errorf("fleet %s, want 675666668018.00", got)
	}
}

// A price times a count beyond int64 cents is refused with the field to
// fix, not wrapped into a wrong (or negative) cost.
func TestOverflowBeyondInt64IsAnInputError(t *testing.T) {
	// 16 DIMMs of 64 GiB at just under MaxPrice each, for a million
	// servers: 1.6 x 10^19 cents, past int64 (9.2 x 10^18).
	r := strings.NewReplacer("price: 99.10 USD", "price: 9999999999.99 USD", "slots: 8, channels: 8", "slots: 16, channels: 8", "capacity: 16GiB", "capacity: 64GiB")
	cat := r.Replace(centsCatalog)
	in := input(t, `
name: dear
demand: {servers: 1000000}
jobs:
  - {name: j, footprint: 700GiB, runtime: 1h, deadline: 2h}
`, cat)
	_, err := model.Recommend(in)
	if err == nil {
		t.Fatal("a fleet beyond int64 cents was priced")
	}
	for _, want := range []string{"w.yaml:3:19: field demand.servers", "would cost more than 92,233,720,368,547,758 USD", "more than memplan counts to the cent"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// Ranking compares exact amounts: two costs a float64 would call equal
// (or order by drift) are ordered by their cents.
func TestRankLessComparesCents(t *testing.T) {
	k := model.RankKey{Tier: model.TierMeets, ID: "a"}
	l := model.RankKey{Tier: model.TierMeets, ID: "b"}
	// 0.1 + 0.2 against 0.3, in cents: equal, so the tie-break (ID) decides.
	a := money.Cents(10).Add(money.Cents(20))
	b := money.Cents(30)
	if !model.RankLess(k, l, a, a, b, b) || model.RankLess(l, k, b, b, a, a) {
		t.Error("equal cents should fall to the ID tie-break")
	}
	// One cent apart at 10^13: float64 holds it, and so must the ranking.
	big1, big2 := money.Units(money.MaxFleet).Sub(money.Cents(1)), money.Units(money.MaxFleet)
	if !model.RankLess(l, k, big1, big1, big2, big2) {
		t.Error("a cent cheaper at 10^13 must rank first")
	}
	if model.RankLess(k, l, money.Invalid, 0, big2, 0) {
		t.Error("an overflowed cost ranked as the cheapest")
	}
}
