package measure

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes repeated measurements of one quantity.
type Summary struct {
	N       int     `json:"n"`
	Mean    float64 `json:"mean"`
	SD      float64 `json:"sd"`
	Lo      float64 `json:"ci95_low"`  // 95% Student-t interval of the mean
	Hi      float64 `json:"ci95_high"` //
	Trimmed float64 `json:"trimmed_mean"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// summarize computes the mean, standard deviation, the two-sided 95%
// Student-t confidence interval of the mean and the trimmed mean (best and
// worst dropped when there are at least three).
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	s := Summary{N: n}
	s.Mean, s.SD = stat.MeanStdDev(xs, nil)
	if n < 2 {
		s.SD = 0
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	s.Min, s.Max = sorted[0], sorted[n-1]
	s.Lo, s.Hi = s.Mean, s.Mean
	if n >= 2 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		h := t * s.SD / math.Sqrt(float64(n))
		s.Lo, s.Hi = s.Mean-h, s.Mean+h
	}
	s.Trimmed = s.Mean
	if n >= 3 {
		s.Trimmed = stat.Mean(sorted[1:n-1], nil)
	}
	return s
}
