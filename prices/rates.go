package prices

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/units"
)

// RatesFile is a hand-written set of exchange rates, for quotes in several
// currencies:
//
//	date: 2026-03-01
//	source: "ECB reference rates"
//	rates:
//	  EUR: 1.08 USD   # one EUR buys 1.08 USD
//	  RUB: 0.011 USD
type RatesFile struct {
	Date   units.Date             `yaml:"date"`
	Source string                 `yaml:"source"`
	Rates  map[string]units.Money `yaml:"rates"`
	File   string                 `yaml:"-"`
}

// LoadRates reads and checks a rates file.
func LoadRates(path string) (*RatesFile, error) {
	return LoadRatesContext(context.Background(), path)
}

// LoadRatesContext reads and checks a rates file (a regular file of at
// most inputfile.Limit bytes); cancelling ctx stops the read.
func LoadRatesContext(ctx context.Context, path string) (*RatesFile, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		return nil, fmt.Errorf("reading rates: %w", err)
	}
	var r RatesFile
	doc, err := yamlx.Decode(path, data, &r)
	if err != nil {
		return nil, err
	}
	r.File = path
	if r.Date.IsZero() {
		return nil, doc.Errorf("date", "rates go stale like prices", "missing, expected a date such as 2026-03-01")
	}
	if strings.TrimSpace(r.Source) == "" {
		return nil, doc.Errorf("source", "name where the rates come from", "missing")
	}
	if len(r.Rates) == 0 {
		return nil, doc.Errorf("rates", "e.g. `rates: {EUR: 1.08 USD}`", "no rates")
	}
	for cur, m := range r.Rates {
		p := "rates." + cur
		if err := checkRate(cur, m); err != "" {
			return nil, doc.Errorf(p, "write e.g. `EUR: 1.08 USD` (one EUR buys 1.08 USD)", "%s", err)
		}
	}
	return &r, nil
}

// ParseRate reads a rate given on the command line: "EUR=1.08 USD".
func ParseRate(s string) (string, units.Money, error) {
	cur, val, ok := strings.Cut(s, "=")
	cur = strings.TrimSpace(cur)
	if !ok {
		return "", units.Money{}, fmt.Errorf("%w: --rate %q: expected CUR=AMOUNT CUR, e.g. EUR=1.08USD or \"EUR=1.08 USD\"", yamlx.ErrInput, s)
	}
	val = strings.TrimSpace(val)
	// Allow "1.08USD" without the space.
	if n := len(val); n > 3 && units.IsCurrencyCode(val[n-3:]) && val[n-4] != ' ' {
		val = val[:n-3] + " " + val[n-3:]
	}
	m, err := units.ParseMoney(val)
	if err != nil {
		return "", units.Money{}, fmt.Errorf("%w: --rate %q: %v", yamlx.ErrInput, s, err)
	}
	if msg := checkRate(cur, m); msg != "" {
		return "", units.Money{}, fmt.Errorf("%w: --rate %q: %s", yamlx.ErrInput, s, msg)
	}
	return cur, m, nil
}

func checkRate(cur string, m units.Money) string {
	switch {
	case !units.IsCurrencyCode(cur):
		return fmt.Sprintf("%q is not a three-letter currency code", cur)
	case m.Currency == "" || !units.IsCurrencyCode(m.Currency):
		return "expected an amount of another currency, such as 1.08 USD"
	case m.Currency == cur:
		return fmt.Sprintf("rate of %s into %s itself", cur, cur)
	case !(m.Amount > 0):
		return "expected a positive amount"
	}
	return ""
}

// AddRate makes one unit of cur worth m in m's currency (and the inverse),
// overriding a catalog's rate for the same pair; source says where it came
// from ("--rate", a rates file) for the report.
func (s *Set) AddRate(cur string, m units.Money, source string) { s.setRate(cur, m, source) }

func (s *Set) setRate(cur string, m units.Money, source string) {
	r := m.Exact()
	s.rates[[2]string{cur, m.Currency}] = r
	s.rates[[2]string{m.Currency, cur}] = new(big.Rat).Inv(r)
	delete(s.given, [2]string{m.Currency, cur})
	s.given[[2]string{cur, m.Currency}] = RateUsed{From: cur, To: m.Currency, Rate: m.Amount, Source: source}
}

// RateUsed is an exchange rate as given: one From buys Rate To.
type RateUsed struct {
	From   string  `json:"from"`
	To     string  `json:"to"`
	Rate   float64 `json:"rate"`
	Source string  `json:"source"`
}

// RatesUsed lists the rates that connect the given currencies, as written
// (sorted), so a report can say which conversions it made.
func (s *Set) RatesUsed(currencies ...string) []RateUsed {
	in := map[string]bool{}
	for _, c := range currencies {
		in[c] = true
	}
	var out []RateUsed
	for _, r := range s.given {
		if in[r.From] || in[r.To] {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From+out[i].To < out[j].From+out[j].To })
	return out
}
