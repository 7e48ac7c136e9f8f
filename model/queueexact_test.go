package model

import (
	"math"
	"testing"
	"time"
)

// ctmcThroughput is the throughput of n jobs cycling between two
// stations (station i serves min(j, c_i)/d_i of the j jobs at it a
// second), from the Markov chain itself: its generator over the count at
// station 2, solved by Gaussian elimination with the normalisation in
// place of one balance equation. It shares nothing with closedPair's
// product form.
func ctmcThroughput(n int, d1, c1, d2, c2 float64) float64 {
	m := n + 1
	q := make([][]float64, m)
	for j := range q {
		q[j] = make([]float64, m)
	}
	for j := 0; j <= n; j++ {
		if j < n {
			q[j][j+1] = math.Min(float64(n-j), c1) / d1
		}
		if j > 0 {
			q[j][j-1] = math.Min(float64(j), c2) / d2
		}
		for k := range m {
			if k != j {
				q[j][j] -= q[j][k]
			}
		}
	}
	// pi Q = 0: the system A pi = b with A = Q transposed, its last row
	// replaced by sum(pi) = 1.
	a := make([][]float64, m)
	for i := range a {
		a[i] = make([]float64, m+1)
		for k := range m {
			a[i][k] = q[k][i]
		}
	}
	for k := range m {
		a[m-1][k] = 1
	}
	a[m-1][m] = 1
	for col := range m {
		p := col
		for r := col + 1; r < m; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		for r := range m {
			if r != col && a[r][col] != 0 {
				f := a[r][col] / a[col][col]
				for k := col; k <= m; k++ {
					a[r][k] -= f * a[col][k]
				}
			}
		}
	}
	x := 0.0
	for j := 1; j <= n; j++ {
		x += a[j][m] / a[j][j] * math.Min(float64(j), c2) / d2
	}
	return x
}

// closedPair is the Markov chain's throughput, for delays and for
// stations of one to eight servers (and fractional ones), at loads from
// idle to saturated.
func TestClosedPairIsTheMarkovChain(t *testing.T) {
	inf := math.Inf(1)
	for n := 1; n <= 12; n++ {
		for _, c1 := range []float64{inf, 1, 2, 3} {
			for _, c2 := range []float64{inf, 1, 2, 2.625, 3, 4, 8, 0.4} {
				for _, r := range []float64{1e-3, 0.05, 0.3, 1, 3, 100} {
					d1 := 1e-3
					got, want := closedPair(n, d1, c1, r*d1, c2), ctmcThroughput(n, d1, c1, r*d1, c2)
					if math.Abs(got-want) > 1e-9*want {
						t.Errorf("n %d, c1 %g, c2 %g, d2/d1 %g: closedPair %.12g, Markov chain %.12g", n, c1, c2, r, got, want)
					}
				}
			}
		}
	}
	// Terms that would overflow without rescaling.
	if got := closedPair(2000, 1e-6, inf, 1e-3, 4); math.Abs(got-4/1e-3) > 1e-9*4e3 {
		t.Errorf("2,000 jobs on a saturated 4-unit device: %g a second, want 4,000", got)
	}
}

// seidmannPageTime is the page time of the approximation memplan used
// before: the device's K units as a delay of s(K-1)/K and one server of
// s/K, solved by MVA.
func seidmannPageTime(p Path, rate float64) float64 {
	in, _ := p.mvaInputs(rate)
	k := in.k
	delay, d := in.delay+in.qd*(k-1)/k, in.qd/k
	var q, r, x float64
	for m := 1; m <= in.n; m++ {
		r = d * (1 + q)
		x = float64(m) / (delay + r)
		q = x * r
	}
	return delay + r - in.z
}

// The device's units queue exactly as the Markov chain of the closed
// model says. N jobs on a drive of K = latency x IOPS units: PageTime
// against the chain (to 1e-9), and Seidmann's split (a delay of
// s(K-1)/K plus one server of s/K), which memplan used before, for the
// record. With as many jobs as units nobody waits for a unit, yet
// Seidmann queued them at its single server: at N = K = 4, 100 us reads,
// 10 us of software and 50 us of computing between pages it gave 125.0 us
// a page against the exact 110.0 (+13.7%; slowdown 3.50 against 3.20),
// and as the computing between pages shrinks towards nothing its excess
// grows to +21% at N = K = 4, +17% at 8 and +12.5% at 16; at the X25-E's
// 2.6 units with 4 jobs +6.4%, on two disks with 4 jobs +13.6%. It was
// exact for one unit. PageTime now matches the chain to 1e-9 everywhere.
func TestPageTimeMultiUnitIsExact(t *testing.T) {
	worst := 0.0
	for _, c := range []struct {
		lat   time.Duration
		iops  float64
		jobs  int
		rate  float64
		drive int
	}{
		{100 * time.Microsecond, 40000, 4, 2e4, 1},  // N = K = 4
		{100 * time.Microsecond, 40000, 4, 2e3, 1},  // light load
		{100 * time.Microsecond, 40000, 8, 2e4, 1},  // N = 2K
		{75 * time.Microsecond, 35000, 4, 3e3, 1},   // the X25-E, K = 2.625
		{85 * time.Microsecond, 900000, 16, 3e3, 1}, // NVMe, K = 76.5
		{8500 * time.Microsecond, 110, 4, 50, 2},    // two disks
		{100 * time.Microsecond, 10000, 6, 1e4, 1},  // one unit: MVA was exact
	} {
		p := Path{Dev: Device{ReadLatency: c.lat, ReadIOPS: c.iops, Drives: c.drive}, Jobs: c.jobs, Overhead: 10 * time.Microsecond}
		in, _ := p.mvaInputs(c.rate)
		want := float64(c.jobs)/ctmcThroughput(c.jobs, in.delay, math.Inf(1), in.qd, in.k) - in.z
		got := p.PageTime(c.rate)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%v at %.0f IOPS x %d, %d jobs at %g pages/s: %.4fus a page, the chain %.4fus", c.lat, c.iops, c.drive, c.jobs, c.rate, got*1e6, want*1e6)
		}
		old := seidmannPageTime(p, c.rate)
		worst = math.Max(worst, old/want-1)
		t.Logf("%v at %.0f IOPS x %d (K %.3g), %d jobs at %g pages/s: exact %.2fus (slowdown %.4f), Seidmann %.2fus (%+.1f%%, slowdown %.4f)",
			c.lat, c.iops, c.drive, in.k, c.jobs, c.rate, want*1e6, 1+c.rate*want, old*1e6, 100*(old/want-1), 1+c.rate*old)
	}
	t.Logf("Seidmann's worst: %+.1f%%", 100*worst)
}
