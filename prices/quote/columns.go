package quote

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/memplan/memplan/internal/usage"
	"github.com/xuri/excelize/v2"
)

// Columns says which 1-based column holds what; 0 means absent.
type Columns struct {
	SKU      int // part number
	Desc     int // description
	Qty      int // quantity
	Price    int // unit price
	Total    int // extended (line) price: used for the unit price only when there is no unit price column
	Currency int // a column of currency codes, one per row
}

// String renders the mapping in --map syntax.
func (c Columns) String() string {
	var parts []string
	for _, r := range c.list() {
		if r.col > 0 {
			parts = append(parts, r.key+"="+ColumnName(r.col))
		}
	}
	return strings.Join(parts, ",")
}

type roleCol struct {
	key string
	col int
}

func (c Columns) list() []roleCol {
	return []roleCol{{"sku", c.SKU}, {"desc", c.Desc}, {"qty", c.Qty}, {"price", c.Price}, {"total", c.Total}, {"currency", c.Currency}}
}

func (c *Columns) ptr(key string) *int {
	switch key {
	case "sku":
		return &c.SKU
	case "desc":
		return &c.Desc
	case "qty":
		return &c.Qty
	case "price":
		return &c.Price
	case "total":
		return &c.Total
	case "currency":
		return &c.Currency
	}
	return nil
}

// ColumnName turns 3 into "C".
func ColumnName(col int) string {
	n, err := excelize.ColumnNumberToName(col)
	if err != nil {
		return strconv.Itoa(col)
	}
	return n
}

var mapKeys = map[string]string{
	"sku": "sku", "pn": "sku", "part": "sku", "partno": "sku",
	"desc": "desc", "description": "desc",
	"qty": "qty", "quantity": "qty",
	"price": "price", "unit": "price", "unitprice": "price",
	"total": "total", "extended": "total", "amount": "total",
	"currency": "currency", "cur": "currency",
}

// ParseMap reads --map "sku=B,desc=C,qty=D,price=F": column letters or
// 1-based numbers. Its errors are bad input (usage.ErrInput).
func ParseMap(s string) (_ Columns, err error) {
	defer func() { err = usage.Wrap(err) }()
	var c Columns
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return c, fmt.Errorf("--map %q: expected key=column pairs such as \"sku=B,desc=C,qty=D,price=F\"", item)
		}
		key, ok := mapKeys[strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.TrimSpace(k)))]
		if !ok {
			return c, fmt.Errorf("--map: unknown key %q; expected sku, desc, qty, price, total or currency", strings.TrimSpace(k))
		}
		col, err := parseColumn(strings.TrimSpace(v))
		if err != nil {
			return c, fmt.Errorf("--map %s=%s: %v", key, strings.TrimSpace(v), err)
		}
		*c.ptr(key) = col
	}
	return c, nil
}

func parseColumn(v string) (int, error) {
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 {
			return 0, fmt.Errorf("column numbers start at 1")
		}
		return n, nil
	}
	n, err := excelize.ColumnNameToNumber(v)
	if err != nil || v == "" {
		return 0, fmt.Errorf("expected a column letter such as F or a 1-based number such as 6")
	}
	return n, nil
}

type role int

const (
	roleNone role = iota
	roleSKU
	roleDesc
	roleQty
	rolePrice
	roleTotal
	roleCurrency
)

var labelReplacer = strings.NewReplacer("#", " no ", "№", " no ")

// normalizeLabel lower-cases a header and reduces punctuation to spaces:
// "Part #" -> "part no", "P/N" -> "p n", "Unit Price (USD)" -> "unit price usd".
func normalizeLabel(s string) string {
	s = labelReplacer.Replace(strings.ToLower(s))
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// matchRole says what a header label names, and how surely (higher is
// surer: "Unit Price" beats "Price", "Mfr Part #" beats "Item #").
func matchRole(label string) (role, int) {
	n := normalizeLabel(label)
	if n == "" {
		return roleNone, 0
	}
	w := map[string]bool{}
	for _, f := range strings.Fields(n) {
		w[f] = true
	}
	any := func(ws ...string) bool {
		for _, x := range ws {
			if strings.Contains(x, " ") {
				if strings.Contains(" "+n+" ", " "+x+" ") {
					return true
				}
			} else if w[x] {
				return true
			}
		}
		return false
	}
	switch {
	case any("currency", "curr", "ccy", "cur"):
		return roleCurrency, 2
	case any("unit", "each", "per", "ea") && any("price", "cost", "rate", "amount"):
		return rolePrice, 3
	case any("total", "extended", "ext", "amount", "sum", "subtotal", "line value"):
		return roleTotal, 2
	case any("price", "cost", "msrp", "rate"):
		switch {
		case any("net", "your", "offer", "offered", "quoted", "quote", "discounted", "special", "sale", "final", "discount"):
			return rolePrice, 4
		case any("list", "msrp", "retail"):
			return rolePrice, 1
		case any("price"):
			return rolePrice, 2
		}
		return rolePrice, 1
	case any("qty", "quantity", "qnty", "q ty", "pcs", "count"):
		return roleQty, 2
	case any("description", "desc", "descr"):
		return roleDesc, 3
	case any("mfr", "mfg", "manufacturer", "mpn") && any("part", "p n", "pn", "mpn", "no", "number"):
		return roleSKU, 3
	case any("sku", "p n", "pn", "part no", "part number", "part"):
		return roleSKU, 2
	case any("product code", "product no", "product id", "item no", "item number", "item code", "article", "art no", "catalog no", "cat no", "model no", "model number", "model", "order code", "ordering code"):
		return roleSKU, 1
	case any("product", "name", "item description", "details", "specification", "spec"):
		return roleDesc, 1
	}
	return roleNone, 0
}

var roleWeight = map[role]int{rolePrice: 4, roleDesc: 3, roleSKU: 3, roleQty: 2, roleTotal: 2, roleCurrency: 1}

// header is a detected header: rows first..last (1-based) and the columns
// their labels name.
type header struct {
	first, last int
	cols        Columns
	labels      map[int]string
	score       int
}

// headerScanRows bounds the search for the header: quotes put a letterhead,
// addresses and terms above the table, but not pages of them.
const headerScanRows = 60

// headerMaxCols bounds the columns a header is looked for in; quotes have
// a dozen, a runaway export thousands.
const headerMaxCols = 256

// detectHeader finds the row (or pair of rows, for headers whose merged
// group labels sit above "Unit" and "Extended") whose labels name the most
// columns. A header needs a price (or total and quantity) and a description
// or part number.
func detectHeader(t *Table) (header, bool) {
	n := min(len(t.Text), headerScanRows)
	single := make([]header, n+2)
	ok1 := make([]bool, n+2)
	for r := 1; r <= n; r++ {
		single[r], ok1[r] = scoreRows(t, r, 1)
	}
	var best header
	found := false
	consider := func(h header) {
		if !found || h.score > best.score {
			best, found = h, true
		}
	}
	for r := 1; r <= n; r++ {
		if ok1[r] {
			consider(single[r])
		}
		// A two-row header must name more than either of its rows alone,
		// so a title row above a one-row header never joins it.
		if r+1 > len(t.Text) || blankRow(t, r) || blankRow(t, r+1) {
			continue
		}
		if h, ok := scoreRows(t, r, 2); ok && (!ok1[r] || h.score > single[r].score) && (!ok1[r+1] || h.score > single[r+1].score) {
			consider(h)
		}
	}
	return best, found
}

// scoreRows scores rows r..r+span-1 read as one header: each column's
// label is its cells joined top to bottom.
func scoreRows(t *Table, r, span int) (header, bool) {
	labels := map[int]string{}
	w := min(t.Width(), headerMaxCols)
	for c := 1; c <= w; c++ {
		var parts []string
		for rr := r; rr < r+span; rr++ {
			v := t.cell(rr, c)
			if v != "" && (len(parts) == 0 || parts[len(parts)-1] != v) {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			labels[c] = strings.Join(parts, " ")
		}
	}
	h, ok := scoreLabels(labels)
	h.first, h.last = r, r+span-1
	return h, ok
}

func scoreLabels(labels map[int]string) (header, bool) {
	type pick struct{ col, strength int }
	picks := map[role]pick{}
	cols := make([]int, 0, len(labels))
	for c := range labels {
		cols = append(cols, c)
	}
	sort.Ints(cols)
	for _, c := range cols {
		rl, s := matchRole(labels[c])
		if rl == roleNone {
			continue
		}
		if p, ok := picks[rl]; !ok || s > p.strength {
			picks[rl] = pick{c, s}
		}
	}
	has := func(r role) bool { _, ok := picks[r]; return ok }
	if !(has(rolePrice) || has(roleTotal) && has(roleQty)) || !(has(roleDesc) || has(roleSKU)) {
		return header{}, false
	}
	h := header{labels: labels}
	for r, p := range picks {
		h.score += roleWeight[r]*10 + p.strength
		switch r {
		case roleSKU:
			h.cols.SKU = p.col
		case roleDesc:
			h.cols.Desc = p.col
		case roleQty:
			h.cols.Qty = p.col
		case rolePrice:
			h.cols.Price = p.col
		case roleTotal:
			h.cols.Total = p.col
		case roleCurrency:
			h.cols.Currency = p.col
		}
	}
	return h, true
}

func blankRow(t *Table, r int) bool {
	if r < 1 || r > len(t.Text) {
		return true
	}
	for _, v := range t.Text[r-1] {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}
