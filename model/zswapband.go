package model

import "sync"

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
	// poolRuns: both parts are derived jointly from the same curves
	// (prepareJoint); poolRuns[i] is the pool's points under the
	// combination of drive.joint[i].
	poolRuns [][]pointModel
	// Otherwise one part's runs lead (the drive's, unless only the pool
	// is derived jointly; driveLeads says which) and the other part is
	// read under each leading run's shape (mixedAt).
	driveLeads bool
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

// poolRuns carries each of a drive's joint runs to the pool's target.
func (fs *Factors) poolRuns(pool prepared, runs []carried) [][]pointModel {
	out := make([][]pointModel, len(runs))
	// The runs' points in one block, each run's slice capped at its own.
	n := 0
	for _, r := range runs {
		n += len(r.src.Points)
	}
	block := make([]pointModel, n)
	arena := &pathArena{}
	for i, r := range runs {
		k := len(r.src.Points)
		out[i] = fs.carryRun(block[:k:k], arena, r, pool.target)
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
	case len(pool.runs()) == 0 || len(drive.runs()) == 0:
		return z, false
	case len(pool.joint) > 0 && len(drive.joint) > 0:
		z.poolRuns = pool.carries.runs(drive.joint, func() [][]pointModel { return fs.poolRuns(pool, drive.joint) })
	default:
		z.driveLeads = len(drive.joint) > 0 || len(pool.joint) == 0
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
	return z.mixedAt(wd, f, driveEx)
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
		var dex float64
		if driveEx != nil {
			dex = driveEx[i]
		} else {
			dex, _, _ = excessAtR(runs[i].pts, runs[i].s.shape, f, rr)
		}
		return z.split(i, f, dex, rr, shares)
	}
	var w widen
	central, lo, hi, med := jointAtFunc(runs, f, z.runErr(), func(i int, u float64) (ex, lo, hi float64) {
		t, _, _ := split(i)
		down, up := w.by(u)
		return t, t * down, t * up
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

// split is drive run i's figure at fit f with its drive excess dex (the
// pool's is read here): the total excess, the drive's part of it, and
// the share d of the faults that reach the drive; rr and shares are the
// rate ratios at f and at the pool's edge, kept by the caller.
func (z zswapPair) split(i int, f, dex float64, rr, shares *rateRatios) (total, onDrive, share float64) {
	r := z.drive.joint[i]
	pex, _, _ := excessAtR(z.poolRuns[i], r.s.shape, f, rr)
	d := shares.at(r.s.shape, f)
	return (1-d)*pex + d*dex, d * dex, d
}

// runErr is the log error every run of a jointly derived pair carries on
// top of its own (jointAt's).
func (z zswapPair) runErr() float64 { return priorErr(z.drive.jointPrior || z.pool.jointPrior) }

// topOfRun is the upper end of drive run i's own split figure at wd and
// f, its drive excess dex given: jointAt's upper end is the largest of
// them, so each is a floor under it (highFloor's, for a zswap pair
// derived jointly on both sides).
func (z zswapPair) topOfRun(wd, f float64, i int, dex float64) float64 {
	t, _, _ := z.split(i, f, dex, &rateRatios{f: f}, driveShares(wd, f))
	ex := [1]float64{t}
	_, _, hi, _ := jointAtEx(z.drive.joint[i:i+1], f, z.runErr(), ex[:])
	return hi
}

// shapeBand is a part's figure at one fit ratio under one shape: the
// median and span of its runs of that shape (jointAt's), as excesses.
// The ends are kept as they are, not as factors of the median: a
// one-pass band's top stands where its median is 0.
type shapeBand struct {
	central, lo, hi float64
}

// shapeBandCache keeps a preparation's shapeBands by fit: a search pairs
// one pool with thousands of drives at the same few fits.
type shapeBandCache struct {
	mu sync.Mutex
	at map[float64]map[string]shapeBand
}

// shapeBands is p's band at fit f under each shape its runs span; exs
// are its runs' excesses at f where the caller has them (runExcess; nil:
// computed here).
func (p prepared) shapeBands(f float64, exs []float64) map[string]shapeBand {
	c := p.bands
	if c == nil {
		return p.shapeBandsAt(f, exs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.at[f]; ok {
		return b
	}
	b := p.shapeBandsAt(f, exs)
	if c.at == nil {
		c.at = map[float64]map[string]shapeBand{}
	}
	c.at[f] = b
	return b
}

// shapeBandsAt is shapeBands computed.
func (p prepared) shapeBandsAt(f float64, exs []float64) map[string]shapeBand {
	runs, extra := p.runs(), p.runErr()
	var buf [128]carried
	var exBuf [128]float64
	out := map[string]shapeBand{}
	for _, r := range runs {
		name := r.s.shape.Name
		if _, ok := out[name]; ok {
			continue
		}
		same, sameEx := buf[:0], exBuf[:0]
		for i, q := range runs {
			if q.s.shape.Name == name {
				same = append(same, q)
				if exs != nil {
					sameEx = append(sameEx, exs[i])
				}
			}
		}
		if exs == nil {
			sameEx = nil
		}
		c, lo, hi, _ := jointAtEx(same, f, extra, sameEx)
		out[name] = shapeBand{central: c, lo: lo, hi: hi}
	}
	return out
}

// mixedSum is mixedAt's excess of a leading run whose figure is x, the
// other part's y and the drive's share of the faults d, and the drive's
// part of it.
func (z zswapPair) mixedSum(d, x, y float64) (total, onDrive float64) {
	if z.driveLeads {
		return (1-d)*y + d*x, d * x
	}
	return (1-d)*x + d*y, d * y
}

// mixedTopFloor is a floor under mixedAt's upper end where the pool
// leads (highFloor's, for such a pair): each pool run's sum with the
// drive's upper end under the run's shape, that upper end taken as dHi
// (the upper end of one drive run of shape dShape alone, which the
// drive's span of that shape, and its span over all runs, are at least)
// under dShape and under the shapes no drive run has, and as 0 under the
// others. The pool's runs are read in full (one pool for every drive).
func (z zswapPair) mixedTopFloor(wd, f float64, dShape string, dHi float64) float64 {
	runs := z.pool.runs()
	has := map[string]bool{}
	for _, r := range z.drive.runs() {
		has[r.s.shape.Name] = true
	}
	rr, shares := &rateRatios{f: f}, driveShares(wd, f)
	var w widen
	_, _, hi, _ := jointAtFunc(runs, f, z.pool.runErr(), func(i int, u float64) (ex, lo, hi float64) {
		x, _, _ := excessAtR(runs[i].pts, runs[i].s.shape, f, rr)
		y := 0.0
		if name := runs[i].s.shape.Name; name == dShape || !has[name] {
			y = dHi
		}
		d := shares.at(runs[i].s.shape, f)
		down, up := w.by(u)
		ex, _ = z.mixedSum(d, x, 0)
		lo, _ = z.mixedSum(d, x*down, 0)
		hi, _ = z.mixedSum(d, x*up, y)
		return ex, lo, hi
	})
	return hi
}

// mixedAt is at for parts that are not both derived from the same
// curves. The shape is the unknown they share: under each run of the
// leading part, the other part is taken under the run's shape (the median
// of its own runs of that shape), the run's shape sets the split, and the
// sum's ends are each part's own ends under that run (the leading run
// widened by its uncertainty, the other part's span of that shape). The
// central figure and the band are jointAt's over those sums.
func (z zswapPair) mixedAt(wd, f float64, driveEx []float64) zswapFigure {
	j, o := z.pool, z.drive
	if z.driveLeads {
		j, o = z.drive, z.pool
	}
	// The drive's runs at f are the ones its own estimate just read
	// (driveEx), whichever part leads.
	var otherEx []float64
	if !z.driveLeads {
		otherEx = driveEx
	}
	other := o.shapeBands(f, otherEx)
	runs := j.runs()
	// The runs share a few shapes and source fits: their rate ratios at f,
	// and the drive's share under each shape, are kept for the call.
	rr, shares := &rateRatios{f: f}, driveShares(wd, f)
	// sum is the excess of run i with the leading part's figure x and
	// the other's y, and the drive's part of it.
	sum := func(i int, x, y float64) (total, onDrive float64) {
		return z.mixedSum(shares.at(runs[i].s.shape, f), x, y)
	}
	parts := func(i int) (x float64, y shapeBand) {
		if z.driveLeads && driveEx != nil {
			x = driveEx[i]
		} else {
			x, _, _ = excessAtR(runs[i].pts, runs[i].s.shape, f, rr)
		}
		y, ok := other[runs[i].s.shape.Name]
		if !ok {
			// A shape the other part has no run of: its figure and band
			// over all its runs.
			oc, olo, ohi, _ := jointAtEx(o.runs(), f, o.runErr(), otherEx)
			y = shapeBand{central: oc, lo: olo, hi: ohi}
		}
		return x, y
	}
	var w widen
	central, lo, hi, med := jointAtFunc(runs, f, j.runErr(), func(i int, u float64) (ex, lo, hi float64) {
		x, y := parts(i)
		down, up := w.by(u)
		ex, _ = sum(i, x, y.central)
		lo, _ = sum(i, x*down, y.lo)
		hi, _ = sum(i, x*up, y.hi)
		return ex, lo, hi
	})
	if med < 0 {
		med = 0
	}
	fig := zswapFigure{central: central, lo: lo, hi: hi, shape: runs[med].s.shape.Name}
	fig.share = shares.at(runs[med].s.shape, f)
	x, y := parts(med)
	_, fig.driveEx = sum(med, x, y.central)
	if z.driveLeads && len(z.drive.joint) > 0 {
		fig.driveRun = &runs[med]
	}
	return fig
}
