package prices

import "fmt"

// Flags are the command-line flags the caller offers for what a hint
// suggests (an exchange rate, a quote, the embedded list prices, the price
// age to accept). prices and model name no flag themselves: cmd/memplan
// fills these in with its flag names. A zero field leaves that suggestion
// out.
type Flags struct {
	Rate         string // one exchange rate, CUR=AMOUNT CUR: "--rate"
	Rates        string // a file of exchange rates: "--rates"
	Prices       string // a price catalog (a quote) to price from: "--prices"
	WithEmbedded string // price from the embedded list prices too: "--with-embedded"
	MaxPriceAge  string // how old prices may be before a warning: "--max-price-age"
}

// RateHint suggests the caller's flags for the exchange rate from one
// currency to another, followed by ", " to go before the other remedies:
// "pass --rate EUR=<amount>USD or --rates FILE, " (with parens, "(or
// --rates FILE)"); empty when the caller offers no rate flag.
func (f Flags) RateHint(from, to string, parens bool) string {
	switch {
	case f.Rate != "" && f.Rates != "" && parens:
		return fmt.Sprintf("pass %s %s=<amount>%s (or %s FILE), ", f.Rate, from, to, f.Rates)
	case f.Rate != "" && f.Rates != "":
		return fmt.Sprintf("pass %s %s=<amount>%s or %s FILE, ", f.Rate, from, to, f.Rates)
	case f.Rate != "":
		return fmt.Sprintf("pass %s %s=<amount>%s, ", f.Rate, from, to)
	}
	return ""
}
