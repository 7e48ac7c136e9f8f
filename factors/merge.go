package factors

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/units"
)

// MergeKey is the key of the merge record in a merged file's extra
// section: a file that has one pools other files' measurements, and
// memplan factors merge (package fleet) writes what it is.
const MergeKey = "merge"

// PointBand is what a merge makes of one fit ratio's means across hosts:
// the merged slowdown and the band written as the point's ci.
type PointBand func(curve string, fit float64, hosts []Point) (slowdown float64, band [2]float64)

// MergeHosts pools factor files of the same measurement taken on several
// hosts, hosts[i] naming files[i]'s, into one file: curve by curve and
// point by point, the slowdown and ci band point gives (package factors
// computes no statistics: fleet passes the mean of the host means and a
// prediction interval), each no lower than 1; the page and fault rates,
// the references' latencies and IOPS, the fault overhead, the readahead
// and the zram backends as means over the hosts that all have them; the
// host facts the hosts share; and the latest dates. An inferred curve's
// band also spans every host's own one-pass band, which the spread
// between hosts does not show. Name, Source and Extra are the caller's
// to fill in.
//
// The files must have the same curves, each with the same fit ratios in
// the same order, and an inferred curve must be inferred in every file;
// otherwise MergeHosts returns an error saying which file differs. The
// merged curve takes the first file's provenance.
func MergeHosts(files []*File, hosts []string, point PointBand) (*File, error) {
	if len(files) == 0 || len(hosts) != len(files) {
		return nil, fmt.Errorf("merge: %d files for %d hosts", len(files), len(hosts))
	}
	if err := sameMeasurement(files); err != nil {
		return nil, err
	}
	n := len(files)
	first := files[0]
	mf := &File{Host: commonHost(files), TransferFrom: first.TransferFrom, Extra: map[string]any{}}
	for _, f := range files {
		if f.Date.After(mf.Date.Time) {
			mf.Date = f.Date
		}
		if f.TransferFrom != mf.TransferFrom {
			mf.TransferFrom = ""
		}
	}
	if allFiles(files, func(f *File) bool { return f.FaultOverhead > 0 }) {
		mf.FaultOverhead = units.Duration(math.Round(meanFiles(files, func(f *File) float64 { return float64(f.FaultOverhead) })))
	}
	if allFiles(files, func(f *File) bool { return f.Readahead != nil }) {
		mf.Readahead = &Readahead{
			Faults: round4(meanFiles(files, func(f *File) float64 { return f.Readahead.Faults })),
			Pages:  round4(meanFiles(files, func(f *File) float64 { return f.Readahead.Pages })),
		}
		if mf.Readahead.Pages < mf.Readahead.Faults {
			mf.Readahead.Pages = mf.Readahead.Faults
		}
	}
	for _, c0 := range first.Curves {
		curves := make([]*Curve, n)
		for i, f := range files {
			curves[i] = curveOf(f, c0.Class)
		}
		mc := Curve{Class: c0.Class, Provenance: c0.Provenance, Host: strings.Join(hosts, ", "),
			Source:    c0.Source + fmt.Sprintf("; merged over %d hosts", n),
			Reference: mergeReference(curves)}
		for _, c := range curves {
			if c.MeasuredAt.After(mc.MeasuredAt.Time) {
				mc.MeasuredAt = c.MeasuredAt
			}
		}
		for j, p0 := range c0.Points {
			ps := make([]Point, n)
			for i, c := range curves {
				ps[i] = c.Points[j]
			}
			mean, band := point(c0.Class, p0.Fit, ps)
			pt := Point{Fit: p0.Fit, Slowdown: round4(math.Max(1, mean))}
			pt.CI = []float64{round4(math.Min(pt.Slowdown, math.Max(1, band[0]))), round4(math.Max(pt.Slowdown, band[1]))}
			if c0.Provenance == Inferred {
				// Each host's one-pass band is the method's own
				// uncertainty, which the spread between hosts does not
				// show: the merged band spans them all.
				for _, p := range ps {
					if len(p.CI) == 2 {
						pt.CI = []float64{math.Min(pt.CI[0], p.CI[0]), math.Max(pt.CI[1], p.CI[1])}
					}
				}
			}
			pt.PageRate = meanRate(ps, func(p Point) float64 { return p.PageRate })
			pt.BlockFaultRate = meanRate(ps, func(p Point) float64 { return p.BlockFaultRate })
			pt.BlockPageRate = meanRate(ps, func(p Point) float64 { return p.BlockPageRate })
			mc.Points = append(mc.Points, pt)
		}
		mf.Curves = append(mf.Curves, mc)
	}
	mf.Software = mergeSoftware(files)
	return mf, nil
}

// sameMeasurement refuses files whose curves cannot be pooled point by
// point.
func sameMeasurement(files []*File) error {
	a := files[0]
	for _, b := range files[1:] {
		if x, y := classes(a), classes(b); x != y {
			return fmt.Errorf("merge: %s has curves %s, but %s has %s", a.File, x, b.File, y)
		}
		for _, ca := range a.Curves {
			cb := curveOf(b, ca.Class)
			if ca.Provenance != cb.Provenance && (ca.Provenance == Inferred || cb.Provenance == Inferred) {
				// A one-pass band is no sampling interval: pooled with
				// measured means it would be lost.
				return fmt.Errorf("merge: curve %s is %s in %s, but %s in %s", ca.Class, ca.Provenance, a.File, cb.Provenance, b.File)
			}
			if x, y := fitList(ca), fitList(*cb); x != y {
				return fmt.Errorf("merge: curve %s has fit ratios %s in %s, but %s in %s", ca.Class, x, a.File, y, b.File)
			}
		}
	}
	return nil
}

func mergeReference(cs []*Curve) Reference {
	r := cs[0].Reference
	mean := func(get func(Reference) float64) float64 {
		s := 0.0
		for _, c := range cs {
			s += get(c.Reference)
		}
		return s / float64(len(cs))
	}
	r.ReadLatency = units.Duration(math.Round(mean(func(x Reference) float64 { return float64(x.ReadLatency) })))
	r.WriteLatency = units.Duration(math.Round(mean(func(x Reference) float64 { return float64(x.WriteLatency) })))
	r.ReadIOPS = math.Round(mean(func(x Reference) float64 { return x.ReadIOPS }))
	r.WriteIOPS = math.Round(mean(func(x Reference) float64 { return x.WriteIOPS }))
	var devs []string
	seen := map[string]bool{}
	for _, c := range cs {
		if d := c.Reference.Device; !seen[d] {
			seen[d] = true
			devs = append(devs, d)
		}
	}
	r.Device = strings.Join(devs, " | ")
	return r
}

func mergeSoftware(files []*File) []Software {
	var out []Software
	for _, s0 := range files[0].Software {
		var lat, ratio float64
		k := 0
		for _, f := range files {
			for _, s := range f.Software {
				if s.Name == s0.Name {
					lat += float64(s.Latency)
					ratio += s.Ratio
					k++
				}
			}
		}
		if k != len(files) {
			continue // not measured on every host
		}
		out = append(out, Software{Name: s0.Name, Latency: units.Duration(math.Round(lat / float64(k))), Ratio: round4(ratio / float64(k)),
			Source: fmt.Sprintf("mean over %d hosts of: %s", k, s0.Source)})
	}
	return out
}

// commonHost is what the hosts share: the facts every file gives alike.
func commonHost(files []*File) *HostFacts {
	h := &HostFacts{}
	same := func(get func(*HostFacts) string) string {
		v := ""
		for i, f := range files {
			if f.Host == nil {
				return ""
			}
			if i == 0 {
				v = get(f.Host)
			} else if get(f.Host) != v {
				return ""
			}
		}
		return v
	}
	h.CPU = same(func(x *HostFacts) string { return x.CPU })
	h.Kernel = same(func(x *HostFacts) string { return x.Kernel })
	h.RAM = same(func(x *HostFacts) string { return x.RAM })
	h.Cgroup = same(func(x *HostFacts) string { return x.Cgroup })
	h.Device = same(func(x *HostFacts) string { return x.Device })
	h.FS = same(func(x *HostFacts) string { return x.FS })
	return h
}

func classes(f *File) string {
	var cs []string
	for _, c := range f.Curves {
		cs = append(cs, c.Class)
	}
	sort.Strings(cs)
	return "[" + strings.Join(cs, ", ") + "]"
}

func curveOf(f *File, class string) *Curve {
	for i := range f.Curves {
		if f.Curves[i].Class == class {
			return &f.Curves[i]
		}
	}
	return nil
}

func fitList(c Curve) string {
	var s []string
	for _, p := range c.Points {
		s = append(s, fmt.Sprint(p.Fit))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func meanFiles(files []*File, get func(*File) float64) float64 {
	s := 0.0
	for _, f := range files {
		s += get(f)
	}
	return s / float64(len(files))
}

// meanRate is a rate's mean over the hosts, 0 unless every host has one.
func meanRate(ps []Point, get func(Point) float64) float64 {
	s := 0.0
	for _, p := range ps {
		v := get(p)
		if v == 0 {
			return 0
		}
		s += v
	}
	return s / float64(len(ps))
}

func allFiles(files []*File, ok func(*File) bool) bool {
	for _, f := range files {
		if !ok(f) {
			return false
		}
	}
	return true
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
