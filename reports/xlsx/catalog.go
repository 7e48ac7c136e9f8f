package xlsx

import (
	"fmt"
	"sort"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
	"github.com/xuri/excelize/v2"
)

// catalogPart is one SKU as the configurations use it.
type catalogPart struct {
	reports.Part
	class string // drives: the slowdown-curve device class
}

// catalog holds the parts the listed configurations use: the rows of the
// DIMMs, Drives and Platforms sheets, whose price cells every cost formula
// reads.
type catalog struct {
	dimms, drives, platforms []catalogPart
}

// collectParts gathers each SKU once. A SKU priced differently in two
// configurations would make the workbook disagree with the result it came
// from, so it is an error (only a hand-edited result can contain one).
func collectParts(rows []reports.Configuration) (catalog, error) {
	var cat catalog
	seen := map[string]map[string]int{"DIMM": {}, "drive": {}, "platform": {}}
	add := func(kind string, list *[]catalogPart, p reports.Part, class, id string) error {
		if i, ok := seen[kind][p.SKU]; ok {
			if q := (*list)[i]; q.UnitPrice != p.UnitPrice {
				return fmt.Errorf("%s %s has two unit prices in the result (%v and %v, in configuration %s); a result written by memplan never does, so the file was edited: fix one of them", kind, p.SKU, q.UnitPrice.Float(), p.UnitPrice.Float(), id)
			}
			return nil
		}
		if p.SKU == "" {
			return fmt.Errorf("configuration %s has a %s without a SKU; the workbook looks prices up by SKU", id, kind)
		}
		seen[kind][p.SKU] = len(*list)
		*list = append(*list, catalogPart{Part: p, class: class})
		return nil
	}
	for _, c := range rows {
		if err := add("platform", &cat.platforms, c.Platform, "", c.ID); err != nil {
			return cat, err
		}
		if err := add("DIMM", &cat.dimms, c.DIMM, "", c.ID); err != nil {
			return cat, err
		}
		if d := c.Swap.Drive; d != nil && c.Swap.Drives > 0 {
			if err := add("drive", &cat.drives, *d, c.Swap.DeviceClass, c.ID); err != nil {
				return cat, err
			}
		}
	}
	sort.SliceStable(cat.dimms, func(i, j int) bool {
		a, b := cat.dimms[i], cat.dimms[j]
		if a.CapacityBytes != b.CapacityBytes {
			return a.CapacityBytes < b.CapacityBytes
		}
		return a.SKU < b.SKU
	})
	sort.SliceStable(cat.drives, func(i, j int) bool {
		a, b := cat.drives[i], cat.drives[j]
		if a.class != b.class {
			return a.class < b.class
		}
		if a.CapacityBytes != b.CapacityBytes {
			return a.CapacityBytes < b.CapacityBytes
		}
		return a.SKU < b.SKU
	})
	sort.SliceStable(cat.platforms, func(i, j int) bool { return cat.platforms[i].SKU < cat.platforms[j].SKU })
	return cat, nil
}

// Columns shared by the three catalog sheets: SKU, model and the editable
// unit price come first so the price is always column C.
const (
	catSKU = iota + 1
	catModel
	catPrice
)

// catalogColumn is one further column of a catalog sheet.
type catalogColumn struct {
	header string
	width  float64
	style  int
	value  func(catalogPart) any
}

// catalogSheet describes one of the DIMMs, Drives and Platforms sheets.
type catalogSheet struct {
	sheet, table, names string // names: prefix of the defined names (DimmSKUs, DimmPrices...)
	what                string // for the sentence on an empty sheet
	parts               []catalogPart
	usedBy              string // defined name of the Configurations column holding this SKU
	extra               []catalogColumn
}

func (b *book) catalogSheets() error {
	st := b.st
	gb := func(p catalogPart) any { return float64(p.CapacityBytes) / 1e9 }
	gib := func(p catalogPart) any { return p.CapacityGiB }
	quoted := []catalogColumn{
		{"Catalog", 16, st.text, func(p catalogPart) any { return p.Catalog }},
		{"Price as quoted", 14, st.gib, func(p catalogPart) any { return p.QuotedPrice.Float() }},
		{"Quoted currency", 10, st.text, func(p catalogPart) any { return p.QuotedCurrency }},
	}
	sheets := []catalogSheet{
		{sheetDIMMs, "tblDIMMs", "Dimm", "DIMMs", b.parts.dimms, "CfgDIMM",
			append([]catalogColumn{{"Capacity (GiB)", 10, st.gib, gib}}, quoted...)},
		{sheetDrives, "tblDrives", "Drive", "swap drives", b.parts.drives, "CfgDrive",
			append([]catalogColumn{
				{"Device class", 16, st.text, func(p catalogPart) any { return p.class }},
				{"Capacity (GB)", 10, st.gib, gb},
			}, quoted...)},
		{sheetPlatforms, "tblPlatforms", "Platform", "platforms", b.parts.platforms, "CfgPlatform", quoted},
	}
	for _, cs := range sheets {
		if err := b.catalogSheet(cs); err != nil {
			return err
		}
	}
	return nil
}

func (b *book) catalogSheet(cs catalogSheet) error {
	f, st, sh := b.f, b.st, cs.sheet
	w := b.newWriter(sh)
	if len(cs.parts) == 0 {
		w.set(1, 1, fmt.Sprintf("No configuration in this result uses %s.", cs.what), st.text)
		return b.flushPrinted(w)
	}
	headers := []string{"SKU", "Model", "Unit price (" + b.cur + ")"}
	widths := []float64{26, 44, 16}
	for _, x := range cs.extra {
		headers, widths = append(headers, x.header), append(widths, x.width)
	}
	headers, widths = append(headers, "Configurations using it"), append(widths, 14)
	last := len(cs.parts) + 1
	for i, h := range headers {
		w.set(i+1, 1, h, st.header)
		w.width(i+1, widths[i])
	}
	// How many listed configurations use each SKU: the COUNTIF's value.
	used := map[string]int{}
	for _, c := range b.rows {
		switch cs.sheet {
		case sheetDIMMs:
			used[c.DIMM.SKU]++
		case sheetPlatforms:
			used[c.Platform.SKU]++
		case sheetDrives:
			if c.Swap.Drive != nil && c.Swap.Drives > 0 {
				used[c.Swap.Drive.SKU]++
			}
		}
	}
	for i, p := range cs.parts {
		r := i + 2
		vals := []any{p.SKU, p.Model, p.UnitPrice.Float()}
		sts := []int{st.text, st.wrap, st.moneyInput}
		for _, x := range cs.extra {
			vals, sts = append(vals, x.value(p)), append(sts, x.style)
		}
		for j, v := range vals {
			w.set(j+1, r, v, sts[j])
		}
		w.formula(len(headers), r, fmt.Sprintf("COUNTIF(%s,%s)", cs.usedBy, cell(catSKU, r)), used[p.SKU], st.count)
	}
	dv := excelize.NewDataValidation(false)
	dv.Sqref = fmt.Sprintf("%s2:%s%d", colName(catPrice), colName(catPrice), last)
	dv.Type, dv.Operator, dv.Formula1 = "decimal", "greaterThanOrEqual", "0"
	dv.SetError(excelize.DataValidationErrorStyleStop, "Not a price", fmt.Sprintf("A unit price is a number of at least 0, in %s.", b.cur))
	dv.SetInput("Unit price in "+b.cur, "Edit it: every cost, the ranking and the savings recompute.")
	if err := f.AddDataValidation(sh, dv); err != nil {
		return err
	}
	if err := f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	for _, n := range []struct {
		suffix  string
		col     int
		comment string
	}{
		{"SKUs", catSKU, "SKUs of the " + cs.what},
		{"Models", catModel, "models of the " + cs.what},
		{"Prices", catPrice, "unit prices of the " + cs.what + " in " + b.cur + "; every cost formula reads these"},
	} {
		if err := b.define(cs.names+n.suffix, absRange(sh, n.col, 2, last), n.comment); err != nil {
			return err
		}
	}
	return b.flushPrinted(w, &excelize.Table{Range: "A1:" + cell(len(headers), last), Name: cs.table, StyleName: "TableStyleLight9"})
}

// priceLookup is the formula for the unit price of the SKU in skuCell.
func priceLookup(names, skuCell string) string {
	return "INDEX(" + names + "Prices,MATCH(" + skuCell + "," + names + "SKUs,0))"
}

// hasDrives reports whether any configuration uses a swap drive (and so
// whether the Drive* names exist).
func (b *book) hasDrives() bool { return len(b.parts.drives) > 0 }

// swapText is the swap arrangement in a few words.
func swapText(c reports.Configuration) string {
	s := c.Swap
	switch s.Kind {
	case model.SwapNone:
		return "none"
	case model.SwapZram:
		return fmt.Sprintf("zram %.0f%% (%s)", s.ZramShare*100, s.Algorithm)
	}
	d := fmt.Sprintf("%d drive(s)", s.Drives)
	if s.Mirrored {
		d += " mirrored"
	}
	if s.Kind == model.SwapZswap {
		return fmt.Sprintf("zswap (%s) + %s", s.Algorithm, d)
	}
	return d
}
