package quote

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/memplan/memplan/prices"
)

// resolvePlatforms turns the server lines into platform entries. A quote
// line states a server's price and at most its sockets, DDR generation and
// drive bays; the memory layout (slots, channels), the DIMM types and the
// memory the OS keeps are never in it. Those are copied from an embedded
// platform of the same generation and sockets as placeholders, so that the
// catalog loads and a plan can be made from the quote alone, and every
// copied field is named (Result.FillByHand, the entry's comment and its
// source:) for the reviewer to replace with the server's specification.
func (im *importer) resolvePlatforms() {
	gens := map[string]bool{}
	for _, d := range im.dimms {
		gens[d.Generation] = true
	}
	for _, pp := range im.pending {
		pl := pp.rec.Platform
		p := pp.part
		label := pp.desc
		if label == "" {
			label = pp.sku
		}
		var fill, from []string
		gen := pl.Memory.Generation
		switch {
		case gen != "":
		case im.o.Fill.DIMMGeneration != "":
			gen = im.o.Fill.DIMMGeneration
			from = append(from, "memory.generation from --dimm-generation")
		case len(gens) == 1:
			for g := range gens {
				gen = g
			}
			from = append(from, "memory.generation from the quote's DIMMs")
			fill = append(fill, "memory.generation")
		default:
			why := "a server, but its line names no DDR generation"
			if len(gens) > 1 {
				why += " and the quote's DIMMs are of more than one"
			}
			im.unclassified(p.Row, label, why+"; add --dimm-generation DDR5 (or DDR4) to import it")
			continue
		}
		tpl, ok := template(gen, pl.Sockets)
		if !ok {
			im.unclassified(p.Row, label, fmt.Sprintf("a %s server, but no embedded platform to copy a memory layout from; add it to the catalog by hand (see docs/input-files.md)", gen))
			continue
		}
		pl.Memory.Generation = gen
		if pl.Sockets == 0 {
			pl.Sockets = tpl.Sockets
			fill = append(fill, "sockets")
		}
		// The DIMM types: the template's, plus those the quote's DIMMs of
		// this generation are, so the quote's own DIMMs fit.
		types := map[string]bool{}
		if strings.EqualFold(tpl.Memory.Generation, gen) {
			for _, t := range tpl.Memory.Types {
				types[t] = true
			}
		}
		for _, d := range im.dimms {
			if strings.EqualFold(d.Generation, gen) {
				types[d.Type] = true
			}
		}
		if len(types) == 0 {
			types["RDIMM"] = true
		}
		for t := range types {
			pl.Memory.Types = append(pl.Memory.Types, t)
		}
		sort.Strings(pl.Memory.Types)
		pl.Memory.Slots, pl.Memory.Channels = tpl.Memory.Slots, tpl.Memory.Channels
		fill = append(fill, "memory.types", "memory.slots", "memory.channels")
		if pl.Bays == 0 {
			pl.Bays = tpl.Bays
			fill = append(fill, "drive_bays")
		} else {
			p.Notes = append(p.Notes, fmt.Sprintf("drive_bays %d from the quote line: every bay is counted free for swap drives; subtract those the boot drives take", pl.Bays))
		}
		pl.Classes = append([]string(nil), tpl.Classes...)
		if len(pl.Classes) > 0 {
			fill = append(fill, "drive_classes")
		}
		pl.Reserve = tpl.Reserve
		fill = append(fill, "os_reserve")
		pl.Software = append([]string(nil), tpl.Software...)
		if len(pl.Software) > 0 {
			fill = append(fill, "software_swap")
		}
		sku := pp.sku
		if sku == "" {
			sku = im.newSKU(fmt.Sprintf("SERVER-%dS-%s", pl.Sockets, gen), p.Row)
			p.Notes = append(p.Notes, "sku made up from the description (the quote gives no part number)")
		}
		pl.SKU, pl.Model, pl.Price = sku, label, pp.price
		placeholder := fmt.Sprintf("%s copied from embedded platform %s (%d slots, %d channels, %d drive bays, os_reserve %s) as placeholders, not from the quote",
			strings.Join(fill, ", "), tpl.SKU, tpl.Memory.Slots, tpl.Memory.Channels, tpl.Bays, tpl.Reserve)
		pl.Source = strings.Join(append([]string{"price from the quote"}, append(from, placeholder)...), "; ")
		p.SKU, p.Defaulted = sku, fill
		p.Notes = append(p.Notes, from...)
		p.Notes = append(p.Notes, "fill in by hand from the server's specification: "+strings.Join(fill, ", ")+" (placeholders from embedded platform "+tpl.SKU+")")
		im.res.FillByHand = append(im.res.FillByHand, RowNote{Row: p.Row, Text: label, Reason: strings.Join(fill, ", ")})
		if pp.rec.Configured {
			w := "the line lists parts the server comes with; a platform's price must not include the DIMMs or swap drives (memplan adds those): enter the price of the server without them"
			p.Notes = append(p.Notes, w)
			im.res.Warnings = append(im.res.Warnings, RowNote{Row: p.Row, Text: label, Reason: w})
		}
		im.platforms = append(im.platforms, pl)
		im.res.Parts = append(im.res.Parts, p)
	}
	im.addCPUs()
	sort.SliceStable(im.res.Parts, func(i, j int) bool { return im.res.Parts[i].Row < im.res.Parts[j].Row })
}

// addCPUs adds the CPU lines of a build-to-order quote (a server base
// line, then its CPUs, DIMMs and drives) to the price of its one server:
// quantity x unit price over the servers' quantity, per server. With more
// than one server line, or quantities missing, there is no telling which
// server the CPUs go into, and the rows stay "not recognised".
func (im *importer) addCPUs() {
	if len(im.platforms) != 1 || len(im.cpus) == 0 {
		return
	}
	pl := &im.platforms[0]
	var part *Part
	for i := range im.res.Parts {
		if im.res.Parts[i].SKU == pl.SKU && im.res.Parts[i].Kind == KindPlatform {
			part = &im.res.Parts[i]
		}
	}
	if part == nil || part.Qty <= 0 {
		return
	}
	for _, c := range im.cpus {
		if c.qty <= 0 {
			return
		}
	}
	var added []string
	done := map[int]bool{}
	for _, c := range im.cpus {
		per := c.unit * c.qty / part.Qty
		pl.Price.Amount = round(pl.Price.Amount+per, 4)
		q := strconv.FormatFloat(c.qty, 'f', -1, 64)
		added = append(added, fmt.Sprintf("row %d's CPUs (%s x %s / %s servers = %s a server)", c.row, q, amountText(c.unit), strconv.FormatFloat(part.Qty, 'f', -1, 64), amountText(per)))
		im.skip(c.row, c.label, fmt.Sprintf("a CPU: its price is added to platform %s (row %d)", pl.SKU, part.Row))
		done[c.row] = true
	}
	note := "price includes " + strings.Join(added, ", ")
	part.Notes = append(part.Notes, note)
	pl.Source = strings.Replace(pl.Source, "price from the quote", "price from the quote, the server line plus its CPU lines", 1)
	var keep []RowNote
	for _, n := range im.res.Unclassified {
		if !done[n.Row] {
			keep = append(keep, n)
		}
	}
	im.res.Unclassified = keep
	sort.SliceStable(im.res.Skipped, func(i, j int) bool { return im.res.Skipped[i].Row < im.res.Skipped[j].Row })
}

// template is the embedded platform a server line's missing fields are
// copied from: the same generation and sockets if there is one, else the
// same generation, else the same sockets in the newest catalog.
func template(gen string, sockets int) (prices.Platform, bool) {
	all := embeddedPlatforms()
	for _, match := range []func(p prices.Platform) bool{
		func(p prices.Platform) bool {
			return strings.EqualFold(p.Memory.Generation, gen) && (sockets == 0 || p.Sockets == sockets)
		},
		func(p prices.Platform) bool { return strings.EqualFold(p.Memory.Generation, gen) },
		func(p prices.Platform) bool { return sockets == 0 || p.Sockets == sockets },
	} {
		for _, p := range all {
			if match(p) {
				return p, true
			}
		}
	}
	return prices.Platform{}, false
}
