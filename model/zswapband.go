package model

import (
	"math"
	"sync"
	"time"
)

// zswapPair is a zswap configuration's two parts prepared for one job: the
// compressed pool and the drive behind it. Its figure is formed scenario
// by scenario: under each combination of the unknowns the band spans, the
// pool's excess and the drive's are split by the share of the faults that
// combination's shape sends past the pool, and the band is taken over those
// sums. Taking the top of one part's band with the top of the other's (or
// with the shape that sends the most faults to the drive) would pair
// figures no single combination gives.
type zswapPair struct {
	pool, drive prepared
	// poolRuns: both parts are derived jointly (prepareJoint); poolRuns[i]
	// is the pool's points under the combination of drive.joint[i].
	poolRuns [][]pointModel
	// pairs: both parts come from one curve each (prepareCurve); each pair
	// is an index into pool.scen and one into drive.scen naming the same
	// scenario (0, a part's central one, where that part has no such
	// unknown). pairs[0] is the central scenario.
	pairs [][2]int
	// mixed: one part is derived jointly and the other comes from a curve
	// of its own; jointIsDrive says which is the drive.
	mixed, jointIsDrive bool
	// key names the pair in the caches (evaluator.zswapPair).
	key [2]prepKey
}

// zswapFigure is a zswap job's excess slowdown over the scenarios.
type zswapFigure struct {
	central, lo, hi float64
	// share is the share of the faults beyond RAM that reach the drive in
	// the central scenario, driveEx the drive's part of the central excess.
	share, driveEx float64
	shape          string
	// driveRun is the drive's central run where the drive is derived
	// jointly (nil otherwise).
	driveRun *carried
}

// scenarioID names what a scenario chooses, so that two preparations'
// scenarios can be matched.
type scenarioID struct {
	dim                          int
	shape                        string
	overhead                     time.Duration
	fitPos, band                 int
	dirtyPos, writePos, locality float64
}

func idOf(s scenario) scenarioID {
	return scenarioID{s.dim, s.shape.Name, s.overhead, s.fitPos, s.band, s.dirtyPos, s.writePos, s.localityPos}
}

// poolRuns carries each of a drive's joint runs to the pool's target.
func (fs *Factors) poolRuns(pool prepared, runs []carried) [][]pointModel {
	out := make([][]pointModel, len(runs))
	// The runs' points in one block, each run's slice capped at its own.
	n := 0
	for _, r := range runs {
		n += len(r.src.Points)
	}
	block := make([]pointModel, n)
	for i, r := range runs {
		k := len(r.src.Points)
		out[i] = fs.carryRun(block[:k:k], r, pool.target)
		block = block[k:]
	}
	return out
}

// poolCarries keeps a pool preparation's runs carried to its target, by
// the drive runs they were carried from: they depend on the runs and the
// pool, not on the drive, and every drive whose runs come from the same
// plans (the same source curves, shape and kind of device) has the same
// runs. A search pairs one pool with thousands of drives.
type poolCarries struct {
	mu   sync.Mutex
	seen []poolCarry
}

type poolCarry struct {
	defs []*runDef
	runs [][]pointModel
}

// runs is the pool's carry of drive runs rs, made by carry the first time
// (every time where c is nil).
func (c *poolCarries) runs(rs []carried, carry func() [][]pointModel) [][]pointModel {
	if c == nil {
		return carry()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
next:
	for _, x := range c.seen {
		if len(x.defs) != len(rs) {
			continue
		}
		for i, d := range x.defs {
			if rs[i].runDef != d {
				continue next
			}
		}
		return x.runs
	}
	x := poolCarry{defs: make([]*runDef, len(rs)), runs: carry()}
	for i, r := range rs {
		x.defs[i] = r.runDef
	}
	c.seen = append(c.seen, x)
	return x.runs
}

// pairZswap pairs the pool's preparation with the drive's.
func (fs *Factors) pairZswap(pool, drive prepared) (zswapPair, bool) {
	z := zswapPair{pool: pool, drive: drive}
	switch {
	case len(pool.joint) > 0 && len(drive.joint) > 0:
		z.poolRuns = pool.carries.runs(drive.joint, func() [][]pointModel { return fs.poolRuns(pool, drive.joint) })
		return z, true
	case len(pool.joint) > 0 && len(drive.scen) > 0:
		z.mixed = true
		return z, true
	case len(drive.joint) > 0 && len(pool.scen) > 0:
		z.mixed, z.jointIsDrive = true, true
		return z, true
	case len(pool.scen) == 0 || len(drive.scen) == 0:
		return z, false
	}
	inPool := map[scenarioID]int{}
	for i, s := range pool.scen {
		inPool[idOf(s)] = i
	}
	matched := map[int]bool{}
	for i, s := range drive.scen {
		ip, ok := inPool[idOf(s)]
		if i == 0 {
			ip, ok = 0, true
		}
		if !ok {
			ip = 0
		}
		matched[ip] = true
		z.pairs = append(z.pairs, [2]int{ip, i})
	}
	for i := range pool.scen {
		if !matched[i] {
			z.pairs = append(z.pairs, [2]int{i, 0})
		}
	}
	return z, true
}

// at is the figure at fit f when a share wd of the overflow is on the
// drive.
func (z zswapPair) at(wd, f float64) zswapFigure { return z.atEx(wd, f, nil) }

// atEx is at with the drive's run excesses at f given where the drive is
// derived jointly (runExcess of z.drive.joint; nil: computed here), with
// a pool derived jointly or from a curve of its own.
func (z zswapPair) atEx(wd, f float64, driveEx []float64) zswapFigure {
	if z.poolRuns != nil {
		return z.jointAt(wd, f, driveEx)
	}
	if z.mixed {
		return z.mixedAt(wd, f, driveEx)
	}
	return z.curveAt(wd, f)
}

// jointAt is at for two jointly derived parts: jointAt's median and span
// over the drive's runs of the split excess, each run widened by its
// source point's own uncertainty as jointAt widens it.
func (z zswapPair) jointAt(wd, f float64, driveEx []float64) zswapFigure {
	runs := z.drive.joint
	// The runs share a few shapes and source fits: their rate ratios at f,
	// and the drive's share under each shape, are kept for the call.
	rr, shares := &rateRatios{f: f}, driveShares(wd, f)
	split := func(i int) (total, onDrive, share float64) {
		r := runs[i]
		pex, _, _ := excessAtR(z.poolRuns[i], r.s.shape, f, rr)
		var dex float64
		if driveEx != nil {
			dex = driveEx[i]
		} else {
			dex, _, _ = excessAtR(r.pts, r.s.shape, f, rr)
		}
		d := shares.at(r.s.shape, f)
		return (1-d)*pex + d*dex, d * dex, d
	}
	central, lo, hi, med := jointAtFunc(runs, f, z.drive.jointPrior || z.pool.jointPrior, func(i int, u float64) (ex, lo, hi float64) {
		t, _, _ := split(i)
		return t, t * math.Exp(-u), t * math.Exp(u)
	})
	fig := zswapFigure{central: central, lo: lo, hi: hi}
	if med < 0 {
		fig.shape = runs[0].s.shape.Name
		_, _, fig.share = split(0)
		return fig
	}
	_, fig.driveEx, fig.share = split(med)
	fig.shape, fig.driveRun = runs[med].s.shape.Name, &runs[med]
	return fig
}

// curveSpread is a part carried from a curve of its own at one fit ratio:
// its excess under each shape (the other unknowns at their central
// values), and the factors its other unknowns, its point's interval and
// its transfer error move it by, joined in quadrature as prepared.at
// joins them.
type curveSpread struct {
	central  float64
	byShape  map[string]float64
	up, down float64
}

func (p prepared) spreadAt(f float64) curveSpread {
	c := curveSpread{byShape: map[string]float64{p.scen[0].shape.Name: 0}, up: 1, down: 1}
	q := p.quadrature(f, func(name string, ex float64) { c.byShape[name] = ex })
	c.central, c.byShape[p.scen[0].shape.Name] = q.central, q.central
	if q.central <= 0 {
		return c
	}
	c.up = q.highEx / q.central * math.Exp(q.up)
	c.down = q.lowEx / q.central * math.Exp(-q.down)
	return c
}

// mixedAt is at for one part derived jointly and one from a curve of its
// own. The shape is the unknown they share: under each run of the joint
// part, the other part is taken under the run's shape, the run's shape
// sets the split, and the sum's ends are each part's own ends under that
// run (the joint part widened by the run's uncertainty, the other by its
// unknowns other than the shape). The central figure and the band are
// jointAt's over those sums.
func (z zswapPair) mixedAt(wd, f float64, driveEx []float64) zswapFigure {
	j, o := z.pool, z.drive
	if z.jointIsDrive {
		j, o = z.drive, z.pool
	}
	own := o.spreadAt(f)
	runs := j.joint
	// The runs share a few shapes and source fits: their rate ratios at f,
	// and the drive's share under each shape, are kept for the call.
	rr, shares := &rateRatios{f: f}, driveShares(wd, f)
	// sum is the excess of run i with the joint part's figure x and the
	// other's y, and the drive's part of it.
	sum := func(i int, x, y float64) (total, onDrive float64) {
		d := shares.at(runs[i].s.shape, f)
		if z.jointIsDrive {
			return (1-d)*y + d*x, d * x
		}
		return (1-d)*x + d*y, d * y
	}
	parts := func(i int) (x, y float64) {
		if z.jointIsDrive && driveEx != nil {
			x = driveEx[i]
		} else {
			x, _, _ = excessAtR(runs[i].pts, runs[i].s.shape, f, rr)
		}
		y, ok := own.byShape[runs[i].s.shape.Name]
		if !ok {
			y = own.central
		}
		return x, y
	}
	central, lo, hi, med := jointAtFunc(runs, f, j.jointPrior, func(i int, u float64) (ex, lo, hi float64) {
		x, y := parts(i)
		ex, _ = sum(i, x, y)
		lo, _ = sum(i, x*math.Exp(-u), y*own.down)
		hi, _ = sum(i, x*math.Exp(u), y*own.up)
		return ex, lo, hi
	})
	if med < 0 {
		med = 0
	}
	fig := zswapFigure{central: central, lo: lo, hi: hi, shape: runs[med].s.shape.Name}
	fig.share = shares.at(runs[med].s.shape, f)
	x, y := parts(med)
	_, fig.driveEx = sum(med, x, y)
	if z.jointIsDrive {
		fig.driveRun = &runs[med]
	}
	return fig
}

// curveAt is at for two parts carried from one curve each: prepared.at's
// central scenario and quadrature over the unknowns, each unknown's effect
// read from the split excess under the same scenario. The point's own
// interval and the transfer error are each part's, weighted by its part
// of the central excess: the pool and the drive share one page rate, so
// their errors move together.
func (z zswapPair) curveAt(wd, f float64) zswapFigure {
	split := func(k int) (total, onDrive, share float64) {
		ip, id := z.pairs[k][0], z.pairs[k][1]
		s := z.drive.scen[id]
		if id == 0 {
			s = z.pool.scen[ip]
		}
		pex, _, _ := excessAt(z.pool.points[ip], z.pool.scen[ip].shape, f)
		dex, _, _ := excessAt(z.drive.points[id], z.drive.scen[id].shape, f)
		d := driveShare(s.shape, wd, f)
		return (1-d)*pex + d*dex, d * dex, d
	}
	central, driveEx, share := split(0)
	fig := zswapFigure{central: central, share: share, driveEx: driveEx, shape: z.drive.scen[0].shape.Name}
	var up, down [dims]float64
	lowEx, highEx := central, central
	for k := 1; k < len(z.pairs); k++ {
		ex, _, _ := split(k)
		ip, id := z.pairs[k][0], z.pairs[k][1]
		dim := z.drive.scen[id].dim
		if id == 0 {
			dim = z.pool.scen[ip].dim
		}
		if dim == dimBand {
			lowEx, highEx = math.Min(lowEx, ex), math.Max(highEx, ex)
			continue
		}
		if central <= 0 || ex <= 0 {
			continue
		}
		l := math.Log(ex / central)
		up[dim] = math.Max(up[dim], l)
		down[dim] = math.Max(down[dim], -l)
	}
	errs := func(p prepared) (sUp, sDown float64) {
		_, u, _ := excessAt(p.points[0], p.scen[0].shape, f)
		sUp = math.Hypot(math.Log1p(u), p.transfer)
		sDown = math.Hypot(math.Log1p(-math.Min(u, 0.95)), p.transfer)
		return sUp, sDown
	}
	pUp, pDown := errs(z.pool)
	dUp, dDown := errs(z.drive)
	wD := 0.5
	if central > 0 {
		wD = driveEx / central
	}
	sumUp := math.Pow((1-wD)*pUp+wD*dUp, 2)
	sumDown := math.Pow((1-wD)*pDown+wD*dDown, 2)
	for d := range dims {
		sumUp += up[d] * up[d]
		sumDown += down[d] * down[d]
	}
	fig.lo = lowEx * math.Exp(-math.Sqrt(sumDown))
	fig.hi = highEx * math.Exp(math.Sqrt(sumUp))
	return fig
}
