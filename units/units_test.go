package units_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

func wantUnitsError(t *testing.T, err error, input, expected string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%q: no error, want one", input)
	}
	var ue *units.Error
	if !errors.As(err, &ue) {
		t.Fatalf("%q: error %T %v, want *units.Error", input, err, err)
	}
	if ue.Value != input {
		t.Errorf("%q: Error.Value = %q, want the input", input, ue.Value)
	}
	msg := err.Error()
	if !strings.Contains(msg, `"`+input+`"`) && !strings.Contains(msg, input) {
		t.Errorf("%q: message %q does not quote the input", input, msg)
	}
	if !strings.Contains(msg, expected) {
		t.Errorf("%q: message %q does not say what was expected (%q)", input, msg, expected)
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want units.Bytes
	}{
		// Binary suffixes are powers of 1024.
		{"48GiB", 48 * units.GiB},
		{"512MiB", 512 * units.MiB},
		{"4KiB", 4096},
		{"2TiB", 2 * units.TiB},
		{"1PiB", 1 << 50},
		{".5GiB", units.GiB / 2},
		{"1.5KiB", 1536},
		// Decimal suffixes are powers of 1000, as drive vendors write them.
		{"960GB", 960e9},
		{"1.92TB", 1.92e12},
		{"1.92 TB", 1.92e12},
		{"48GB", 48e9},
		{"64KB", 64000},
		{"7PB", 7e15},
		{"36.5TB", 36.5e12},
		// Bare numbers and B are bytes; B is accepted in either case.
		{"4096", 4096},
		{"4096B", 4096},
		{"4096b", 4096},
		{"0", 0},
		{"1e3", 1000},
		{"1e3GB", 1e12},
		{"+5GiB", 5 * units.GiB},
		// Space between number and unit, and around the value.
		{"48 GiB", 48 * units.GiB},
		{"  48GiB  ", 48 * units.GiB},
		// Fractions of a byte round to the nearest byte.
		{"0.5B", 1},
		{"1.4", 1},
	}
	for _, tt := range tests {
		got, err := units.ParseBytes(tt.in)
		if err != nil {
			t.Errorf("ParseBytes(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, want %d", tt.in, int64(got), int64(tt.want))
		}
	}
}

func TestParseBytesBad(t *testing.T) {
	const expected = `a size such as "48GiB"`
	for _, in := range []string{
		"48 gigs", "-1GiB", "1e400GB", "", "   ", "GiB", "48gib", "48gb", "5KIB", "5k", "8EiB",
		"1-2GiB", "1 2 GiB", "0x10", "1_000GiB", "NaN", "Inf", "inf GiB", "1e", "e5", "48 GiB extra",
		"-0.5", "1e19", "5e18B",
	} {
		_, err := units.ParseBytes(in)
		wantUnitsError(t, err, in, expected)
	}
	// Sizes past what int64 arithmetic on them can bear say so.
	_, err := units.ParseBytes("5e18")
	if err == nil || !strings.Contains(err.Error(), "no larger than 4 EiB") {
		t.Errorf("ParseBytes(5e18) = %v, want the 4 EiB limit named", err)
	}
}

func TestBytesString(t *testing.T) {
	tests := []struct {
		b    units.Bytes
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1023, "1023B"},
		{1024, "1KiB"},
		{1536, "1.5KiB"},
		{units.MiB, "1MiB"},
		{48 * units.GiB, "48GiB"},
		{46 * units.GiB, "46GiB"},
		{48e9, "44.7GiB"},
		{10 * units.TiB, "10TiB"},
		{-5, "-5B"},
		{-2 * units.GiB, "-2GiB"},
	}
	for _, tt := range tests {
		if got := tt.b.String(); got != tt.want {
			t.Errorf("Bytes(%d).String() = %q, want %q", int64(tt.b), got, tt.want)
		}
	}
	dec := []struct {
		b    units.Bytes
		want string
	}{
		{1.92e12, "1.92TB"},
		{960e9, "960GB"},
		{64e9, "64GB"},
		{512e6, "512MB"},
		{999, "999B"},
	}
	for _, tt := range dec {
		if got := tt.b.DecimalString(); got != tt.want {
			t.Errorf("Bytes(%d).DecimalString() = %q, want %q", int64(tt.b), got, tt.want)
		}
	}
	if got := (3 * units.GiB / 2).GiBf(); got != 1.5 {
		t.Errorf("GiBf = %g, want 1.5", got)
	}
}

// Whole tebibytes print as GiB because the "two decimals are exact" test
// divides TiB by 100 in integer arithmetic (TiB is not a multiple of 100).
func TestBytesStringWholeTiB(t *testing.T) {
	for _, tt := range []struct {
		b    units.Bytes
		want string
	}{{units.TiB, "1TiB"}, {3 * units.TiB, "3TiB"}, {units.TiB * 3 / 2, "1.5TiB"}} {
		if got := tt.b.String(); got != tt.want {
			t.Errorf("Bytes(%d).String() = %q, want %q", int64(tt.b), got, tt.want)
		}
	}
}

func TestBytesRoundTrip(t *testing.T) {
	// Sizes people write in a catalog survive String and ParseBytes exactly
	// when they are binary multiples; decimal ones survive DecimalString.
	for _, s := range []string{"4GiB", "8GiB", "48GiB", "64GiB", "96GiB", "128GiB", "1.5KiB", "512MiB", "10TiB", "2TiB", "1TiB", "4096B"} {
		b, err := units.ParseBytes(s)
		if err != nil {
			t.Fatalf("ParseBytes(%q): %v", s, err)
		}
		back, err := units.ParseBytes(b.String())
		if err != nil || back != b {
			t.Errorf("%q -> %q -> %d (%v), want %d", s, b.String(), int64(back), err, int64(b))
		}
	}
	for _, s := range []string{"960GB", "1.92TB", "3.84TB", "7.68TB", "64GB", "80GB", "250GB", "800GB"} {
		b, err := units.ParseBytes(s)
		if err != nil {
			t.Fatalf("ParseBytes(%q): %v", s, err)
		}
		if got := b.DecimalString(); got != s {
			t.Errorf("ParseBytes(%q).DecimalString() = %q", s, got)
		}
		back, err := units.ParseBytes(b.DecimalString())
		if err != nil || back != b {
			t.Errorf("%q -> %q -> %d (%v), want %d", s, b.DecimalString(), int64(back), err, int64(b))
		}
	}
}

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
	}{
		// Go's own units.
		{"6h", 6 * time.Hour},
		{"8h", 8 * time.Hour},
		{"6h30m", 6*time.Hour + 30*time.Minute},
		{"75us", 75 * time.Microsecond},
		{"75µs", 75 * time.Microsecond},
		{"1.7us", 1700 * time.Nanosecond},
		{"8500us", 8500 * time.Microsecond},
		{"2ms", 2 * time.Millisecond},
		{"90s", 90 * time.Second},
		{"100ns", 100},
		{"0", 0},
		{"0s", 0},
		// Days, weeks and years.
		{"2d", 2 * day},
		{"1.5d", 36 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"2w", 14 * day},
		{"3y", 3 * 365 * day},
		{"1y2d", 367 * day},
		{"1w1d", 8 * day},
		// Spaces are ignored.
		{" 1d 2h ", 26 * time.Hour},
		{"6 h", 6 * time.Hour},
	}
	for _, tt := range tests {
		got, err := units.ParseDuration(tt.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", tt.in, err)
			continue
		}
		if got.D() != tt.want {
			t.Errorf("ParseDuration(%q) = %v, want %v", tt.in, got.D(), tt.want)
		}
	}
	d, _ := units.ParseDuration("36h")
	if d.Hours() != 36 || d.Seconds() != 36*3600 {
		t.Errorf("Hours/Seconds of 36h = %g/%g", d.Hours(), d.Seconds())
	}
}

func TestParseDurationBad(t *testing.T) {
	const expected = `a duration such as "8h"`
	for _, in := range []string{
		"8 hours", "-1h", "-1d", "", "  ", "d", "1dd", "d1", "5m1d", "1d-1h", "h", "8", "8hrs",
		"1e400d", "NaNd", "infd", "0x10d", "1 day", "2562048h",
	} {
		_, err := units.ParseDuration(in)
		wantUnitsError(t, err, in, expected)
	}
}

// A duration past ~292 years overflows int64 nanoseconds; the d/w/y path
// multiplies in float64 and converts without a range check, so it comes
// back negative with no error ("293y" -> -292y). A horizon of 300y then
// reports "got -9223372036854775808ns" and a deadline of 106752d reports
// "missing or zero".
func TestParseDurationOverflow(t *testing.T) {
	for _, in := range []string{"293y", "106752d", "15251w", "1y9223372036s", "1d2562047h", "100000000y"} {
		d, err := units.ParseDuration(in)
		if err == nil {
			t.Errorf("ParseDuration(%q) = %d ns, want an out-of-range error", in, int64(d))
		}
	}
}

func TestDurationString(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1, "1ns"},
		{999, "999ns"},
		{time.Microsecond, "1us"},
		{75 * time.Microsecond, "75us"},
		{1700, "1.7us"},
		{5700, "5.7us"},
		{2 * time.Millisecond, "2ms"},
		{1500 * time.Millisecond, "1.5s"},
		{59 * time.Second, "59s"},
		{time.Minute, "1m"},
		{90 * time.Second, "1m30s"},
		{7*time.Hour + 48*time.Minute, "7h48m"},
		{6*time.Hour + 30*time.Minute, "6h30m"},
		{8 * time.Hour, "8h"},
		{3 * 365 * 24 * time.Hour, "26280h"},
		// Above an hour, seconds are not shown.
		{time.Hour + 30*time.Second, "1h"},
	}
	for _, tt := range tests {
		if got := units.Duration(tt.d).String(); got != tt.want {
			t.Errorf("Duration(%v).String() = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestDurationRoundTrip(t *testing.T) {
	for _, s := range []string{"8h", "6h30m", "7h48m", "75us", "1.7us", "5.7us", "8.5ms", "2us", "1m30s", "12h", "26280h", "59s", "100ns"} {
		d, err := units.ParseDuration(s)
		if err != nil {
			t.Fatalf("ParseDuration(%q): %v", s, err)
		}
		if got := d.String(); got != s {
			t.Errorf("ParseDuration(%q).String() = %q", s, got)
		}
		back, err := units.ParseDuration(d.String())
		if err != nil || back != d {
			t.Errorf("%q -> %q -> %v (%v)", s, d.String(), back, err)
		}
	}
	// Shorthands come back in Go's spelling.
	for in, want := range map[string]string{"3y": "26280h", "1d12h": "36h", "2w": "336h", "8500us": "8.5ms"} {
		d, err := units.ParseDuration(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.String(); got != want {
			t.Errorf("ParseDuration(%q).String() = %q, want %q", in, got, want)
		}
	}
}

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in   string
		want units.Money
	}{
		{"389.00 USD", units.Money{Amount: 389, Currency: "USD"}},
		{"389 USD", units.Money{Amount: 389, Currency: "USD"}},
		{"USD 389", units.Money{Amount: 389, Currency: "USD"}},
		{"25000 RUB", units.Money{Amount: 25000, Currency: "RUB"}},
		{"25 000 RUB", units.Money{Amount: 25000, Currency: "RUB"}},
		{"1,200.50 EUR", units.Money{Amount: 1200.5, Currency: "EUR"}},
		{"1_000 RUB", units.Money{Amount: 1000, Currency: "RUB"}},
		{"  700.00 USD  ", units.Money{Amount: 700, Currency: "USD"}},
		{".5 USD", units.Money{Amount: 0.5, Currency: "USD"}},
		// A bare number leaves the currency to the catalog.
		{"389", units.Money{Amount: 389}},
		{"4600", units.Money{Amount: 4600}},
		{"1.08", units.Money{Amount: 1.08}},
		// The parser does not judge sign; catalogs reject non-positive prices.
		{"-5 USD", units.Money{Amount: -5, Currency: "USD"}},
		{"0 USD", units.Money{Amount: 0, Currency: "USD"}},
	}
	for _, tt := range tests {
		got, err := units.ParseMoney(tt.in)
		if err != nil {
			t.Errorf("ParseMoney(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseMoney(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseMoneyBad(t *testing.T) {
	const expected = `an amount with a currency such as "389.00 USD"`
	for _, in := range []string{
		"12 usd", "USD EUR 3", "USD", "", "   ", "389USD", "EUR1", "3 USDX", "1.5.5 USD",
		"NaN USD", "Inf", "inf USD", "1e400 USD", "twelve USD", "$389", "389 $",
	} {
		_, err := units.ParseMoney(in)
		wantUnitsError(t, err, in, expected)
	}
}

// Thousands separators are accepted anywhere, so a European decimal comma
// silently changes the amount: "12,50 EUR" becomes 1250 EUR and
// "1.200,50 EUR" becomes 1.2005 EUR. Both should be rejected: a comma (or a
// space) must separate groups of exactly three digits before the decimal
// point.
func TestParseMoneyAmbiguousSeparators(t *testing.T) {
	for _, in := range []string{"12,50 EUR", "1.200,50 EUR", "1,2 EUR", "1 2 3 USD", "1 EUR 2"} {
		if m, err := units.ParseMoney(in); err == nil {
			t.Errorf("ParseMoney(%q) = %v, want an error (ambiguous digit grouping)", in, m)
		}
	}
}

func TestMoneyString(t *testing.T) {
	for _, tt := range []struct {
		m    units.Money
		want string
	}{
		{units.Money{Amount: 27000, Currency: "RUB"}, "27000.00 RUB"},
		{units.Money{Amount: 389, Currency: "USD"}, "389.00 USD"},
		{units.Money{Amount: 1.08}, "1.08"},
		{units.Money{Amount: -5, Currency: "USD"}, "-5.00 USD"},
	} {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.m, got, tt.want)
		}
		back, err := units.ParseMoney(tt.m.String())
		if err != nil || back != tt.m {
			t.Errorf("%+v -> %q -> %+v (%v)", tt.m, tt.m.String(), back, err)
		}
	}
}

func TestIsCurrencyCode(t *testing.T) {
	for s, want := range map[string]bool{"USD": true, "RUB": true, "EUR": true, "usd": false, "US": false, "USDX": false, "U$D": false, "": false} {
		if got := units.IsCurrencyCode(s); got != want {
			t.Errorf("IsCurrencyCode(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseRatio(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want units.Ratio
	}{
		{"25%", 0.25}, {"0.5", 0.5}, {"2.6", 2.6}, {"50 %", 0.5}, {" 20% ", 0.2}, {"100%", 1}, {"0", 0},
		// Range is the caller's business.
		{"-10%", -0.1}, {"300%", 3},
	} {
		got, err := units.ParseRatio(tt.in)
		if err != nil {
			t.Errorf("ParseRatio(%q): %v", tt.in, err)
			continue
		}
		if math.Abs(float64(got-tt.want)) > 1e-12 {
			t.Errorf("ParseRatio(%q) = %g, want %g", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"%", "abc", "", "NaN", "Inf", "1/2", "25%%", "half"} {
		_, err := units.ParseRatio(in)
		wantUnitsError(t, err, in, `a number such as "0.5"`)
	}
}

func TestParseDate(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"2026-03-01", "2026-03-01"},
		{"2026-03", "2026-03-01"},
		{" 2009-10-01 ", "2009-10-01"},
	} {
		got, err := units.ParseDate(tt.in)
		if err != nil {
			t.Errorf("ParseDate(%q): %v", tt.in, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("ParseDate(%q) = %s, want %s", tt.in, got, tt.want)
		}
		back, err := units.ParseDate(got.String())
		if err != nil || !back.Equal(got.Time) {
			t.Errorf("round trip of %q: %v (%v)", tt.in, back, err)
		}
	}
	for _, in := range []string{"2026", "2026-13-01", "2026-02-30", "01.03.2026", "", "March 2026", "2026/03/01"} {
		_, err := units.ParseDate(in)
		wantUnitsError(t, err, in, `a date such as "2026-03-01"`)
	}
	if (units.Date{}).String() != "" {
		t.Errorf("zero Date renders %q, want empty", units.Date{}.String())
	}
	var d units.Date
	if err := d.UnmarshalText(nil); err != nil || !d.IsZero() {
		t.Errorf("UnmarshalText(empty) = %v, %v; want zero date", d, err)
	}
}

// The YAML hooks parse through the same functions and report the node's
// position, which yamlx turns into file:line:column.
func TestUnmarshalYAMLPosition(t *testing.T) {
	type doc struct {
		Size  units.Bytes    `yaml:"size"`
		Time  units.Duration `yaml:"time"`
		Price units.Money    `yaml:"price"`
		Share units.Ratio    `yaml:"share"`
		Date  units.Date     `yaml:"date"`
	}
	good := "size: 48GiB\ntime: 6h30m\nprice: 389.00 USD\nshare: 25%\ndate: 2026-03-01\n"
	var v doc
	if err := yaml.Unmarshal([]byte(good), &v); err != nil {
		t.Fatal(err)
	}
	if v.Size != 48*units.GiB || v.Time.D() != 6*time.Hour+30*time.Minute || v.Price != (units.Money{Amount: 389, Currency: "USD"}) || v.Share != 0.25 || v.Date.String() != "2026-03-01" {
		t.Errorf("decoded %+v", v)
	}
	for _, tt := range []struct {
		yaml     string
		line     int
		col      int
		value    string
		expected string
	}{
		{"size: 48GiB\ntime: 8 hours\n", 2, 7, "8 hours", "a duration"},
		{"size: 48 gigs\n", 1, 7, "48 gigs", "a size"},
		{"time: 1h\nprice:   12 usd\n", 2, 10, "12 usd", "an amount"},
		{"share: half\n", 1, 8, "half", "a number"},
		{"date: yesterday\n", 1, 7, "yesterday", "a date"},
		{"size:\n  - 1GiB\n", 2, 3, "a list", "a size"},
		{"price: {amount: 3}\n", 1, 8, "a mapping", "an amount"},
	} {
		var v doc
		err := yaml.Unmarshal([]byte(tt.yaml), &v)
		var ue *units.Error
		if !errors.As(err, &ue) {
			t.Errorf("%q: error %v, want *units.Error", tt.yaml, err)
			continue
		}
		if ue.Line != tt.line || ue.Column != tt.col || ue.Value != tt.value || !strings.HasPrefix(ue.Expected, tt.expected) {
			t.Errorf("%q: got line %d col %d value %q expected %q; want %d:%d %q %q...", tt.yaml, ue.Line, ue.Column, ue.Value, ue.Expected, tt.line, tt.col, tt.value, tt.expected)
		}
	}
}

func TestMarshalText(t *testing.T) {
	b, _ := (48 * units.GiB).MarshalText()
	d, _ := units.Duration(75 * time.Microsecond).MarshalText()
	m, _ := units.Money{Amount: 389, Currency: "USD"}.MarshalText()
	if string(b) != "48GiB" || string(d) != "75us" || string(m) != "389.00 USD" {
		t.Errorf("MarshalText: %s %s %s", b, d, m)
	}
	var bb units.Bytes
	var dd units.Duration
	var mm units.Money
	if bb.UnmarshalText([]byte("48 gigs")) == nil || dd.UnmarshalText([]byte("-1h")) == nil || mm.UnmarshalText([]byte("12 usd")) == nil {
		t.Error("UnmarshalText accepted bad input")
	}
}

// Fuzzing. Properties: no panic; a successful parse is in range and its
// String form parses again; a failed parse is a *units.Error quoting the
// input.

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"48GiB", "1.92TB", "4096", "512MiB", "1e3GB", "48 gigs", "-1GiB", "1e400GB", "", "0.5B", "8EiB", "5e18", "+.5e-3KiB", "1e-400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := units.ParseBytes(s)
		if err != nil {
			checkFuzzUnitsError(t, s, err)
			return
		}
		if b < 0 || b > math.MaxInt64/2+1 {
			t.Fatalf("ParseBytes(%q) = %d, out of range", s, int64(b))
		}
		back, err := units.ParseBytes(b.String())
		if err != nil {
			t.Fatalf("ParseBytes(%q) = %d renders %q which does not parse: %v", s, int64(b), b.String(), err)
		}
		// String rounds to 0.1 of its unit at most.
		if diff := math.Abs(float64(back - b)); diff > 0.06*float64(b)+0.5 {
			t.Fatalf("ParseBytes(%q) = %d -> %q -> %d", s, int64(b), b.String(), int64(back))
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"6h", "75us", "1.7us", "3y", "1d12h", "2w", "8 hours", "-1h", "1.5d", "0", "", "5µs", "1y2d", "293y", "1e1d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := units.ParseDuration(s)
		if err != nil {
			checkFuzzUnitsError(t, s, err)
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %d, negative", s, int64(d))
		}
		if _, err := units.ParseDuration(d.String()); err != nil {
			t.Fatalf("ParseDuration(%q) = %d renders %q which does not parse: %v", s, int64(d), d.String(), err)
		}
	})
}

func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"389.00 USD", "25 000 RUB", "1,200.50 EUR", "USD 389", "389", "12 usd", "USD EUR 3", "-5 USD", "1e3 USD", "NaN USD", "0x1p3 USD", "1_000 RUB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := units.ParseMoney(s)
		if err != nil {
			checkFuzzUnitsError(t, s, err)
			return
		}
		if math.IsNaN(m.Amount) || math.IsInf(m.Amount, 0) {
			t.Fatalf("ParseMoney(%q) = %v, not finite", s, m.Amount)
		}
		if m.Currency != "" && !units.IsCurrencyCode(m.Currency) {
			t.Fatalf("ParseMoney(%q) currency %q is not a code", s, m.Currency)
		}
		back, err := units.ParseMoney(m.String())
		if err != nil {
			t.Fatalf("ParseMoney(%q) = %+v renders %q which does not parse: %v", s, m, m.String(), err)
		}
		if back.Currency != m.Currency || math.Abs(back.Amount-m.Amount) > 0.005+1e-12*math.Abs(m.Amount) {
			t.Fatalf("ParseMoney(%q) = %+v -> %q -> %+v", s, m, m.String(), back)
		}
	})
}

func checkFuzzUnitsError(t *testing.T, s string, err error) {
	t.Helper()
	var ue *units.Error
	if !errors.As(err, &ue) {
		t.Fatalf("%q: error %T, want *units.Error", s, err)
	}
	if ue.Value != s || ue.Expected == "" {
		t.Fatalf("%q: error %+v does not carry the input and what was expected", s, ue)
	}
	if utf8.ValidString(s) && !strings.Contains(err.Error(), ue.Expected) {
		t.Fatalf("%q: message %q omits what was expected", s, err.Error())
	}
}

func TestDateJSONRoundTrip(t *testing.T) {
	d, err := units.ParseDate("2026-03-01")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct{ D units.Date }{d})
	if err != nil || string(b) != `{"D":"2026-03-01"}` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back struct{ D units.Date }
	if err := json.Unmarshal(b, &back); err != nil || !back.D.Equal(d.Time) {
		t.Fatalf("unmarshal: %v %v", back.D, err)
	}
}

// An amount is held exactly: up to 15 significant digits, the float64 it
// parses to gives back the written decimal (Exact); more are refused
// rather than silently rounded.
func TestParseMoneyIsExact(t *testing.T) {
	for _, in := range []string{"0.1 USD", "9999999999.9999 USD", "0.011 USD", "12.3456 EUR", "1,200.05 EUR"} {
		m, err := units.ParseMoney(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		num := strings.ReplaceAll(strings.Fields(in)[0], ",", "")
		want, _ := new(big.Rat).SetString(num)
		if got := m.Exact(); got.Cmp(want) != 0 {
			t.Errorf("%q: Exact = %v, want %v", in, got.RatString(), want.RatString())
		}
	}
	for _, in := range []string{"1234567890.123456 USD", "0.1234567890123456 USD"} {
		if _, err := units.ParseMoney(in); err == nil || !strings.Contains(err.Error(), "at most 15 significant digits") {
			t.Errorf("%q: %v, want a refusal naming 15 significant digits", in, err)
		}
	}
}

// Money prints the cents it is priced at (half to even on the written
// decimal), not the float64's own rounding.
func TestMoneyStringIsThePricedCents(t *testing.T) {
	for in, want := range map[string]string{"0.165 USD": "0.16 USD", "0.155 USD": "0.16 USD", "0.125": "0.12", "389": "389.00", "-12.5 EUR": "-12.50 EUR", "99999999999 USD": "99999999999.00 USD"} {
		m, err := units.ParseMoney(in)
		if err != nil || m.String() != want {
			t.Errorf("%q: %q %v, want %q", in, m.String(), err, want)
		}
	}
}
