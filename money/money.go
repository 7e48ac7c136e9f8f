// Package money holds memplan's amounts of money exactly.
//
// An Amount is a whole number of hundredths of the currency unit (cents,
// kopecks) in an int64. Integer minor units were chosen over a decimal type
// (shopspring/decimal, apd) because every amount memplan reports is already
// a number of cents: sums and products by counts are then plain integer
// arithmetic, exact and independent of the order they are done in, ranking
// compares integers, and the bounds the inputs keep (MaxPrice per part,
// MaxFleet per fleet) sit three orders of magnitude inside int64, so
// overflow is a checked condition, not a precision question. The places
// where a fraction is unavoidable go through big.Rat and are rounded once,
// half to even, to the cent:
//
//   - a quoted price converted into the report currency (or quoted with
//     more than two decimals, e.g. a kit price divided by its modules):
//     Convert, at the unit price, before any count multiplies it;
//   - a derived amount from a physical estimate (electricity: kWh x price
//     per kWh over the horizon) or a scaled price (break-even and
//     uncertainty trial prices): FromRat / FromFloat, once per server
//     or per unit price;
//
// and every total after that point is exact. Ratios of amounts (savings
// percentages, break-even factors, price per GB) are not amounts and stay
// floating point.
//
// Arithmetic that leaves int64 does not wrap: it yields Invalid, which
// every operation propagates (like NaN) and which Valid reports, so a
// caller checks once at the end of a chain and turns it into an input
// error naming the field to fix.
package money

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Amount is an exact amount in hundredths of the currency unit. The
// currency travels beside it (a report has one currency).
type Amount int64

// Invalid is the result of an operation that left the range of Amount.
const Invalid Amount = math.MinInt64

// Bounds memplan keeps on its inputs and results, in whole currency units:
// no one part above MaxPrice, no fleet above MaxFleet. MaxFleet is 10^15
// cents, far inside int64 (9.2 x 10^18), and below 2^46 units, up to which
// Float prints back as exactly its cents. Bounded inputs can still multiply
// past int64 (the dearest part, 64 DIMMs, a million servers), which is why
// every product is checked and yields Invalid rather than wrapping.
const (
	MaxPrice = 1e10
	MaxFleet = 1e13
)

// Units is n whole currency units.
func Units(n int64) Amount { return Amount(0).addMul(n, 100) }

// Valid reports whether a is a real amount (no overflow on the way).
func (a Amount) Valid() bool { return a != Invalid }

// Add returns a+b, or Invalid when either is Invalid or the sum overflows.
func (a Amount) Add(b Amount) Amount {
	if a == Invalid || b == Invalid {
		return Invalid
	}
	s := a + b
	// Overflow when both operands have the same sign and the sum does not.
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
		return Invalid
	}
	if s == Invalid {
		return Invalid
	}
	return s
}

// Sub returns a-b (Invalid on overflow).
func (a Amount) Sub(b Amount) Amount {
	if b == Invalid {
		return Invalid
	}
	return a.Add(-b)
}

// Mul returns a x n, exactly, or Invalid on overflow: the cost of n parts.
func (a Amount) Mul(n int64) Amount { return Amount(0).addMul(int64(a), n) }

// addMul returns z + x*y, checking the product; x is an amount (Invalid
// propagates), y a count.
func (z Amount) addMul(x, y int64) Amount {
	if Amount(x) == Invalid || y == math.MinInt64 {
		return Invalid
	}
	neg := (x < 0) != (y < 0)
	ux, uy := abs64(x), abs64(y)
	hi, lo := bits.Mul64(ux, uy)
	if hi != 0 || lo > math.MaxInt64 {
		return Invalid
	}
	p := Amount(lo)
	if neg {
		p = -p
	}
	return z.Add(p)
}

func abs64(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// Sum adds amounts; Invalid if any is or the total overflows.
func Sum(xs ...Amount) Amount {
	var t Amount
	for _, x := range xs {
		t = t.Add(x)
	}
	return t
}

// Cmp compares a and b: -1, 0 or +1. Invalid compares above every real
// amount, so an overflowed cost never ranks as the cheapest.
func (a Amount) Cmp(b Amount) int {
	switch {
	case a == b:
		return 0
	case a == Invalid:
		return 1
	case b == Invalid:
		return -1
	case a < b:
		return -1
	}
	return 1
}

// Less reports whether a is below b (Invalid above everything).
func (a Amount) Less(b Amount) bool { return a.Cmp(b) < 0 }

// Cents is the amount in hundredths.
func (a Amount) Cents() int64 { return int64(a) }

// Float is the amount in currency units as the nearest float64, for
// outputs that are numbers (JSON, the workbook) and for ratios. Below 2^46
// units (7 x 10^13, beyond MaxFleet) float64 values are less than a cent
// apart, so the nearest one prints back (shortest decimal) as exactly
// these cents. Invalid is NaN.
func (a Amount) Float() float64 {
	if a == Invalid {
		return math.NaN()
	}
	return float64(a) / 100
}

// Rat is the amount in currency units, exactly.
func (a Amount) Rat() *big.Rat { return big.NewRat(int64(a), 100) }

// String renders "1234.50" ("-0.05", "invalid").
func (a Amount) String() string {
	if a == Invalid {
		return "invalid"
	}
	sign := ""
	u := abs64(int64(a))
	if a < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s%d.%02d", sign, u/100, u%100)
}

// FromRat rounds an exact number of currency units to the cent, half to
// even (Invalid beyond int64). It is memplan's one rounding rule.
func FromRat(r *big.Rat) Amount {
	c := new(big.Rat).Mul(r, big.NewRat(100, 1))
	q, m := new(big.Int).QuoRem(c.Num(), c.Denom(), new(big.Int))
	// |m| / denom compared with 1/2: 2|m| against denom.
	twice := new(big.Int).Abs(m)
	twice.Lsh(twice, 1)
	switch twice.Cmp(c.Denom()) {
	case 1:
		q.Add(q, big.NewInt(int64(m.Sign())))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(int64(m.Sign())))
		}
	}
	if !q.IsInt64() || Amount(q.Int64()) == Invalid {
		return Invalid
	}
	return Amount(q.Int64())
}

// FromFloat rounds the exact binary value of v (currency units) to the
// cent, half to even: for amounts derived from physical estimates. NaN and
// infinities are Invalid.
func FromFloat(v float64) Amount {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Invalid
	}
	return FromRat(new(big.Rat).SetFloat64(v))
}

// MulRat is a x r rounded half to even to the cent: a price converted at
// an exchange rate, or scaled by a factor.
func (a Amount) MulRat(r *big.Rat) Amount {
	if a == Invalid || r == nil {
		return Invalid
	}
	return FromRat(new(big.Rat).Mul(a.Rat(), r))
}

// Decimal parses a plain decimal number ("0.1", "-12", "1234.5678", "1e3")
// exactly.
func Decimal(s string) (*big.Rat, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "/") {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// Parse reads an amount in currency units ("389.00", "0.1") exactly; more
// than two decimals are an error (use Decimal and FromRat to round them
// deliberately).
func Parse(s string) (Amount, error) {
	r, ok := Decimal(s)
	if !ok {
		return Invalid, fmt.Errorf("%q is not a decimal amount", s)
	}
	a := FromRat(r)
	if !a.Valid() {
		return Invalid, fmt.Errorf("%q is too large an amount", s)
	}
	if a.Rat().Cmp(r) != 0 {
		return Invalid, fmt.Errorf("%q has more than two decimals; amounts are counted in cents", s)
	}
	return a, nil
}

// MarshalJSON writes the amount as a JSON number, byte for byte what
// encoding/json writes for Float(): a result file keeps its numbers.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a == Invalid {
		return nil, fmt.Errorf("money: an amount overflowed")
	}
	return json.Marshal(a.Float())
}

// UnmarshalJSON reads a JSON number exactly (half to even to the cent if
// it has more decimals than memplan writes).
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	r, ok := Decimal(s)
	if !ok || !json.Valid(b) || strings.HasPrefix(s, "\"") {
		// The decoder names the field; the caller finds the line.
		return &json.UnmarshalTypeError{Value: jsonKind(s), Type: reflect.TypeOf(0.0)}
	}
	v := FromRat(r)
	if !v.Valid() {
		return &json.UnmarshalTypeError{Value: "number " + s, Type: reflect.TypeOf(0.0)}
	}
	*a = v
	return nil
}

// jsonKind names the kind of a JSON value as encoding/json does in its
// type errors ("string", "bool", "object", "array").
func jsonKind(s string) string {
	switch {
	case strings.HasPrefix(s, "\""):
		return "string"
	case s == "true" || s == "false":
		return "bool"
	case strings.HasPrefix(s, "{"):
		return "object"
	case strings.HasPrefix(s, "["):
		return "array"
	}
	return "number " + s
}

// MarshalYAML writes the amount as the YAML number yaml.v3 writes for
// Float().
func (a Amount) MarshalYAML() (any, error) {
	if a == Invalid {
		return nil, fmt.Errorf("money: an amount overflowed")
	}
	return a.Float(), nil
}

// UnmarshalYAML reads a YAML number exactly.
func (a *Amount) UnmarshalYAML(n *yaml.Node) error {
	r, ok := Decimal(n.Value)
	if n.Kind != yaml.ScalarNode || !ok {
		return fmt.Errorf("line %d: expected an amount as a number, got %q", n.Line, n.Value)
	}
	v := FromRat(r)
	if !v.Valid() {
		return fmt.Errorf("line %d: amount %s is out of range", n.Line, n.Value)
	}
	*a = v
	return nil
}

// Exact is the decimal a float64 carries when it was parsed from a
// decimal of at most 15 significant digits (units.ParseMoney refuses
// more): such decimals map one to one onto float64 values, and the
// shortest decimal that reads back as v is the one written. So a quoted
// "0.1" is exactly 1/10 here, not the binary value nearest to it.
func Exact(v float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	if !ok {
		return nil
	}
	return r
}

// Cents is c hundredths of the currency unit.
func Cents(c int64) Amount { return Amount(c) }

// PerUnit is an exact price per unit of some quantity (a kWh), for
// amounts derived from a quantity that is itself an estimate in float64.
// The zero value is no price.
type PerUnit struct {
	r *big.Rat
	f float64 // r's nearest float64, for the fast path of Times
}

// NewPerUnit is the exact price r per unit (nil: no price).
func NewPerUnit(r *big.Rat) PerUnit {
	if r == nil {
		return PerUnit{}
	}
	f, _ := r.Float64()
	return PerUnit{r: new(big.Rat).Set(r), f: f}
}

// Priced reports whether p holds a price.
func (p PerUnit) Priced() bool { return p.r != nil }

// Rat is the exact price (nil when not priced).
func (p PerUnit) Rat() *big.Rat { return p.r }

// Times is the exact product of q (the float64's exact binary value) and
// the price, rounded half to even to the cent: the same result as
// FromRat(q x r). It is computed in float64 when that provably gives the
// same cent (the product's relative error, below 4 x 2^-53, cannot reach a
// tie that far away), and exactly otherwise; memplan prices power this
// way once per evaluated configuration, where big.Rat would dominate.
func (p PerUnit) Times(q float64) Amount {
	if p.r == nil {
		return 0
	}
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return Invalid
	}
	c := q * p.f * 100
	if a := math.Abs(c); a < 1<<52 {
		frac := a - math.Floor(a)
		if math.Abs(frac-0.5) > a*1e-15+1e-12 {
			return Amount(math.RoundToEven(c))
		}
	}
	return FromRat(new(big.Rat).Mul(new(big.Rat).SetFloat64(q), p.r))
}
