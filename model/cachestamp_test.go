package model_test

import (
	"testing"
	"time"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// A factor set's caches follow its fields: after a prediction, dropping a
// curve, changing a curve's point in place or changing the overhead gives
// the figure a freshly merged set with that change gives, not the one the
// caches held.
func TestCachesFollowTheFields(t *testing.T) {
	nvme := model.Device{ReadLatency: 85 * time.Microsecond, ReadIOPS: 900000, WriteBW: 1e9, Drives: 1}
	predict := func(fs *model.Factors) model.Estimate {
		t.Helper()
		est, err := fs.Predict("nvme-ssd-tlc", nvme, 16, 0.5, 0.6)
		if err != nil {
			t.Fatal(err)
		}
		return est
	}
	changes := []struct {
		name   string
		change func(*model.Factors)
	}{
		{"drop the hdd curve", func(fs *model.Factors) { delete(fs.Curves, "hdd") }},
		{"move the X25-M's point in place", func(fs *model.Factors) { fs.Curves["sata-ssd-mlc"].Points[0].Slowdown = 1.3 }},
		{"a measured overhead", func(fs *model.Factors) {
			fs.FaultOverhead, fs.FaultOverheadRange = units.Duration(35*time.Microsecond), [2]units.Duration{}
		}},
	}
	for _, c := range changes {
		used, err := model.MergeFactors(model.DefaultFactors())
		if err != nil {
			t.Fatal(err)
		}
		before := predict(used)
		te := used.TransferError()
		c.change(used)
		fresh, err := model.MergeFactors(model.DefaultFactors())
		if err != nil {
			t.Fatal(err)
		}
		c.change(fresh)
		want, got := predict(fresh), predict(used)
		if want.Slowdown == before.Slowdown && want.Low == before.Low && want.High == before.High {
			t.Fatalf("%s: the change moves nothing (%.4f), so it tests nothing", c.name, want.Slowdown)
		}
		if got.Slowdown != want.Slowdown || got.Low != want.Low || got.High != want.High {
			t.Errorf("%s: %.4f (%.4f-%.4f) after a prediction, %.4f (%.4f-%.4f) fresh; %.4f (%.4f-%.4f) before the change",
				c.name, got.Slowdown, got.Low, got.High, want.Slowdown, want.Low, want.High, before.Slowdown, before.Low, before.High)
		}
		if a, b := used.TransferError(), fresh.TransferError(); a != b {
			t.Errorf("%s: transfer error %+v after a prediction, %+v fresh (%+v before)", c.name, a, b, te)
		}
	}
}
