package model

import "sort"

// CrossvalRow is one leave-one-out check: a curve point predicted from
// another curve of the factor set, carried to the held-out curve's own
// device and load, with the transfer error re-estimated without the
// held-out curve.
type CrossvalRow struct {
	Class      string  `json:"class"`
	Provenance string  `json:"provenance"`
	Fit        float64 `json:"fit"`
	Actual     float64 `json:"actual"`
	From       string  `json:"from"`
	// FromInferred marks a prediction made from an inferred (one-pass)
	// curve: how far the one pass and the transfer together can be trusted.
	FromInferred bool    `json:"from_inferred,omitempty"`
	Predicted    float64 `json:"predicted"`
	Low          float64 `json:"low"`
	High         float64 `json:"high"`
	// ErrSlowdown is predicted/actual - 1; ErrExcess the same of the
	// excess (slowdown - 1).
	ErrSlowdown float64 `json:"error_slowdown"`
	ErrExcess   float64 `json:"error_excess"`
	Inside      bool    `json:"inside"`
	// Transfer is the transfer's log error the band carries, learnt from
	// the curves other than the held-out one.
	Transfer float64 `json:"transfer_log_error"`
}

// Crossval is the leave-one-out table of a factor set.
type Crossval struct {
	Rows []CrossvalRow `json:"rows"`
	// TransferError is the log error the whole set forces (what recommend
	// uses for derived classes).
	TransferFloor float64 `json:"transfer_log_error_floor"`
	TransferSlope float64 `json:"transfer_log_error_slope"`
	Inside        int     `json:"inside"`
	// Inferred lists the inferred curves: predicted from, never held out.
	Inferred []string `json:"inferred,omitempty"`
}

// CrossValidate predicts every published or measured point of fs from each
// of the other curves, inferred ones included; inferred points are not
// held out (observedClasses).
func CrossValidate(fs *Factors) Crossval {
	te := fs.TransferError()
	out := Crossval{TransferFloor: te.Floor, TransferSlope: te.Slope}
	classes := fs.transferClasses()
	for _, k := range classes {
		if fs.Curves[k].Provenance == Inferred {
			out.Inferred = append(out.Inferred, k)
		}
	}
	for _, held := range fs.observedClasses() {
		c := fs.Curves[held]
		rest := fs.without(held)
		for _, from := range classes {
			if from == held {
				continue
			}
			src := fs.Curves[from]
			ref := fs.refPath(c)
			p := rest.prepareCurve(src, true, ref.Dev, ref.Jobs, ref.Dirty, "")
			for _, pt := range c.Points {
				if pt.Slowdown <= 1 {
					continue
				}
				est := p.at(pt.Fit)
				r := CrossvalRow{Class: held, Provenance: c.Provenance, Fit: pt.Fit, Actual: pt.Slowdown, From: from, FromInferred: src.Provenance == Inferred,
					Predicted: est.Slowdown, Low: est.Low, High: est.High, Transfer: p.transfer,
					ErrSlowdown: est.Slowdown/pt.Slowdown - 1, ErrExcess: (est.Slowdown-1)/(pt.Slowdown-1) - 1}
				r.Inside = est.Low <= pt.Slowdown && pt.Slowdown <= est.High
				if r.Inside {
					out.Inside++
				}
				out.Rows = append(out.Rows, r)
			}
		}
	}
	sort.SliceStable(out.Rows, func(a, b int) bool {
		x, y := out.Rows[a], out.Rows[b]
		if x.Class != y.Class {
			return x.Class < y.Class
		}
		if x.Fit != y.Fit {
			return x.Fit > y.Fit
		}
		return x.From < y.From
	})
	return out
}

// without is fs less one curve, with its own transfer error.
func (fs *Factors) without(class string) *Factors {
	cp := *fs
	cp.Curves = map[string]*Curve{}
	for k, v := range fs.Curves {
		if k != class {
			cp.Curves[k] = v
		}
	}
	cp.transfer = &transferCache{}
	return &cp
}
