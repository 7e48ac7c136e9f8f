package factors

import (
	"strings"
	"testing"
)

// TestPointSourceOnlyInAOneRunCurve checks a point's
// source: one-run and sampler load in a one-run curve, a typo or a
// source on a curve of another method is an error naming file, line and
// field, and a sampler point without its band is refused.
func TestPointSourceOnlyInAOneRunCurve(t *testing.T) {
	oneRun := strings.Replace(lab, "host: node07\n", "host: node07\n    method: one-run\n", 1)
	ok := strings.Replace(strings.Replace(oneRun, "samples: [1.4, 1.6]", "samples: [1.4, 1.6]\n        source: sampler", 1),
		"slowdown: 1.2", "slowdown: 1.2\n        source: one-run", 1)
	f, err := Parse("lab.yaml", []byte(ok), fixed)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{f.Curves[0].Points[0].Source, f.Curves[0].Points[1].Source}; got[0] != PointOneRun || got[1] != PointSampler {
		t.Errorf("sources %v, want [one-run sampler] (fit 0.75, then 0.5)", got)
	}
	for _, tc := range []struct{ file, want string }{
		{strings.Replace(oneRun, "slowdown: 1.2", "slowdown: 1.2\n        source: sampled", 1),
			`lab.yaml:16:17: field curves[0].points[1].source: got "sampled", expected "one-run"`},
		{strings.Replace(lab, "slowdown: 1.2", "slowdown: 1.2\n        source: one-run", 1),
			`lab.yaml:15:17: field curves[0].points[1].source: "one-run" marks a point of a one-run curve`},
		{strings.Replace(oneRun, "slowdown: 1.2", "slowdown: 1.2\n        source: sampler", 1),
			`field curves[0].points[1].ci: missing for a sampler point`},
	} {
		_, err := Parse("lab.yaml", []byte(tc.file), fixed)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}
