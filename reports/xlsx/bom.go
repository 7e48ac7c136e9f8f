package xlsx

import (
	"fmt"

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
	w := newWriter(f, sh)
	for col, width := range []float64{24, 26, 44, 12, 12, 16, 18, 20} {
		if err := f.SetColWidth(sh, colName(col+1), colName(col+1), width); err != nil {
			return err
		}
	}
	if b.out.Recommended == nil {
		w.set(1, 1, "Bill of materials: none. No configuration meets every deadline, so there is nothing to buy; see the advice on the Summary sheet.", st.title)
		return w.err
	}
	idx := absCell(sheetSummary, colRec, sRow)
	pick := func(name string) string { return fmt.Sprintf("INDEX(%s,%s)", name, idx) }
	w.formula(1, 1, fmt.Sprintf(`"Bill of materials: "&%s`, pick("CfgLabel")), st.title)
	w.set(1, bServers, "Servers", st.bold)
	w.formula(2, bServers, pick("CfgServers"), st.count)
	w.set(1, 3, "The recommended configuration on the Summary sheet, at the unit prices on the catalog sheets.", st.text)
	headers := []string{"Item", "SKU", "Description", "Quantity per server", "Quantity for the fleet",
		"Unit price (" + b.cur + ")", "Per server (" + b.cur + ")", "Fleet (" + b.cur + ")"}
	for i, h := range headers {
		w.set(i+1, bHeader, h, st.header)
	}
	type line struct {
		item, names, sku, qty string
		optional              bool // a drive line: absent when the configuration has no drives
	}
	lines := []line{
		{"Server platform", "Platform", pick("CfgPlatform"), "1", false},
		{"DIMMs", "Dimm", pick("CfgDIMM"), pick("CfgDIMMCount"), false},
	}
	if b.hasDrives() {
		lines = append(lines,
			line{"Swap drives", "Drive", pick("CfgDrive"), pick("CfgDrives"), true},
			line{"Replacement swap drives (wear over the horizon)", "Drive", pick("CfgDrive"), pick("CfgReplacements"), true})
	}
	servers := absCell(sheetBOM, 2, bServers)
	for i, l := range lines {
		r := bFirst + i
		at := func(col int) string { return cell(col, r) }
		w.set(bItem, r, l.item, st.text)
		w.formula(bQty, r, l.qty, st.count)
		w.formula(bQtyAll, r, fmt.Sprintf("%s*%s", at(bQty), servers), st.count)
		model := fmt.Sprintf("INDEX(%sModels,MATCH(%s,%sSKUs,0))", l.names, at(bSKU), l.names)
		unit := priceLookup(l.names, at(bSKU))
		if l.optional {
			// A configuration without drives has no drive SKU to look up.
			w.formula(bSKU, r, fmt.Sprintf(`IF(%s=0,"",%s)`, pick("CfgDrives"), l.sku), st.text)
			w.formula(bModel, r, fmt.Sprintf(`IF(%s="","none",%s)`, at(bSKU), model), st.text)
			w.formula(bUnit, r, fmt.Sprintf(`IF(%s="",0,%s)`, at(bSKU), unit), st.money)
		} else {
			w.formula(bSKU, r, l.sku, st.text)
			w.formula(bModel, r, model, st.text)
			w.formula(bUnit, r, unit, st.money)
		}
		w.formula(bExt, r, fmt.Sprintf("%s*%s", at(bQty), at(bUnit)), st.money)
		w.formula(bExtAll, r, fmt.Sprintf("%s*%s", at(bQtyAll), at(bUnit)), st.money)
	}
	total := bFirst + len(lines)
	w.set(bItem, total, "Total", st.bold)
	for _, col := range []int{bExt, bExtAll} {
		c := colName(col)
		w.formula(col, total, fmt.Sprintf("SUM(%s%d:%s%d)", c, bFirst, c, total-1), st.moneyBold)
	}
	if w.err != nil {
		return w.err
	}
	return f.SetPanes(sh, &excelize.Panes{Freeze: true, YSplit: bHeader, TopLeftCell: cell(1, bHeader+1), ActivePane: "bottomLeft"})
}
