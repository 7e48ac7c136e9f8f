//go:build linux

package onepass

import (
	"math"
	"time"
)

// Phases: the working set of a job that builds a table and then looks
// things up in it is small and all new while it builds and large and all
// reused while it looks up. The rate at a memory size is a property of
// each phase (dW/dtau at that phase's own tau(x)), and the run needs back
// the sum over its phases. Averaging W over the sweeps first and taking
// the derivative of the average answers for a phase that never ran: its
// tau(x) is where the mean W reaches x. So each sweep (one clear and the
// reads after it) is turned into rates on its own, at every size of a
// fixed grid, and the rates are averaged over the sweeps weighted by the
// time each sweep stands for (from its clear to the next clear, or to the
// run's end). The grid is fixed: the sampler's memory does not grow with
// the number of sweeps.

// Grid spacing: 1 MiB to 16 TiB by factors of 2^(1/16) (4.4%: finer than
// the ladder's chords, which the rate of a sweep is constant over).
const (
	gridLo    = 1 << 20
	gridSteps = 16
	gridN     = 24*gridSteps + 1
)

// gridX is the resident size of grid point j (bytes).
func gridX(j int) float64 { return gridLo * math.Exp2(float64(j)/gridSteps) }

// RateGrid accumulates, for each resident size of the grid, the rates of
// pages needed back that the sweeps' own ladders give there, weighted by
// the seconds each sweep stands for: fixed size however long the run.
//
// A sweep whose longest read referenced less than a size x ("beyond" at
// x: it was cut short, by the budget or by a restart) says only that its
// rate at x is below its last chord; its guess is kept apart (Cens, CensC)
// and used only where no sweep reached x. A sweep beyond whose ladder x
// lies but whose working set had stopped growing (Rate.Flat: the job came
// back to no more in its longest windows) is not cut short: it informs the
// mean at x with its guess, the last chord falling to 0 at the job's size
// (Flat counts its weight). Without it, one sweep of the dictionary
// workload's build phase that reached 150 MiB stood alone for fit 0.9
// (144 MiB) of a 20 s run whose nine lookup sweeps all flattened at
// 134-136 MiB: 33,500 pages a second predicted there, 445 measured. Every
// other sweep (x within or below its ladder, or x more than the job held:
// nothing needed back) informs the mean at x.
type RateGrid struct {
	// Weight is the seconds of the run the folded sweeps stand for.
	Weight float64 `json:"weight_s"`
	Sweeps int     `json:"sweeps"`
	// Per grid point, over the informing sweeps: the weighted sums of the
	// central rate, its square and the bracket's low end (pages/s), and
	// of the weights' squares (for the effective number of sweeps).
	C  []float64 `json:"c"`
	C2 []float64 `json:"c2"`
	Lo []float64 `json:"lo"`
	W2 []float64 `json:"w2"`
	// Hi is the weighted sum of every sweep's high end; Cens the weight of
	// the sweeps beyond whose ladder the size was and CensC their guess.
	Hi    []float64 `json:"hi"`
	Cens  []float64 `json:"cens"`
	CensC []float64 `json:"cens_c"`
	// Below and Fits: the weight of the sweeps for which the size was
	// below their shortest window, or held all the job had.
	Below []float64 `json:"below"`
	Fits  []float64 `json:"fits"`
	// Flat: the weight of the sweeps beyond whose ladder the size was but
	// whose working set had stopped growing; they inform the mean. Nil in
	// grids written before it was kept.
	Flat []float64 `json:"flat,omitempty"`
}

func (g *RateGrid) arrays() []*[]float64 {
	return []*[]float64{&g.C, &g.C2, &g.Lo, &g.W2, &g.Hi, &g.Cens, &g.CensC, &g.Below, &g.Fits, &g.Flat}
}

// flat is Flat[k], 0 for a grid written before Flat was kept.
func (g *RateGrid) flat(k int) float64 {
	if len(g.Flat) != gridN {
		return 0
	}
	return g.Flat[k]
}

func newRateGrid() *RateGrid {
	g := &RateGrid{}
	for _, p := range g.arrays() {
		*p = make([]float64, gridN)
	}
	return g
}

// Add folds the curve of one sweep in with weight seconds.
func (g *RateGrid) Add(m *MRC, weight float64) {
	if weight <= 0 || len(g.C) != gridN {
		return
	}
	g.Weight += weight
	g.Sweeps++
	for j := 0; j < gridN; j++ {
		r := m.bracket(gridX(j))
		g.Hi[j] += weight * r.High
		if r.Where == "beyond" {
			if !r.Flat {
				g.Cens[j] += weight
				g.CensC[j] += weight * r.Central
				continue
			}
			if len(g.Flat) != gridN { // a grid read from before Flat
				g.Flat = make([]float64, gridN)
			}
			g.Flat[j] += weight
		}
		g.C[j] += weight * r.Central
		g.C2[j] += weight * r.Central * r.Central
		g.Lo[j] += weight * r.Low
		g.W2[j] += weight * weight
		switch r.Where {
		case "below":
			g.Below[j] += weight
		case "fits":
			g.Fits[j] += weight
		}
	}
}

// At is the run's rate at x bytes resident: the time-weighted mean of the
// rates of the sweeps that reached x (interpolated between grid points in
// log x); where none did, the mean of the guesses of those that did not.
// The band: the informing sweeps' low ends and every sweep's high end,
// averaged, moved out by two standard errors of the weighted mean
// (DefaultSpread of the rate when the weight rests on one sweep), then by
// Widen. Where names what most of the weight said: within, below, beyond
// or fits.
func (g *RateGrid) At(x float64) Rate {
	r := Rate{X: x, Where: "within"}
	if g.Weight <= 0 || len(g.C) != gridN {
		return r
	}
	f := math.Log2(math.Max(x, gridLo)/gridLo) * gridSteps
	j := min(int(f), gridN-2)
	a := math.Min(f-float64(j), 1)
	at := func(v []float64) float64 { return (1-a)*v[j] + a*v[j+1] }
	cens := at(g.Cens)
	inf := g.Weight - cens
	var mean, se float64
	if inf > 1e-3*g.Weight {
		mean = at(g.C) / inf
		sq := at(g.C2) / inf
		neff := inf * inf / at(g.W2)
		se = DefaultSpread * mean
		if neff >= 1.5 {
			se = math.Sqrt(math.Max(0, sq-mean*mean) / (neff - 1))
		}
		r.Low = math.Max(0, math.Min(at(g.Lo)/inf-2*se, mean))
	} else {
		mean = at(g.CensC) / cens
		se = DefaultSpread * mean
	}
	r.Central = mean
	r.High = math.Max(at(g.Hi)/g.Weight+2*se, mean)
	k := j
	if a >= 0.5 {
		k = j + 1
	}
	most := g.Weight - g.Below[k] - g.Cens[k] - g.Fits[k] - g.flat(k)
	for _, c := range []struct {
		w     float64
		where string
	}{{g.Below[k], "below"}, {g.Cens[k] + g.flat(k), "beyond"}, {g.Fits[k], "fits"}} {
		if c.w > most {
			most, r.Where = c.w, c.where
		}
	}
	return widen(r)
}

func (g *RateGrid) clone() *RateGrid {
	if g == nil {
		return nil
	}
	c := *g
	for _, p := range c.arrays() {
		*p = append([]float64(nil), *p...)
	}
	return &c
}

// sweep is the reads of the current sweep: at most one per rung, so its
// buffers are allocated once.
type sweep struct {
	start      time.Time
	tau, x, w  []float64
	rss        float64 // the job's largest resident size in the sweep
	pageSize   int64
	readsSoFar int
}

func (sw *sweep) reset(start time.Time, rss float64) {
	sw.start, sw.rss = start, rss
	sw.tau, sw.x, sw.w = sw.tau[:0], sw.x[:0], sw.w[:0]
	sw.readsSoFar = 0
}

func (sw *sweep) add(tau, ref, reuse, rss float64) {
	sw.tau = append(sw.tau, tau)
	sw.x = append(sw.x, ref)
	sw.w = append(sw.w, reuse)
	sw.rss = math.Max(sw.rss, rss)
	sw.readsSoFar++
}

// curve is the sweep's own ladder: x the pages it referenced (new ones
// included), w those it came back to, the sweep's resident size as the
// size that holds everything.
func (sw *sweep) curve() *MRC {
	m := &MRC{PageSize: sw.pageSize, Tau: []float64{0}, W: []float64{0}, SE: []float64{0}, X: []float64{0}, Peak: sw.rss}
	for i, t := range sw.tau {
		if t <= m.Tau[len(m.Tau)-1] {
			continue
		}
		m.Tau = append(m.Tau, t)
		m.W = append(m.W, math.Max(sw.w[i], m.W[len(m.W)-1]))
		m.X = append(m.X, math.Max(math.Max(sw.x[i], sw.w[i]), m.X[len(m.X)-1]))
		m.SE = append(m.SE, 0)
	}
	m.derive()
	return m
}

// GridFromReads folds reads (as Config.Trace gave them, in order) into a
// grid the way the sampler does while it runs: a sweep per Read.Sweep,
// standing for the time from its clear to the next sweep's, the last to
// end (seconds since the sampler started). For re-deriving a traced run.
func GridFromReads(reads []Read, end float64, pageSize int64) *RateGrid {
	g := newRateGrid()
	sw := sweep{pageSize: pageSize}
	flush := func(until float64) {
		if sw.readsSoFar > 0 {
			g.Add(sw.curve(), until-sw.start.Sub(time.Time{}).Seconds())
		}
	}
	cur := -1
	for _, r := range reads {
		if r.Sweep != cur {
			flush(r.Start)
			cur = r.Sweep
			sw.reset(time.Time{}.Add(time.Duration(r.Start*float64(time.Second))), float64(r.StartRss))
		}
		sw.add(r.Window, float64(r.Ref), float64(max(0, r.Ref-r.New)), float64(r.Rss))
	}
	flush(end)
	return g
}
