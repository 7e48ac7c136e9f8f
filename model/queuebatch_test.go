package model

import (
	"math"
	"math/rand"
	"runtime"
	"testing"
	"time"
)

// TestPageTimesArePageTime: the batched solves, in lanes reused from
// batch to batch, give each path's own PageTime, to the bit on amd64
// (where no operations are fused), over paths with and without writes,
// queueing, shared cores, compressed RAM and rates from idle to
// saturating.
func TestPageTimesArePageTime(t *testing.T) {
	r := rand.New(rand.NewSource(24))
	var paths []*Path
	var rates []float64
	for range 3000 {
		p := &Path{
			Dev: Device{
				ReadLatency:  time.Duration(5e3 + r.Float64()*9e6),
				WriteLatency: time.Duration(5e3 + r.Float64()*9e6),
				ReadIOPS:     []float64{0, 100, 3e4, 9e5}[r.Intn(4)],
				WriteIOPS:    []float64{0, 100, 3e4}[r.Intn(3)],
				WriteBW:      []float64{0, 1e8, 2e9}[r.Intn(3)],
				Drives:       1 + r.Intn(8),
				Copies:       1 + r.Intn(2),
				Memory:       r.Intn(8) == 0,
			},
			Jobs:     r.Intn(33),
			Dirty:    []float64{0, 0.3, 1}[r.Intn(3)],
			Overhead: time.Duration(r.Float64() * 2e4),
			Locality: r.Float64() / 2,
			Cores:    []int{0, 0, 4, 64}[r.Intn(4)],
		}
		if r.Intn(2) == 0 {
			p.Dev.SeqReadLatency = p.Dev.ReadLatency / 20
		}
		paths = append(paths, p)
		rates = append(rates, []float64{0, 1, 1e3, 1e5, 1e7}[r.Intn(5)]*r.Float64())
	}
	// In batches of several sizes, as runExcess hands them over, through
	// lanes kept from batch to batch, as runExcess keeps them.
	lanes := make([]ptLane, ptBatch)
	for lo := 0; lo < len(paths); {
		n := min(1+r.Intn(90), len(paths)-lo)
		got := make([]float64, n)
		pageTimes(lanes, paths[lo:lo+n], rates[lo:lo+n], got)
		for i := range n {
			want := paths[lo+i].PageTime(rates[lo+i])
			same := got[i] == want || (math.IsNaN(got[i]) && math.IsNaN(want))
			if runtime.GOARCH != "amd64" {
				same = same || math.Abs(got[i]-want) <= 1e-12*math.Abs(want)
			}
			if !same {
				t.Fatalf("path %d at %g pages/s: pageTimes %v, PageTime %v (%+v)", lo+i, rates[lo+i], got[i], want, *paths[lo+i])
			}
		}
		lo += n
	}
}
