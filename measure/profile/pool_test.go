//go:build linux

package profile

import (
	"math"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// Whole runs on a busy host can measure fit 0.75 faster than fit 0.9 where
// swapping costs little: the profile pools them instead of writing a curve
// that cannot load.
func TestPoolFallingMakesTheCurveRise(t *testing.T) {
	pts := []factors.Point{
		{Fit: 0.9, Slowdown: 1.1186, Samples: []float64{1.1186}},
		{Fit: 0.75, Slowdown: 1.0114, Samples: []float64{1.0114}},
		{Fit: 0.6, Slowdown: 1.35, Samples: []float64{1.35}},
		{Fit: 0.45, Slowdown: 2.22, CI: []float64{2.1, 2.3}, Samples: []float64{2.22}},
	}
	note := poolFalling(pts)
	want := []float64{1.065, 1.065, 1.35, 2.22}
	for i, p := range pts {
		if math.Abs(p.Slowdown-want[i]) > 1e-9 {
			t.Errorf("fit %g: %.4f, want %.4f", p.Fit, p.Slowdown, want[i])
		}
	}
	if !strings.Contains(note, "1.119 at fit 0.9, 1.011 at fit 0.75 fell as the fit fell") || !strings.Contains(note, "their mean, 1.065") {
		t.Errorf("note %q does not say what was pooled", note)
	}
	if poolFalling(pts) != "" {
		t.Error("a rising curve was pooled again")
	}
	if _, err := model.ParseFactors("pooled.json", []byte(`{"name":"p","date":"2026-12-04","source":"test","host":{"hostname":"h"},
"curves":[{"class":"zram-lz4","provenance":"measured","source":"t","host":"h","reference":{"read_latency":"4us","write_latency":"4us"},
"points":[{"fit":0.9,"slowdown":1.065},{"fit":0.75,"slowdown":1.065},{"fit":0.6,"slowdown":1.35}]}]}`)); err != nil {
		t.Errorf("the pooled curve does not load: %v", err)
	}
}
