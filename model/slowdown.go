package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/factors"
)

// Device is what the transfer model needs to know about a swap backend: its
// 4 KiB latencies, its IOPS ceilings (zero: not the bottleneck), its
// sustained sequential write bandwidth (zero: from the write IOPS), how many
// identical devices are striped (RAID 0) and whether it is compressed RAM.
type Device struct {
	Name         string
	ReadLatency  time.Duration
	WriteLatency time.Duration
	ReadIOPS     float64
	WriteIOPS    float64
	WriteBW      float64 // bytes per second per drive
	// SeqReadLatency is the latency of a read that follows on from the
	// one before (zero: the same as ReadLatency); it differs on a
	// rotating disk only (DefaultSeqReadLatency).
	SeqReadLatency time.Duration
	Drives         int
	// Copies is how many drives hold each page (2: mirrored, 0 or 1:
	// striped): reads go to any of the Drives, writes to every copy, so
	// writes are spread over Drives/Copies.
	Copies int
	// Memory marks compressed RAM (zram): the faulting task decompresses
	// and reclaim compresses in the task's own time, and the kernel reads
	// no pages ahead. Otherwise it is a block device: writes are queued
	// while the task goes on, and a fault may read neighbouring pages.
	Memory bool
}

// MemoryClass reports whether a curve class is compressed RAM rather than
// a block device.
func MemoryClass(class string) bool {
	return strings.HasPrefix(class, "zram") || strings.HasPrefix(class, "zswap")
}

func raOrOne(r factors.Readahead) (faults, pages float64) {
	if r.Faults <= 0 || r.Pages <= 0 {
		return 1, 1
	}
	return r.Faults, r.Pages
}

func raMeasured(r factors.Readahead) bool { return r.Faults > 0 && r.Pages > 0 }

// ServiceTime is the time one job loses per page it needs back from dev
// when nothing queues (the latency bound of Path): software overhead x
// pages read + faults x read latency on a block device; overhead + read +
// write (decompress, and compress the page again when it is evicted) on
// compressed RAM. concurrency and dirty matter only under load
// (Path.PageTime); they are accepted here so callers that profile one job
// state what they assume.
func ServiceTime(dev Device, concurrency int, dirty float64, overhead time.Duration, ra factors.Readahead) float64 {
	return Path{Dev: dev, Jobs: concurrency, Dirty: dirty, Overhead: overhead, RA: ra}.IdleTime()
}

// Estimate is a predicted slowdown with its 95% band and where it came from.
type Estimate struct {
	Slowdown     float64
	Low          float64
	High         float64
	Provenance   string // published, measured, emulated, inferred, derived
	Basis        *Basis // where the figure comes from; never nil in an estimate the model returns, shared by the estimates of one preparation (read it, do not change it)
	Extrapolated bool
	// Unsupported says why no figure is given: the fit ratio is so far
	// below anything measured that memplan will not pretend to know.
	Unsupported string
	// FaultTime is the time lost per page needed back on the target device
	// (seconds); it turns excess runtime back into a page count for wear.
	FaultTime float64
	// Inferred marks a figure that rests on an inferred curve (memplan
	// profile --one-pass), the job's own or the one it was derived from.
	Inferred bool
	// ShapeUnknown marks a derived figure whose band spans access patterns
	// its source curves do not support: the job's was not given, and the
	// source curves describe other jobs. The central figure assumes the
	// job's pattern is theirs.
	ShapeUnknown bool
	// Shape is the shape family of the central figure: how the job's page
	// rate grows as less of it is resident.
	Shape string
	// Dirty is the share of the pages read back that must be written again
	// as the curves behind the figure imply it: the central run's reference
	// dirty share, where the references state theirs only as a range and
	// their agreement narrows it (0: they imply nothing). DirtyLow and
	// DirtyHigh span the combinations under which they agree; DirtyFrom
	// names those curves.
	Dirty, DirtyLow, DirtyHigh float64
	DirtyFrom                  string
	// Above is the highest fit ratio the curve behind the figure stands
	// on, when the figure is for a fit above it (0: it is not): the shape
	// family carries it from there towards fit 1, as it carries one below
	// the lowest (Extrapolated), and the band spans the same shapes. It
	// does not put a configuration at risk: fit 1 costs nothing, so the
	// figure is bounded on both sides, while one below is not.
	Above float64
}

// Uncertainty added when a figure is carried beyond what was measured.
const (
	defaultCurveUncertainty = 0.25
	// fallbackTransferError is the log error of a transfer when the
	// factor set has fewer than two curves to check the transfer against.
	fallbackTransferError = 0.405 // ln 1.5
	// refuseBelow: below this share of the lowest measured fit ratio no
	// figure is given.
	refuseBelow = 0.5
)

// shapeLogRate is the log of the page rate at non-resident share x = 1-fit,
// up to a constant: Exponent x ln x, and past a knee KneeExponent x the
// log of the share beyond it.
func shapeLogRate(sh factors.Shape, x float64) float64 {
	if sh.Knee <= 0 || sh.KneeExponent <= 0 || x <= 1-sh.Knee {
		return sh.Exponent * math.Log(x)
	}
	xk := 1 - sh.Knee
	return sh.Exponent*math.Log(xk) + sh.KneeExponent*math.Log(x/xk)
}

// shapeRateRatio is the page rate at fit f over the rate at fit f0.
func shapeRateRatio(sh factors.Shape, f, f0 float64) float64 {
	return math.Exp(shapeLogRate(sh, 1-f) - shapeLogRate(sh, 1-f0))
}

// rateRatios holds shapeRateRatio(sh, f, f0) for one f and the last few
// shapes and f0 asked: a prediction's scenario runs share a handful of
// shapes and source fits, and the ratio costs a log and an exp or more.
type rateRatios struct {
	f    float64
	n    int
	keys [8]ratioKey
	vals [8]float64
}

// ratioKey is what shapeRateRatio reads of a shape, and f0.
type ratioKey struct {
	exponent, knee, kneeExponent, f0 float64
}

// at is shapeRateRatio(sh, c.f, f0).
func (c *rateRatios) at(sh factors.Shape, f0 float64) float64 {
	k := ratioKey{sh.Exponent, sh.Knee, sh.KneeExponent, f0}
	for i := range min(c.n, len(c.keys)) {
		if c.keys[i] == k {
			return c.vals[i]
		}
	}
	v := shapeRateRatio(sh, c.f, f0)
	i := c.n % len(c.keys)
	c.keys[i], c.vals[i] = k, v
	c.n++
	return v
}

// shapeLocality is the shape's locality moved a share pos through its range,
// in logs of the share of reads that seek (which is what a seek costs).
func shapeLocality(sh factors.Shape, pos float64) float64 {
	r := sh.LocalityRange
	if pos == 0 || len(r) != 2 || sh.Locality >= 1 {
		return sh.Locality
	}
	seek := func(l float64) float64 { return math.Log(max(1e-3, 1-l)) }
	// The low end of the locality is the high end of the seeks.
	return 1 - math.Exp(towards(seek(sh.Locality), seek(r[1]), seek(r[0]), -pos))
}

// scenario is one choice of what a curve does not pin down: the shape
// family, the software overhead and where in its stated range an anchor's
// fit ratio really was.
type scenario struct {
	shape    factors.Shape
	overhead time.Duration
	fitPos   int // -1 low end of a point's fit range, 0 nominal, +1 high end
	// band is -1 or +1 for the low or high end of an inferred curve's
	// band, carried as a curve of its own.
	band int
	// dirtyPos and writePos are where in its stated range a reference's
	// dirty share and write bandwidth were: -1 the low end, 0 the stated
	// figure, +1 the high end, fractions in between.
	dirtyPos, writePos float64
	// localityPos is where in the shape's locality_range its locality was.
	localityPos float64
}

// pointModel is one curve point carried to the target under one scenario.
type pointModel struct {
	fit    float64
	rate   float64 // pages needed back per second of in-RAM runtime
	excess float64 // on the target
	path   *Path   // the target path with this point's own overhead and readahead (shared by the points with none of their own)
	unc    float64 // relative 95% half-width of the excess
	time   float64 // path.PageTime(rate)
	// sampler: the one-pass sampler's figure at a fit a one run did not
	// reach (Point.Source), not a measurement.
	sampler bool
}

// Predict estimates the slowdown of a job class at fit ratio f when all its
// non-resident memory lives on dev (class names the curve family), with
// `concurrency` jobs per server and the given dirty share.
func (fs *Factors) Predict(class string, dev Device, concurrency int, dirty, f float64) (Estimate, error) {
	fs.revalidate()
	p, err := fs.prepare(class, dev, concurrency, 0, dirty, "")
	if err != nil {
		return Estimate{}, err
	}
	return p.at(f), nil
}

// PredictShape is Predict for a job whose access pattern names a shape
// family ("" for unknown: the band spans every family).
func (fs *Factors) PredictShape(class string, dev Device, concurrency int, dirty, f float64, shape string) (Estimate, error) {
	fs.revalidate()
	p, err := fs.prepare(class, dev, concurrency, 0, dirty, shape)
	if err != nil {
		return Estimate{}, err
	}
	return p.at(f), nil
}

// prepared is everything about a prediction that does not depend on the fit
// ratio, so the search can reuse it across memory sizes.
type prepared struct {
	curve      *factors.Curve
	target     Path
	provenance string
	basis      Basis
	shared     *Basis // basis, as every estimate of the preparation points at it (share)
	// carries: a compressed-RAM preparation's runs carried for the zswap
	// pairs it is the pool of (nil elsewhere).
	carries  *poolCarries
	transfer float64 // log error added by carrying the curve to another device
	lowest   float64 // lowest fit ratio the curve stands on
	lowestOf string  // the curve it is (a joint prediction has several; "": curve)
	inferred bool    // the curve is inferred (one pass)
	// joint is set for a class derived from several curves at once
	// (prepareJoint), in place of own. jointPrior: the
	// curves contradict each other under every combination, so the
	// model's prior error joins each run's own.
	joint      []carried
	jointPrior bool
	// bands: the runs' figures by shape at each fit a zswap pair asked
	// for (shapeBands), shared by the copies of the preparation.
	bands *shapeBandCache
	// own: a curve of its own carried under every combination of the
	// unknowns it leaves open (prepareOwn), where joint is empty; at()
	// forms its band from them as from joint's, each run widened by its
	// own transfer error (carried.err).
	own []carried
	// agreed: the agreement the joint runs come from (zero without).
	agreed agreed
	// shapeUnknown: the band spans shapes the sources' agreement rules out
	// (Estimate.ShapeUnknown).
	shapeUnknown bool
	// dirtyLo, dirtyHi and dirtyFrom: Estimate.DirtyLow, DirtyHigh and
	// DirtyFrom (0, 0, "": the sources imply no dirty share).
	dirtyLo, dirtyHi float64
	dirtyFrom        string
}

// shapesFor lists the families a prediction spans.
func (fs *Factors) shapesFor(name string) ([]factors.Shape, int) {
	if s, ok := fs.shape(name); ok && name != "" {
		return []factors.Shape{s}, 0
	}
	all := fs.ShapeList()
	nominal := 0
	for i, s := range all {
		if s.Name == NominalShape {
			nominal = i
		}
	}
	return all, nominal
}

// NominalShape is the family of a job whose access pattern is not known:
// the central estimate uses it, the band spans every family.
const NominalShape = "uniform"

func (fs *Factors) shape(name string) (factors.Shape, bool) {
	for _, s := range fs.ShapeList() {
		if s.Name == name {
			return s, true
		}
	}
	return factors.Shape{}, false
}

// ShapeList is the known shape families, the embedded ones when no factor
// file gives any.
func (fs *Factors) ShapeList() []factors.Shape {
	if len(fs.Shapes) > 0 {
		return fs.Shapes
	}
	return DefaultFactors().Shapes
}

func (fs *Factors) overheads() []time.Duration {
	o := fs.FaultOverhead.D()
	lo, hi := fs.FaultOverheadRange[0].D(), fs.FaultOverheadRange[1].D()
	if lo > 0 && hi > 0 && lo <= o && o <= hi {
		return []time.Duration{o, lo, hi}
	}
	return []time.Duration{o}
}

// prepare carries the curve of class (or the transfer_from curve) to dev
// for concurrency jobs sharing cores CPU cores (0: a core each).
func (fs *Factors) prepare(class string, dev Device, concurrency, cores int, dirty float64, shapeName string) (prepared, error) {
	c, ok := fs.Curves[class]
	derived := false
	if !ok {
		c, ok = fs.Curves[fs.TransferFrom]
		if !ok {
			return prepared{}, fmt.Errorf("no slowdown curve for %s and no transfer_from curve to derive one", class)
		}
		derived = true
	}
	var set *jointSet
	if derived {
		d := fs.derivedSet()
		set = &d
	}
	return fs.prepareCurve(c, derived, dev, concurrency, dirty, shapeName, cores, set, fs.targetOverhead(class)), nil
}

// prepareCurve carries curve c to dev; derived marks a class without a
// curve of its own, and a non-nil set lets it come from every curve of the
// set at once (prepareJoint) where there are several to check each other.
// Recommend (prepare) and crossval's joint table both come here: the band
// crossval judges is the one recommend prints.
func (fs *Factors) prepareCurve(c *factors.Curve, derived bool, dev Device, concurrency int, dirty float64, shapeName string, cores int, set *jointSet, soft *factors.TargetOverhead) prepared {
	p := prepared{curve: c, provenance: c.Provenance,
		target: Path{Dev: dev, Jobs: concurrency, Dirty: dirty, Overhead: fs.FaultOverhead.D(), RA: fs.Readahead, Cores: cores, soft: soft}}
	if soft != nil {
		p.target.Overhead = soft.Overhead.D()
	}
	if dev.Memory {
		p.carries = &poolCarries{}
	}
	// A zswap pair led by the other part reads this one by shape at every
	// fit it asks, whether its runs are joint or its own.
	p.bands = &shapeBandCache{}
	shapes, nominalShape := fs.shapesFor(shapeName)
	if set != nil && fs.prepareJoint(&p, *set, shapeName, shapes) {
		p.provenance = Derived
		p.share()
		return p
	}
	ohs := fs.overheads()
	// The central scenario: the job's shape (uniform where it names none),
	// the stated overhead and fit. The basis gives its times per page and
	// the transfer error at its distance; each run reads its own
	// (prepareOwn).
	central := scenario{shape: shapes[nominalShape], overhead: ohs[0]}
	ref := fs.refPath(c)
	same := samePath(ref, p.target)
	p.lowest = lowestFit(c)
	p.basis = Basis{Kind: BasisCurve, Provenance: c.Provenance}
	switch c.Provenance {
	case factors.Measured, factors.Emulated:
		p.basis.Host, p.basis.OneRun = c.Host, c.Method == factors.OneRunMethod
	case factors.Inferred:
		p.inferred = true
		p.basis.Host = c.Host
	default:
		p.basis.Source = c.Source
	}
	// The distance the transfer error is read at, and the times per page
	// the basis prints, are those of the central scenario, as when the
	// error was learnt: with its shape's locality and readahead.
	tgtPath, refPath := fs.scenarioPath(p.target, central), fs.refScenario(c, central)
	tgt, refT := tgtPath.IdleTime(), refPath.IdleTime()
	switch {
	case derived:
		p.provenance = Derived
		p.transfer = fs.cachedTransferError().at(transferDistance(tgtPath, refPath))
		p.basis = Basis{Kind: BasisDerived, Provenance: c.Provenance, From: c.Class, Idle: tgt, RefIdle: refT}
	case !same:
		p.transfer = fs.cachedTransferError().at(transferDistance(tgtPath, refPath))
		p.basis.Carried, p.basis.Idle, p.basis.RefIdle = true, tgt, refT
	}
	p.basis.PagesCounted = hasRates(c) && !same
	if p.target.cpuBound() {
		p.basis.Jobs, p.basis.Cores = p.target.jobs(), cores
	}
	if len(shapes) > 1 {
		p.basis.Shapes = strings.Join(shapeList(shapes), ", ")
	}
	fs.prepareOwn(&p, c, shapeName, shapes, same, central)
	p.share()
	return p
}

// prepareOwn carries c to p's target under every combination of the
// unknowns it leaves open, reduced as a joint plan reduces them
// (jointPlan): the runs at() takes a band from, as it does a derived
// class's.
func (fs *Factors) prepareOwn(p *prepared, c *factors.Curve, shapeName string, shapes []factors.Shape, same bool, central scenario) {
	set := jointSet{sources: []*factors.Curve{c}, own: true, id: fmt.Sprintf("own %s@%p", c.Class, c)}
	seeks := !p.target.Dev.Memory && p.target.Dev.SeqReadLatency > 0 && p.target.Dev.SeqReadLatency != p.target.Dev.ReadLatency
	a := fs.jointAgreement(set, shapeName, shapes)
	plan := []carried{{runDef: &runDef{src: c, s: central, grid: -1}}}
	if len(a.kept) > 0 {
		plan = fs.cachedPlan(set, shapeName, seeks, a)
	}
	p.own = make([]carried, 0, len(plan))
	arena := &pathArena{}
	// Every run's points in one block, each run's slice capped at its own.
	k := len(c.Points)
	block := make([]pointModel, len(plan)*k)
	for _, r := range plan {
		refs := r.refs
		if refs == nil {
			refs = fs.refPoints(nil, r.src, r.s)
		}
		r.pts = fs.carryFrom(block[:k:k], arena, r.src, p.target, r.s, same, refs)
		block = block[k:]
		if p.transfer > 0 {
			// Each run's transfer error at its own scenario's distance,
			// as a curve prepared for that scenario's shape alone reads it
			// (transferDistance; a cached plan's runs keep their side).
			refIdle := r.refIdle
			if refIdle == 0 {
				refIdle = fs.refScenario(c, r.s).IdleTime()
			}
			r.err = fs.cachedTransferError().at(math.Abs(math.Log(fs.scenarioPath(p.target, r.s).IdleTime() / refIdle)))
		}
		p.own = append(p.own, r)
	}
}

// share points p's estimates at one copy of its basis: a search keeps an
// estimate for every job of every configuration, and a basis is large.
func (p *prepared) share() {
	b := p.basis
	p.shared = &b
}

// basisAt is the basis of p's estimate at a fit where the figure rests on
// the one-pass sampler's point (sampler) or not.
func (p prepared) basisAt(sampler bool) *Basis {
	if p.shared != nil && p.shared.Sampler == sampler {
		return p.shared
	}
	b := p.basis
	b.Sampler = sampler
	return &b
}

// shapeList is the names of s.
func shapeList(s []factors.Shape) []string {
	n := make([]string, 0, len(s))
	for _, x := range s {
		n = append(n, x.Name)
	}
	return n
}

// refPath is the path a curve was obtained on.
func (fs *Factors) refPath(c *factors.Curve) Path {
	r := c.Reference
	return Path{Dev: RefDevice(c), Jobs: r.Concurrency, Dirty: float64(r.DirtyShare), Overhead: fs.FaultOverhead.D(), RA: fs.Readahead}
}

func samePath(a, b Path) bool {
	a.Dev.Name, b.Dev.Name = "", ""
	return a.Dev == b.Dev && a.jobs() == b.jobs() && math.Abs(a.Dirty-b.Dirty) < 1e-9
}

// carry turns each point of c into a page rate on its reference path and
// the excess that rate gives on the target, under scenario s. A point that
// counted its pages (memplan profile) carries its rate, its own readahead
// and its own software cost per page: what its measured excess per page
// leaves after the reference device's time. Otherwise the rate is solved
// from the slowdown on the reference path.
func (fs *Factors) carry(c *factors.Curve, target Path, s scenario, same bool) []pointModel {
	return fs.carryInto(make([]pointModel, len(c.Points)), nil, c, target, s, same)
}

// carryInto is carry into out, which has a place for each point of c,
// with the points' paths in arena (nil: their own).
func (fs *Factors) carryInto(out []pointModel, arena *pathArena, c *factors.Curve, target Path, s scenario, same bool) []pointModel {
	var buf [16]refPoint
	return fs.carryFrom(out, arena, c, target, s, same, fs.refPoints(buf[:0], c, s))
}

// pathArena holds the paths of a preparation's points: a preparation
// carries a hundred runs or more, of one or two points each, on a dozen
// paths or fewer (the scenarios differ in the shape far more often than
// in what moves the path).
type pathArena struct {
	block  []Path
	recent [16]*Path // the last distinct paths stored, round robin
	n      int
}

// add returns where a path equal to p is stored, storing it if none of
// the last few distinct ones is. A full block is left as it is (the
// points hold pointers into it) and a new one started.
func (a *pathArena) add(p Path) *Path {
	for _, q := range a.recent[:min(a.n, len(a.recent))] {
		if *q == p {
			return q
		}
	}
	if len(a.block) == cap(a.block) {
		// Small first: many preparations (zram, a curve of one run) hold
		// a path or two.
		a.block = make([]Path, 0, min(16, max(2, 2*cap(a.block))))
	}
	a.block = append(a.block, p)
	q := &a.block[len(a.block)-1]
	a.recent[a.n%len(a.recent)] = q
	a.n++
	return q
}

// refPoint is what carry reads of one point of a curve on its reference
// path under a scenario: nothing of the target. A joint plan's runs keep
// theirs (carried.refs), so that the search, which carries the same runs
// to thousands of targets, solves each reference rate once.
type refPoint struct {
	fit      float64 // the point's fit under the scenario's fitPos
	slowdown float64 // the point's slowdown (a band end's, for a band scenario)
	unc      float64
	rate     float64
	sampler  bool
	// counted: the point counted its pages, so the target takes its own
	// readahead (ra, where set) and software cost per page (overhead).
	counted, setRA bool
	ra             factors.Readahead
	overhead       time.Duration
}

// refPoints appends c's points on its reference path under s to out (in
// the curve's order).
func (fs *Factors) refPoints(out []refPoint, c *factors.Curve, s scenario) []refPoint {
	ref := fs.refScenario(c, s)
	for i, pt := range c.Points {
		r := ref
		solve := func() float64 { return fs.rateFor(c, i, r) }
		if s.band != 0 && ownBand(c, pt) {
			// The band's end as a point: its page rate in proportion to
			// the central one (the same cost per page), or solved on the
			// reference path where the central figure has no excess.
			b := pt.CI[(s.band+1)/2]
			if pt.PageRate > 0 && pt.Slowdown > 1 {
				pt.PageRate *= (b - 1) / (pt.Slowdown - 1)
			} else {
				pt.PageRate = 0
			}
			pt.Slowdown = b
			solve = func() float64 { return r.RateFor(b) }
		}
		m := refPoint{fit: pt.Fit, slowdown: pt.Slowdown, unc: pointUnc(c, pt), sampler: pt.Source == factors.PointSampler}
		switch s.fitPos {
		case -1:
			if len(pt.FitRange) == 2 {
				m.fit = pt.FitRange[0]
			}
		case 1:
			if len(pt.FitRange) == 2 {
				m.fit = pt.FitRange[1]
			}
		}
		if pt.PageRate > 0 {
			m.counted = true
			if pt.BlockFaultRate > 0 && pt.BlockPageRate > 0 {
				m.setRA = true
				m.ra = factors.Readahead{Faults: min(1, pt.BlockFaultRate/pt.PageRate), Pages: pt.BlockPageRate / pt.PageRate}
				r.RA = m.ra
			}
			if perPage := (pt.Slowdown - 1) / pt.PageRate; perPage > 0 {
				r0 := r
				r0.Overhead = 0
				m.overhead = time.Duration(max(0, perPage-r0.PageTime(pt.PageRate)) * 1e9)
			} else {
				m.overhead = fs.FaultOverhead.D()
			}
			m.rate = pt.PageRate
		} else {
			m.rate = solve()
		}
		out = append(out, m)
	}
	return out
}

// carryRun carries run r to target into out (a place for each of its
// source's points): from its reference figures where its plan keeps them
// (runDef.refs), else solving them here.
func (fs *Factors) carryRun(out []pointModel, arena *pathArena, r carried, target Path) []pointModel {
	if r.refs != nil {
		return fs.carryFrom(out, arena, r.src, target, r.s, false, r.refs)
	}
	return fs.carryInto(out, arena, r.src, target, r.s, false)
}

// carryFrom is carryInto from c's points on the reference path (refs,
// refPoints of c and s).
func (fs *Factors) carryFrom(out []pointModel, arena *pathArena, c *factors.Curve, target Path, s scenario, same bool, refs []refPoint) []pointModel {
	out = out[:len(refs)]
	if arena == nil {
		arena = &pathArena{}
	}
	tgt := fs.scenarioPath(target, s)
	var shared *Path
	for i, rp := range refs {
		var t *Path
		if rp.counted {
			own := tgt
			if rp.setRA {
				own.RA = rp.ra
			}
			own.Overhead = rp.overhead
			t = arena.add(own)
		} else {
			if shared == nil {
				shared = arena.add(tgt)
			}
			t = shared
		}
		m := pointModel{fit: rp.fit, rate: rp.rate, unc: rp.unc, path: t, sampler: rp.sampler}
		m.time = t.pageTime(m.rate)
		if same {
			// Carried to the path it was measured on, a point is itself.
			m.excess = rp.slowdown - 1
		} else {
			m.excess = m.rate * m.time
		}
		out[i] = m
	}
	slices.SortStableFunc(out, func(a, b pointModel) int { return cmp.Compare(b.fit, a.fit) })
	return out
}

func pointUnc(c *factors.Curve, p factors.Point) float64 {
	if ownBand(c, p) {
		return 0 // carried as the band scenarios instead
	}
	e := p.Slowdown - 1
	if len(p.CI) == 2 && e > 0 {
		return (p.CI[1] - p.CI[0]) / 2 / e
	}
	if c.Uncertainty > 0 {
		return float64(c.Uncertainty)
	}
	return defaultCurveUncertainty
}

// ownBand reports whether a point's interval is a one-pass band, carried
// as band scenarios of its own: every point of an inferred curve, and the
// points the sampler filled in a one-run curve (Point.Source).
func ownBand(c *factors.Curve, p factors.Point) bool {
	return len(p.CI) == 2 && (c.Provenance == factors.Inferred || p.Source == factors.PointSampler)
}

// carriesBand reports whether any point of c has a one-pass band.
func carriesBand(c *factors.Curve) bool {
	for _, p := range c.Points {
		if ownBand(c, p) {
			return true
		}
	}
	return false
}

// observedOnly is c without the points the sampler filled: what the
// transfer error may learn from. c itself when it has none.
func observedOnly(c *factors.Curve) *factors.Curve {
	var keep []factors.Point
	for _, p := range c.Points {
		if p.Source != factors.PointSampler {
			keep = append(keep, p)
		}
	}
	if len(keep) == len(c.Points) {
		return c
	}
	o := *c
	o.Points = keep
	return &o
}

// onSampler reports whether the figure at fit f of pts (sorted by fit
// descending) rests on a point the sampler filled: the point itself, one
// of the two it is interpolated between, or the one the shape family
// carries it from.
func onSampler(pts []pointModel, f float64) bool {
	if len(pts) == 0 {
		return false
	}
	if f >= pts[0].fit {
		return pts[0].sampler
	}
	for i := 1; i < len(pts); i++ {
		if f >= pts[i].fit {
			if f-pts[i].fit < 1e-9 {
				return pts[i].sampler
			}
			return pts[i-1].sampler || pts[i].sampler
		}
	}
	return pts[len(pts)-1].sampler
}

// hasRates reports whether any point of c carries its page rate.
func hasRates(c *factors.Curve) bool {
	for _, p := range c.Points {
		if p.PageRate > 0 {
			return true
		}
	}
	return false
}

// excessAt is a scenario's excess slowdown at fit f with its relative
// uncertainty. Between measured points it interpolates the excess
// linearly; above the first point and below the last the shape family
// carries the nearest point's page rate (Shape.rateRatio) through the
// target path (so queueing grows with it).
func excessAt(pts []pointModel, sh factors.Shape, f float64) (excess, unc float64, extrapolated bool) {
	return excessAtR(pts, sh, f, &rateRatios{f: f})
}

// excessAtR is excessAt with the shape's rate ratios at f from rr, which
// the caller keeps across the runs of one prediction.
func excessAtR(pts []pointModel, sh factors.Shape, f float64, rr *rateRatios) (excess, unc float64, extrapolated bool) {
	if f >= 1 {
		return 0, 0, false
	}
	byShape := func(m *pointModel) float64 {
		r := m.rate * rr.at(sh, m.fit)
		if m.rate <= 0 {
			return 0
		}
		// Keep the point's own excess per page (its measured cost) and let
		// the load change it by what the path adds. A point that costs
		// nothing a page on the target (jobs sharing cores can hide all
		// of a wait) has no cost of its own to keep.
		if m.time <= 0 {
			return r * m.path.pageTime(r)
		}
		return m.excess * r / m.rate * m.path.pageTime(r) / m.time
	}
	first := &pts[0]
	if f >= first.fit {
		return byShape(first), first.unc, false
	}
	for i := 1; i < len(pts); i++ {
		a, b := &pts[i-1], &pts[i]
		if f >= b.fit {
			t := (a.fit - f) / (a.fit - b.fit)
			return a.excess + t*(b.excess-a.excess), a.unc + t*(b.unc-a.unc), false
		}
	}
	last := &pts[len(pts)-1]
	return byShape(last), last.unc, true
}

// extrapolatedPoint is the point excessAt carries by the shape family at
// fit f (above the first point or below the last), false where it
// interpolates or f is 1.
func extrapolatedPoint(pts []pointModel, f float64) (*pointModel, bool) {
	if f >= 1 {
		return nil, false
	}
	if f >= pts[0].fit {
		return &pts[0], true
	}
	for i := 1; i < len(pts); i++ {
		if f >= pts[i].fit {
			return nil, false
		}
	}
	return &pts[len(pts)-1], true
}

func (p prepared) at(f float64) Estimate { return p.atEx(f, nil) }

// atEx is at with the run excesses at f given (runExcess of p.runs();
// nil: computed here).
func (p prepared) atEx(f float64, exs []float64) Estimate {
	est := Estimate{Provenance: p.provenance, Basis: p.shared, Inferred: p.inferred, ShapeUnknown: p.shapeUnknown}
	est.Unsupported = p.unsupportedAt(f)
	if len(p.joint) > 0 {
		return p.jointEstimate(est, f, exs)
	}
	return p.ownEstimate(est, f, exs)
}

// unsupportedAt is why p refuses a figure at fit f
// (Estimate.Unsupported), "" where it gives one.
func (p prepared) unsupportedAt(f float64) string {
	if f >= p.lowest*refuseBelow {
		return ""
	}
	return fmt.Sprintf("fit ratio %.2f is far below the lowest the %s curve stands on (%.2f): measure the job there (memplan profile --fits %.2f,%.2f -- YOUR JOB)",
		f, cmp.Or(p.lowestOf, p.curve.Class), p.lowest, p.lowest, max(0.05, math.Floor(f*20)/20))
}

// jointEstimate is at() for a class derived jointly (prepareJoint).
func (p prepared) jointEstimate(est Estimate, f float64, exs []float64) Estimate {
	central, lo, hi, med := jointAtEx(p.joint, f, priorErr(p.jointPrior), exs)
	est.Slowdown, est.Low, est.High = 1+central, 1+lo, 1+hi
	if med < 0 {
		med = 0
	}
	r := p.joint[med]
	est.Shape = r.s.shape.Name
	if p.dirtyFrom != "" {
		if d, ok := impliedDirty(r.src, r.s); ok {
			est.Dirty = min(max(d, p.dirtyLo), p.dirtyHi)
			est.DirtyLow, est.DirtyHigh, est.DirtyFrom = p.dirtyLo, p.dirtyHi, p.dirtyFrom
		}
	}
	_, _, est.Extrapolated = excessAt(r.pts, r.s.shape, f)
	est.Basis = p.basisAt(onSampler(r.pts, f))
	est.markAbove(r.pts, f)
	est.FaultTime = faultTime(r.pts, f)
	return est
}

// runs are the runs p's band is formed from: a derived class's joint
// runs or a curve's own.
func (p prepared) runs() []carried {
	if len(p.joint) > 0 {
		return p.joint
	}
	return p.own
}

// runErr is the log error every one of p's runs carries on top of its
// source point's own interval and its own carry's (carried.err): the
// model's prior for a joint derivation whose curves contradict each
// other, none elsewhere.
func (p prepared) runErr() float64 {
	return priorErr(len(p.joint) > 0 && p.jointPrior)
}

// ownEstimate is at() for a curve of its own carried under its runs,
// with their excesses at f given (runExcess of p.own; nil: computed
// here).
func (p prepared) ownEstimate(est Estimate, f float64, exs []float64) Estimate {
	central, lo, hi, med := jointAtEx(p.own, f, p.runErr(), exs)
	est.Slowdown, est.Low, est.High = 1+central, 1+lo, 1+hi
	if med < 0 {
		med = 0
	}
	r := p.own[med]
	est.Shape = r.s.shape.Name
	_, _, est.Extrapolated = excessAt(r.pts, r.s.shape, f)
	est.Basis = p.basisAt(onSampler(r.pts, f))
	est.markAbove(r.pts, f)
	est.FaultTime = faultTime(r.pts, f)
	return est
}

// markAbove sets Above when fit f lies above the highest
// of pts (sorted by fit descending) and below 1. Within half a hundredth
// it is the point's own fit as a person reads it (the Intel jobs' 0.5217
// against their study's 0.52).
func (est *Estimate) markAbove(pts []pointModel, f float64) {
	if len(pts) > 0 && f > pts[0].fit+0.005 && f < 1 {
		est.Above = pts[0].fit
	}
}

// faultTime is the time lost per page on the target near fit f (pts
// sorted by fit descending), for the wear count.
func faultTime(pts []pointModel, f float64) float64 {
	m := &pts[0]
	for i := range pts {
		if pts[i].fit >= f {
			m = &pts[i]
		}
	}
	if m.rate > 0 && m.excess > 0 {
		return m.excess / m.rate
	}
	return m.path.pageTime(m.rate)
}

// rateCache holds the page rates solved from curve points on their
// reference paths: they depend on the point's slowdown and the reference
// path under the scenario (its overhead and readahead), not on the device
// a prediction is for, and solving them is the costly part of preparing
// one. Keyed by both, it holds nothing a change can make stale.
type rateCache struct {
	mu sync.Mutex
	m  map[rateKey]float64
}

type rateKey struct {
	slowdown float64
	ref      Path
}

func (fs *Factors) rateFor(c *factors.Curve, i int, ref Path) float64 {
	rc := fs.rates
	s := c.Points[i].Slowdown
	if rc == nil {
		return ref.RateFor(s)
	}
	k := rateKey{s, ref}
	rc.mu.Lock()
	r, ok := rc.m[k]
	rc.mu.Unlock()
	if ok {
		return r
	}
	r = ref.RateFor(s)
	rc.mu.Lock()
	if rc.m == nil {
		rc.m = map[rateKey]float64{}
	}
	rc.m[k] = r
	rc.mu.Unlock()
	return r
}

// transferCache holds a Factors' cross-validated transfer error (ok: it
// is computed for the fields the stamp holds).
type transferCache struct {
	mu sync.Mutex
	ok bool
	te transferErr
}

// transferErr is the log error of carrying a curve to another device, as
// it grows with the distance d = |ln(target/reference unloaded time per
// page)|: Floor + Slope x d.
type transferErr struct {
	Floor, Slope float64
	Pairs        int // curve pairs it was learnt from
}

func (t transferErr) at(d float64) float64 { return t.Floor + t.Slope*d }

// TransferError is the transfer error model this factor set forces
// (leave-one-out over every pair of its curves, for the scenario the
// unknowns allow that explains them best).
func (fs *Factors) TransferError() transferErr {
	fs.revalidate()
	return fs.cachedTransferError()
}

// cachedTransferError is TransferError inside a call whose entry point
// checked the stamp.
func (fs *Factors) cachedTransferError() transferErr {
	t := fs.transfer
	if t == nil {
		return fs.transferError()
	}
	// Held while computing: the search's goroutines all ask at once.
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ok {
		t.te, t.ok = fs.transferError(), true
	}
	return t.te
}

// transferClasses are the classes whose curves stand for one device. A
// zswap curve (memplan probe measures one) is a mix of the compressed pool
// and the drive behind it; the model predicts zswap from its parts and
// never carries a zswap curve, so it neither teaches nor is tested.
func (fs *Factors) transferClasses() []string {
	var out []string
	for _, k := range fs.Classes() {
		if !strings.HasPrefix(k, "zswap") {
			out = append(out, k)
		}
	}
	return out
}

// observedClasses are the transfer classes whose curves were observed
// (published, measured or emulated). An inferred curve is the model's own
// arithmetic (page rate x time per page) on sampled working sets: pairing
// it with another curve would test the swap-path model against itself, so
// it neither teaches the transfer error nor is held out in crossval.
func (fs *Factors) observedClasses() []string {
	var out []string
	for _, k := range fs.transferClasses() {
		if fs.Curves[k].Provenance != factors.Inferred {
			out = append(out, k)
		}
	}
	return out
}

// transferDistance is how far a transfer carries a curve.
func transferDistance(target, ref Path) float64 {
	return math.Abs(math.Log(target.IdleTime() / ref.IdleTime()))
}

// transferError learns the error model from the curves: for each pair
// (a, b) of curves, a's curve carried to b's device predicts b's points
// with log error e at distance d. The slope is the largest e/d among pairs
// carried far (d > 1: a factor e); the floor what the nearer pairs need on
// top. Fewer than two curves: a floor of ln 1.5, the model's prior.
func (fs *Factors) transferError() transferErr {
	var cs []*factors.Curve
	for _, k := range fs.observedClasses() {
		cs = append(cs, observedOnly(fs.Curves[k]))
	}
	if len(cs) < 2 {
		return transferErr{Floor: fallbackTransferError}
	}
	best := transferErr{Floor: math.Inf(1)}
	// Only the unknowns a prediction's band spans on its own terms (shape
	// and overhead) are searched here, with every stated range at its
	// stated figure. Searching the ranges too would fit the anchors ever
	// more closely the finer the search, and the error would shrink
	// towards nothing without recommend carrying the spread that bought
	// it.
	for _, s := range fs.scenarioGrid(false) {
		{
			type obs struct{ d, e float64 }
			var all []obs
			for _, a := range cs {
				for _, b := range cs {
					if a == b {
						continue
					}
					d := transferDistance(fs.refScenario(b, s), fs.refScenario(a, s))
					for _, e := range fs.pairErrors(a, b, s) {
						all = append(all, obs{d, math.Abs(e.log)})
					}
				}
			}
			te := transferErr{Pairs: len(cs) * (len(cs) - 1)}
			for _, x := range all {
				if x.d > 1 {
					te.Slope = max(te.Slope, x.e/x.d)
				}
			}
			for _, x := range all {
				te.Floor = max(te.Floor, x.e-te.Slope*x.d)
			}
			if te.at(1) < best.at(1) {
				best = te
			}
		}
	}
	return best
}

// scenarioGrid is every combination of the unknowns a factor set's curves
// leave open, for the searches that look for the combination the curves
// allow: shape, software overhead and, with ranges, the shape's locality
// and where in their stated ranges the references' dirty shares and write
// bandwidths were (one position for all curves with a range: the
// published anchors are one study's jobs).
func (fs *Factors) scenarioGrid(ranges bool) []scenario {
	dirty, write, local := []float64{0}, []float64{0}, []float64{0}
	for _, c := range fs.Curves {
		if !ranges {
			break
		}
		if len(c.Reference.DirtyShareRange) == 2 {
			dirty = positions(gridSteps)
		}
		if len(c.Reference.WriteBandwidthRange) == 2 {
			write = positions(2 * gridSteps)
		}
	}
	// Locality moves a read only on a device that seeks; where no curve
	// was taken on one, its positions would be the same combination
	// counted again.
	seeks := false
	for _, c := range fs.Curves {
		if d := RefDevice(c); d.SeqReadLatency > 0 && d.SeqReadLatency != d.ReadLatency && !d.Memory {
			seeks = true
		}
	}
	shapes := fs.ShapeList()
	out := make([]scenario, 0, len(shapes)*len(fs.overheads())*len(dirty)*len(write)*(2*gridSteps+1))
	for _, sh := range shapes {
		local = []float64{0}
		if ranges && seeks && len(sh.LocalityRange) == 2 {
			local = positions(gridSteps)
		}
		for _, o := range fs.overheads() {
			for _, d := range dirty {
				for _, w := range write {
					for _, l := range local {
						out = append(out, scenario{shape: sh, overhead: o, dirtyPos: d, writePos: w, localityPos: l})
					}
				}
			}
		}
	}
	return out
}

// gridSteps is how many steps the searches take on either side of a
// range's stated figure (twice as many for write bandwidth, where the
// X25-M's write ceiling makes the slowdown steep). Halving the steps
// moves the joint crossval bands by under 10% (TestCrossvalGridDensity).
var gridSteps = 4

// positions is -1 ... 1 in n steps either side of 0.
func positions(n int) []float64 {
	out := make([]float64, 0, 2*n+1)
	for i := -n; i <= n; i++ {
		out = append(out, float64(i)/float64(n))
	}
	return out
}

// scenarioPath is p with s's overhead, its shape's locality and, on a
// block device whose readahead was not measured, its shape's readahead.
func (fs *Factors) scenarioPath(p Path, s scenario) Path {
	p.Overhead = s.overhead
	if p.soft != nil {
		p.Overhead = overheadAt(*p.soft, fs.overheadPos(s.overhead))
	}
	if !p.Dev.Memory {
		p.Locality = shapeLocality(s.shape, s.localityPos)
		if !raMeasured(fs.Readahead) && s.shape.Readahead > 0 {
			p.RA = factors.Readahead{Faults: s.shape.Readahead, Pages: 1}
		}
	}
	return p
}

// refScenario is c's reference path under s: scenarioPath, and where in
// their stated ranges the reference's dirty share and write bandwidth were.
func (fs *Factors) refScenario(c *factors.Curve, s scenario) Path {
	p := fs.scenarioPath(fs.refPath(c), s)
	r := c.Reference
	if d := r.DirtyShareRange; len(d) == 2 && s.dirtyPos != 0 {
		p.Dirty = towards(p.Dirty, float64(d[0]), float64(d[1]), s.dirtyPos)
	}
	if w := r.WriteBandwidthRange; len(w) == 2 && s.writePos != 0 && p.Dev.WriteBW > 0 {
		// Bandwidths spread by factors: move through the range in logs.
		l := towards(math.Log(p.Dev.WriteBW), math.Log(float64(w[0])), math.Log(float64(w[1])), s.writePos)
		p.Dev.WriteBW = math.Exp(l)
	}
	return p
}

// impliedDirty is the dirty share of c's jobs under s where c's reference
// states it only as a range (false where it states one figure or none: the
// curves then say nothing of it beyond what was stated).
func impliedDirty(c *factors.Curve, s scenario) (float64, bool) {
	r := c.Reference
	d := r.DirtyShareRange
	if len(d) != 2 {
		return 0, false
	}
	return towards(float64(r.DirtyShare), float64(d[0]), float64(d[1]), s.dirtyPos), true
}

// towards is nominal moved a share pos of the way to high (pos > 0) or to
// low (pos < 0).
func towards(nominal, low, high, pos float64) float64 {
	if pos < 0 {
		return nominal + -pos*(low-nominal)
	}
	return nominal + pos*(high-nominal)
}

// pairError is ln(predicted/actual excess) at one point of b.
type pairError struct {
	log   float64
	point factors.Point
}

// pairErrors predicts b's points from a's curve carried to b's reference
// path under s and returns the log error at each point of b with an
// excess.
func (fs *Factors) pairErrors(a, b *factors.Curve, s scenario) []pairError {
	pts := fs.carry(a, fs.refScenario(b, s), s, false)
	var out []pairError
	for _, bp := range b.Points {
		act := bp.Slowdown - 1
		if act <= 0 {
			continue
		}
		pred, _, _ := excessAt(pts, s.shape, bp.Fit)
		if pred <= 0 {
			continue
		}
		out = append(out, pairError{math.Log(pred / act), bp})
	}
	return out
}
