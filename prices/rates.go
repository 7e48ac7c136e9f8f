package prices

import (
	"context"
	"fmt"
	"math"
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
	name := inputfile.Name(path)
	doc, err := yamlx.Decode(name, data, &r)
	if err != nil {
		if k := yamlx.WrongKind(name, data, yamlx.KindRates); k != nil {
			return nil, k
		}
		return nil, err
	}
	r.File = name
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
	if err := checkInverses(doc, r.Rates); err != nil {
		return nil, err
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

// RateTolerance is how far a rate and its inverse (or two rates for one
// pair) may differ and still agree: each is rounded when written.
const RateTolerance = 0.005

// RatesDisagree reports whether "one a buys am" and "one b buys bm" cannot
// both hold: the same pair at different rates, or a pair and its inverse
// whose product is not 1 (EUR: 1.08 USD and USD: 0.5 EUR). Rates of
// unrelated pairs never disagree.
func RatesDisagree(a string, am units.Money, b string, bm units.Money) bool {
	switch {
	case a == b && am.Currency == bm.Currency:
		return math.Abs(am.Amount/bm.Amount-1) > RateTolerance
	case a == bm.Currency && b == am.Currency:
		return math.Abs(am.Amount*bm.Amount-1) > RateTolerance
	}
	return false
}

// checkInverses finds a rate in rates that an earlier one (in the file's
// order, by line) contradicts, and says so at its line: a catalog's or a
// rates file's two directions of one pair would otherwise pick one
// silently, while two such --rate flags are refused.
func checkInverses(doc *yamlx.Doc, rates map[string]units.Money) error {
	curs := make([]string, 0, len(rates))
	for c := range rates {
		curs = append(curs, c)
	}
	at := func(cur string) (int, int) {
		e := doc.Errorf("rates."+cur, "", "")
		return e.Line, e.Column
	}
	sort.Slice(curs, func(i, j int) bool {
		li, ci := at(curs[i])
		lj, cj := at(curs[j])
		if li != lj {
			return li < lj
		}
		if ci != cj {
			return ci < cj
		}
		return curs[i] < curs[j]
	})
	for j, b := range curs {
		for _, a := range curs[:j] {
			am, bm := rates[a], rates[b]
			if RatesDisagree(a, am, b, bm) {
				return doc.Errorf("rates."+b, "give one direction of each pair; the other is its inverse",
					"%s: %s contradicts %s: %s (line %d), by which one %s buys %.4g %s", b, written(doc, "rates."+b, bm), a, written(doc, "rates."+a, am), doc.Line("rates."+a), b, 1/am.Amount, a)
			}
		}
	}
	return nil
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
