package model

import (
	"testing"
	"time"
)

// TestAboveTheHighestFitIsMarked: a figure for a fit above the highest the
// curves stand on (the anchors' 0.52) is marked Above with that fit; at
// the point and below it is not (below is
// Extrapolated instead). Both sides are carried by the shape, and the
// band without access: spans every shape's own figure above as below.
func TestAboveTheHighestFitIsMarked(t *testing.T) {
	fs, err := MergeFactors(DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	nvme := Device{ReadLatency: 85 * time.Microsecond, ReadIOPS: 900000, WriteBW: 1e9, Drives: 1}
	slc := RefDevice(fs.Curves["sata-ssd-slc"])
	for _, c := range []struct {
		class string
		dev   Device
	}{{"nvme-ssd-tlc", nvme}, {"sata-ssd-slc", slc}} {
		for _, f := range []float64{0.9, 0.7, 0.52, 0.4} {
			open, err := fs.PredictShape(c.class, c.dev, 16, 0.5, f, "")
			if err != nil {
				t.Fatal(err)
			}
			above := f > 0.525
			if (open.Above > 0) != above || (above && open.Above != 0.52) {
				t.Errorf("%s at fit %.2f: Above %.3f, want %v (0.52)", c.class, f, open.Above, above)
			}
			if above && open.Extrapolated {
				t.Errorf("%s at fit %.2f: above the points, yet marked extrapolated below them", c.class, f)
			}
			for _, sh := range fs.ShapeList() {
				named, err := fs.PredictShape(c.class, c.dev, 16, 0.5, f, sh.Name)
				if err != nil {
					t.Fatal(err)
				}
				if named.Slowdown < open.Low-1e-9 || named.Slowdown > open.High+1e-9 {
					t.Errorf("%s at fit %.2f: %s gives %.4f, outside the open band %.4f-%.4f", c.class, f, sh.Name, named.Slowdown, open.Low, open.High)
				}
			}
		}
	}
}

// TestAboveTheHighestFitDoesNotPutAtRisk: eda.yaml's recommendation lies
// above the anchors' fit (regression at 0.98 on zram) and is marked so,
// but is not at risk for it: the figure is bounded by fit 1, which costs
// nothing, so the purchase stays what it was.
func TestAboveTheHighestFitDoesNotPutAtRisk(t *testing.T) {
	res, err := Recommend(edaInput(t))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recommended
	if r == nil || r.Label != "768GiB (24 x 32GiB) + zram 25% (lz4)" || r.AtRisk {
		t.Fatalf("recommended %+v, want 768GiB + zram 25%%, not at risk", r)
	}
	marked := false
	for _, j := range r.Jobs {
		marked = marked || j.Estimate.Above == 0.52
	}
	if !marked {
		t.Errorf("no job of %s marked above the anchors' fit 0.52: %+v", r.Label, r.Jobs)
	}
}
