package model

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

func testFactors(t *testing.T) *Factors {
	t.Helper()
	fs, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestPredictSameDeviceIsThePublishedFigure(t *testing.T) {
	fs := testFactors(t)
	x25e := Device{ReadLatency: 75 * time.Microsecond, WriteLatency: 85 * time.Microsecond, ReadIOPS: 35000, WriteIOPS: 3300, WriteBW: 170e6, Drives: 1}
	est, err := fs.Predict("sata-ssd-slc", x25e, 4, 0.5, 0.52)
	if err != nil {
		t.Fatal(err)
	}
	if !near(est.Slowdown, 1.12, 1e-9) || est.Provenance != factors.Published || est.Extrapolated {
		t.Errorf("got %+v, want exactly the published 1.12", est)
	}
	if !(est.Low < est.Slowdown && est.Slowdown < est.High) {
		t.Errorf("band [%.3f, %.3f] does not bracket %.3f", est.Low, est.High, est.Slowdown)
	}
}

func TestParseFactorsComputesCIFromSamples(t *testing.T) {
	f, err := ParseFactors("m.yaml", []byte(`
name: m
source: test
curves:
  - class: zram-lz4
    provenance: measured
    host: box
    reference: {read_latency: 2us}
    points:
      - fit: 0.5
        samples: [1.10, 1.20, 1.30]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Curves[0].Points[0]
	if !near(p.Slowdown, 1.2, 1e-9) {
		t.Errorf("slowdown %.3f, want the mean 1.2", p.Slowdown)
	}
	// t(0.975, 2) = 4.3027; sd = 0.1; half-width = 4.3027*0.1/sqrt(3).
	h := 4.302652729911275 * 0.1 / math.Sqrt(3)
	if len(p.CI) != 2 || !near(p.CI[0], 1.2-h, 1e-6) || !near(p.CI[1], 1.2+h, 1e-6) {
		t.Errorf("CI %v, want 1.2 +- %.4f", p.CI, h)
	}
	_ = units.GiB
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestPageTimeOneJobIsTheLatency(t *testing.T) {
	// One job never queues: overhead + read latency, at any rate.
	p := Path{Dev: Device{ReadLatency: 100 * time.Microsecond, ReadIOPS: 10000, Drives: 1}, Jobs: 1, Overhead: 10 * time.Microsecond}
	for _, rate := range []float64{1, 1000, 1e5} {
		if got := p.PageTime(rate); !near(got, 110e-6, 1e-12) {
			t.Errorf("rate %g: %.3fus a page, want 110us", rate, got*1e6)
		}
	}
	if s := p.Slowdown(1000); !near(s, 1.11, 1e-9) {
		t.Errorf("slowdown %.4f, want 1 + 1000 x 110us = 1.11", s)
	}
	// Readahead: 0.25 faults and 1.5 pages read per page needed back.
	p.RA = factors.Readahead{Faults: 0.25, Pages: 1.5}
	if got := p.IdleTime(); !near(got, 40e-6, 1e-12) {
		t.Errorf("with readahead %.2fus, want 1.5 x 10 + 0.25 x 100 = 40us", got*1e6)
	}
}

func TestLocalitySavesSeeksOnRotatingDisks(t *testing.T) {
	// A disk: 8.5ms a random read, 100us one that follows on. With nine
	// reads in ten following on: 0.1 x 8500 + 0.9 x 100 = 940us a read,
	// plus 20us of software.
	hdd := Device{ReadLatency: 8500 * time.Microsecond, SeqReadLatency: DefaultSeqReadLatency("hdd", 8500*time.Microsecond), Drives: 1}
	p := Path{Dev: hdd, Jobs: 1, Overhead: 20 * time.Microsecond, Locality: 0.9}
	if got := p.IdleTime(); !near(got, 960e-6, 1e-12) {
		t.Errorf("%.2fus a page, want 20 + 940 = 960us", got*1e6)
	}
	if got := (Path{Dev: hdd, Jobs: 1, Overhead: 20 * time.Microsecond}).IdleTime(); !near(got, 8520e-6, 1e-12) {
		t.Errorf("no locality: %.2fus, want 8520us", got*1e6)
	}
	// Flash has no seek to save, and neither has a "rotational" virtual
	// disk answering in 111us: locality changes nothing there.
	for _, d := range []struct {
		class string
		lat   time.Duration
	}{{"sata-ssd-slc", 75 * time.Microsecond}, {"hdd", 111 * time.Microsecond}} {
		dev := Device{ReadLatency: d.lat, SeqReadLatency: DefaultSeqReadLatency(d.class, d.lat), Drives: 1}
		a, b := Path{Dev: dev, Jobs: 1}, Path{Dev: dev, Jobs: 1, Locality: 0.9}
		if a.IdleTime() != b.IdleTime() {
			t.Errorf("%s at %v: locality changed %.2fus to %.2fus", d.class, d.lat, a.IdleTime()*1e6, b.IdleTime()*1e6)
		}
	}
}

func TestPageTimeJobsShareCores(t *testing.T) {
	// Four jobs on two cores, each computing 1000us between pages, 10us of
	// software a page, a 100us read with no IOPS ceiling. By hand, the
	// chain over the j jobs at the read (a delay: j/100us leave it; the
	// CPU, two servers of D = 1010us, sends min(4-j, 2)/D to it): its
	// weights 1, 0.19802, 0.01961, 0.00129, 0.00003 give 1.97909 jobs a
	// millisecond, a cycle of 2021.126us. In RAM the two cores take
	// 4 x 1000us / 2 = 2000us. Slowdown 1.010563: while one job waits for
	// its read another computes, so only the software cost shows (1 +
	// 110us/1000us = 1.11 with a core each).
	p := Path{Dev: Device{ReadLatency: 100 * time.Microsecond, Drives: 1}, Jobs: 4, Cores: 2, Overhead: 10 * time.Microsecond}
	if got := p.Slowdown(1000); !near(got, 2021.125993642916/2000, 1e-9) {
		t.Errorf("4 jobs on 2 cores: slowdown %.6f, want 1.010563", got)
	}
	own := p
	own.Cores = 0
	if got := own.Slowdown(1000); !near(got, 1.11, 1e-9) {
		t.Errorf("a core each: %.6f, want 1.11", got)
	}
	// As many cores as jobs: nothing changes.
	p.Cores = 4
	if got := p.Slowdown(1000); got != own.Slowdown(1000) {
		t.Errorf("4 jobs on 4 cores: %.6f, want the core-each %.6f", got, own.Slowdown(1000))
	}
	// The inverse still holds where the jobs share cores.
	p.Cores = 2
	if r := p.RateFor(p.Slowdown(3000)); !near(r, 3000, 1e-3) {
		t.Errorf("RateFor on shared cores: %.4f, want 3000", r)
	}
}

func TestPageTimeTwoJobsQueue(t *testing.T) {
	// Two jobs, one read at a time (latency x IOPS = 1), each computing
	// 1000us between pages. MVA by hand: delay D = 1000 + 10us, service
	// S = 100us. n=1: R = 100, X = 1/1110, Q = 100/1110. n=2: R = 100 x
	// (1 + 100/1110) = 109.009us; cycle 1119.009us, so 119.009us lost a page.
	p := Path{Dev: Device{ReadLatency: 100 * time.Microsecond, ReadIOPS: 10000, Drives: 1}, Jobs: 2, Overhead: 10 * time.Microsecond}
	want := 10 + 100*(1+100.0/1110)
	if got := p.PageTime(1000) * 1e6; !near(got, want, 1e-6) {
		t.Errorf("%.4fus a page, want %.4fus", got, want)
	}
	// A second drive (RAID 0) gives two units: two jobs never wait for
	// one, so each page costs the software and the read, 110us.
	p.Dev.Drives = 2
	if got := p.PageTime(1000) * 1e6; !near(got, 110, 1e-6) {
		t.Errorf("RAID 0 x2: %.4fus a page, want 110us", got)
	}
}

func TestPageTimeSaturatedDevice(t *testing.T) {
	// Eight jobs that compute 100us between pages on a device serving one
	// 1ms read at a time: throughput pinned at 1000 pages/s, so each job
	// waits about 8 x 1ms - 0.1ms a page.
	p := Path{Dev: Device{ReadLatency: time.Millisecond, ReadIOPS: 1000, Drives: 1}, Jobs: 8}
	if got := p.PageTime(10000); math.Abs(got-7.9e-3) > 0.01*7.9e-3 {
		t.Errorf("saturated: %.3fms a page, want about 7.9ms", got*1e3)
	}
	// Swap-out alone can saturate: every page needed back is written again
	// (dirty 1) at 1000 pages/s: four jobs cannot cycle faster than 4ms.
	w := Path{Dev: Device{ReadLatency: time.Microsecond, WriteBW: 1000 * pageSize, Drives: 1}, Jobs: 4, Dirty: 1}
	if got := w.PageTime(1e6) + 1e-6; got < 4e-3 {
		t.Errorf("write-bound: %.3fms a page, want at least 4ms", got*1e3)
	}
	// Compressed RAM: decompress + compress again, in the task, at any load.
	z := Path{Dev: Device{ReadLatency: 2 * time.Microsecond, WriteLatency: 3 * time.Microsecond, Memory: true}, Jobs: 64, Dirty: 0.5, Overhead: 10 * time.Microsecond}
	if got := z.PageTime(1e5); !near(got, 15e-6, 1e-12) {
		t.Errorf("zram %.2fus a page, want 10 + 2 + 3 = 15us", got*1e6)
	}
}

func TestRateForInvertsSlowdown(t *testing.T) {
	p := Path{Dev: Device{ReadLatency: 85 * time.Microsecond, ReadIOPS: 50000, WriteBW: 500e6, Drives: 1}, Jobs: 16, Dirty: 0.5, Overhead: 20 * time.Microsecond}
	for _, s := range []float64{1.001, 1.12, 1.9, 4} {
		r := p.RateFor(s)
		if got := p.Slowdown(r); !near(got, s, 1e-6*s) {
			t.Errorf("RateFor(%g) = %g pages/s gives %g", s, r, got)
		}
	}
}

// Slowdown never falls as RAM shrinks or as the device gets slower.
func TestSlowdownMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fs := testFactors(t)
	for i := 0; i < 200; i++ {
		lat := time.Duration(20+rng.IntN(5000)) * time.Microsecond
		dev := Device{ReadLatency: lat, WriteLatency: lat, ReadIOPS: float64(100 + rng.IntN(1000000)), WriteIOPS: 1000, WriteBW: float64(50+rng.IntN(3000)) * 1e6, Drives: 1 + rng.IntN(4)}
		jobs := 1 + rng.IntN(32)
		dirty := rng.Float64()
		shape := []string{"", "uniform", "cold-tail", "sweep", "knee", "saturating"}[rng.IntN(6)]
		cores := 0
		if i%2 == 1 {
			cores = 1 + rng.IntN(16) // often fewer than the jobs
		}
		prev := Estimate{Slowdown: 1, Low: 1, High: 1}
		predict := func(dev Device, f float64) (Estimate, error) {
			p, err := fs.prepare("nvme-ssd-tlc", dev, jobs, cores, dirty, shape)
			return p.at(f), err
		}
		for f := 0.99; f > 0.27; f -= 0.02 {
			est, err := predict(dev, f)
			if err != nil {
				t.Fatal(err)
			}
			if est.Slowdown < prev.Slowdown-1e-12 || est.High < prev.High-1e-9 {
				t.Fatalf("%+v x%d dirty %.2f shape %q: fit %.2f gives %.4f (high %.4f), below %.4f (%.4f) at a higher fit", dev, jobs, dirty, shape, f, est.Slowdown, est.High, prev.Slowdown, prev.High)
			}
			slower := dev
			slower.ReadLatency *= 2
			est2, _ := predict(slower, f)
			if est2.Slowdown < est.Slowdown-1e-12 {
				t.Fatalf("%+v x%d on %d cores: doubling the read latency lowers the slowdown at fit %.2f: %.4f < %.4f", dev, jobs, cores, f, est2.Slowdown, est.Slowdown)
			}
			prev = est
		}
	}
}

// A curve whose points count pages is carried to another device point by
// point: rate x service time per page, with the point's own readahead and
// its own software cost per page (its excess per page less the reference
// device's time); the pooled fault_overhead only where a point shows no
// excess.
func TestPredictCountsPages(t *testing.T) {
	c := &factors.Curve{Class: "zram-lz4", Provenance: factors.Measured, Host: "lab",
		Reference: factors.Reference{ReadLatency: units.Duration(2 * time.Microsecond), WriteLatency: units.Duration(3 * time.Microsecond), Concurrency: 1, DirtyShare: 1},
		Points: []factors.Point{
			{Fit: 0.9, Slowdown: 1, PageRate: 1000, BlockFaultRate: 500, BlockPageRate: 1000},
			{Fit: 0.5, Slowdown: 3, CI: []float64{2.8, 3.2}, PageRate: 100000, BlockFaultRate: 25000, BlockPageRate: 110000},
			{Fit: 0.3, Slowdown: 5}}} // capped runs: no counts
	fs := &Factors{Curves: map[string]*factors.Curve{"zram-lz4": c}, TransferFrom: "zram-lz4", FaultOverhead: units.Duration(40 * time.Microsecond)}
	disk := Device{ReadLatency: 50 * time.Microsecond, WriteLatency: 50 * time.Microsecond}
	// Fit 0.5: 2 / 100k pages = 20us a page, 2 + 1 x 3us of it zram's: 15us
	// software; 100k pages/s x (15us x 1.1 + 0.25 x 50us) = 2.9.
	est, err := fs.Predict("sata-ssd-tlc", disk, 1, 1, 0.5)
	if err != nil || !near(est.Slowdown, 3.9, 1e-9) || est.Provenance != Derived || !est.Basis.PagesCounted {
		t.Errorf("derived by counts: %+v, %v", est, err)
	}
	// Fit 0.9 shows no excess: the pooled 40us, 1000 x (40 + 0.5 x 50)us.
	if est, err := fs.Predict("sata-ssd-tlc", disk, 1, 1, 0.9); err != nil || !near(est.Slowdown, 1.065, 1e-9) {
		t.Errorf("fit 0.9 by the pooled overhead: %+v, %v", est, err)
	}
	// The point without counts is scaled by the curve's service-time ratio:
	// (40 + 50us) / (40 + 2 + 3us) = 2, so 1 + 4 x 2; the others stay counted.
	if est, err := fs.Predict("sata-ssd-tlc", disk, 1, 1, 0.3); err != nil || !near(est.Slowdown, 9, 1e-9) {
		t.Errorf("fit 0.3 without counts: %+v, %v", est, err)
	}
	// The same device as the reference: the measured point itself.
	z := Device{ReadLatency: 2 * time.Microsecond, WriteLatency: 3 * time.Microsecond, Memory: true}
	if est, err := fs.Predict("zram-lz4", z, 1, 1, 0.5); err != nil || est.Slowdown != 3 {
		t.Errorf("on its own device: %+v, %v", est, err)
	}
	// zram with another latency: 100k x (15 + 4 + 6)us = 2.5, interval
	// scaled with it (0.1/2 of the excess each side).
	z.ReadLatency, z.WriteLatency = 4*time.Microsecond, 6*time.Microsecond
	if est, err := fs.Predict("zram-lz4", z, 1, 1, 0.5); err != nil || !near(est.Slowdown, 3.5, 1e-9) || !(est.Low < 3.5 && est.High > 3.5) {
		t.Errorf("zram scaled by counts: %+v, %v", est, err)
	}
}

// A factor file's reference may state its disk's sequential read latency;
// without it the hdd class gets the default, and a flash class none.
func TestReferenceSeqReadLatency(t *testing.T) {
	src := `name: s
source: t
curves:
  - {class: hdd, provenance: published, source: s, reference: {read_latency: 8ms, seq_read_latency: 250us}, points: [{fit: 0.5, slowdown: 2}]}
  - {class: hdd-raid, provenance: published, source: s, reference: {read_latency: 8ms}, points: [{fit: 0.5, slowdown: 2}]}
  - {class: sata-ssd-slc, provenance: published, source: s, reference: {read_latency: 75us}, points: [{fit: 0.5, slowdown: 1.1}]}
`
	f, err := ParseFactors("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []time.Duration{250 * time.Microsecond, 100 * time.Microsecond, 0} {
		if got := RefDevice(&f.Curves[i]).SeqReadLatency; got != want {
			t.Errorf("%s: sequential read %v, want %v", f.Curves[i].Class, got, want)
		}
	}
	// And it is what a path's reads cost when they follow on.
	p := Path{Dev: RefDevice(&f.Curves[0]), Jobs: 1, Locality: 1}
	if got := p.IdleTime(); !near(got, 250e-6, 1e-12) {
		t.Errorf("all reads following on: %.1fus, want 250us", got*1e6)
	}
}

// TestSweepBandSpansLocalityOnDisk: a job that names the sweep shape, on a
// rotating disk, derived from one curve (the X25-E alone: nothing to check
// it against), gets a band that spans the shape's locality_range
// (0.8-0.97) as it spans every unknown: from the bottom of the band with
// the locality fixed at 0.97 (the fewest seeks) to the top of the band
// with it fixed at 0.8, the central figure the stated locality's. On
// flash the range changes nothing. (From several curves at once, the
// locality is one of the unknowns the joint search spans:
// TestJointPlanMatchesFull.)
func TestSweepBandSpansLocalityOnDisk(t *testing.T) {
	const lat = 8 * time.Millisecond
	hdd := Device{Name: "hdd", ReadLatency: lat, SeqReadLatency: DefaultSeqReadLatency("hdd", lat), ReadIOPS: 180, Drives: 1}
	ssd := Device{Name: "sata-ssd-tlc", ReadLatency: 90 * time.Microsecond, ReadIOPS: 50000, Drives: 1}
	// withSweep is the default factors with the sweep shape changed.
	slcOnly := func() *Factors {
		fs := testFactors(t)
		for k := range fs.Curves {
			if k != fs.TransferFrom {
				delete(fs.Curves, k)
			}
		}
		return fs
	}
	withSweep := func(change func(*factors.Shape)) *Factors {
		fs := slcOnly()
		fs.Shapes = append([]factors.Shape(nil), fs.ShapeList()...)
		for i := range fs.Shapes {
			if fs.Shapes[i].Name == "sweep" {
				change(&fs.Shapes[i])
			}
		}
		return fs
	}
	at := func(fs *Factors, dev Device, f float64) Estimate {
		t.Helper()
		est, err := fs.PredictShape("new-drive", dev, 4, 0.5, f, "sweep")
		if err != nil {
			t.Fatal(err)
		}
		return est
	}
	ranged := slcOnly()
	fixed := withSweep(func(s *factors.Shape) { s.LocalityRange = nil })
	low := withSweep(func(s *factors.Shape) { s.Locality, s.LocalityRange = 0.8, nil })
	high := withSweep(func(s *factors.Shape) { s.Locality, s.LocalityRange = 0.97, nil })
	for _, f := range []float64{0.9, 0.7, 0.5} {
		r, x := at(ranged, hdd, f), at(fixed, hdd, f)
		if r.Slowdown != x.Slowdown {
			t.Fatalf("fit %g: the range moved the central figure %.6f to %.6f", f, x.Slowdown, r.Slowdown)
		}
		// Fewer reads follow on (0.8): more seeks, the band's top.
		hi, lo := at(low, hdd, f), at(high, hdd, f)
		if math.Log((hi.Slowdown-1)/(r.Slowdown-1)) < 0.1 || math.Log((r.Slowdown-1)/(lo.Slowdown-1)) < 0.1 {
			t.Fatalf("fit %g: locality 0.8 gives %.3f, 0.97 %.3f, against %.3f: the test needs a disk where it matters", f, hi.Slowdown, lo.Slowdown, r.Slowdown)
		}
		t.Logf("fit %g: %.3f (%.3f-%.3f), without the range (%.3f-%.3f); locality 0.8 up to %.3f, 0.97 down to %.3f", f, r.Slowdown, r.Low, r.High, x.Low, x.High, hi.High, lo.Low)
		if !near(r.High, hi.High, 1e-9) || !near(r.Low, lo.Low, 1e-9) {
			t.Errorf("fit %g: band %.4f-%.4f, want from locality 0.97's bottom %.4f to 0.8's top %.4f", f, r.Low, r.High, lo.Low, hi.High)
		}
		if s, y := at(ranged, ssd, f), at(fixed, ssd, f); !reflect.DeepEqual(s, y) {
			t.Errorf("fit %g on flash: the locality range changed %+v to %+v", f, y, s)
		}
	}
}

// A shape with a knee grows its page rate with one exponent above the
// knee's fit ratio and another below it, continuously at the knee; without
// a knee, and for the zswap split, it is the plain power law.
func TestShapeKneeExponents(t *testing.T) {
	local := func(sh factors.Shape, f1, f2 float64) float64 {
		return math.Log(shapeRateRatio(sh, f2, f1)) / math.Log((1-f2)/(1-f1))
	}
	knee := factors.Shape{Name: "knee", Exponent: 2.4, Knee: 0.75, KneeExponent: 4.75}
	sat := factors.Shape{Name: "saturating", Exponent: 2.5, Knee: 0.75, KneeExponent: 0.45}
	for _, c := range []struct {
		sh     factors.Shape
		f1, f2 float64
		want   float64
	}{{knee, 0.9, 0.8, 2.4}, {knee, 0.7, 0.5, 4.75}, {sat, 0.95, 0.76, 2.5}, {sat, 0.74, 0.3, 0.45}} {
		if got := local(c.sh, c.f1, c.f2); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s from fit %g to %g: local exponent %g, want %g", c.sh.Name, c.f1, c.f2, got, c.want)
		}
	}
	// Across the knee: the product of the two stretches.
	if got, want := shapeRateRatio(knee, 0.6, 0.9), math.Pow(0.25/0.1, 2.4)*math.Pow(0.4/0.25, 4.75); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("knee from fit 0.9 to 0.6: rate x%g, want x%g", got, want)
	}
	plain := factors.Shape{Name: "uniform", Exponent: 1}
	for _, wd := range []float64{0, 0.3, 1} {
		if got := driveShare(plain, wd, 0.6); math.Abs(got-wd) > 1e-12 {
			t.Errorf("uniform: a drive holding %g of the overflow gets %g of the faults, want the byte share", wd, got)
		}
	}
	if got, want := driveShare(factors.Shape{Exponent: 0.7}, 0.4, 0.6), math.Pow(0.4, 0.7); math.Abs(got-want) > 1e-12 {
		t.Errorf("sweep-like: drive share %g, want 0.4^0.7 = %g", got, want)
	}
}

// A drive rated for fewer random reads a second than 1/latency serves no
// more than its rating: each read takes at least 1/IOPS of one unit. Where
// the IOPS bind, the jobs' reads a second stay at or below drives x IOPS,
// for one job as for many, with and without swap readahead. (Taking the
// units as latency x IOPS, at least one, alone let a 100 us drive rated
// for 1,000 IOPS serve 10,000 reads a second, and the 8.5 ms, 110 IOPS
// disks of the Intel study 235 on two drives, not 220.)
func TestReadIOPSBelowOneOverLatencyBind(t *testing.T) {
	for _, c := range []struct {
		name string
		dev  Device
		jobs int
		ra   factors.Readahead
	}{
		{"100us at 1,000 IOPS, one job", Device{ReadLatency: 100 * time.Microsecond, ReadIOPS: 1000, Drives: 1}, 1, factors.Readahead{}},
		{"100us at 1,000 IOPS, 8 jobs", Device{ReadLatency: 100 * time.Microsecond, ReadIOPS: 1000, Drives: 1}, 8, factors.Readahead{}},
		{"8.5ms at 110 IOPS, 2 drives, 16 jobs", Device{ReadLatency: 8500 * time.Microsecond, ReadIOPS: 110, Drives: 2}, 16, factors.Readahead{}},
		{"8.5ms at 110 IOPS, 0.35 reads a page", Device{ReadLatency: 8500 * time.Microsecond, ReadIOPS: 110, Drives: 1}, 4, factors.Readahead{Faults: 0.35, Pages: 0.35}},
	} {
		p := Path{Dev: c.dev, Jobs: c.jobs, RA: c.ra}
		faults, _ := raOrOne(c.ra)
		limit := float64(c.dev.Drives) * c.dev.ReadIOPS
		// At 10^5 pages a second of computing per job the device binds.
		for _, rate := range []float64{1e3, 1e5} {
			cycle := 1/rate + p.PageTime(rate)
			reads := float64(c.jobs) * faults / cycle
			if reads > limit*(1+1e-9) {
				t.Errorf("%s at %g pages/s: %.1f reads a second, rated for %.0f", c.name, rate, reads, limit)
			}
			if rate == 1e5 && reads < 0.9*limit && c.jobs > 1 {
				t.Errorf("%s at %g pages/s: %.1f reads a second, want near its %.0f", c.name, rate, reads, limit)
			}
		}
	}
	// Unloaded, one read takes 1/IOPS where that is longer than the latency.
	p := Path{Dev: Device{ReadLatency: 100 * time.Microsecond, ReadIOPS: 1000, Drives: 1}, Jobs: 1, Overhead: 10 * time.Microsecond}
	if got := p.IdleTime(); !near(got, 1010e-6, 1e-12) {
		t.Errorf("idle %.2fus a page, want 10 + 1000 = 1010us", got*1e6)
	}
	// A follow-on read on a disk is not a random one: the rating does not
	// bound it. Nine in ten following on: 0.1 x 1/110 s + 0.9 x 100us.
	hdd := Device{ReadLatency: 8500 * time.Microsecond, ReadIOPS: 110, SeqReadLatency: 100 * time.Microsecond, Drives: 1}
	if got, want := (Path{Dev: hdd, Jobs: 1, Locality: 0.9}).IdleTime(), 0.1/110+0.9*100e-6; !near(got, want, 1e-12) {
		t.Errorf("disk with locality 0.9: %.2fus a read, want %.2fus", got*1e6, want*1e6)
	}
}

// Pruning reads a drive's random read as the model does (at least 1/IOPS):
// a cheaper drive with a lower latency but few IOPS (100 us, 1,000 IOPS:
// 1 ms a read under load) does not hide a dearer one that serves five
// times as many reads (200 us, 5,000 IOPS). Before, both counted as one
// unit of their latency, and the dearer drive was dropped as dominated.
func TestPruneReadsIOPSBelowOneOverLatency(t *testing.T) {
	drive := func(sku string, price money.Amount, lat time.Duration, iops float64) pricedDrive {
		d := prices.Drive{SKU: sku, Class: "nvme-ssd", NAND: "TLC", Capacity: units.Bytes(2e12),
			ReadLatency: units.Duration(lat), WriteLatency: units.Duration(lat), ReadIOPS: iops, WriteIOPS: 1000, TBW: units.Bytes(1e15)}
		return pricedDrive{Drive: d, price: price, class: d.FactorClass()}
	}
	cheap := drive("FEW-IOPS", 100_00, 100*time.Microsecond, 1000)
	dear := drive("MANY-IOPS", 200_00, 200*time.Microsecond, 5000)
	kept, dropped := pruneDrives([]pricedDrive{dear, cheap}, []JobClass{{Concurrency: 1, Footprint: units.Bytes(1e12)}})
	if dropped != 0 || len(kept) != 2 {
		var skus []string
		for _, d := range kept {
			skus = append(skus, d.SKU)
		}
		t.Errorf("kept %v, dropped %d; want both drives kept", skus, dropped)
	}
}
