package model

import (
	"fmt"

	"github.com/memplan/memplan/prices"
)

// Flags are the command-line flags the caller offers for what the model's
// hints and warnings suggest (an exchange rate, a quote, the price age to
// accept). The model names no flag itself: cmd/memplan fills these in with
// its flag names. A zero field leaves that suggestion out.
type Flags = prices.Flags

// rateHint is how to give the rate from one currency to another on the
// command line, with a trailing ", " to go before the other remedies.
func rateHint(f Flags, from, to string) string {
	switch {
	case f.Rate != "" && f.Rates != "":
		return fmt.Sprintf("pass %s %s=<amount>%s or %s FILE, ", f.Rate, from, to, f.Rates)
	case f.Rate != "":
		return fmt.Sprintf("pass %s %s=<amount>%s, ", f.Rate, from, to)
	}
	return ""
}
