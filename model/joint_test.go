package model

import (
	"math"
	"testing"
	"time"
)

// TestJointPlanMatchesFull: a derived class evaluates a few runs picked
// once (jointPlan) instead of every source under every combination the
// curves allow. Over flash, disk and compressed-RAM targets, loads and fit
// ratios, the band's ends must be those of every run, and the central
// figure (a median of medians) near the median of every run.
func TestJointPlanMatchesFull(t *testing.T) {
	fs := testFactors(t)
	devs := []Device{
		{Name: "nvme-tlc", ReadLatency: 90 * time.Microsecond, WriteLatency: 20 * time.Microsecond, ReadIOPS: 500000, WriteIOPS: 100000, WriteBW: 1.5e9, Drives: 1},
		{Name: "nvme-qlc", ReadLatency: 140 * time.Microsecond, WriteLatency: 30 * time.Microsecond, ReadIOPS: 300000, WriteIOPS: 20000, WriteBW: 3e8, Drives: 2},
		{Name: "sata-ssd", ReadLatency: 100 * time.Microsecond, ReadIOPS: 90000, WriteIOPS: 30000, WriteBW: 4.5e8, Drives: 1},
		{Name: "hdd", ReadLatency: 8 * time.Millisecond, SeqReadLatency: DefaultSeqReadLatency("hdd", 8*time.Millisecond), ReadIOPS: 180, WriteIOPS: 160, WriteBW: 1.8e8, Drives: 2},
		{Name: "zram", ReadLatency: 3 * time.Microsecond, WriteLatency: 9 * time.Microsecond, Memory: true},
	}
	worstBand, worstCentral := 0.0, 0.0
	for _, dev := range devs {
		for _, jobs := range []int{1, 4, 16} {
			for _, dirty := range []float64{0.2, 1} {
				p, err := fs.prepare("new-class", dev, jobs, 0, dirty, "")
				if err != nil {
					t.Fatal(err)
				}
				if len(p.joint) == 0 {
					t.Fatalf("%s: not derived jointly", dev.Name)
				}
				a, sources := fs.jointAgreement("", fs.ShapeList())
				full := fs.carryJoint(sources, a, []int{0, -1, 1}, func(scenario) Path { return p.target })
				for _, f := range []float64{0.95, 0.8, 0.66, 0.52, 0.4, 0.3} {
					c, lo, hi, _ := jointAt(full, f, false)
					est := p.at(f)
					dl, dh := math.Abs(math.Log((est.Low-1)/lo)), math.Abs(math.Log((est.High-1)/hi))
					dc := math.Abs(math.Log((est.Slowdown - 1) / c))
					worstBand, worstCentral = math.Max(worstBand, math.Max(dl, dh)), math.Max(worstCentral, dc)
					if dl > 0.01 || dh > 0.01 || dc > 0.05 {
						t.Errorf("%s, %d jobs, dirty %g, fit %g: plan %.4f (%.4f-%.4f) from %d runs, every run %.4f (%.4f-%.4f) from %d",
							dev.Name, jobs, dirty, f, est.Slowdown, est.Low, est.High, len(p.joint), 1+c, 1+lo, 1+hi, len(full))
					}
				}
			}
		}
	}
	t.Logf("largest difference in excess: band ends %.2f%%, central %.2f%%", 100*math.Expm1(worstBand), 100*math.Expm1(worstCentral))
}
