//go:build linux

package profile

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// A prior (memplan profile --one-run --prior FILE) is a one-pass profile
// of the same command: the sampler's inferred curve. The one run's
// measured points always win; the prior only fills the fits the run did
// not reach (past the knee, or outside the budget), each such point
// marked source: sampler with the one-pass band as its interval. A
// sampler's figure is not a measurement: its central value read 1.00 where
// whole runs measured 1.13-1.89 on a synthesis job, so it is
// held to what the run measured on either side (a curve cannot fall as
// the fit falls) and its band is kept as it is.

// Prior is a loaded one-pass profile of the command a one run measures.
type Prior struct {
	File string
	ff   *factors.File
}

// LoadPrior reads a one-pass profile for a one run of command. A file of
// another kind, or one written for another command, is an error naming
// the file, line and field.
func LoadPrior(file string, command []string) (*Prior, error) {
	ff, err := model.LoadFactors(file)
	if err != nil {
		return nil, err
	}
	return priorOf(ff, command)
}

func priorOf(ff *factors.File, command []string) (*Prior, error) {
	prof, _ := ff.Extra["profile"].(map[string]any)
	method, _ := prof["method"].(string)
	hint := "give the file memplan profile --one-pass wrote for this command"
	switch {
	case prof == nil:
		return nil, ff.Errorf("extra.profile.method", hint, "missing: this is not a profile memplan profile --one-pass wrote; the prior of a one run is the sampler's curve of the same command")
	case method != factors.OnePassMethod:
		what := fmt.Sprintf("%q", method)
		if method == "" {
			what = "no method (a multi-run profile)"
		}
		return nil, ff.Errorf("extra.profile.method", hint, "got %s, expected %q: the prior of a one run is the sampler's curve, not another measurement", what, factors.OnePassMethod)
	}
	want := measure.ShellQuote(command)
	got, _ := prof["command_line"].(string)
	if got != want {
		return nil, ff.Errorf("extra.profile.command_line", "profile this command with --one-pass first, or drop --prior",
			"the one-pass profile is of %q; this run is of %q: the sampler's curve of another command says nothing about this one", got, want)
	}
	return &Prior{File: ff.File, ff: ff}, nil
}

// curve is the prior's curve of class; an error naming the file and its
// curves when it has none.
func (p *Prior) curve(class string) (*factors.Curve, error) {
	var have []string
	for i := range p.ff.Curves {
		c := &p.ff.Curves[i]
		if c.Class == class {
			return c, nil
		}
		have = append(have, c.Class)
	}
	return nil, p.ff.Errorf("curves", fmt.Sprintf("it has %s: give the one run the backend the one pass priced, --backend zram with the same --zram-algorithm", strings.Join(have, ", ")),
		"no curve of class %s, the class this run measures", class)
}

// PriorReport is what a one run took from its prior.
type PriorReport struct {
	File        string       `json:"file"`
	Name        string       `json:"name"`
	CommandLine string       `json:"command_line"`
	Class       string       `json:"class"`
	Peak        units.Bytes  `json:"peak_resident_bytes,omitempty"` // the footprint the prior's fits divide
	Points      []PriorPoint `json:"points"`
	Notes       []string     `json:"notes,omitempty"`
}

// PriorPoint is the sampler's figure at a fit the run did not reach.
type PriorPoint struct {
	Fit      float64 `json:"fit"`
	Slowdown float64 `json:"slowdown"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// Sampler is the prior's own central figure at the fit (interpolated
	// between its points where it has none there); Slowdown differs from
	// it when the run's measured points on either side bound it.
	Sampler      float64 `json:"sampler_slowdown"`
	Interpolated bool    `json:"interpolated,omitempty"`
	Note         string  `json:"note,omitempty"`
}

// fill takes the prior's figures at the fits of pts (a one-run phase's
// points) that have no measurement. It never touches a measured point.
func (p *Prior) fill(class string, pts []Point, footprint units.Bytes) (*PriorReport, error) {
	c, err := p.curve(class)
	if err != nil {
		return nil, err
	}
	rep := &PriorReport{File: p.File, Name: p.ff.Name, Class: class}
	if prof, ok := p.ff.Extra["profile"].(map[string]any); ok {
		rep.CommandLine, _ = prof["command_line"].(string)
		if v, ok := prof["peak_resident_bytes"].(float64); ok {
			rep.Peak = units.Bytes(v)
		} else if v, ok := prof["peak_resident_bytes"].(int); ok {
			rep.Peak = units.Bytes(v)
		}
	}
	if rep.Peak > 0 && footprint > 0 {
		if r := float64(footprint) / float64(rep.Peak); r > 1.1 || r < 1/1.1 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the prior's fit ratios are of a resident peak of %s, this run's of a footprint of %s: the same fit ratio is not the same limit in the two", rep.Peak, footprint))
		}
	}
	var measured []Point
	for _, pt := range pts {
		if pt.Slowdown.N > 0 {
			measured = append(measured, pt)
		}
	}
	for _, pt := range pts {
		if pt.Slowdown.N > 0 {
			continue
		}
		s, lo, hi, exact, ok := priorAt(c.Points, pt.Fit)
		if !ok {
			rep.Notes = append(rep.Notes, fmt.Sprintf("fit %g: not measured, and outside the prior's fits (%g to %g): left out", pt.Fit, c.Points[len(c.Points)-1].Fit, c.Points[0].Fit))
			continue
		}
		pp := PriorPoint{Fit: pt.Fit, Sampler: measure.Round4(s), Interpolated: !exact}
		// A curve cannot fall as the fit falls: the sampler's figure is
		// at least what the run measured at a higher fit and at most what
		// it measured at a lower one.
		floor, ceil := 1.0, math.Inf(1)
		var floorFit, ceilFit float64
		for _, m := range measured {
			v := measure.ClampSlowdown(m.Slowdown.Mean)
			if m.Fit > pt.Fit && v > floor {
				floor, floorFit = v, m.Fit
			}
			if m.Fit < pt.Fit && v < ceil {
				ceil, ceilFit = v, m.Fit
			}
		}
		v := s
		switch {
		case v < floor:
			v = floor
			pp.Note = fmt.Sprintf("the sampler read %.2f, below the %.2f the run measured at fit %g: held there (a curve cannot fall as the fit falls)", s, floor, floorFit)
		case v > ceil && ceil >= floor:
			v = ceil
			pp.Note = fmt.Sprintf("the sampler read %.2f, above the %.2f the run measured at fit %g: held there", s, ceil, ceilFit)
		}
		pp.Slowdown = measure.Round4(v)
		pp.Low = measure.Round4(math.Min(math.Max(lo, floor), v))
		pp.High = measure.Round4(math.Max(hi, v))
		rep.Points = append(rep.Points, pp)
	}
	return rep, nil
}

// priorAt is the prior curve's slowdown and band at fit f: its point
// there, or interpolated between the two around it (exact false); ok is
// false outside its fits.
func priorAt(pts []factors.Point, f float64) (s, lo, hi float64, exact, ok bool) {
	band := func(p factors.Point) (float64, float64) {
		if len(p.CI) == 2 {
			return p.CI[0], p.CI[1]
		}
		return p.Slowdown, p.Slowdown
	}
	sorted := append([]factors.Point(nil), pts...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Fit > sorted[b].Fit })
	for i, p := range sorted {
		if math.Abs(p.Fit-f) < 1e-9 {
			l, h := band(p)
			return p.Slowdown, l, h, true, true
		}
		if i > 0 && f < sorted[i-1].Fit && f > p.Fit {
			a := sorted[i-1]
			t := (a.Fit - f) / (a.Fit - p.Fit)
			al, ah := band(a)
			bl, bh := band(p)
			return a.Slowdown + t*(p.Slowdown-a.Slowdown), al + t*(bl-al), ah + t*(bh-ah), false, true
		}
	}
	return 0, 0, 0, false, false
}

// samplerPoints are the report's prior points as factor-file points.
func (r *PriorReport) samplerPoints() []factors.Point {
	var out []factors.Point
	for _, p := range r.Points {
		out = append(out, factors.Point{Fit: p.Fit, Slowdown: p.Slowdown, CI: []float64{p.Low, p.High}, Source: factors.PointSampler})
	}
	return out
}

// fits lists the fits the prior filled, for sentences.
func (r *PriorReport) fits() string {
	var s []string
	for _, p := range r.Points {
		s = append(s, fmt.Sprintf("%g", p.Fit))
	}
	return strings.Join(s, ", ")
}
