package stats

import (
	"math"
	"testing"
)

// The critical values of a printed t table (two-sided 95%).
func TestTCritical(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 2: 4.303, 5: 2.571, 30: 2.042} {
		if got := TCritical(0.95, df); math.Abs(got-want) > 5e-4 {
			t.Errorf("t(0.95, %d) = %.4f, want %.3f", df, got, want)
		}
	}
}

func TestMeanInterval(t *testing.T) {
	// Mean 1.05, sd 0.01, n 3: 1.05 -+ 4.303 x 0.01 / sqrt(3).
	lo, hi := MeanInterval([]float64{1.04, 1.05, 1.06}, 0.95)
	if h := 4.3027 * 0.01 / math.Sqrt(3); math.Abs(lo-(1.05-h)) > 1e-5 || math.Abs(hi-(1.05+h)) > 1e-5 {
		t.Errorf("MeanInterval = [%g, %g], want 1.05 -+ %g", lo, hi, h)
	}
	if lo, hi := MeanInterval([]float64{1.2}, 0.95); lo != 1.2 || hi != 1.2 {
		t.Errorf("one sample: [%g, %g], want [1.2, 1.2]", lo, hi)
	}
}

func TestPredictionHalfWidth(t *testing.T) {
	// n 4, sd 0.1: t(3) = 3.182, x sqrt(1.25).
	if got, want := PredictionHalfWidth(0.1, 4, 0.95), 3.1824*0.1*math.Sqrt(1.25); math.Abs(got-want) > 1e-4 {
		t.Errorf("PredictionHalfWidth = %g, want %g", got, want)
	}
}
