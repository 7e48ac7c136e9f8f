package model

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/factors"
)

// agreement is how far a factor set's observed curves are from agreeing
// with each other under each combination of the unknowns in a grid, and
// which combinations a prediction from them spans.
type agreement struct {
	grid []scenario
	// kept are the combinations under which the curves agree or, where
	// they agree under none, those within one tolerance of the best
	// explanation: wider, not narrower, for the contradiction.
	kept       []int
	consistent int     // combinations under which they agree
	misfit     float64 // the best combination's largest disagreement
	curves     int     // observed curves checked against each other
	// key is agreementKey of its inputs ("" when not computed).
	key string
}

// agreed is what a derived band reports of the agreement it spans
// (Crossval's allowed combinations).
type agreed struct {
	consistent, scenarios int
	misfit                float64
}

func (a agreement) summary() agreed {
	return agreed{consistent: a.consistent, scenarios: len(a.grid), misfit: a.misfit}
}

// agree checks fs's observed curves against each other under every
// combination of grid: the cost of one is the largest pair error in units
// of the two points' combined uncertainty (at most 1: they agree).
func (fs *Factors) agree(grid []scenario) agreement {
	observed := fs.observedClasses()
	a := agreement{grid: grid, curves: len(observed)}
	if len(grid) == 0 {
		return a
	}
	costs := make([]float64, len(grid))
	bestCost := math.Inf(1)
	for i, s := range grid {
		// A combination already beyond both 1 and the best so far plus
		// one is kept by no limit: the rest of its pairs need not be
		// checked (its cost is then a lower bound, which is all that is
		// read of it).
		bound := max(1, bestCost+1)
	pairs:
		for _, x := range observed {
			for _, y := range observed {
				if x != y {
					costs[i] = max(costs[i], fs.pairCost(fs.Curves[x], fs.Curves[y], s))
					if costs[i] > bound {
						break pairs
					}
				}
			}
		}
		bestCost = min(bestCost, costs[i])
	}
	best := 0
	for i := range grid {
		if costs[i] < costs[best] {
			best = i
		}
	}
	a.misfit = costs[best]
	limit := 1.0
	if a.misfit > 1 {
		limit = a.misfit + 1
	}
	for i := range grid {
		if costs[i] <= 1 {
			a.consistent++
		}
		if costs[i] <= limit {
			a.kept = append(a.kept, i)
		}
	}
	return a
}

// carried is a source curve carried to a prediction's target under one
// combination of the unknowns.
type carried struct {
	*runDef
	pts []pointModel
	// prior: the run comes from an agreement under which the curves
	// contradict each other, so the model's prior error joins its own.
	prior bool
	// err is the log error the run's carry adds to its point's own
	// interval: for a curve carried on its own to another path, the
	// transfer error at the distance between the two paths under the
	// run's scenario (0 elsewhere).
	err float64
}

// runDef is what a carried run is, whatever it is carried to: a plan's
// runs are cached (cachedPlan) and shared by every target the search
// prepares, each of which keeps only its own points.
type runDef struct {
	src *factors.Curve
	s   scenario
	// weight is, in a reduced set (jointPlan), how many combinations a
	// run the central figure is the median of stands for; 0 for the runs
	// that only bound the band, and for every run of a full set.
	weight int
	// grid is the run's combination's place in its agreement's grid
	// (jointPlan's runs; -1 otherwise).
	grid int
	// refs: src's points on its reference path under s (refPoints), in a
	// cached plan's runs; nil elsewhere. refIdle is then the idle page
	// time of that path (refScenario), which a carry's transfer error is
	// measured from (0 elsewhere).
	refs    []refPoint
	refIdle float64
}

// jointAt predicts the excess at fit f from carried runs: the central
// figure is the median over the central runs (many combinations fit the
// curves equally well, so the single best is an accident of the search);
// the band spans every run, each widened by its source point's own
// uncertainty, by its carry's own error (carried.err), and by the model's
// prior error where the curves contradict each other (prior, or the run's
// own). A run with no excess at f bounds the band from below. med is the
// run the median came from (-1: no central run has an excess at f; the
// band may still reach up, to a one-pass band's top).
func jointAt(runs []carried, f float64, prior bool) (central, lo, hi float64, med int) {
	return jointAtEx(runs, f, priorErr(prior), nil)
}

// priorErr is the log error a band's runs carry on top of their own: the
// model's prior where the curves contradict each other (prior), none
// where they agree.
func priorErr(prior bool) float64 {
	if prior {
		return fallbackTransferError
	}
	return 0
}

// jointAtEx is jointAt with each run's excess at f given (runExcess;
// nil: computed here) and extra, a log error every run carries on top of
// its own (priorErr).
func jointAtEx(runs []carried, f float64, extra float64, exs []float64) (central, lo, hi float64, med int) {
	var w widen
	return jointAtFunc(runs, f, extra, func(i int, u float64) (ex, lo, hi float64) {
		if exs != nil {
			ex = exs[i]
		} else {
			ex, _, _ = excessAt(runs[i].pts, runs[i].s.shape, f)
		}
		down, up := w.by(u)
		return ex, ex * down, ex * up
	})
}

// runExcess appends each run's excess at fit f to out: the figure both a
// drive's own prediction and a zswap pair's split read of its runs.
// The runs' page times at their carried rates are solved together
// (pageTimes); each excess is then excessAt's, operation for operation.
// sc holds the solve's buffers from call to call.
func runExcess(runs []carried, f float64, out []float64, sc *runScratch) []float64 {
	pend, paths, rates := sc.pend[:0], sc.paths[:0], sc.rates[:0]
	rr := &rateRatios{f: f}
	for _, r := range runs {
		out = append(out, 0)
		m, ok := extrapolatedPoint(r.pts, f)
		if !ok {
			out[len(out)-1], _, _ = excessAtR(r.pts, r.s.shape, f, rr)
			continue
		}
		rate := m.rate * rr.at(r.s.shape, m.fit)
		if m.rate <= 0 {
			continue
		}
		pend = append(pend, pendingRun{len(out) - 1, m, rate})
		paths, rates = append(paths, m.path), append(rates, rate)
	}
	if cap(sc.times) < len(pend) {
		sc.times = make([]float64, len(pend))
	}
	if sc.lanes == nil {
		sc.lanes = make([]ptLane, ptBatch)
	}
	times := sc.times[:len(pend)]
	pageTimes(sc.lanes, paths, rates, times)
	for k, p := range pend {
		m, r, t := p.m, p.rate, times[k]
		if m.time <= 0 {
			out[p.i] = r * t
		} else {
			out[p.i] = m.excess * r / m.rate * t / m.time
		}
	}
	sc.pend, sc.paths, sc.rates = pend, paths, rates
	return out
}

// runScratch is runExcess's buffers, kept by an evaluator between
// predictions: a search solves hundreds of thousands of them, and
// buffers on the stack would be zeroed at every call.
type runScratch struct {
	pend  []pendingRun
	paths []*Path
	rates []float64
	times []float64
	lanes []ptLane
}

// pendingRun is a run whose page time runExcess solves: its slot in
// out, its point and the rate carried to the fit.
type pendingRun struct {
	i    int
	m    *pointModel
	rate float64
}

// jointAtFunc is jointAt over a figure of each run's own (a zswap pair's
// split excess): excess(i, u) is runs[i]'s figure and its ends widened by
// u, the run's own log uncertainty. The same median and span.
func jointAtFunc(runs []carried, f float64, extra float64, excess func(i int, u float64) (ex, lo, hi float64)) (central, lo, hi float64, med int) {
	lo, hi = math.Inf(1), 0
	reduced := false
	for _, r := range runs {
		reduced = reduced || r.weight > 0
	}
	// The runs and their medians on the stack (a derived prediction has a
	// few dozen runs, and the search asks for hundreds of thousands of
	// figures); a run's own uncertainty depends on its source curve only,
	// which consecutive runs share.
	var buf [128]jointRun
	all := buf[:0]
	var lastSrc *factors.Curve
	var srcU float64
	for i, r := range runs {
		if r.src != lastSrc || i == 0 {
			lastSrc, srcU = r.src, math.Log1p(pointUnc(r.src, nearestPoint(r.src, f)))
		}
		u := srcU
		e := max(extra, r.err)
		if r.prior {
			e = max(e, fallbackTransferError)
		}
		if e > 0 {
			u = math.Hypot(u, e)
		}
		ex, exLo, exHi := excess(i, u)
		if math.IsNaN(ex) || math.IsInf(ex, 0) || ex < 0 {
			continue
		}
		if ex == 0 {
			// A run that costs nothing here (a one-pass band's low end
			// at 1) bounds the band from below; it takes no part in the
			// median. Its top still counts: a zswap sum's is the other
			// part's band top where both parts' figures are 0.
			lo = 0
			if exHi > 0 && !math.IsInf(exHi, 0) {
				hi = max(hi, exHi)
			}
			continue
		}
		lo, hi = min(lo, exLo), max(hi, exHi)
		if r.s.band == 0 && (r.weight > 0 || !reduced) {
			all = append(all, jointRun{ex, i, max(r.weight, 1)})
		}
	}
	if len(all) == 0 {
		if hi > 0 {
			return 0, 0, hi, -1
		}
		return 0, 0, 0, -1
	}
	m := weightedMedian(all)
	return m.ex, min(lo, m.ex), max(hi, m.ex), m.i
}

// weightedMedian is the (weighted) median of runs (at least one): in
// order of excess, runs of equal excess in run order, the first run past
// half the weight; with weights of one, the (len/2)-th. It is selected,
// not sorted for (the search forms hundreds of thousands of medians of a
// few dozen runs), and reorders runs.
func weightedMedian(runs []jointRun) jointRun {
	total := 0
	for _, r := range runs {
		total += r.w
	}
	// The run where the weight counted from the lowest first exceeds
	// half the total: where it reaches need.
	need := total/2 + 1
	less := func(a, b *jointRun) bool { return a.ex < b.ex || (a.ex == b.ex && a.i < b.i) }
	for len(runs) > 1 {
		// The middle run as the pivot, moved to the end; the runs before
		// it in order to the front (Lomuto), then the pivot after them.
		mid, last := len(runs)/2, len(runs)-1
		runs[mid], runs[last] = runs[last], runs[mid]
		p := &runs[last]
		k, below := 0, 0
		for j := range last {
			if less(&runs[j], p) {
				below += runs[j].w
				runs[k], runs[j] = runs[j], runs[k]
				k++
			}
		}
		runs[k], runs[last] = runs[last], runs[k]
		switch {
		case need <= below:
			runs = runs[:k]
		case need <= below+runs[k].w:
			return runs[k]
		default:
			need -= below + runs[k].w
			runs = runs[k+1:]
		}
	}
	return runs[0]
}

// widen is exp(-u) and exp(u) for jointAtFunc's callers, kept from one
// run to the next: consecutive runs mostly share their log uncertainty
// (their source curve's, widened by the same transfer error).
type widen struct {
	u, down, up float64
	ok          bool
}

// by is exp(-u) and exp(u).
func (w *widen) by(u float64) (down, up float64) {
	if !w.ok || u != w.u {
		w.u, w.down, w.up, w.ok = u, math.Exp(-u), math.Exp(u), true
	}
	return w.down, w.up
}

// jointRun is one run's figure in jointAtFunc's median.
type jointRun struct {
	ex float64
	i  int
	w  int
}

// jointCache holds a factor set's agreements and plans, keyed by what
// they read beyond the factor set's own fields: the source curves
// (jointSet.key), the shape and, for a plan, whether the target seeks.
// The fields (overhead, readahead, shapes, the curves' contents) are the
// stamp's: a change to them empties the cache (cachestamp.go).
type jointCache struct {
	mu     sync.Mutex
	m      map[agreeKey]agreement
	plans  map[planKey][]carried
	groups map[string]jointGroup
	// same: sameKept of a set's agreement under a shape name and under
	// one shape alone (sameKeptFor).
	same map[[2]agreeKey]bool
	// derived is derivedSet's answer (derivedOK: it is set).
	derived   jointSet
	derivedOK bool
	// zswaps are the zswap pairs of every search over the factor set,
	// figs their figures in the repeated searches (uncertainty,
	// break-even), under their own lock.
	zmu    sync.Mutex
	zswaps map[[2]prepKey]zswapEntry
	figs   map[zswapFigKey]zswapFigure
}

// jointGroup is a set's sources alone and their full grid (jointGrid).
type jointGroup struct {
	fs   *Factors
	grid []scenario
}

type agreeKey struct {
	set, shape string
}

type planKey struct {
	set, shape string
	seeks      bool
}

// jointSet is the curves a derived band is formed from: recommend's are
// the transfer_from curve's file's (derivedSet), crossval's every curve
// but the one held out. job: they are a profile of the job the band is
// for, so their agreement constrains its shape.
type jointSet struct {
	sources []*factors.Curve
	job     bool
	// own: the set is one curve of its own (prepareOwn): nothing checks
	// it, so its agreement keeps every combination.
	own bool
	id  string // key(), where the set was made with it (derivedSet)
}

// key names the set in the caches by the identity of its curves.
func (s jointSet) key() string {
	if s.id != "" {
		return s.id
	}
	var b strings.Builder
	for _, c := range s.sources {
		fmt.Fprintf(&b, "%s@%p;", c.Class, c)
	}
	fmt.Fprintf(&b, "job=%v", s.job)
	return b.String()
}

// derivedSet is the set recommend derives a class without a curve from.
// Every preparation asks for it: it is made once per state of fs's fields
// and kept with the joint cache, which a change to them empties.
func (fs *Factors) derivedSet() jointSet {
	c := fs.joint
	if c != nil {
		c.mu.Lock()
		d, ok := c.derived, c.derivedOK
		c.mu.Unlock()
		if ok {
			return d
		}
	}
	d := jointSet{sources: fs.jointSources(), job: fs.sourcesAreTheJob()}
	d.id = d.key()
	if c != nil {
		c.mu.Lock()
		c.derived, c.derivedOK = d, true
		c.mu.Unlock()
	}
	return d
}

// cachedPlan is jointPlan, once per factor set, source set, shape and kind
// of target.
func (fs *Factors) cachedPlan(set jointSet, shapeName string, seeks bool, a agreement) []carried {
	if fs.joint == nil {
		return fs.plan(a, set.sources, seeks)
	}
	fs.joint.mu.Lock()
	defer fs.joint.mu.Unlock()
	k := planKey{set.key(), shapeName, seeks}
	if plan, ok := fs.joint.plans[k]; ok {
		return plan
	}
	plan := fs.plan(a, set.sources, seeks)
	// Every target the plan is carried to reads the same reference
	// figures: solved here, once.
	for i := range plan {
		plan[i].refs = fs.refPoints(nil, plan[i].src, plan[i].s)
		plan[i].refIdle = fs.refScenario(plan[i].src, plan[i].s).IdleTime()
	}
	if fs.joint.plans == nil {
		fs.joint.plans = map[planKey][]carried{}
	}
	fs.joint.plans[k] = plan
	return plan
}

// lowestFit is the lowest fit ratio c stands on (its last point's, or the
// low end of that point's fit_range).
func lowestFit(c *factors.Curve) float64 {
	last := c.Points[len(c.Points)-1]
	if len(last.FitRange) == 2 {
		return last.FitRange[0]
	}
	return last.Fit
}

// searchedLocality reports whether the agreement's grid spans locality
// (some curve was taken on a disk that seeks).
func searchedLocality(a agreement) bool {
	for _, s := range a.grid {
		if s.localityPos != 0 {
			return true
		}
	}
	return false
}

// jointSources are the observed curves of the same file as the
// transfer_from curve: curves of one study's (or one profile's, one
// probe's) jobs, which the joint check may hold against each other.
// Curves of other files describe other jobs; their page rates need not
// agree.
func (fs *Factors) jointSources() []*factors.Curve {
	if _, ok := fs.Curves[fs.TransferFrom]; !ok {
		return nil
	}
	origin := fs.Origin[fs.TransferFrom]
	var out []*factors.Curve
	for _, k := range fs.transferClasses() {
		if c := fs.Curves[k]; fs.Origin[k] == origin {
			out = append(out, c)
		}
	}
	return out
}

// jointAgreement is the agreement of set's observed curves under every
// combination whose shape is among shapes (every combination for a
// curve of its own).
func (fs *Factors) jointAgreement(set jointSet, shapeName string, shapes []factors.Shape) agreement {
	k := agreeKey{set.key(), shapeName}
	if fs.joint != nil {
		// Held while computing: the search's goroutines all ask at once,
		// and one computation is enough.
		fs.joint.mu.Lock()
		defer fs.joint.mu.Unlock()
		if a, ok := fs.joint.m[k]; ok {
			return a
		}
	}
	group, grid := fs.jointGrid(set, shapes)
	var a agreement
	if set.own {
		a = agreement{grid: grid, curves: 1, consistent: len(grid)}
		for i := range grid {
			a.kept = append(a.kept, i)
		}
	} else {
		a = group.agreeKnown(grid)
	}
	if fs.joint != nil {
		if fs.joint.m == nil {
			fs.joint.m = map[agreeKey]agreement{}
		}
		fs.joint.m[k] = a
	}
	return a
}

// jointGrid is the factor set the joint agreement checks (set's sources
// alone) and its grid: every combination whose shape is among shapes.
// The group and its full grid are the same for every shape: kept in
// fs.joint by set (whose lock the caller holds).
func (fs *Factors) jointGrid(set jointSet, shapes []factors.Shape) (*Factors, []scenario) {
	named := map[string]bool{}
	for _, s := range shapes {
		named[s.Name] = true
	}
	key := set.key()
	g, ok := jointGroup{}, false
	if c := fs.joint; c != nil {
		g, ok = c.groups[key]
	}
	if !ok {
		g.fs = fs.onlyCurves(set.sources)
		g.grid = g.fs.scenarioGrid(true)
		if c := fs.joint; c != nil {
			if c.groups == nil {
				c.groups = map[string]jointGroup{}
			}
			c.groups[key] = g
		}
	}
	// scenarioGrid lists the combinations shape by shape, so the named
	// shapes' are usually one run of the full grid: shared, not copied
	// (nothing writes to a grid; the copy was a fifth of what
	// `memplan recommend -w examples/eda.yaml` cost).
	lo, hi, runs := -1, -1, 0
	for i, s := range g.grid {
		if !named[s.shape.Name] {
			continue
		}
		if i != hi {
			lo, runs = i, runs+1
		}
		hi = i + 1
	}
	if runs <= 1 {
		if lo < 0 {
			return g.fs, nil
		}
		return g.fs, g.grid[lo:hi:hi]
	}
	grid := make([]scenario, 0, len(g.grid))
	for _, s := range g.grid {
		if named[s.shape.Name] {
			grid = append(grid, s)
		}
	}
	return g.fs, grid
}

// sameKept reports whether two agreements keep the same combinations
// (their grids differ: compared by what the combinations are) and judge
// them alike (both consistent or both not).
// sameKeptFor is sameKept(a, one) for the agreement a of the set keyed
// sk (jointSet.key) under shapeName and one under the shape sh alone,
// kept in fs.joint: it depends on the set's curves only, and every target
// the search prepares asks it.
func (fs *Factors) sameKeptFor(sk, shapeName, sh string, a, one agreement) bool {
	c := fs.joint
	if c == nil {
		return sameKept(a, one)
	}
	k := [2]agreeKey{{sk, shapeName}, {sk, sh}}
	c.mu.Lock()
	v, ok := c.same[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = sameKept(a, one)
	c.mu.Lock()
	if c.same == nil {
		c.same = map[[2]agreeKey]bool{}
	}
	c.same[k] = v
	c.mu.Unlock()
	return v
}

func sameKept(a, b agreement) bool {
	if len(a.kept) != len(b.kept) || (a.consistent == 0) != (b.consistent == 0) {
		return false
	}
	type key struct {
		shape                        string
		overhead                     time.Duration
		fitPos, band                 int
		dirtyPos, writePos, locality float64
	}
	k := func(s scenario) key {
		return key{s.shape.Name, s.overhead, s.fitPos, s.band, s.dirtyPos, s.writePos, s.localityPos}
	}
	in := map[key]bool{}
	for _, i := range a.kept {
		in[k(a.grid[i])] = true
	}
	for _, i := range b.kept {
		if !in[k(b.grid[i])] {
			return false
		}
	}
	return true
}

// sourcesAreTheJob reports whether the joint sources (the transfer_from
// curve's file) are a profile of the job itself (memplan profile records
// extra.profile): then their agreement constrains the job's own shape.
func (fs *Factors) sourcesAreTheJob() bool { return fs.isProfile(fs.Origin[fs.TransferFrom]) }

// isProfile reports whether the factor file named origin is a job's
// profile (memplan profile records extra.profile).
func (fs *Factors) isProfile(origin string) bool {
	for _, f := range fs.Files {
		if f.File == origin && f.Extra["profile"] != nil {
			return true
		}
	}
	return false
}

// onlyCurves is fs with just the given curves.
func (fs *Factors) onlyCurves(cs []*factors.Curve) *Factors {
	cp := *fs
	cp.Curves = map[string]*factors.Curve{}
	for _, c := range cs {
		cp.Curves[c.Class] = c
	}
	cp.newCaches()
	return &cp
}

// prepareJoint prepares a derived class from every observed curve of the
// transfer_from curve's file at once, over the combinations of the
// unknowns under which those curves agree (as `memplan factors crossval`'s
// joint table checks it). It returns false where fewer than two such
// curves are there to check each other: the single transfer_from curve,
// with the transfer error, is then all there is.
func (fs *Factors) prepareJoint(p *prepared, set jointSet, shapeName string, shapes []factors.Shape) bool {
	a := fs.jointAgreement(set, shapeName, shapes)
	if a.curves < 2 || len(a.kept) == 0 {
		return false
	}
	sources := set.sources
	p.agreed = a.summary()
	// The lowest fit any source stands on, named after the transfer_from
	// curve where it is as low as any.
	p.lowest, p.lowestOf = lowestFit(p.curve), p.curve.Class
	var names, inferred []string
	for _, c := range sources {
		names = append(names, c.Class)
		if c.Provenance == factors.Inferred {
			inferred = append(inferred, c.Class)
		}
		if low := lowestFit(c); low < p.lowest {
			p.lowest, p.lowestOf = low, c.Class
		}
	}
	seeks := !p.target.Dev.Memory && p.target.Dev.SeqReadLatency > 0 && p.target.Dev.SeqReadLatency != p.target.Dev.ReadLatency
	// The runs are gathered into one slice of the size they need: a
	// carried run is large, and the search prepares thousands of targets.
	plan := fs.cachedPlan(set, shapeName, seeks, a)
	// The sources' agreement tells which shapes explain their jobs. Unless
	// they are the job's own curves (its profile), it says nothing of the
	// job's shape: the band then also spans every shape's own joint band,
	// as wide as naming that shape in access: would make it, so that
	// stating the shape never widens the band. These runs only bound it;
	// the central figure stays the median of the agreeing combinations.
	// Only the runs that bound a group are added: a group's median run lies
	// between them. A shape whose own agreement keeps just the combinations
	// a already keeps adds nothing.
	type bounding struct {
		plan  []carried
		prior bool
	}
	var bounds []bounding
	n := len(plan)
	spanAll := len(shapes) > 1 && !set.job
	if spanAll {
		sk := set.key()
		for _, sh := range shapes {
			one := fs.jointAgreement(set, sh.Name, []factors.Shape{sh})
			if one.curves < 2 || len(one.kept) == 0 || fs.sameKeptFor(sk, shapeName, sh.Name, a, one) {
				continue
			}
			b := bounding{fs.cachedPlan(set, sh.Name, seeks, one), one.consistent == 0}
			for _, r := range b.plan {
				if r.weight == 0 {
					n++
				}
			}
			bounds = append(bounds, b)
		}
	}
	p.joint = make([]carried, 0, n)
	npts := 0
	for _, r := range plan {
		npts += len(r.src.Points)
	}
	for _, b := range bounds {
		for _, r := range b.plan {
			if r.weight == 0 {
				npts += len(r.src.Points)
			}
		}
	}
	// Every run's points in one block, each run's slice capped at its own.
	block := make([]pointModel, npts)
	arena := &pathArena{}
	carry := func(r carried) []pointModel {
		k := len(r.src.Points)
		pts := fs.carryRun(block[:k:k], arena, r, p.target)
		block = block[k:]
		return pts
	}
	for _, r := range plan {
		r.pts = carry(r)
		p.joint = append(p.joint, r)
	}
	for _, b := range bounds {
		for _, r := range b.plan {
			if r.weight > 0 {
				continue
			}
			r.pts = carry(r)
			r.prior = b.prior
			p.joint = append(p.joint, r)
		}
	}
	p.inferred = len(inferred) > 0
	p.jointPrior = a.consistent == 0
	kept := map[string]bool{}
	for _, i := range a.kept {
		kept[a.grid[i].shape.Name] = true
	}
	var keptShapes []factors.Shape
	for _, s := range shapes {
		if kept[s.Name] {
			keptShapes = append(keptShapes, s)
		}
	}
	// The dirty share the sources' jobs had under the combinations they
	// agree under: what their curves imply for a job that states none.
	dLo, dHi := math.Inf(1), math.Inf(-1)
	for _, i := range a.kept {
		if d, ok := impliedDirty(p.curve, a.grid[i]); ok {
			dLo, dHi = min(dLo, d), max(dHi, d)
		}
	}
	if dLo <= dHi {
		p.dirtyLo, p.dirtyHi, p.dirtyFrom = dLo, dHi, strings.Join(names, ", ")
	}
	idleLo, idleHi := math.Inf(1), 0.0
	for _, i := range a.kept {
		t := fs.scenarioPath(p.target, a.grid[i]).IdleTime()
		idleLo, idleHi = min(idleLo, t), max(idleHi, t)
	}
	p.shapeUnknown = spanAll && len(keptShapes) < len(shapes)
	p.basis = Basis{Kind: BasisJoint, Provenance: p.curve.Provenance, Joint: &JointBasis{
		Curves: names, Inferred: inferred, IdleLow: idleLo, IdleHigh: idleHi,
		Combinations: len(a.grid), Consistent: a.consistent, Kept: len(a.kept), Misfit: a.misfit,
		Shapes: shapeList(shapes), KeptShapes: shapeList(keptShapes), ShapeUnknown: p.shapeUnknown,
	}}
	if p.target.cpuBound() {
		p.basis.Jobs, p.basis.Cores = p.target.jobs(), p.target.Cores
	}
	return true
}

// centralRuns is how many runs stand for a shape's kept combinations in
// the central figure: each group gets a share in proportion to its size
// (at least one), each run the middle combination of its slice of the
// group (in order of the reference rate) weighted by the slice's size.
// One median run per group put the weighted median wherever the largest
// group's median was: the X25-E predicted from the other two anchors
// came out at 1.333 on the default grid and 1.182 on one twice as fine,
// while the median of every combination is 1.228 and 1.221. A group
// drawn with k runs misplaces at most half a slice, 1/(2k) of its own
// weight: with 20 runs a shape, no group shifts the shape's distribution
// by more than 1/40 of its weight. The central figure then lies within
// 2.6% in excess of the plain median on derived classes and 8.8% on a
// curve of its own (TestJointPlanMatchesFull, TestOwnPlanMatchesFull;
// 8.4% and 26% with one run a group).
const centralRuns = 20

// jointPlan picks, from the combinations an agreement keeps, the few runs
// a derived prediction needs, once for every target. Within a group of
// combinations that leave the target path alike (same source, shape,
// software overhead and, on a target that seeks, locality) the excess a
// point gives on any target grows with its page rate (and, for a point
// that counted its pages, with its own software cost), and it grows as the
// sources' fit ratios move up their ranges and as an inferred curve's band
// moves up. So each point's least excess in the group comes from its
// lowest-rate combination at the low fit position and band end, and its
// most from the highest-rate one at the high ends. The central figure is
// the weighted median of runs at the nominal fit that stand for the
// groups' quantiles (centralRuns). spanLocality: the target seeks but no
// curve was taken on a disk that does, so nothing constrains the shape's
// locality; the low runs take the top of its range, the high runs the
// bottom. TestJointPlanMatchesFull checks the band and the central figure
// against every run.
func (fs *Factors) jointPlan(a agreement, sources []*factors.Curve, seeks, spanLocality bool) []carried {
	type gkey struct {
		src      *factors.Curve
		shape    string
		overhead time.Duration
		loc      float64
	}
	type cand struct {
		s    scenario
		i    int       // its place in a.grid
		keys []float64 // per point: ln rate + ln its own software cost
		sum  float64
	}
	groups := map[gkey][]cand{}
	var order []gkey
	for _, src := range sources {
		for _, i := range a.kept {
			sc := a.grid[i]
			k := gkey{src, sc.shape.Name, sc.overhead, 0}
			if seeks {
				k.loc = sc.localityPos
			}
			// The rates and per-point costs do not depend on the target:
			// carry the source to its own reference.
			c := cand{s: sc, i: i}
			for _, m := range fs.carry(src, fs.refPath(src), sc, false) {
				key := math.Log(max(m.rate, 1e-300)) + math.Log(max(m.path.Overhead.Seconds(), 1e-12))
				c.keys = append(c.keys, key)
				c.sum += key
			}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], c)
		}
	}
	total := map[string]int{}
	for k, g := range groups {
		total[k.shape] += len(g)
	}
	var runs []carried
	for _, k := range order {
		g := groups[k]
		fitLo, fitHi, bandLo, bandHi := 0, 0, 0, 0
		for _, pt := range k.src.Points {
			if len(pt.FitRange) == 2 {
				fitLo, fitHi = -1, 1
			}
		}
		if carriesBand(k.src) {
			bandLo, bandHi = -1, 1
		}
		// Each point's lowest and highest combination (one each for a
		// single-point curve; several where the points order the
		// combinations differently).
		lo, hi := map[int]bool{}, map[int]bool{}
		for j := range g[0].keys {
			l, h := 0, 0
			for i := range g {
				if g[i].keys[j] < g[l].keys[j] {
					l = i
				}
				if g[i].keys[j] > g[h].keys[j] {
					h = i
				}
			}
			lo[l], hi[h] = true, true
		}
		for i := range g {
			if lo[i] {
				s := g[i].s
				s.fitPos, s.band = fitLo, bandLo
				if spanLocality {
					s.localityPos = 1
				}
				runs = append(runs, carried{runDef: &runDef{src: k.src, s: s, grid: g[i].i}})
			}
			if hi[i] {
				s := g[i].s
				s.fitPos, s.band = fitHi, bandHi
				if spanLocality {
					s.localityPos = -1
				}
				runs = append(runs, carried{runDef: &runDef{src: k.src, s: s, grid: g[i].i}})
			}
		}
		order := make([]int, len(g))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return g[order[a]].sum < g[order[b]].sum })
		// The shape's total, not the plan's: a shape's runs are then the
		// same in a plan over every shape and in one over that shape alone
		// (a zswap pair reads the other part per shape).
		nq := min(len(g), (centralRuns*len(g)+total[k.shape]-1)/total[k.shape])
		for q := 0; q < nq; q++ {
			from, to := q*len(g)/nq, (q+1)*len(g)/nq
			m := g[order[(from+to)/2]]
			runs = append(runs, carried{runDef: &runDef{src: k.src, s: m.s, weight: to - from, grid: m.i}})
		}
	}
	return runs
}
