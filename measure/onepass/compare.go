//go:build linux

package onepass

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// Comparison is a one-pass prediction set against what a multi-run
// profile of the same command measured at one fit ratio on one of its
// curves' devices.
type Comparison struct {
	Class  string `json:"class"`
	Device string `json:"device"`
	// Costs names the per-page costs the prediction used: "default
	// overhead" (what a one-pass profile knows alone) or "measured
	// overhead" (the multi-run profile's fault_overhead).
	Costs string  `json:"costs"`
	Fit   float64 `json:"fit"`
	// Measured is the multi-run slowdown and MeasuredCI its interval
	// (nil when the profile gives none).
	Measured   float64   `json:"measured"`
	MeasuredCI []float64 `json:"measured_ci,omitempty"`
	// MeasuredRate is the multi-run profile's pages brought back per
	// second (0 when not counted).
	MeasuredRate float64   `json:"measured_page_rate,omitempty"`
	Predicted    PredPoint `json:"predicted"`
	// Error is predicted / measured - 1.
	Error float64 `json:"error"`
	// Inside: the measured slowdown lies in the one-pass band. Overlap:
	// the band and the measured interval overlap (a measured value
	// outside the band by less than its own noise).
	Inside  bool `json:"inside"`
	Overlap bool `json:"overlap"`
}

// Compare predicts, from the one-pass curve of res, every curve of the
// multi-run profile mp on that curve's own device (its reference
// latencies) at each fit ratio both have, once with the model's default
// fault overhead and, when mp measured one, once with mp's. Rows come in
// mp's curve order, default costs first, fits from high to low.
func Compare(res *Result, mp *factors.File) ([]Comparison, error) {
	if res == nil || res.Curve == nil {
		return nil, fmt.Errorf("onepass: nothing to compare: the result has no curve")
	}
	var out []Comparison
	for _, c := range mp.Curves {
		pts := append([]factors.Point(nil), c.Points...)
		sort.Slice(pts, func(a, b int) bool { return pts[a].Fit > pts[b].Fit })
		if len(pts) == 0 {
			continue
		}
		fits := make([]float64, len(pts))
		for i, p := range pts {
			fits[i] = p.Fit
		}
		dc := DeviceCost{Class: c.Class, Dev: model.RefDevice(&c), Source: "the multi-run profile's measured device"}
		variants := []struct {
			name  string
			costs Costs
		}{{"default overhead", DefaultCosts()}}
		if mp.FaultOverhead > 0 {
			variants = append(variants, struct {
				name  string
				costs Costs
			}{"measured overhead", DefaultCosts().Measured(mp.FaultOverhead.D(), "the multi-run profile")})
		}
		for _, v := range variants {
			preds, err := res.Curve.Predict(fits, v.costs.WithDevice(dc))
			if err != nil {
				return nil, err
			}
			var mine []PredPoint
			for _, p := range preds {
				if p.Class == c.Class {
					mine = p.Points
				}
			}
			for _, pt := range pts {
				for _, pp := range mine {
					if math.Abs(pp.Fit-pt.Fit) > 1e-9 {
						continue
					}
					row := Comparison{Class: c.Class, Device: dc.Dev.Name, Costs: v.name, Fit: pt.Fit, Measured: pt.Slowdown,
						MeasuredRate: pt.PageRate, Predicted: pp, Error: pp.Slowdown/pt.Slowdown - 1,
						Inside: pt.Slowdown >= pp.Low && pt.Slowdown <= pp.High}
					lo, hi := pt.Slowdown, pt.Slowdown
					if len(pt.CI) == 2 {
						row.MeasuredCI = append([]float64(nil), pt.CI...)
						lo, hi = pt.CI[0], pt.CI[1]
					}
					row.Overlap = lo <= pp.High && hi >= pp.Low
					out = append(out, row)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("onepass: the multi-run profile has no point at a fit ratio to compare with")
	}
	return out, nil
}

// FromFactors re-derives the result a one-pass profile was written from:
// its samples (extra.one_pass.samples), its resident peak and fit ratios
// (extra.profile), with the model's default costs.
func FromFactors(f *factors.File) (*Result, error) {
	op, _ := f.Extra["one_pass"].(map[string]any)
	raw, err := json.Marshal(op["samples"])
	if err != nil {
		return nil, err
	}
	var s Samples
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Rungs) == 0 {
		return nil, fmt.Errorf("%s: extra.one_pass.samples: expected the samples a one-pass profile carries (%v)", f.File, err)
	}
	info := Info{}
	if prof, ok := f.Extra["profile"].(map[string]any); ok {
		if v, ok := number(prof["peak_resident_bytes"]); ok {
			info.Peak = int64(v)
		}
		if fs, ok := prof["fits"].([]any); ok {
			for _, v := range fs {
				if x, ok := number(v); ok {
					info.Fits = append(info.Fits, x)
				}
			}
		}
	}
	return Derive(info, s, DefaultCosts())
}

// number is a JSON or YAML number of a decoded map.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}
