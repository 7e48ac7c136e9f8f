package prices_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/prices"
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
	if err != nil || got < 439.99 || got > 440.01 {
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
