package model_test

import (
	"math"
	"testing"

	"github.com/memplan/memplan/model"
)

// The Done check of the transfer model: each Intel anchor falls inside the
// band predicted jointly from the other two, and the band says how wide
// the other two leave it.
func TestCrossvalIntelAnchorsJointly(t *testing.T) {
	fs, err := model.MergeFactors(model.DefaultFactors())
	if err != nil {
		t.Fatal(err)
	}
	cv := model.CrossValidate(fs)
	if len(cv.Joint) != 3 || cv.JointInside != 3 {
		t.Fatalf("%d of %d anchors inside their joint band, want 3 of 3: %+v", cv.JointInside, len(cv.Joint), cv.Joint)
	}
	for _, r := range cv.Joint {
		if !(r.Low <= r.Predicted && r.Predicted <= r.High) || !(r.Low <= r.Actual && r.Actual <= r.High) {
			t.Errorf("%s: %.3f-%.3f around %.3f, actual %.3f", r.Class, r.Low, r.High, r.Predicted, r.Actual)
		}
		if r.Consistent < 1 || r.Consistent > r.Scenarios {
			t.Errorf("%s: %d of %d scenarios allowed", r.Class, r.Consistent, r.Scenarios)
		}
		// No anchor's band spans more than the data leave open: a factor of
		// 30 in excess at most (the X25-M sits at its write ceiling, which
		// the others cannot place).
		if w := (r.High - 1) / (r.Low - 1); w > 30 {
			t.Errorf("%s: band x%.1f in excess", r.Class, w)
		}
		t.Logf("%s from %s: %.3f (%.3f-%.3f, x%.1f), actual %.3f, %d of %d scenarios", r.Class, r.From, r.Predicted, r.Low, r.High, (r.High-1)/(r.Low-1), r.Actual, r.Consistent, r.Scenarios)
	}
	// One curve alone does not pin the shape: the HDD from the X25-E
	// under uniform access is an order of magnitude off, which is why the
	// joint rows exist.
	for _, r := range cv.Rows {
		if r.Class == "hdd" && r.From == "sata-ssd-slc" && !(r.Predicted > 10) {
			t.Errorf("hdd from the X25-E alone: %.2f", r.Predicted)
		}
	}
	if cv.TransferFloor > math.Log(2) {
		t.Errorf("transfer floor %.2f: the anchors agree under some scenario, so it should be below ln 2", cv.TransferFloor)
	}
}
