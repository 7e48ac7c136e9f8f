// Package stats owns the Student-t intervals memplan reports: the
// confidence interval of a mean (model's factor files, measure's
// summaries) and the prediction interval for one more observation
// (fleet's merge across hosts). It is a leaf: model, measure and fleet
// import it without importing each other.
package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TCritical is the two-sided Student-t critical value at level (0.95 for
// a 95% interval) with df degrees of freedom.
func TCritical(level float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-level)/2)
}

// MeanInterval is the two-sided Student-t confidence interval of the mean
// of xs at level. One sample says nothing about spread: its interval is
// the sample itself.
func MeanInterval(xs []float64, level float64) (lo, hi float64) {
	m, sd := stat.MeanStdDev(xs, nil)
	if len(xs) < 2 {
		return m, m
	}
	h := TCritical(level, len(xs)-1) * sd / math.Sqrt(float64(len(xs)))
	return m - h, m + h
}

// PredictionHalfWidth is the half width, at level, of the Student-t
// prediction interval for one more observation around the mean of n
// observations (n >= 2) with sample standard deviation sd.
func PredictionHalfWidth(sd float64, n int, level float64) float64 {
	return TCritical(level, n-1) * sd * math.Sqrt(1+1/float64(n))
}
