package xlsx

import (
	"fmt"

	"github.com/memplan/memplan/reports"

	"github.com/xuri/excelize/v2"
)

// Layout of the Bill of materials sheet.
const (
	bServers = 2
	bHeader  = 5
	bFirst   = 6 // first line item
	bItem    = 1
	bSKU     = 2
	bModel   = 3
	bQty     = 4
	bQtyAll  = 5
	bUnit    = 6
	bExt     = 7
	bExtAll  = 8
)

// billOfMaterials lists what to order for the recommended configuration.
// It follows the Summary's recommendation, so a price edit that changes
// the recommendation changes the parts listed here too.
func (b *book) billOfMaterials() error {
	f, st, sh := b.f, b.st, sheetBOM
	w := b.newWriter(sh)
	for col, width := range []float64{24, 26, 44, 12, 12, 16, 18, 20} {
		w.width(col+1, width)
	}
	if b.out.Recommended == nil {
		w.set(1, 1, "Bill of materials: none. No configuration meets every deadline, so there is nothing to buy; see the advice on the Summary sheet.", st.title)
		return b.flushPrinted(w)
	}
	i := b.pickRow(colRec)
	c := b.rows[i]
	idx := absCell(sheetSummary, colRec, sRow)
	pick := func(name string) string { return fmt.Sprintf("INDEX(%s,%s)", name, idx) }
	w.formula(1, 1, fmt.Sprintf(`"Bill of materials: "&%s`, pick("CfgLabel")), "Bill of materials: "+c.Label, st.title)
	w.set(1, bServers, "Servers", st.bold)
	w.formula(2, bServers, pick("CfgServers"), c.Servers, st.count)
	w.set(1, 3, "The recommended configuration on the Summary sheet, at the unit prices on the catalog sheets.", st.text)
	headers := []string{"Item", "SKU", "Description", "Quantity per server", "Quantity for the fleet",
		"Unit price (" + b.cur + ")", "Per server (" + b.cur + ")", "Fleet (" + b.cur + ")"}
	for i, h := range headers {
		w.set(i+1, bHeader, h, st.header)
	}
	type line struct {
		item, names, sku, qty string
		optional              bool // a drive line: absent when the configuration has no drives
		skuVal                string
		qtyVal                int
		part                  *reports.Part
	}
	drives, replacements := 0, 0
	var drive *reports.Part
	if c.Swap.Drive != nil && c.Swap.Drives > 0 {
		drives, drive = c.Swap.Drives, c.Swap.Drive
		if c.Wear != nil {
			replacements = c.Wear.ReplacementsPerServer
		}
	}
	lines := []line{
		{"Server platform", "Platform", pick("CfgPlatform"), "1", false, c.Platform.SKU, 1, &c.Platform},
		{"DIMMs", "Dimm", pick("CfgDIMM"), pick("CfgDIMMCount"), false, c.DIMM.SKU, c.DIMMCount, &c.DIMM},
	}
	if b.hasDrives() {
		sku := ""
		if drive != nil {
			sku = drive.SKU
		}
		lines = append(lines,
			line{"Swap drives", "Drive", pick("CfgDrive"), pick("CfgDrives"), true, sku, drives, drive},
			line{"Replacement swap drives (wear over the horizon)", "Drive", pick("CfgDrive"), pick("CfgReplacements"), true, sku, replacements, drive})
	}
	servers := absCell(sheetBOM, 2, bServers)
	var total, totalAll float64
	for i, l := range lines {
		r := bFirst + i
		at := func(col int) string { return cell(col, r) }
		qtyAll := l.qtyVal * c.Servers
		model, unit := "none", 0.0
		if l.part != nil {
			model, unit = l.part.Model, l.part.UnitPrice.Float()
		}
		w.set(bItem, r, l.item, st.wrap)
		w.formula(bQty, r, l.qty, l.qtyVal, st.count)
		w.formula(bQtyAll, r, fmt.Sprintf("%s*%s", at(bQty), servers), qtyAll, st.count)
		modelFm := fmt.Sprintf("INDEX(%sModels,MATCH(%s,%sSKUs,0))", l.names, at(bSKU), l.names)
		unitFm := priceLookup(l.names, at(bSKU))
		if l.optional {
			// A configuration without drives has no drive SKU to look up.
			w.formula(bSKU, r, fmt.Sprintf(`IF(%s=0,"",%s)`, pick("CfgDrives"), l.sku), l.skuVal, st.text)
			w.formula(bModel, r, fmt.Sprintf(`IF(%s="","none",%s)`, at(bSKU), modelFm), model, st.wrap)
			w.formula(bUnit, r, fmt.Sprintf(`IF(%s="",0,%s)`, at(bSKU), unitFm), unit, st.money)
		} else {
			w.formula(bSKU, r, l.sku, l.skuVal, st.text)
			w.formula(bModel, r, modelFm, model, st.wrap)
			w.formula(bUnit, r, unitFm, unit, st.money)
		}
		ext, extAll := float64(l.qtyVal)*unit, float64(qtyAll)*unit
		total, totalAll = total+ext, totalAll+extAll
		w.formula(bExt, r, fmt.Sprintf("%s*%s", at(bQty), at(bUnit)), ext, st.money)
		w.formula(bExtAll, r, fmt.Sprintf("%s*%s", at(bQtyAll), at(bUnit)), extAll, st.money)
	}
	last := bFirst + len(lines)
	w.set(bItem, last, "Total", st.bold)
	for col, v := range map[int]float64{bExt: total, bExtAll: totalAll} {
		c := colName(col)
		w.formula(col, last, fmt.Sprintf("SUM(%s%d:%s%d)", c, bFirst, c, last-1), v, st.moneyBold)
	}
	if err := f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: bHeader, TopLeftCell: cell(1, bHeader+1), ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	return b.flushPrinted(w)
}
