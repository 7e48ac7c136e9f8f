package model

import (
	"fmt"
	"strings"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// quoteWarnings says in words when the plan buys a part at an embedded
// list price although the user's own catalogs (a vendor quote) are in the
// set too: either the list price is below the quote for the same kind of
// part, or the quote has no such part. A purchase request must not carry a
// price the vendor never offered without the reader being told.
func quoteWarnings(in Input, res *Result) []string {
	r := res.Recommended
	if r == nil {
		return nil
	}
	var quotes []string
	for _, c := range in.Prices.Catalogs {
		if !isEmbedded(c) {
			quotes = append(quotes, c.Name)
		}
	}
	if len(quotes) == 0 || len(quotes) == len(in.Prices.Catalogs) {
		return nil
	}
	embedded := map[string]bool{}
	for _, c := range in.Prices.Catalogs {
		embedded[c.Name] = isEmbedded(c)
	}
	price := func(m units.Money) money.Amount {
		v, err := in.Prices.Convert(m, res.Currency)
		if err != nil {
			return money.Invalid // compares above every price
		}
		return v
	}
	var out []string
	// quotedKind: the quotes list parts of that kind at all; a quote of
	// DIMMs alone is expected to take its platform from the list.
	say := func(kind string, used Part, rivals []Part, quotedKind bool) {
		if !embedded[used.Catalog] || !quotedKind {
			return
		}
		if len(rivals) == 0 {
			out = append(out, fmt.Sprintf("the recommendation buys the %s %s at the embedded list price of catalog %s (%s): your quote (%s) has no %s like it",
				kind, used.Model, used.Catalog, money2(used.Price, res.Currency), strings.Join(quotes, ", "), kind))
			return
		}
		best := rivals[0]
		for _, q := range rivals[1:] {
			if q.Price.Less(best.Price) {
				best = q
			}
		}
		drop := ""
		if f := in.Flags.WithEmbedded; f != "" {
			drop = " (or drop " + f + ")"
		}
		out = append(out, fmt.Sprintf("the embedded list price of the %s %s (%s, catalog %s) is below your quote of %s (%s, catalog %s), so the plan is priced with the list price; remove %s from catalogs:%s to price only your quote",
			kind, used.Model, money2(used.Price, res.Currency), used.Catalog, best.Model, money2(best.Price, res.Currency), best.Catalog, used.Catalog, drop))
	}
	var dimms []Part
	anyDIMM, anyDrive := false, false
	for _, d := range in.Prices.DIMMs {
		anyDIMM = anyDIMM || !embedded[d.Catalog]
		if !embedded[d.Catalog] && d.Capacity == r.DIMM.Capacity {
			if ok, _ := platformOf(in.Prices, r.Platform.SKU).Accepts(d); ok {
				dimms = append(dimms, Part{Model: d.Model, Catalog: d.Catalog, Price: price(d.Price)})
			}
		}
	}
	say("DIMM", r.DIMM, dimms, anyDIMM)
	if sd := r.Swap.Drive; sd != nil {
		var drives []Part
		for _, d := range in.Prices.Drives {
			anyDrive = anyDrive || !embedded[d.Catalog]
			if !embedded[d.Catalog] && d.FactorClass() == r.Swap.Class {
				drives = append(drives, Part{Model: d.Model, Catalog: d.Catalog, Price: price(d.Price)})
			}
		}
		say("drive", *sd, drives, anyDrive)
	}
	var pls []Part
	for _, p := range in.Prices.Platforms {
		if !embedded[p.Catalog] {
			pls = append(pls, Part{Model: p.Model, Catalog: p.Catalog, Price: price(p.Price)})
		}
	}
	say("platform", r.Platform, pls, len(pls) > 0)
	return out
}

func isEmbedded(c *prices.Catalog) bool { return strings.HasPrefix(c.File, "embedded:") }

func platformOf(s *prices.Set, sku string) prices.Platform {
	for _, p := range s.Platforms {
		if p.SKU == sku {
			return p
		}
	}
	return prices.Platform{}
}

// money2 formats a unit price with its cents when it has any.
func money2(v money.Amount, cur string) string {
	if !v.Valid() || v.Cents()%100 == 0 {
		return moneyOf(v, cur)
	}
	c := v.Cents()
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%s.%02d %s", sign, strings.TrimSpace(moneyText(float64(c/100), "")), c%100, cur)
}
