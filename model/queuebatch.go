package model

import "math"

// pageTimes sets out[i] to paths[i].PageTime(rates[i]) for every i, by the
// same operations, the paths' solves taken in rounds: a derived
// prediction asks for dozens of independent ones at once (runExcess).
// Each path's write share is found by writeShare's Illinois steps, taken
// for all the paths in rounds, len(lanes) paths at a time (a curve of its
// own carried to a disk that seeks has a few hundred runs). lanes is the
// caller's, kept from call to call: ptLane.init sets a lane whole, so a
// used one needs no zeroing (a stack array would be zeroed at each call).
func pageTimes(lanes []ptLane, paths []*Path, rates []float64, out []float64) {
	for len(paths) > len(lanes) {
		pageTimesIn(lanes[:0], paths[:len(lanes)], rates[:len(lanes)], out[:len(lanes)])
		paths, rates, out = paths[len(lanes):], rates[len(lanes):], out[len(lanes):]
	}
	pageTimesIn(lanes[:0], paths, rates, out)
}

// ptBatch is how many lanes runExcess has pageTimes solve at once.
const ptBatch = 80

// pageTimesIn is pageTimes of at most cap(lanes) paths, in lanes.
func pageTimesIn(lanes []ptLane, paths []*Path, rates []float64, out []float64) {
	for i, p := range paths {
		// Each lane is set up in its place (a lane is about 180 bytes).
		lanes = lanes[:len(lanes)+1]
		if !lanes[len(lanes)-1].init(p, rates[i], i) {
			lanes = lanes[:len(lanes)-1]
			out[i] = p.pageTime(rates[i])
		}
	}
	for len(lanes) > 0 {
		mvaLanes(lanes)
		// A finished lane takes the last one's place: each lane is
		// copied once, when another finishes, not every round.
		for i := 0; i < len(lanes); {
			if lanes[i].step() {
				i++
				continue
			}
			out[lanes[i].idx] = lanes[i].pageTime
			last := len(lanes) - 1
			lanes[i] = lanes[last]
			lanes = lanes[:last]
		}
	}
}

// ptLane is one PageTime in pageTimes: its network's inputs, writeShare's
// state, and the share the next solve is for (at).
type ptLane struct {
	in       mvaIn
	idx      int     // its place in pageTimes' out
	pageTime float64 // the figure, once the lane is done

	state            int
	a, b, fa, fb, c  float64
	side, iter       int
	u                float64
	at               float64 // the share the next solve is for
	cycle, x         float64 // the last solve's results
	lastU, lastCycle float64
	have             bool
}

// The states of a lane: which figure its next solve gives.
const (
	ptX0    = iota // x(0), writeShare's first
	ptGB           // g(b), the bracket's top
	ptGC           // g(c), an Illinois step
	ptCycle        // the cycle at the root
)

// init sets l up for p.PageTime(rate) as PageTime does; false where that
// takes no MVA solve (the figure is then PageTime's own).
func (l *ptLane) init(p *Path, rate float64, idx int) bool {
	if rate > 0 && p.cpuBound() {
		return false
	}
	in, ok := p.mvaInputs(rate)
	if !ok {
		return false
	}
	*l = ptLane{in: in, idx: idx}
	if in.qd > 0 && in.tw > 0 {
		l.state, l.at = ptX0, 0
	} else {
		l.state, l.at = ptCycle, 0
	}
	return true
}

// mvaLanes solves each lane's network at its share (PageTime's solve).
func mvaLanes(lanes []ptLane) {
	for i := range lanes {
		l := &lanes[i]
		l.cycle, l.x = l.in.solve(l.at)
		l.lastU, l.lastCycle, l.have = l.at, l.cycle, true
	}
}

// step takes a lane's solve into writeShare's steps and sets the share of
// its next one; false when the lane's page time is written.
func (l *ptLane) step() bool {
	switch l.state {
	case ptX0:
		x0 := l.x
		l.a, l.b = 0.0, min(x0*l.in.tw, 1-1e-9)
		l.fa = x0 * l.in.tw
		l.state, l.at = ptGB, l.b
		return true
	case ptGB:
		l.fb = l.x*l.in.tw - l.b
		switch {
		case l.fa <= 0:
			return l.root(0)
		case l.fb >= 0:
			return l.root(l.b)
		}
		l.side, l.iter = 0, 0
		return l.next()
	case ptGC:
		fc := l.x*l.in.tw - l.c
		switch {
		case math.Abs(fc) < 1e-12:
			return l.root(l.c)
		case fc < 0:
			l.b, l.fb = l.c, fc
			if l.side == -1 {
				l.fa /= 2
			}
			l.side = -1
		default:
			l.a, l.fa = l.c, fc
			if l.side == 1 {
				l.fb /= 2
			}
			l.side = 1
		}
		l.iter++
		return l.next()
	default: // ptCycle
		l.finish(l.cycle)
		return false
	}
}

// next is writeShare's loop condition and its next point.
func (l *ptLane) next() bool {
	if l.iter < 100 && l.b-l.a > 1e-12 {
		l.c = (l.fa*l.b - l.fb*l.a) / (l.fa - l.fb)
		l.state, l.at = ptGC, l.c
		return true
	}
	return l.root((l.a + l.b) / 2)
}

// root takes the write share u: the cycle there is the last solve's
// when that was at u, or one more solve.
func (l *ptLane) root(u float64) bool {
	l.u = u
	if l.have && l.lastU == u {
		l.finish(l.lastCycle)
		return false
	}
	l.state, l.at = ptCycle, u
	return true
}

func (l *ptLane) finish(cycle float64) {
	cycle = max(cycle, float64(l.in.n)*l.in.tw)
	l.pageTime = cycle - l.in.z
}
