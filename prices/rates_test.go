package prices_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"EUR=1.08 USD": 1.08, "EUR=1.08USD": 1.08, " RUB = 0.011 USD ": 0.011} {
		cur, m, err := prices.ParseRate(in)
		if err != nil || m.Amount != want || m.Currency != "USD" || (cur != "EUR" && cur != "RUB") {
			t.Errorf("ParseRate(%q) = %s %v %v", in, cur, m, err)
		}
	}
	for _, in := range []string{"EUR", "EUR=1.08", "EUR=0 USD", "EUR=-1 USD", "EUR=1 EUR", "eur=1 USD", "EUR=abc USD"} {
		if _, _, err := prices.ParseRate(in); err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "--rate") {
			t.Errorf("ParseRate(%q): err %v, want an input error naming --rate", in, err)
		}
	}
}

func TestRatesFileConverts(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rates.yaml")
	if err := os.WriteFile(p, []byte("date: 2026-03-01\nsource: test\nrates:\n  EUR: 1.10 USD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := prices.LoadRates(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := prices.Parse("eu.yaml", []byte(`name: eu
currency: EUR
date: 2026-01-01
source: test
dimms:
  - {sku: E64, model: e, generation: DDR5, type: RDIMM, capacity: 64GiB, price: 400 EUR}
platforms:
  - {sku: P, model: p, price: 1000 EUR, memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}, drive_bays: 0, os_reserve: 1GiB}
`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Convert(c.DIMMs[0].Price, "USD"); err == nil {
		t.Fatal("converted without a rate")
	}
	for cur, m := range r.Rates {
		set.AddRate(cur, m, "test")
	}
	got, err := set.Convert(c.DIMMs[0].Price, "USD")
	if err != nil || got != money.Units(440) {
		t.Errorf("400 EUR -> %v USD (%v), want 440", got, err)
	}
	// A bad rates file names the line and field.
	if err := os.WriteFile(p, []byte("date: 2026-03-01\nsource: test\nrates:\n  EUR: 1.10 EUR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prices.LoadRates(p); err == nil || !strings.Contains(err.Error(), "rates.yaml:4:") || !strings.Contains(err.Error(), "rates.EUR") {
		t.Errorf("bad rates file: %v", err)
	}
}

// Conversions use the rate as written and its exact inverse, and round
// the product once, half to even to the cent.
func TestConvertIsExact(t *testing.T) {
	c, err := prices.Parse("q.yaml", []byte(`name: q
currency: EUR
date: 2026-03-01
source: test
rates: {EUR: 1.1 USD, USD: 90 RUB}
dimms:
  - {sku: A, model: a, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 4800, price: 700.15}
  - {sku: B, model: b, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 4800, price: 0.1}
  - {sku: C, model: c, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 4800, price: 0.2}
platforms:
  - {sku: P, model: p, price: 1000, memory: {generation: DDR5, types: [RDIMM], slots: 16, channels: 8}, drive_bays: 0, os_reserve: 8GiB}
`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(c)
	if err != nil {
		t.Fatal(err)
	}
	conv := func(i int, to string) money.Amount {
		v, err := set.Convert(c.DIMMs[i].Price, to)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// 700.15 x 1.1 = 770.165 exactly: half to even, 770.16.
	if got := conv(0, "USD"); got != money.Cents(77016) {
		t.Errorf("700.15 EUR = %v USD, want 770.16", got)
	}
	// 0.1 + 0.2 is 0.3, in EUR and converted (0.11 + 0.22 = 0.33 USD).
	if got := conv(1, "EUR").Add(conv(2, "EUR")); got != money.Cents(30) {
		t.Errorf("0.1 + 0.2 EUR = %v", got)
	}
	if got := conv(1, "USD").Add(conv(2, "USD")); got != money.Cents(33) {
		t.Errorf("0.1 + 0.2 EUR in USD = %v", got)
	}
	// Through USD: 700.15 x 1.1 x 90 = 69314.85 RUB exactly.
	if got := conv(0, "RUB"); got != money.Cents(6931485) {
		t.Errorf("700.15 EUR = %v RUB, want 69314.85", got)
	}
	// The inverse is exact: 770.16 USD back to EUR is 700.1454.. -> 700.15.
	back, err := set.Convert(units.Money{Amount: 770.16, Currency: "USD"}, "EUR")
	if err != nil || back != money.Cents(70015) {
		t.Errorf("770.16 USD = %v EUR (%v), want 700.15", back, err)
	}
}

// The same-currency fast path of Convert gives what the exact path gives.
func TestConvertSameCurrencyIsExact(t *testing.T) {
	set, err := prices.Merge(&prices.Catalog{Name: "x", Currency: "USD",
		DIMMs:     []prices.DIMM{{SKU: "D"}},
		Platforms: []prices.Platform{{SKU: "P"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"0.07", "0.1", "0.29", "389.00", "12.3456", "9999999999.99", "1234.005", "0.015", "0.025"} {
		m, err := units.ParseMoney(s + " USD")
		if err != nil {
			t.Fatal(err)
		}
		want := money.FromRat(m.Exact())
		if got, err := set.Convert(m, "USD"); err != nil || got != want {
			t.Errorf("%s USD = %v, want %v", s, got, want)
		}
	}
}
