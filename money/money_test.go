package money_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memplan/memplan/money"
	"gopkg.in/yaml.v3"
)

func TestParseIsExact(t *testing.T) {
	a, err := money.Parse("0.1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := money.Parse("0.2")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := money.Parse("0.3")
	// The float64 sum is 0.30000000000000004; cents are not.
	if a.Add(b) != c || a.Add(b).String() != "0.30" {
		t.Errorf("0.1 + 0.2 = %v, want exactly 0.30", a.Add(b))
	}
	for in, want := range map[string]int64{"389.00": 38900, "389": 38900, "-12.5": -1250, "10000000000": 1e12, "0.07": 7} {
		if got, err := money.Parse(in); err != nil || got.Cents() != want {
			t.Errorf("Parse(%q) = %v, %v; want %d cents", in, got, err, want)
		}
	}
	for _, in := range []string{"389.005", "abc", "", "1/3", "1e30"} {
		if _, err := money.Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}

func TestFromRatRoundsHalfToEven(t *testing.T) {
	for _, tc := range []struct {
		num, den int64
		want     int64 // cents
	}{
		{1, 200, 0},        // 0.005 -> 0.00 (even)
		{3, 200, 2},        // 0.015 -> 0.02 (even)
		{5, 200, 2},        // 0.025 -> 0.02
		{-5, 200, -2},      // -0.025 -> -0.02
		{-3, 200, -2},      // -0.015 -> -0.02
		{1, 3, 33},         // 0.333.. -> 0.33
		{2, 3, 67},         // 0.666.. -> 0.67
		{-2, 3, -67},       //
		{10001, 200, 5000}, // 50.005 -> 50.00
		{10003, 200, 5002}, // 50.015 -> 50.02
	} {
		if got := money.FromRat(big.NewRat(tc.num, tc.den)); got.Cents() != tc.want {
			t.Errorf("FromRat(%d/%d) = %d cents, want %d", tc.num, tc.den, got.Cents(), tc.want)
		}
	}
}

// Converting at a rate: the exact product, half to even to the cent, once.
func TestConversion(t *testing.T) {
	rate, _ := money.Decimal("1.08") // one EUR buys 1.08 USD
	eur := money.Units(12500)
	if got := eur.MulRat(rate); got != money.Units(13500) {
		t.Errorf("12500 EUR at 1.08 = %v USD, want 13500.00", got)
	}
	// The other way is the exact inverse, 100/108, not 1/1.08 in float64.
	inv := new(big.Rat).Inv(rate)
	if got := money.Units(13500).MulRat(inv); got != money.Units(12500) {
		t.Errorf("13500 USD at 1/1.08 = %v EUR, want 12500.00", got)
	}
	// 100 USD in EUR = 92.592592.. -> 92.59.
	if got := money.Units(100).MulRat(inv); got.Cents() != 9259 {
		t.Errorf("100 USD at 1/1.08 = %v, want 92.59", got)
	}
	// A tie goes to the even cent: 0.25 at 0.5 is 0.125 -> 0.12; 0.35 -> 0.175 -> 0.18.
	half := big.NewRat(1, 2)
	if a, b := money.Cents(25).MulRat(half), money.Cents(35).MulRat(half); a.Cents() != 12 || b.Cents() != 18 {
		t.Errorf("half of 0.25 and 0.35 = %v, %v; want 0.12 and 0.18", a, b)
	}
}

func TestOverflowIsInvalidNotWrapped(t *testing.T) {
	max := money.Cents(math.MaxInt64)
	for name, got := range map[string]money.Amount{
		"add":       max.Add(money.Cents(1)),
		"sub":       money.Cents(math.MinInt64 + 1).Sub(money.Cents(2)),
		"mul":       money.Units(money.MaxPrice).Mul(1e9),
		"mul neg":   money.Units(-money.MaxPrice).Mul(1e9),
		"units":     money.Units(math.MaxInt64 / 10),
		"propagate": money.Invalid.Add(money.Cents(1)).Mul(2),
		"rat":       money.FromRat(new(big.Rat).SetFloat64(1e30)),
		"nan":       money.FromFloat(math.NaN()),
	} {
		if got.Valid() {
			t.Errorf("%s: %v, want Invalid", name, got)
		}
	}
	// The bounds memplan keeps cannot overflow: the dearest part times the
	// largest fleet times a full server of parts stays far inside int64.
	if got := money.Units(money.MaxPrice).Mul(1_000_000); !got.Valid() || got.Cents() != 1e18 {
		t.Errorf("the dearest part for a million servers: %v", got)
	}
	// ... but 64 of them per server would not fit: checked, not wrapped.
	if got := money.Units(money.MaxPrice).Mul(1_000_000).Mul(64); got.Valid() {
		t.Errorf("64 x 10^16 units: %v, want Invalid", got)
	}
	if money.Invalid.Less(money.Cents(math.MaxInt64)) || !money.Cents(1).Less(money.Invalid) {
		t.Error("Invalid must compare above every amount")
	}
}

// Summing many line items in any order gives the same total, to the cent,
// and the total equals the math/big sum.
func TestSumIsOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(500)
		items := make([]money.Amount, n)
		exact := new(big.Int)
		for i := range items {
			// Prices up to MaxPrice with random cents, times counts up to 64.
			p := money.Cents(rng.Int64N([]int64{1e5, 1e9, int64(money.MaxPrice) * 100}[trial%3]))
			k := int64(1 + rng.IntN(64))
			items[i] = p.Mul(k)
			exact.Add(exact, new(big.Int).Mul(big.NewInt(p.Cents()), big.NewInt(k)))
		}
		want := money.Sum(items...)
		if !want.Valid() || want.Cents() != exact.Int64() {
			t.Fatalf("sum %v, math/big %s", want, exact)
		}
		for shuffle := 0; shuffle < 5; shuffle++ {
			rng.Shuffle(n, func(i, j int) { items[i], items[j] = items[j], items[i] })
			if got := money.Sum(items...); got != want {
				t.Fatalf("order %d: sum %v, want %v", shuffle, got, want)
			}
		}
		// The float64 way, for contrast, is order-dependent in general;
		// the exact total's float64 still prints as the exact cents.
		if got := want.Float(); math.Abs(got) <= money.MaxFleet && strings.TrimRight(strings.TrimRight(want.String(), "0"), ".") != trimFloat(got) {
			t.Fatalf("Float %v does not print back as %v", got, want)
		}
	}
}

func trimFloat(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// JSON and YAML write amounts as the numbers encoding/json and yaml.v3
// write for the float64, and read them back exactly.
func TestMarshalKeepsNumbers(t *testing.T) {
	for _, a := range []money.Amount{money.Cents(45550), money.Units(232200000), money.Cents(-30120), money.Cents(7), 0, money.Units(1e13)} {
		j, err := json.Marshal(a)
		f, _ := json.Marshal(a.Float())
		if err != nil || string(j) != string(f) {
			t.Errorf("JSON %v: %s, want %s", a, j, f)
		}
		var back money.Amount
		if err := json.Unmarshal(j, &back); err != nil || back != a {
			t.Errorf("JSON round trip %v: %v %v", a, back, err)
		}
		y, err := yaml.Marshal(a)
		fy, _ := yaml.Marshal(a.Float())
		if err != nil || string(y) != string(fy) {
			t.Errorf("YAML %v: %s, want %s", a, y, fy)
		}
		var yb money.Amount
		if err := yaml.Unmarshal(y, &yb); err != nil || yb != a {
			t.Errorf("YAML round trip %v: %v %v", a, yb, err)
		}
	}
	if _, err := json.Marshal(money.Invalid); err == nil {
		t.Error("an Invalid amount was written")
	}
}

// Exact recovers the decimal a float64 was parsed from.
func TestExactRecoversTheWrittenDecimal(t *testing.T) {
	for _, s := range []string{"0.1", "0.011", "1.08", "12.3456", "9999999999.9999", "0.15", "27000"} {
		want, _ := new(big.Rat).SetString(s)
		var v float64
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		if got := money.Exact(v); got == nil || got.Cmp(want) != 0 {
			t.Errorf("Exact(%s) = %v, want %v", s, got, want)
		}
	}
}

// PerUnit.Times agrees with the exact product rounded once, including at
// and next to ties, where the float64 fast path must step aside.
func TestPerUnitTimesIsTheExactProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prices := []string{"0.15", "3.5", "0.123456", "0.5", "0.001", "150", "0.333333333333333"}
	for _, ps := range prices {
		r, _ := money.Decimal(ps)
		p := money.NewPerUnit(r)
		qs := []float64{0, 1, 0.05, 0.01, 0.03, 16151.7, 0.439 * 26280 * 1.4, 1e9, 12345.675}
		for i := 0; i < 2000; i++ {
			qs = append(qs, rng.Float64()*1e6, float64(rng.IntN(1e6))/100, float64(rng.IntN(1e7))/1000)
		}
		for _, q := range qs {
			want := money.FromRat(new(big.Rat).Mul(new(big.Rat).SetFloat64(q), r))
			if got := p.Times(q); got != want {
				t.Fatalf("%v kWh x %s = %v, exact %v", q, ps, got, want)
			}
		}
	}
	// 0.05 x 0.5 = 0.025 exactly in decimal, but the float64 0.05 is a
	// little above it, so the exact product rounds up: the fast path
	// must not call it a tie.
	half, _ := money.Decimal("0.5")
	if got, want := money.NewPerUnit(half).Times(0.05), money.FromRat(new(big.Rat).Mul(new(big.Rat).SetFloat64(0.05), half)); got != want {
		t.Errorf("0.05 x 0.5 = %v, exact %v", got, want)
	}
	if (money.PerUnit{}).Times(5) != 0 || (money.PerUnit{}).Priced() {
		t.Error("the zero PerUnit prices nothing")
	}
}

// A value that is not a number is a type error the JSON decoder can place.
func TestUnmarshalJSONTypeError(t *testing.T) {
	var v struct {
		Cost money.Amount `json:"cost"`
	}
	for in, kind := range map[string]string{`{"cost": "12.5"}`: "string", `{"cost": true}`: "bool", `{"cost": [1]}`: "array"} {
		err := json.Unmarshal([]byte(in), &v)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Value != kind || te.Field != "cost" {
			t.Errorf("%s: %v, want a type error for field cost, value %s", in, err, kind)
		}
	}
	if err := json.Unmarshal([]byte(`{"cost": 12.345}`), &v); err != nil || v.Cost.Cents() != 1234 {
		t.Errorf("12.345 read as %v (%v), want 12.34 (half to even)", v.Cost, err)
	}
}
