//go:build linux

package emulate

import (
	"math/rand/v2"
	"sync"
)

// queue decides when each request completes. It is a discrete-event model
// run at arrival: a request takes the unit that continues its offset (a
// disk's head is already there) or else the unit free soonest, waits for
// that unit and for its direction's rate gate, and holds the unit for a
// drawn service time. Times are nanoseconds on CLOCK_MONOTONIC, the clock
// the server sleeps on.
type queue struct {
	mu   sync.Mutex
	dev  Device
	rng  *rand.Rand
	free []int64 // per unit: when it finishes its last request
	end  []int64 // per unit: the byte offset its last request ended at
	gate [2]int64
	// comp is taken off every completion time (not below the request's
	// start), not off the time its unit is busy: the time the kernel's
	// FUSE and loop path spend on a request outside the server, which the
	// device's latency already includes.
	comp int64
}

func newQueue(dev Device, seed uint64) *queue {
	n := dev.Units
	if n > 4096 {
		n = 4096 // "unlimited": more than the kernel ever has in flight
	}
	q := &queue{dev: dev, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), free: make([]int64, n), end: make([]int64, n)}
	for i := range q.end {
		q.end[i] = -1
	}
	return q
}

const pageBytes = 4096

// schedule returns the completion time of a request of size bytes at off
// arriving at now.
func (q *queue) schedule(op Op, off int64, size int, now int64) int64 {
	m := q.dev.Op(op)
	q.mu.Lock()
	defer q.mu.Unlock()
	u, seq := -1, false
	if m.Sequential != nil {
		for i, e := range q.end {
			if e == off {
				u, seq = i, true
				break
			}
		}
	}
	if u < 0 {
		u = 0
		for i, f := range q.free {
			if f < q.free[u] {
				u = i
			}
		}
	}
	start := max(now, q.free[u], q.gate[op])
	var cost float64 // the gate's share: 1/IOPS or the transfer, whichever is longer
	if m.IOPS > 0 {
		cost = 1e9 / m.IOPS
	}
	extra := 0.0 // transfer of the bytes beyond the 4 KiB the latency covers
	if m.Bandwidth > 0 {
		cost = max(cost, float64(size)*1e9/m.Bandwidth)
		if size > pageBytes {
			extra = float64(size-pageBytes) * 1e9 / m.Bandwidth
		}
	}
	q.gate[op] = start + int64(cost)
	d := m.Random
	if seq {
		d = *m.Sequential
	}
	// The unit is busy for the whole service time: the compensation only
	// brings the completion forward by what the kernel's path adds after
	// it, which overlaps other requests' service. Holding the unit for the
	// compensated time let a QD32 X25-M run 8.5% past the model (32,367
	// against 29,821 IOPS).
	service := int64(d.Sample(q.rng)) + int64(extra)
	done := start + max(0, service-q.comp)
	q.free[u] = start + service
	q.end[u] = off + int64(size)
	return done
}

// sinceBoot is CLOCK_MONOTONIC now, in nanoseconds.
func sinceBoot() int64 {
	var ts unixTimespec
	clockGettime(&ts)
	return ts.Nano()
}
