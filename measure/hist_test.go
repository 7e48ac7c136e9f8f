package measure

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestHistSmallValuesAreExact(t *testing.T) {
	var h Hist
	for v := int64(1); v <= 100; v++ {
		h.Add(v)
	}
	got := h.Quantiles(0.01, 0.5, 0.99, 0.999, 1)
	want := []float64{1, 50, 99, 100, 100}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("quantile %d: got %g, want %g", i, got[i], want[i])
		}
	}
	if h.n != 100 || h.min != 1 || h.max != 100 || h.mean != 50.5 {
		t.Errorf("n=%d min=%d max=%d mean=%g, want 100 1 100 50.5", h.n, h.min, h.max, h.mean)
	}
}

func TestHistAgreesWithGonum(t *testing.T) {
	// Log-normal latencies around 80 us with a tail into milliseconds, the
	// shape of an SSD's.
	rng := rand.New(rand.NewPCG(1, 2))
	var h Hist
	xs := make([]float64, 200_000)
	for i := range xs {
		v := int64(math.Exp(math.Log(80e3) + 0.6*rng.NormFloat64()))
		xs[i] = float64(v)
		h.Add(v)
	}
	sort.Float64s(xs)
	qs := []float64{0.5, 0.9, 0.99, 0.999, 0.9999}
	got := h.Quantiles(qs...)
	for i, q := range qs {
		want := stat.Quantile(q, stat.Empirical, xs, nil)
		if rel := math.Abs(got[i]-want) / want; rel > 0.008 {
			t.Errorf("p%g: histogram %g, exact %g (%.2f%% off, want < 0.8%%)", q*100, got[i], want, rel*100)
		}
	}
	m, sd := stat.MeanStdDev(xs, nil)
	s := h.Summary()
	if math.Abs(s.MeanUs*1e3-m) > 10 || math.Abs(s.StddevUs*1e3-sd) > 10 {
		t.Errorf("mean %g sd %g us, want %g %g", s.MeanUs, s.StddevUs, m/1e3, sd/1e3)
	}
	var total int64
	prev := 0.0
	for _, b := range s.Buckets {
		if b.UpToUs <= prev {
			t.Errorf("bucket bounds not increasing: %g after %g", b.UpToUs, prev)
		}
		prev = b.UpToUs
		total += b.Count
	}
	if total != s.Count || s.Count != int64(len(xs)) {
		t.Errorf("buckets hold %d, count %d, want %d", total, s.Count, len(xs))
	}
	if last := s.Buckets[len(s.Buckets)-1].UpToUs; last < s.MaxUs {
		t.Errorf("last bucket ends at %g us, below the maximum %g us", last, s.MaxUs)
	}
}

func TestHistBucketsCoverEveryValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		v := rng.Int64N(1 << uint(rng.IntN(62)+1))
		i := histIndex(v)
		lo, hi := histBounds(i)
		if v < lo || v > hi {
			t.Fatalf("%d in bucket %d [%d, %d]", v, i, lo, hi)
		}
		if w := hi - lo + 1; v >= 128 && float64(w) > float64(lo)/64 {
			t.Fatalf("bucket %d [%d, %d] is wider than 1/64 of its values", i, lo, hi)
		}
	}
	if i := histIndex(math.MaxInt64); i >= histBuckets {
		t.Fatalf("MaxInt64 maps to bucket %d of %d", i, histBuckets)
	}
}

func TestHistMerge(t *testing.T) {
	var all, a, b Hist
	for v := int64(1); v < 5000; v += 7 {
		all.Add(v * 13)
		if v%2 == 0 {
			a.Add(v * 13)
		} else {
			b.Add(v * 13)
		}
	}
	var m Hist
	m.Merge(&a)
	m.Merge(&b)
	if m.counts != all.counts || m.n != all.n || m.min != all.min || m.max != all.max {
		t.Fatal("merged histogram differs from the one fed everything")
	}
	if math.Abs(m.mean-all.mean) > 1e-6 || math.Abs(m.m2-all.m2)/all.m2 > 1e-9 {
		t.Errorf("merged mean/m2 %g/%g, want %g/%g", m.mean, m.m2, all.mean, all.m2)
	}
}

func TestHistJSONAndAbove(t *testing.T) {
	var h Hist
	for v := int64(100); v < 200; v++ {
		h.Add(v) // in-RAM touches: 100-199ns
	}
	h.AddN(20_000, 10) // faults: 20us
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var back Hist
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != h {
		t.Fatalf("round trip through %s changed the histogram", b)
	}
	f := back.Above(2000)
	s := f.Summary()
	if f.Count() != 10 || s.P50Us < 19.8 || s.P50Us > 20.2 {
		t.Errorf("above 2us: %d values, p50 %gus; want 10 at 20us", f.Count(), s.P50Us)
	}
	if err := json.Unmarshal([]byte(`{"b":[[99999,1]]}`), &back); err == nil {
		t.Error("a bucket out of range was accepted")
	}
}

// TestHistAddNIsAddRepeated: adding a group of equal values at once gives
// the histogram n single adds give.
func TestHistAddNIsAddRepeated(t *testing.T) {
	var a, b Hist
	for _, v := range []int64{150, 90, 3000} {
		a.Add(v)
		b.Add(v)
	}
	a.AddN(20_000, 7)
	for range 7 {
		b.Add(20_000)
	}
	a.AddN(5, 0)
	if a.counts != b.counts || a.n != b.n || a.min != b.min || a.max != b.max ||
		math.Abs(a.mean-b.mean) > 1e-9*b.mean || math.Abs(a.m2-b.m2) > 1e-9*b.m2 {
		t.Errorf("AddN: n %d mean %g m2 %g; repeated Add: n %d mean %g m2 %g", a.n, a.mean, a.m2, b.n, b.mean, b.m2)
	}
}
