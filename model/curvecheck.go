package model

import "fmt"

// checkCurves refuses a curve whose slowdown falls as the fit ratio falls:
// with less of the job in RAM it cannot run faster, so such a curve is a
// typo (points swapped, a fit written as its complement) or a measurement
// gone wrong, and interpolating it would reward buying less memory.
// Measured points carry their own noise: a drop that their 95% intervals
// cover is noise, not an error. Points are sorted by falling fit already.
func checkCurves(f *FactorFile) error {
	for i := range f.Curves {
		c := &f.Curves[i]
		for j := 1; j < len(c.Points); j++ {
			hi, lo := c.Points[j-1], c.Points[j] // hi has the larger fit
			if lo.Slowdown >= hi.Slowdown || intervalsOverlap(hi, lo) {
				continue
			}
			return f.Errorf(fmt.Sprintf("curves[%d].points", i),
				"check the points: with less of the job in RAM (a lower fit) the slowdown must be the same or higher; swapped fit or slowdown values are the usual cause",
				"curve %s: slowdown %g at fit %g is below %g at fit %g; a curve cannot fall as the fit ratio falls",
				c.Class, lo.Slowdown, lo.Fit, hi.Slowdown, hi.Fit)
		}
	}
	return nil
}

// intervalsOverlap reports whether both points carry 95% intervals that
// overlap, i.e. the drop between them is within measurement noise.
func intervalsOverlap(a, b Point) bool {
	if len(a.CI) != 2 || len(b.CI) != 2 {
		return false
	}
	return b.CI[1] >= a.CI[0]
}
