package model

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/prices"
)

// scenarioSplit is, computed here from the two preparations and without
// zswapPair, a zswap job's split excess under each run of a jointly
// derived drive: the pool's points carried under that run's combination,
// the share of the faults its shape sends to the drive, and the run's own
// widening (its source point's interval; the prior error where the curves
// contradict each other).
func scenarioSplit(fs *Factors, pool, drive prepared, wd, f float64) (ex, widen []float64) {
	for _, r := range drive.joint {
		pex, _, _ := excessAt(fs.carry(r.src, pool.target, r.s, false), r.s.shape, f)
		dex, _, _ := excessAt(r.pts, r.s.shape, f)
		d := math.Exp(shapeLogRate(r.s.shape, wd*(1-f)) - shapeLogRate(r.s.shape, 1-f))
		u := math.Log1p(pointUnc(r.src, nearestPoint(r.src, f)))
		if drive.jointPrior || r.prior {
			u = math.Hypot(u, fallbackTransferError)
		}
		ex = append(ex, (1-d)*pex+d*dex)
		widen = append(widen, u)
	}
	return ex, widen
}

// TestZswapBandTopIsItsWorstScenario: for every zswap configuration of
// examples/eda.yaml (no job states its access pattern, so the band spans
// every shape), the top of each job's band is no higher than the worst
// single scenario's slowdown, computed directly, and no lower than any
// scenario's own figure. Pairing the drive's band top (a knee shape's)
// with the shape that sends the most faults to the drive (a sweep) gave
// 18.6 for the regression jobs on 512 GiB + zswap + 3.84 TB TLC.
func TestZswapBandTopIsItsWorstScenario(t *testing.T) {
	in := edaInput(t)
	w, fs := in.Workload, in.Factors
	res, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]JobClass{}
	for _, j := range w.Jobs {
		jobs[j.Name] = j
	}
	drives := map[string]prices.Drive{}
	for _, d := range in.Prices.Drives {
		drives[d.SKU] = d
	}
	pool := zramDevice(fs.Software["zram-lz4"])
	checked := 0
	for i := range res.Configs {
		c := &res.Configs[i]
		if c.Swap.Kind != SwapZswap || c.Swap.Mirrored {
			continue
		}
		dev := CatalogDevice(drives[c.Swap.Drive.SKU], c.Swap.Class, c.Swap.Drives)
		for _, jr := range c.Jobs {
			j := jobs[jr.Name]
			if jr.Fit >= 1 || jr.Estimate.Basis.Kind != BasisZswap {
				continue
			}
			pp, err1 := fs.prepare("zram-lz4", pool, j.Concurrency, c.Cores, float64(j.DirtyShare), j.Access)
			dp, err2 := fs.prepare(c.Swap.Class, dev, j.Concurrency, c.Cores, float64(j.DirtyShare), j.Access)
			if err1 != nil || err2 != nil || len(dp.joint) == 0 {
				t.Fatalf("%s: parts not derived jointly (%v, %v)", c.Label, err1, err2)
			}
			ex, widen := scenarioSplit(fs, pp, dp, jr.Estimate.Basis.DriveShare, jr.Fit)
			worst, highest := 0.0, 0.0
			for k := range ex {
				if ex[k] > 0 && !math.IsInf(ex[k], 0) {
					worst = math.Max(worst, ex[k]*math.Exp(widen[k]))
					highest = math.Max(highest, ex[k])
				}
			}
			if top := jr.Estimate.High - 1; top > worst*(1+1e-9) || top < highest*(1-1e-9) {
				t.Errorf("%s, %s: band top %.4f, want at most the worst scenario's %.4f and at least every scenario's own figure (%.4f)",
					c.Label, jr.Name, jr.Estimate.High, 1+worst, 1+highest)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no zswap configuration with swapping jobs to check")
	}
}

// TestZswapBandWithinItsScenarios: over random shares of the overflow on
// the drive, fit ratios, devices, loads and access patterns, a zswap
// figure from two jointly derived parts has its central figure within the
// range of the scenarios' own figures and its band within their range
// widened by each run's own uncertainty; led by the drive's runs (a
// curve of its own as the pool with a joint drive, and two curves of
// their own), its band holds every run's figure with the pool prepared
// for that run's shape, its central figure is one of them, and its top
// is no higher than the highest run widened (checkLed).
func TestZswapBandWithinItsScenarios(t *testing.T) {
	fs := testFactors(t)
	pool := zramDevice(fs.Software["zram-lz4"])
	drives := []Device{
		{Name: "nvme-tlc", ReadLatency: 90 * time.Microsecond, WriteLatency: 20 * time.Microsecond, ReadIOPS: 500000, WriteIOPS: 100000, WriteBW: 1.5e9, Drives: 1},
		{Name: "nvme-qlc", ReadLatency: 140 * time.Microsecond, WriteLatency: 30 * time.Microsecond, ReadIOPS: 300000, WriteIOPS: 20000, WriteBW: 3e8, Drives: 2},
		{Name: "hdd", ReadLatency: 8 * time.Millisecond, SeqReadLatency: DefaultSeqReadLatency("hdd", 8*time.Millisecond), ReadIOPS: 180, WriteIOPS: 160, WriteBW: 1.8e8, Drives: 2},
	}
	rng := rand.New(rand.NewSource(23))
	const tol = 1e-9
	for n := 0; n < 200; n++ {
		dev := drives[rng.Intn(len(drives))]
		jobs := []int{1, 4, 16}[rng.Intn(3)]
		shape := []string{"", "uniform", "sweep", "knee", "saturating"}[rng.Intn(5)]
		wd, f := 0.05+0.9*rng.Float64(), 0.35+0.6*rng.Float64()
		// Jointly derived: the classes without a curve of their own.
		pp, err1 := fs.prepare("zram-lz4", pool, jobs, 0, 0.5, shape)
		dp, err2 := fs.prepare("new-drive-class", dev, jobs, 0, 0.5, shape)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		z, ok := fs.pairZswap(pp, dp)
		if !ok || z.poolRuns == nil {
			t.Fatalf("%s: not paired jointly", dev.Name)
		}
		fig := z.at(wd, f)
		ex, widen := scenarioSplit(fs, pp, dp, wd, f)
		lo, hi, wlo, whi := math.Inf(1), 0.0, math.Inf(1), 0.0
		for k := range ex {
			if ex[k] > 0 && !math.IsInf(ex[k], 0) {
				lo, hi = math.Min(lo, ex[k]), math.Max(hi, ex[k])
				wlo, whi = math.Min(wlo, ex[k]*math.Exp(-widen[k])), math.Max(whi, ex[k]*math.Exp(widen[k]))
			}
		}
		if fig.central < lo*(1-tol) || fig.central > hi*(1+tol) || fig.lo < wlo*(1-tol) || fig.hi > whi*(1+tol) || fig.lo > fig.central || fig.hi < fig.central {
			t.Errorf("joint, %s, %d jobs, shape %q, wd %.3f, fit %.3f: excess %.4g (%.4g-%.4g), scenarios %.4g-%.4g, widened %.4g-%.4g",
				dev.Name, jobs, shape, wd, f, fig.central, fig.lo, fig.hi, lo, hi, wlo, whi)
		}

		// The pool from a curve of its own, the drive derived jointly:
		// under each of the drive's runs, the pool's figure under that
		// run's shape (prepared for that shape alone).
		pc := fs.prepareCurve(fs.Curves["sata-ssd-slc"], false, pool, jobs, 0.5, shape, 0, nil, nil)
		z, ok = fs.pairZswap(pc, dp)
		if !ok || z.poolRuns != nil || !z.driveLeads {
			t.Fatalf("%s: not paired as a curve and a joint derivation led by the drive", dev.Name)
		}
		checkLed(t, "mixed", fs, z.at(wd, f), pc, dp.joint, dp.runErr(), wd, f)

		// From a curve each (the published SLC curve as the pool, the MLC
		// curve, which has a write bandwidth range the SLC lacks, as the
		// drive): the drive's own runs lead, each widened by its point's
		// interval and the transfer error.
		dc := fs.prepareCurve(fs.Curves["sata-ssd-mlc"], false, dev, jobs, 0.5, shape, 0, nil, nil)
		z, ok = fs.pairZswap(pc, dc)
		if !ok || z.poolRuns != nil || !z.driveLeads {
			t.Fatalf("%s: curves not paired with the drive leading", dev.Name)
		}
		checkLed(t, "curves", fs, z.at(wd, f), pc, dc.own, dc.runErr(), wd, f)
	}
}

// checkLed holds a zswap figure whose drive runs lead to what each run
// gives with the pool prepared for that run's shape alone: the band
// holds every run's figure, the central figure is one of them, and the
// top is no higher than the highest run widened by its own error (its
// point's interval and extra) with the pool at the top of its band.
func checkLed(t *testing.T, what string, fs *Factors, fig zswapFigure, pool prepared, runs []carried, extra, wd, f float64) {
	t.Helper()
	const tol = 1e-9
	isRun, top := false, 0.0
	for _, r := range runs {
		one := fs.prepareCurve(pool.curve, false, pool.target.Dev, pool.target.Jobs, pool.target.Dirty, r.s.shape.Name, 0, nil, nil)
		pe := one.at(f)
		dex, _, _ := excessAt(r.pts, r.s.shape, f)
		d := driveShare(r.s.shape, wd, f)
		x := (1-d)*(pe.Slowdown-1) + d*dex
		if !(x > 0) || math.IsInf(x, 0) {
			continue
		}
		if fig.lo > x*(1+tol) || fig.hi < x*(1-tol) {
			t.Errorf("%s, shape %s, wd %.3f, fit %.3f: band %.4g-%.4g leaves out a run's %.4g", what, r.s.shape.Name, wd, f, fig.lo, fig.hi, x)
		}
		isRun = isRun || math.Abs(x-fig.central) <= tol*x
		e := math.Max(extra, r.err)
		if r.prior {
			e = math.Max(e, fallbackTransferError)
		}
		u := math.Hypot(math.Log1p(pointUnc(r.src, nearestPoint(r.src, f))), e)
		top = math.Max(top, (1-d)*(pe.High-1)+d*dex*math.Exp(u))
	}
	if !isRun {
		t.Errorf("%s, wd %.3f, fit %.3f: central %.4g is no run's figure", what, wd, f, fig.central)
	}
	if fig.hi > top*(1+tol) {
		t.Errorf("%s, wd %.3f, fit %.3f: band top %.4g above the highest run widened, %.4g", what, wd, f, fig.hi, top)
	}
}

// TestZswapPoolCarriesOncePerDrivePlan: a pool preparation paired with
// drives whose runs come from the same plan carries those runs once and
// hands every pair the same carries; a drive of another plan (a disk that
// seeks) gets its own. Each equals a fresh carry of its drive's runs.
func TestZswapPoolCarriesOncePerDrivePlan(t *testing.T) {
	fs := testFactors(t)
	pp, err := fs.prepare("zram-lz4", zramDevice(fs.Software["zram-lz4"]), 4, 0, 0.5, "")
	if err != nil {
		t.Fatal(err)
	}
	drives := []Device{
		{Name: "nvme-a", ReadLatency: 90 * time.Microsecond, WriteLatency: 20 * time.Microsecond, ReadIOPS: 500000, WriteIOPS: 100000, WriteBW: 1.5e9, Drives: 1},
		{Name: "nvme-b", ReadLatency: 140 * time.Microsecond, WriteLatency: 30 * time.Microsecond, ReadIOPS: 300000, WriteIOPS: 20000, WriteBW: 3e8, Drives: 2},
		{Name: "hdd", ReadLatency: 8 * time.Millisecond, SeqReadLatency: DefaultSeqReadLatency("hdd", 8*time.Millisecond), ReadIOPS: 180, WriteIOPS: 160, WriteBW: 1.8e8, Drives: 2},
	}
	var runs [][][]pointModel
	for _, dev := range drives {
		dp, err := fs.prepare("new-drive-class", dev, 4, 0, 0.5, "")
		if err != nil {
			t.Fatal(err)
		}
		z, ok := fs.pairZswap(pp, dp)
		if !ok || z.poolRuns == nil {
			t.Fatalf("%s: not paired jointly", dev.Name)
		}
		if fresh := fs.poolRuns(pp, dp.joint); !reflect.DeepEqual(z.poolRuns, fresh) {
			t.Errorf("%s: the kept carries differ from a fresh carry of its runs", dev.Name)
		}
		runs = append(runs, z.poolRuns)
	}
	if &runs[0][0][0] != &runs[1][0][0] {
		t.Error("two flash drives of one plan: the pool carried their runs twice")
	}
	if &runs[2][0][0] == &runs[0][0][0] {
		t.Error("the disk that seeks was handed the flash drives' carries")
	}
	if n := len(pp.carries.seen); n != 2 {
		t.Errorf("the pool keeps %d carries, want 2 (one per drive plan)", n)
	}
}

// TestZswapLedPairKeepsTheOtherPartsOnePassTop: a pool carried from a
// one-pass curve whose central figure is 1 at fits 0.9 and above (its
// band is not) paired with a drive derived from that curve alone: the
// drive's runs lead and the pool is read by shape. The zswap band's top
// is at least the pool's own top under each shape, in the share the
// shape leaves in the pool. Reading the pool's ends as factors of its
// median (0 here) dropped them: 2.56 against 7.27 at fit 0.9, wd 0.05.
func TestZswapLedPairKeepsTheOtherPartsOnePassTop(t *testing.T) {
	fs, err := MergeProfile([]*factors.File{DefaultFactors()}, parseOnePass(t, factors.Inferred, true))
	if err != nil {
		t.Fatal(err)
	}
	pool := zramDevice(fs.Software["zram-lz4"])
	dev := Device{Name: "vda", ReadLatency: 80 * time.Microsecond, WriteLatency: 40 * time.Microsecond, ReadIOPS: 50000, WriteIOPS: 50000, WriteBW: 500e6, Drives: 1}
	pp, err1 := fs.prepare("zram-lz4", pool, 1, 0, 1, "")
	dp, err2 := fs.prepare("nvme-ssd-tlc", dev, 1, 0, 1, "")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	z, ok := fs.pairZswap(pp, dp)
	if !ok || z.poolRuns != nil || !z.driveLeads || len(dp.own) == 0 {
		t.Fatal("not paired as two curves of their own led by the drive")
	}
	for _, f := range []float64{0.95, 0.9} {
		if pe := pp.at(f); pe.Slowdown != 1 || !(pe.High > 1.5) {
			t.Fatalf("fit %g: pool %.4f (%.4f-%.4f), want a central 1 under a wide one-pass top", f, pe.Slowdown, pe.Low, pe.High)
		}
		for _, wd := range []float64{0.05, 0.5} {
			fig := z.at(wd, f)
			for _, sh := range fs.ShapeList() {
				one := fs.prepareCurve(pp.curve, false, pool, 1, 1, sh.Name, 0, nil, nil)
				d := driveShare(sh, wd, f)
				if want := (1 - d) * (one.at(f).High - 1); fig.hi < want*(1-1e-9) {
					t.Errorf("fit %g, wd %g, %s: zswap band top %.4f below the pool's own top in its share, %.4f", f, wd, sh.Name, 1+fig.hi, 1+want)
				}
			}
		}
	}
}
