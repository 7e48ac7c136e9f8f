package units

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/money"
	"gopkg.in/yaml.v3"
)

// Error is a value that could not be parsed as the expected unit. Line and
// Column locate it in a YAML document when it came from one (zero otherwise).
type Error struct {
	Line, Column int
	Value        string
	Expected     string
	// Problem, when set, says what is wrong with a value that has the
	// right shape (a number without its unit) instead of "expected ...".
	Problem string
}

func (e *Error) Error() string {
	if e.Problem != "" {
		return fmt.Sprintf("%q: %s", e.Value, e.Problem)
	}
	return fmt.Sprintf("%q is not %s", e.Value, e.Expected)
}

// Is makes every unit error bad input (usage.ErrInput): a value that does
// not parse is always the person's to fix.
func (e *Error) Is(target error) bool { return target == usage.ErrInput }

func nodeError(n *yaml.Node, expected string) error {
	return &Error{Line: n.Line, Column: n.Column, Value: n.Value, Expected: expected}
}

func scalar(n *yaml.Node, expected string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", &Error{Line: n.Line, Column: n.Column, Value: kindName(n.Kind), Expected: expected}
	}
	return strings.TrimSpace(n.Value), nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// Bytes is a size in bytes. Binary suffixes (KiB, MiB, GiB, TiB) are powers
// of 1024; decimal ones (KB, MB, GB, TB) powers of 1000, as drive vendors use
// them. ParseBytes reads a bare number as bytes (flags, JSON); a YAML file
// must write the unit (UnmarshalYAML).
type Bytes int64

const (
	KiB Bytes = 1 << 10
	MiB Bytes = 1 << 20
	GiB Bytes = 1 << 30
	TiB Bytes = 1 << 40
)

var byteSuffixes = []struct {
	s string
	m float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"PiB", 1 << 50},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15},
	{"B", 1},
}

const bytesExpected = `a size such as "48GiB", "960GB" or "512MiB" (KiB/MiB/GiB/TiB are binary, KB/MB/GB/TB decimal)`

// ParseBytes parses "48GiB", "1.92 TB", "4096".
func ParseBytes(s string) (Bytes, error) {
	t := strings.TrimSpace(s)
	num, suf := splitNumber(t)
	if num == "" {
		return 0, &Error{Value: s, Expected: bytesExpected}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, &Error{Value: s, Expected: bytesExpected}
	}
	mult := 0.0
	if suf == "" {
		mult = 1
	}
	for _, bs := range byteSuffixes {
		if strings.EqualFold(suf, bs.s) && (suf == bs.s || strings.EqualFold(bs.s, "B")) {
			mult = bs.m
			break
		}
	}
	if mult == 0 {
		return 0, &Error{Value: s, Expected: bytesExpected}
	}
	b := v * mult
	if b > math.MaxInt64/2 {
		return 0, &Error{Value: s, Expected: bytesExpected + " no larger than 4 EiB"}
	}
	return Bytes(math.Round(b)), nil
}

func splitNumber(t string) (num, suffix string) {
	i := 0
	for i < len(t) && (unicode.IsDigit(rune(t[i])) || t[i] == '.' || t[i] == '-' || t[i] == '+' || t[i] == 'e' && i > 0 && i+1 < len(t) && (unicode.IsDigit(rune(t[i+1])) || t[i+1] == '-')) {
		i++
	}
	return t[:i], strings.TrimSpace(t[i:])
}

// GiBf returns the size in GiB as a float, for display and arithmetic.
func (b Bytes) GiBf() float64 { return float64(b) / float64(GiB) }

// String renders the size with a binary suffix, trimmed of needless zeros.
func (b Bytes) String() string {
	var buf [24]byte
	return string(b.AppendString(buf[:0]))
}

// AppendString appends String's text to dst: a caller building a longer
// label allocates once for the whole of it.
func (b Bytes) AppendString(dst []byte) []byte {
	abs := b
	if abs < 0 {
		abs = -abs
	}
	switch {
	case abs >= 1024*TiB:
		return append(appendTrimmed(dst, float64(b)/float64(1024*TiB), 2), "PiB"...)
	case abs >= TiB && (abs*100)%TiB == 0 || abs >= 10*TiB:
		return append(appendTrimmed(dst, float64(b)/float64(TiB), 2), "TiB"...)
	case abs >= GiB:
		return append(appendTrimmed(dst, float64(b)/float64(GiB), 1), "GiB"...)
	case abs >= MiB:
		return append(appendTrimmed(dst, float64(b)/float64(MiB), 1), "MiB"...)
	case abs >= KiB:
		return append(appendTrimmed(dst, float64(b)/float64(KiB), 1), "KiB"...)
	}
	return append(strconv.AppendInt(dst, int64(b), 10), 'B')
}

// appendTrimmed is trimFloat appending to dst.
func appendTrimmed(dst []byte, f float64, prec int) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', prec, 64)
	if bytes.IndexByte(dst[n:], '.') < 0 {
		return dst
	}
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	return dst
}

// DecimalString renders the size with a decimal suffix (drive capacities).
func (b Bytes) DecimalString() string {
	f := float64(b)
	switch {
	case f >= 1e12:
		return trimFloat(f/1e12, 2) + "TB"
	case f >= 1e9:
		return trimFloat(f/1e9, 1) + "GB"
	case f >= 1e6:
		return trimFloat(f/1e6, 1) + "MB"
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

func trimFloat(f float64, prec int) string {
	s := strconv.FormatFloat(f, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, bytesExpected)
	if err != nil {
		return err
	}
	v, err := ParseBytes(s)
	if err != nil {
		return nodeError(n, bytesExpected)
	}
	// In a file a person wrote, "footprint: 48" almost never means 48
	// bytes: refuse a bare number rather than read it silently. Zero is
	// zero in every unit.
	if num, suf := splitNumber(s); suf == "" && v != 0 {
		return &Error{Line: n.Line, Column: n.Column, Value: n.Value, Expected: bytesExpected,
			Problem: fmt.Sprintf("a size needs a unit, e.g. %sGiB or %sGB (KiB/MiB/GiB/TiB are binary, KB/MB/GB/TB decimal; %sB if you mean bytes)", num, num, num)}
	}
	*b = v
	return nil
}

func (b Bytes) MarshalYAML() (any, error) { return b.String(), nil }
func (b Bytes) MarshalText() ([]byte, error) {
	return []byte(b.String()), nil
}
func (b *Bytes) UnmarshalText(t []byte) error {
	v, err := ParseBytes(string(t))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Duration is a span of time. It accepts Go's units (ns, us, µs, ms, s, m, h)
// and also d (24h), w (7d) and y (365d), e.g. "6h", "75us", "1d12h", "3y".
type Duration time.Duration

// maxDuration keeps sums of days and years far from int64 nanosecond overflow
// (about 292 years).
const (
	maxDuration = 200 * 365 * 24 * time.Hour
	maxDays     = 200 * 365
)

const durationExpected = `a duration such as "8h", "6h30m", "75us" or "2d" (units ns, us, ms, s, m, h, d, w, y)`

// ParseDuration parses a non-negative duration.
func ParseDuration(s string) (Duration, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if t == "" {
		return 0, &Error{Value: s, Expected: durationExpected}
	}
	var extra time.Duration
	// Peel off leading day/week components Go does not know.
	for {
		num, rest := splitNumber(t)
		if num == "" || rest == "" || (rest[0] != 'd' && rest[0] != 'w' && rest[0] != 'y') {
			break
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v < 0 {
			return 0, &Error{Value: s, Expected: durationExpected}
		}
		unit := 24 * time.Hour
		if v > maxDays {
			return 0, tooLong(s)
		}
		switch rest[0] {
		case 'w':
			unit *= 7
		case 'y':
			unit *= 365
		}
		extra += time.Duration(v * float64(unit))
		t = rest[1:]
		if t == "" {
			break
		}
	}
	var d time.Duration
	if t != "" {
		var err error
		d, err = time.ParseDuration(t)
		if err != nil || d < 0 {
			return 0, &Error{Value: s, Expected: durationExpected}
		}
	}
	if extra < 0 || d+extra < d || d+extra > maxDuration {
		return 0, tooLong(s)
	}
	return Duration(d + extra), nil
}

// tooLong is a duration written well but beyond what memplan takes: the
// bound is the problem, not the form.
func tooLong(s string) error {
	const most = "a duration of at most 200 years"
	return &Error{Value: s, Expected: most, Problem: "too long: expected " + most}
}

func (d Duration) D() time.Duration { return time.Duration(d) }
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }
func (d Duration) Hours() float64   { return time.Duration(d).Hours() }

// String renders compactly: "7h48m", "75us", "1.7us".
func (d Duration) String() string {
	td := time.Duration(d)
	switch {
	case td == 0:
		return "0s"
	case td < time.Microsecond:
		return strconv.FormatInt(int64(td), 10) + "ns"
	case td < time.Millisecond:
		return trimFloat(float64(td)/float64(time.Microsecond), 2) + "us"
	case td < time.Second:
		return trimFloat(float64(td)/float64(time.Millisecond), 2) + "ms"
	case td < time.Minute:
		return trimFloat(td.Seconds(), 2) + "s"
	}
	td = td.Round(time.Second)
	h := int64(td / time.Hour)
	m := int64(td % time.Hour / time.Minute)
	sec := int64(td % time.Minute / time.Second)
	var sb strings.Builder
	if h > 0 {
		fmt.Fprintf(&sb, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&sb, "%dm", m)
	}
	if sec > 0 && h == 0 {
		fmt.Fprintf(&sb, "%ds", sec)
	}
	if sb.Len() == 0 {
		return "0s"
	}
	return sb.String()
}

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, durationExpected)
	if err != nil {
		return err
	}
	v, err := ParseDuration(s)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Problem != "" {
			return &Error{Line: n.Line, Column: n.Column, Value: n.Value, Expected: e.Expected, Problem: e.Problem}
		}
		return nodeError(n, durationExpected)
	}
	*d = v
	return nil
}
func (d Duration) MarshalYAML() (any, error)    { return d.String(), nil }
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
func (d *Duration) UnmarshalText(t []byte) error {
	v, err := ParseDuration(string(t))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Money is an amount in a currency (ISO 4217 code, e.g. USD, RUB, EUR).
// In a catalog a bare number takes the catalog's currency; the loader fills
// it in, so after loading every Money carries its currency.
type Money struct {
	Amount   float64
	Currency string
}

const moneyExpected = `an amount with a currency such as "389.00 USD" or "25000 RUB" (or a bare number in the catalog's currency)`

// ParseMoney parses "389.00 USD", "USD 389", "25 000 RUB", "1,200.50 EUR" or a
// bare number (Currency left empty).
func ParseMoney(s string) (Money, error) {
	t := strings.TrimSpace(s)
	fields := strings.Fields(t)
	var cur string
	var numParts []string
	for _, f := range fields {
		if isCurrencyCode(f) {
			if cur != "" {
				return Money{}, &Error{Value: s, Expected: moneyExpected}
			}
			cur = f
			continue
		}
		numParts = append(numParts, f)
	}
	num, ok := ungroup(strings.Join(numParts, " "))
	if !ok {
		return Money{}, &Error{Value: s, Expected: moneyExpected + "; thousands may be grouped only in threes with ',' or spaces, and '.' is the decimal point"}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Money{}, &Error{Value: s, Expected: moneyExpected}
	}
	if significantDigits(num) > MaxMoneyDigits {
		return Money{}, &Error{Value: s, Expected: fmt.Sprintf("an amount of at most %d significant digits, which memplan holds exactly (round it to the cent, e.g. %s)", MaxMoneyDigits, strconv.FormatFloat(v, 'f', 2, 64))}
	}
	return Money{Amount: v, Currency: cur}, nil
}

// MaxMoneyDigits bounds the significant digits of a written amount. Up to
// 15, distinct decimals are distinct float64 values and the shortest
// decimal that reads back as the float64 is the one written (see Exact),
// so Money.Amount carries the written decimal without loss; memplan never
// does arithmetic on it.
const MaxMoneyDigits = 15

// significantDigits counts the digits of a decimal from its first to its
// last non-zero one ("0.0120" has 2, "1200" has 2, "1e3" has 1).
func significantDigits(num string) int {
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		num = num[:i]
	}
	first, last, n := -1, -1, 0
	for _, r := range num {
		if r < '0' || r > '9' {
			continue
		}
		if r != '0' {
			if first < 0 {
				first = n
			}
			last = n
		}
		n++
	}
	if first < 0 {
		return 0
	}
	return last - first + 1
}

// Exact is the amount as written, exactly: "0.1" is 1/10, not the float64
// nearest to it.
func (m Money) Exact() *big.Rat { return money.Exact(m.Amount) }

// ungroup removes thousands separators (',', ' ' or '_') from an amount,
// accepting them only between groups of exactly three digits, so "12,50" or
// "1.200,50" (European notation) is refused rather than misread.
func ungroup(t string) (string, bool) {
	t = strings.TrimSpace(t)
	sign := ""
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		sign, t = t[:1], strings.TrimSpace(t[1:])
	}
	intPart, frac := t, ""
	if i := strings.IndexByte(t, '.'); i >= 0 {
		intPart, frac = t[:i], t[i:]
		if strings.ContainsAny(frac, ", _") {
			return "", false
		}
	}
	groups := strings.FieldsFunc(intPart, func(r rune) bool { return r == ',' || r == ' ' || r == '_' })
	if len(groups) == 0 {
		if intPart == "" && frac != "" {
			return sign + "0" + frac, true
		}
		return "", false
	}
	if len(groups) > 1 {
		// Separators must be single and between digits.
		if strings.Join(groups, "") != strings.NewReplacer(",", "", " ", "", "_", "").Replace(intPart) ||
			strings.Contains(intPart, ",,") || strings.Contains(intPart, "  ") || strings.HasPrefix(intPart, ",") || strings.HasSuffix(intPart, ",") {
			return "", false
		}
		if len(groups[0]) < 1 || len(groups[0]) > 3 {
			return "", false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return "", false
			}
		}
	}
	return sign + strings.Join(groups, "") + frac, true
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// IsCurrencyCode reports whether s looks like an ISO 4217 code (three capitals).
func IsCurrencyCode(s string) bool { return isCurrencyCode(s) }

func (m *Money) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, moneyExpected)
	if err != nil {
		return err
	}
	v, err := ParseMoney(s)
	if err != nil {
		// Keep ParseMoney's own wording (grouping, significant digits).
		exp := moneyExpected
		if e, ok := err.(*Error); ok && e.Expected != "" {
			exp = e.Expected
		}
		return nodeError(n, exp)
	}
	*m = v
	return nil
}

// String renders "27000.00 RUB": the written amount to the cent, half to
// even, as memplan prices it (money.FromRat), so "0.165" shows 0.16 as it
// is priced, not 0.17 as the float64 nearest to it would print.
func (m Money) String() string {
	v := strconv.FormatFloat(m.Amount, 'f', 2, 64)
	if a := money.FromRat(m.Exact()); a.Valid() {
		v = a.String()
	}
	if m.Currency == "" {
		return v
	}
	return v + " " + m.Currency
}
func (m Money) MarshalYAML() (any, error)    { return m.String(), nil }
func (m Money) MarshalText() ([]byte, error) { return []byte(m.String()), nil }
func (m *Money) UnmarshalText(t []byte) error {
	v, err := ParseMoney(string(t))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Ratio is a dimensionless fraction. It accepts "50%", "0.5" or "2.5" (for
// compression ratios, values above 1 are allowed; callers validate range).
type Ratio float64

const ratioExpected = `a number such as "0.5", "2.6" or a percentage such as "25%"`

func ParseRatio(s string) (Ratio, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &Error{Value: s, Expected: ratioExpected}
	}
	if pct {
		v /= 100
	}
	return Ratio(v), nil
}

func (r *Ratio) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, ratioExpected)
	if err != nil {
		return err
	}
	v, err := ParseRatio(s)
	if err != nil {
		return nodeError(n, ratioExpected)
	}
	*r = v
	return nil
}

// Date is a calendar day, written 2026-03-01 (or 2026-03 for a month).
type Date struct{ time.Time }

const dateExpected = `a date such as "2026-03-01" or "2026-03"`

func ParseDate(s string) (Date, error) {
	t := strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", "2006-01"} {
		if v, err := time.Parse(layout, t); err == nil {
			return Date{v}, nil
		}
	}
	return Date{}, &Error{Value: s, Expected: dateExpected}
}

func (d *Date) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, dateExpected)
	if err != nil {
		return err
	}
	v, err := ParseDate(s)
	if err != nil {
		return nodeError(n, dateExpected)
	}
	*d = v
	return nil
}
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Format("2006-01-02")
}
func (d Date) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON writes "2026-03-01"; without it time.Time's method, promoted
// through the embedding, would write a timestamp the loaders refuse.
func (d Date) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(d.String())), nil }

func (d *Date) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return &Error{Value: string(b), Expected: dateExpected}
	}
	return d.UnmarshalText([]byte(s))
}
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
func (d *Date) UnmarshalText(t []byte) error {
	if len(t) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(t))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
