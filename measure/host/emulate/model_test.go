package emulate

import (
	"math"
	"testing"
	"time"
)

func TestDistQuantiles(t *testing.T) {
	d := Dist{Median: 100 * time.Microsecond, P99: 300 * time.Microsecond}
	q := d.Quantiles(0.5, 0.99)
	for i, want := range []time.Duration{100 * time.Microsecond, 300 * time.Microsecond} {
		if r := float64(q[i]) / float64(want); math.Abs(r-1) > 0.03 {
			t.Errorf("quantile %d = %v, want %v", i, q[i], want)
		}
	}
	c := Dist{Median: 50 * time.Microsecond, P99: 50 * time.Microsecond}
	if got := c.Quantiles(0.99)[0]; got != 50*time.Microsecond {
		t.Errorf("constant p99 = %v", got)
	}
	// The HDD: seek plus rotation averages the catalog's 8.5 ms.
	h := HDDRAID0().Read.Random
	var sum time.Duration
	qs := h.Quantiles(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
	for _, v := range qs {
		sum += v
	}
	if mean := sum / time.Duration(len(qs)); mean < 7500*time.Microsecond || mean > 9500*time.Microsecond {
		t.Errorf("HDD read mean about %v, want about 8.5ms", mean)
	}
}

// At a queue depth far above the units, the model serves the rate gate's
// IOPS; at depth 1 a request waits for nothing but its own service.
func TestQueueSaturates(t *testing.T) {
	for _, dev := range []Device{X25E(), X25M(), HDDRAID0()} {
		for _, qd := range []int{1, 32} {
			q := newQueue(dev, 1)
			inflight := make([]int64, qd) // completion time of each slot's last request
			var last int64
			n := 4000
			if dev.Units == 2 {
				n = 400
			}
			off := int64(0)
			for i := 0; i < n; i++ {
				s := i % qd
				// random offsets: never continuing a unit's last
				off = (off + 7919*pageBytes) % (1 << 30)
				done := q.schedule(Read, off, pageBytes, inflight[s])
				inflight[s] = done
				last = max(last, done)
			}
			iops := float64(n) / (float64(last) / 1e9)
			limit := dev.Read.IOPS
			if qd == 1 {
				mean := 0.0
				for _, v := range dev.Read.Random.Quantiles(0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95) {
					mean += float64(v) / 10
				}
				limit = 1e9 / mean
			}
			if r := iops / limit; r < 0.85 || r > 1.1 {
				t.Errorf("%s QD%d: %.0f IOPS, want about %.0f", dev.Name, qd, iops, limit)
			}
		}
	}
}

func TestPresets(t *testing.T) {
	for _, n := range PresetNames() {
		d, err := Preset(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
	}
	if _, err := Preset("x25"); err == nil {
		t.Error("unknown preset accepted")
	}
}

// simulatedIOPS runs the queue model with qd requests always outstanding at
// random offsets and returns the reads per second it completes: what an
// emulated device should serve at that depth, which is below the gate's
// IOPS where units and gate both bind (a RAID 0 of two disks at QD32).
func simulatedIOPS(dev Device, qd, n int) float64 {
	q := newQueue(dev, 1)
	inflight := make([]int64, qd)
	var last, off int64
	for i := 0; i < n; i++ {
		s := i % qd
		off = (off + 7919*pageBytes) % (1 << 30)
		done := q.schedule(Read, off, pageBytes, inflight[s])
		inflight[s] = done
		last = max(last, done)
	}
	return float64(n) / (float64(last) / 1e9)
}
