package quote

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// numberStyle says which separator a column of numbers uses for decimals.
// Quotes come from everywhere: 1,234.56 (English), 1.234,56 (German,
// Russian), 1 234,56 (French, Russian); "1,234" alone cannot tell.
type numberStyle int

const (
	styleUnknown      numberStyle = iota
	styleDotDecimal               // 1,234.56
	styleCommaDecimal             // 1.234,56 and 1 234,56
)

// dollar marks a bare "$": USD unless --currency names another dollar.
const dollar = "$"

// yen marks "¥", which is JPY or CNY: --currency must say which.
const yen = "¥"

var dollarCurrencies = map[string]bool{"USD": true, "CAD": true, "AUD": true, "NZD": true, "SGD": true, "HKD": true}

// currencySymbols are matched longest first, so "US$" wins over "$".
var currencySymbols = []struct{ sym, code string }{
	{"US$", "USD"}, {"NZ$", "NZD"}, {"HK$", "HKD"}, {"C$", "CAD"}, {"A$", "AUD"}, {"S$", "SGD"}, {"R$", "BRL"},
	{"руб.", "RUB"}, {"руб", "RUB"}, {"₽", "RUB"}, {"€", "EUR"}, {"£", "GBP"}, {"₹", "INR"}, {"₩", "KRW"},
	{"₴", "UAH"}, {"₸", "KZT"}, {"₺", "TRY"}, {"zł", "PLN"}, {"Kč", "CZK"}, {"$", dollar}, {"¥", yen}, {"￥", yen},
}

// knownCurrencies are the ISO codes recognised in header labels and in
// lower case; in a price cell any three capitals count as a code.
var knownCurrencies = map[string]bool{
	"USD": true, "EUR": true, "GBP": true, "RUB": true, "CHF": true, "JPY": true, "CNY": true, "CAD": true,
	"AUD": true, "NZD": true, "SEK": true, "NOK": true, "DKK": true, "PLN": true, "CZK": true, "HUF": true,
	"RON": true, "INR": true, "KRW": true, "SGD": true, "HKD": true, "BRL": true, "MXN": true, "ZAR": true,
	"TRY": true, "UAH": true, "KZT": true, "BYN": true, "ILS": true, "AED": true, "TWD": true,
}

var errTwoCurrencies = errors.New("two different currencies in one cell")

// splitCurrency takes the currency symbols and codes out of a cell and
// returns the currency ("" if none, dollar for a bare "$") and what is left.
// strict accepts only known codes (for header labels, where "SKU" and "QTY"
// are three capitals too).
func splitCurrency(s string, strict bool) (cur, rest string, err error) {
	found := func(c string) error {
		if cur != "" && cur != c {
			return errTwoCurrencies
		}
		cur = c
		return nil
	}
	rest = s
	for _, cs := range currencySymbols {
		if strings.Contains(rest, cs.sym) {
			if err := found(cs.code); err != nil {
				return "", s, err
			}
			rest = strings.ReplaceAll(rest, cs.sym, " ")
		}
	}
	var out []string
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) }) {
		up := strings.ToUpper(w)
		if len(w) == 3 && (knownCurrencies[up] || !strict && w == up) {
			if err := found(up); err != nil {
				return "", s, err
			}
			out = append(out, w)
		}
	}
	for _, w := range out {
		rest = replaceWord(rest, w)
	}
	return cur, strings.TrimSpace(rest), nil
}

// replaceWord blanks the first occurrence of w that is not part of a longer
// word.
func replaceWord(s, w string) string {
	re := regexp.MustCompile(`(^|[^\pL])` + regexp.QuoteMeta(w) + `($|[^\pL])`)
	done := false
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if done {
			return m
		}
		done = true
		return strings.Replace(m, w, " ", 1)
	})
}

var numberChars = lazy(`^[0-9.,]*[0-9][0-9.,]*$`)

// cleanNumber strips what surrounds the digits of an amount: spaces of any
// kind (thousands separators in 1 234,56), apostrophes (Swiss 1'234.56), a
// trailing ",-" (German whole amounts), a sign or accounting parentheses.
func cleanNumber(s string) (digits string, negative bool, style numberStyle, ok bool) {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsSpace(r) || r == '\'' || r == '’' || r == '\u00a0' || r == '\u202f' {
			continue
		}
		b.WriteRune(r)
	}
	t := b.String()
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		negative = true
		t = t[1 : len(t)-1]
	}
	for _, suf := range []string{",-", ",—", ",–"} {
		if strings.HasSuffix(t, suf) {
			t, style = strings.TrimSuffix(t, suf), styleCommaDecimal
		}
	}
	if strings.HasSuffix(t, ".-") {
		t, style = strings.TrimSuffix(t, ".-"), styleDotDecimal
	}
	switch {
	case strings.HasPrefix(t, "-"), strings.HasPrefix(t, "−"):
		negative = true
		t = strings.TrimPrefix(strings.TrimPrefix(t, "-"), "−")
	case strings.HasSuffix(t, "-"):
		negative = true
		t = strings.TrimSuffix(t, "-")
	case strings.HasPrefix(t, "+"):
		t = t[1:]
	}
	if !numberChars.MatchString(t) {
		return "", false, styleUnknown, false
	}
	return t, negative, style, true
}

// vote tells which style a number written like s implies, if it tells at all.
func vote(s string) numberStyle {
	t, _, hint, ok := cleanNumber(s)
	if !ok {
		return styleUnknown
	}
	if hint != styleUnknown {
		return hint
	}
	dot, comma := strings.LastIndex(t, "."), strings.LastIndex(t, ",")
	switch {
	case dot >= 0 && comma >= 0:
		if comma > dot {
			return styleCommaDecimal
		}
		return styleDotDecimal
	case comma >= 0:
		if strings.Count(t, ",") > 1 {
			return styleDotDecimal
		}
		if len(t)-comma-1 != 3 {
			return styleCommaDecimal
		}
	case dot >= 0:
		if strings.Count(t, ".") > 1 {
			return styleCommaDecimal
		}
		if len(t)-dot-1 != 3 {
			return styleDotDecimal
		}
	}
	return styleUnknown
}

// parseNumber reads a number written in either style; style decides the
// ambiguous "1,234" and "1.234" (a single separator followed by three
// digits), which is read as a thousands separator unless the column writes
// decimals the other way.
func parseNumber(s string, style numberStyle) (float64, bool) {
	t, neg, hint, ok := cleanNumber(s)
	if !ok {
		return 0, false
	}
	if hint != styleUnknown {
		style = hint
	}
	dec := byte('.')
	dot, comma := strings.LastIndex(t, "."), strings.LastIndex(t, ",")
	switch {
	case dot >= 0 && comma >= 0:
		if comma > dot {
			dec = ','
		}
	case comma >= 0:
		after := len(t) - comma - 1
		switch {
		case strings.Count(t, ",") > 1:
			dec = '.'
		case after != 3 || style == styleCommaDecimal || strings.HasPrefix(t, "0,") || strings.HasPrefix(t, ","):
			dec = ','
		}
	case dot >= 0:
		after := len(t) - dot - 1
		switch {
		case strings.Count(t, ".") > 1:
			dec = ','
		case after == 3 && style == styleCommaDecimal && !strings.HasPrefix(t, "0.") && !strings.HasPrefix(t, "."):
			dec = ','
		}
	}
	thousands := ","
	if dec == ',' {
		thousands = "."
	}
	if i := strings.LastIndexByte(t, dec); i >= 0 && strings.Contains(t[i+1:], thousands) {
		return 0, false // 1.234,56.7: separators in the wrong order
	}
	t = strings.ReplaceAll(t, thousands, "")
	if dec == ',' {
		t = strings.Replace(t, ",", ".", 1)
	}
	if strings.Count(t, ".") > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseMoney reads a price cell: an amount with or without a currency
// symbol or code. cur is "" when the cell names none.
func parseMoney(s string, style numberStyle) (amount float64, cur string, err error) {
	cur, rest, err := splitCurrency(s, false)
	if err != nil {
		return 0, "", err
	}
	v, ok := parseNumber(rest, style)
	if !ok {
		return 0, cur, errNotNumber
	}
	return v, cur, nil
}

var errNotNumber = errors.New("not a number")

// leadingNumber reads quantities such as "16", "16 pcs", "16,00" or "2 x".
var leadingNumberRE = lazy(`^\s*([0-9][0-9.,' \x{00a0}]*)`)

func parseQuantity(s string, style numberStyle) (float64, bool) {
	m := leadingNumberRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	return parseNumber(strings.TrimSpace(m[1]), style)
}

// columnStyle decides a column's number style from the cells that tell,
// falling back to def.
func columnStyle(cells []string, def numberStyle) numberStyle {
	var dot, comma int
	for _, c := range cells {
		_, rest, err := splitCurrency(c, false)
		if err != nil {
			continue
		}
		switch vote(rest) {
		case styleDotDecimal:
			dot++
		case styleCommaDecimal:
			comma++
		}
	}
	switch {
	case dot > comma:
		return styleDotDecimal
	case comma > dot:
		return styleCommaDecimal
	}
	return def
}
