//go:build linux

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
	return simulatedIOPSComp(dev, qd, n, 0)
}

// simulatedIOPSComp is simulatedIOPS with the floor compensation comp
// (nanoseconds) the emulator runs with.
func simulatedIOPSComp(dev Device, qd, n int, comp int64) float64 {
	q := newQueue(dev, 1)
	q.comp = comp
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

// TestCompensationKeepsThroughput: the floor compensation brings each
// completion forward but a unit stays busy for its whole service time, so a
// compensated device serves no more at QD32 than the model (it did: a unit
// held for the compensated time let an X25-M run 8.5% past it), and its QD1
// latency is the model's less the compensation.
func TestCompensationKeepsThroughput(t *testing.T) {
	for _, dev := range []Device{X25M(), HDDRAID0()} {
		base := simulatedIOPS(dev, 32, 20000)
		for _, comp := range []int64{60e3, 80e3} {
			got := simulatedIOPSComp(dev, 32, 20000, comp)
			t.Logf("%s: QD32 %.0f IOPS with %dus compensation, %.0f without", dev.Name, got, comp/1000, base)
			if got > 1.01*base {
				t.Errorf("%s: compensated %.0f IOPS above the model's %.0f", dev.Name, got, base)
			}
		}
		q0, q1 := newQueue(dev, 7), newQueue(dev, 7)
		q1.comp = 60e3
		var sum0, sum1 float64
		now := int64(0)
		for i := 0; i < 2000; i++ {
			now += 1e9 // idle between reads: QD1, no queueing
			off := int64(i) * 7919 * pageBytes % (1 << 30)
			sum0 += float64(q0.schedule(Read, off, pageBytes, now) - now)
			sum1 += float64(q1.schedule(Read, off, pageBytes, now) - now)
		}
		if d := (sum0 - sum1) / 2000; d < 55e3 || d > 60e3 {
			t.Errorf("%s: QD1 compensation took %.0fns off the mean latency, want up to 60us", dev.Name, d)
		}
	}
}
