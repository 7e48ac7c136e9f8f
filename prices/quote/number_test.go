package quote

import "testing"

func TestParseMoney(t *testing.T) {
	for _, c := range []struct {
		in    string
		style numberStyle
		want  float64
		cur   string
	}{
		{"$1,234.56", styleUnknown, 1234.56, dollar},
		{"1.234,56 €", styleUnknown, 1234.56, "EUR"},
		{"1 234,56 €", styleUnknown, 1234.56, "EUR"},
		{"1\u00a0234,56\u00a0€", styleUnknown, 1234.56, "EUR"},
		{"€ 389,00", styleUnknown, 389, "EUR"},
		{"USD 2,980.00", styleUnknown, 2980, "USD"},
		{"2,980.00 usd", styleUnknown, 2980, "USD"},
		{"45 000 ₽", styleUnknown, 45000, "RUB"},
		{"45 000,50 руб.", styleUnknown, 45000.5, "RUB"},
		{"RUB 25000", styleUnknown, 25000, "RUB"},
		{"US$ 99.95", styleUnknown, 99.95, "USD"},
		{"1'234.50 CHF", styleUnknown, 1234.5, "CHF"},
		{"1.299,- €", styleUnknown, 1299, "EUR"},
		{"($50.00)", styleUnknown, -50, dollar},
		{"-$50.00", styleUnknown, -50, dollar},
		{"1,234", styleUnknown, 1234, ""},
		{"1,234", styleCommaDecimal, 1.234, ""},
		{"1.234", styleCommaDecimal, 1234, ""},
		{"1.234", styleDotDecimal, 1.234, ""},
		{"1,5", styleUnknown, 1.5, ""},
		{"1,234,567.89", styleUnknown, 1234567.89, ""},
		{"1.234.567,89", styleUnknown, 1234567.89, ""},
		{"0,125", styleUnknown, 0.125, ""},
		{"389", styleUnknown, 389, ""},
	} {
		v, cur, err := parseMoney(c.in, c.style)
		if err != nil || v != c.want || cur != c.cur {
			t.Errorf("parseMoney(%q, %d) = %v %q %v, want %v %q", c.in, c.style, v, cur, err, c.want, c.cur)
		}
	}
	for _, bad := range []string{"", "TBD", "call", "1.234,56.7", "$", "12 pcs", "N/A"} {
		if v, _, err := parseMoney(bad, styleUnknown); err == nil {
			t.Errorf("parseMoney(%q) = %v, want an error", bad, v)
		}
	}
	if _, _, err := parseMoney("$5 EUR", styleUnknown); err != errTwoCurrencies {
		t.Errorf("two currencies: %v", err)
	}
}

func TestColumnStyle(t *testing.T) {
	if s := columnStyle([]string{"1.299 €", "389,00 €", "12,50 €"}, styleDotDecimal); s != styleCommaDecimal {
		t.Errorf("comma column read as %d", s)
	}
	if s := columnStyle([]string{"$1,299", "$389.00"}, styleCommaDecimal); s != styleDotDecimal {
		t.Errorf("dot column read as %d", s)
	}
	if s := columnStyle([]string{"1,299"}, styleCommaDecimal); s != styleCommaDecimal {
		t.Errorf("an undecided column keeps the default, got %d", s)
	}
}

func TestParseQuantity(t *testing.T) {
	for in, want := range map[string]float64{"16": 16, "16 pcs": 16, "2,00": 2, "1,000": 1000, " 4 ea": 4} {
		if v, ok := parseQuantity(in, styleUnknown); !ok || v != want {
			t.Errorf("parseQuantity(%q) = %v %v, want %v", in, v, ok, want)
		}
	}
}
