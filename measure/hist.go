package measure

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/stat"
)

// LatencySummary summarises the latency of every operation of a test, from
// just before its submission to the moment its completion was seen (fio's
// total latency, "lat"). Percentiles are nearest-rank, read from a
// histogram whose buckets are at most 1/64 of their value wide; count, min,
// max, mean and standard deviation are exact.
type LatencySummary struct {
	Count    int64           `json:"count"`
	MinUs    float64         `json:"min_us"`
	MeanUs   float64         `json:"mean_us"`
	StddevUs float64         `json:"stddev_us"`
	P50Us    float64         `json:"p50_us"`
	P90Us    float64         `json:"p90_us"`
	P99Us    float64         `json:"p99_us"`
	P999Us   float64         `json:"p99_9_us"`
	P9999Us  float64         `json:"p99_99_us"`
	MaxUs    float64         `json:"max_us"`
	Buckets  []LatencyBucket `json:"histogram"`
}

// LatencyBucket counts operations slower than the previous bucket's bound
// and no slower than UpToUs (1-2-5 steps).
type LatencyBucket struct {
	UpToUs float64 `json:"le_us"`
	Count  int64   `json:"count"`
}

// Hist is a log-linear latency histogram in nanoseconds: values below
// 128 have a bucket each; above, each power of two is split into 64
// buckets, so a bucket is at most 1/64 of its value wide and its midpoint is
// within 0.8% of every value in it. It also keeps exact count, min, max,
// mean and variance (Welford).
type Hist struct {
	counts   [histBuckets]int64
	n        int64
	min, max int64
	mean, m2 float64
}

const (
	histSubBits = 6
	histSub     = 1 << histSubBits // buckets per power of two
	histBuckets = 2*histSub + (63-histSubBits)*histSub
)

func histIndex(v int64) int {
	if v < 0 {
		v = 0
	}
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - histSubBits - 1 // v>>shift is in [64, 128)
	return 2*histSub + (shift-1)*histSub + int(v>>shift) - histSub
}

// histBounds returns the smallest and largest value of bucket i.
func histBounds(i int) (lo, hi int64) {
	if i < 2*histSub {
		return int64(i), int64(i)
	}
	shift := (i-2*histSub)/histSub + 1
	top := int64((i-2*histSub)%histSub + histSub)
	lo = top << shift
	return lo, lo + 1<<shift - 1
}

func (h *Hist) Add(ns int64) {
	if ns < 0 {
		ns = 0
	}
	h.counts[histIndex(ns)]++
	if h.n == 0 || ns < h.min {
		h.min = ns
	}
	if ns > h.max {
		h.max = ns
	}
	h.n++
	d := float64(ns) - h.mean
	h.mean += d / float64(h.n)
	h.m2 += d * (float64(ns) - h.mean)
}

func (h *Hist) Merge(o *Hist) {
	if o.n == 0 {
		return
	}
	if h.n == 0 {
		*h = *o
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
	n := h.n + o.n
	d := o.mean - h.mean
	h.m2 += o.m2 + d*d*float64(h.n)*float64(o.n)/float64(n)
	h.mean += d * float64(o.n) / float64(n)
	h.n = n
}

// quantiles returns nearest-rank quantiles (q in [0,1]) in nanoseconds,
// each the midpoint of its bucket clamped to the observed range.
func (h *Hist) Quantiles(qs ...float64) []float64 {
	out := make([]float64, len(qs))
	if h.n == 0 {
		return out
	}
	var x, w []float64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		lo, hi := histBounds(i)
		x = append(x, (float64(lo)+float64(hi))/2)
		w = append(w, float64(c))
	}
	for k, q := range qs {
		v := stat.Quantile(q, stat.Empirical, x, w)
		out[k] = math.Min(math.Max(v, float64(h.min)), float64(h.max))
	}
	return out
}

// Summary is the histogram as the JSON reports it.
func (h *Hist) Summary() LatencySummary {
	if h.n == 0 {
		return LatencySummary{}
	}
	q := h.Quantiles(0.5, 0.9, 0.99, 0.999, 0.9999)
	sd := 0.0
	if h.n > 1 {
		sd = math.Sqrt(h.m2 / float64(h.n-1))
	}
	return LatencySummary{
		Count:    h.n,
		MinUs:    us(float64(h.min)),
		MeanUs:   us(h.mean),
		StddevUs: us(sd),
		P50Us:    us(q[0]),
		P90Us:    us(q[1]),
		P99Us:    us(q[2]),
		P999Us:   us(q[3]),
		P9999Us:  us(q[4]),
		MaxUs:    us(float64(h.max)),
		Buckets:  h.buckets(),
	}
}

// us converts nanoseconds to microseconds, rounded to 10 ns: finer
// digits are noise and make the JSON hard to read.
func us(ns float64) float64 { return math.Round(ns/10) / 100 }

// buckets regroups the histogram into 1-2-5 steps of microseconds, from the
// first non-empty one to the last.
func (h *Hist) buckets() []LatencyBucket {
	var out []LatencyBucket
	bound := 1.0 // us
	step := 0
	var cur int64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		_, hi := histBounds(i)
		for float64(hi) > bound*1e3 {
			if cur > 0 || len(out) > 0 {
				out = append(out, LatencyBucket{UpToUs: bound, Count: cur})
			}
			cur = 0
			bound *= [3]float64{2, 2.5, 2}[step%3]
			step++
		}
		cur += c
	}
	if cur > 0 {
		out = append(out, LatencyBucket{UpToUs: bound, Count: cur})
	}
	return out
}

// Count is the number of values added.
func (h *Hist) Count() int64 { return h.n }

// AddN adds n values of ns at once (Merge's update with a group of equal
// values, whose own variance is zero).
func (h *Hist) AddN(ns, n int64) {
	if n <= 0 {
		return
	}
	if ns < 0 {
		ns = 0
	}
	h.counts[histIndex(ns)] += n
	if h.n == 0 || ns < h.min {
		h.min = ns
	}
	if ns > h.max {
		h.max = ns
	}
	tot := h.n + n
	d := float64(ns) - h.mean
	h.m2 += d * d * float64(h.n) * float64(n) / float64(tot)
	h.mean += d * float64(n) / float64(tot)
	h.n = tot
}

// Above is the part of the histogram above ns (whole buckets: those whose
// lower bound is at least ns), each value taken at its bucket's midpoint.
func (h *Hist) Above(ns int64) Hist {
	var out Hist
	start := histIndex(ns)
	for i := start; i < histBuckets; i++ {
		if c := h.counts[i]; c > 0 {
			lo, hi := histBounds(i)
			out.AddN(lo+(hi-lo)/2, c)
		}
	}
	return out
}

// histJSON is a Hist on the wire (the workload child reports its own):
// the non-empty buckets as index/count pairs and the exact moments.
type histJSON struct {
	Buckets  [][2]int64 `json:"b"`
	N        int64      `json:"n"`
	Min, Max int64
	Mean, M2 float64
}

func (h Hist) MarshalJSON() ([]byte, error) {
	j := histJSON{N: h.n, Min: h.min, Max: h.max, Mean: h.mean, M2: h.m2}
	for i, c := range h.counts {
		if c > 0 {
			j.Buckets = append(j.Buckets, [2]int64{int64(i), c})
		}
	}
	return json.Marshal(j)
}

func (h *Hist) UnmarshalJSON(b []byte) error {
	var j histJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*h = Hist{n: j.N, min: j.Min, max: j.Max, mean: j.Mean, m2: j.M2}
	for _, bc := range j.Buckets {
		if bc[0] < 0 || bc[0] >= histBuckets {
			return fmt.Errorf("histogram bucket %d out of range", bc[0])
		}
		h.counts[bc[0]] = bc[1]
	}
	return nil
}
