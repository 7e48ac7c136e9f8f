package model

import "github.com/memplan/memplan/prices"

// Flags are the command-line flags the caller offers for what the model's
// hints and warnings suggest (an exchange rate, a quote, the price age to
// accept). The model names no flag itself: cmd/memplan fills these in with
// its flag names. A zero field leaves that suggestion out.
type Flags = prices.Flags
