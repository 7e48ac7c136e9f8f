package measure

import (
	"sort"

	"github.com/memplan/memplan/internal/stats"
	"gonum.org/v1/gonum/stat"
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
	s.Lo, s.Hi = stats.MeanInterval(xs, 0.95)
	s.Trimmed = s.Mean
	if n >= 3 {
		s.Trimmed = stat.Mean(sorted[1:n-1], nil)
	}
	return s
}
