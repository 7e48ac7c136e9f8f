package factors

import (
	"reflect"
	"strings"
	"testing"
)

// hostFile is one host's factor file: a zram curve at fits 0.75 and 0.5
// with slowdowns s, the page rate rate at both (0: not measured).
func hostFile(name string, s [2]float64, rate float64, lat int64) *File {
	c := Curve{Class: "zram-lz4", Provenance: Measured, Source: "memplan probe",
		Reference: Reference{Device: "zram " + name, ReadLatency: 1000, WriteLatency: 3000, ReadIOPS: 100}}
	for i, fit := range []float64{0.75, 0.5} {
		c.Points = append(c.Points, Point{Fit: fit, Slowdown: s[i], CI: []float64{s[i] - 0.1, s[i] + 0.1}, PageRate: rate})
	}
	return &File{Name: name, Source: "memplan probe on " + name, File: name + ".json",
		Host:     &HostFacts{Hostname: name, CPU: "EPYC", Kernel: "6.8." + name},
		Curves:   []Curve{c},
		Software: []Software{{Name: "zram-lz4", Latency: 5000, Ratio: 2 + float64(lat)}}}
}

// spread is a merge's statistics easy to check by hand: the mean of the
// host means, banded by the lowest and highest of them.
func spread(seen *[]string) PointBand {
	return func(curve string, fit float64, ps []Point) (float64, [2]float64) {
		lo, hi, sum := ps[0].Slowdown, ps[0].Slowdown, 0.0
		for _, p := range ps {
			lo, hi, sum = min(lo, p.Slowdown), max(hi, p.Slowdown), sum+p.Slowdown
		}
		*seen = append(*seen, curve)
		return sum / float64(len(ps)), [2]float64{lo, hi}
	}
}

// TestMergeHostsPoolsPointByPoint checks the merged file: each point is
// what the statistics say, banded by them and held at 1 or more; a rate
// only where every host has one; the references, the zram backend and
// the host facts pooled.
func TestMergeHostsPoolsPointByPoint(t *testing.T) {
	files := []*File{hostFile("a1", [2]float64{1.2, 3}, 10, 0), hostFile("a2", [2]float64{1.4, 5}, 20, 1), hostFile("a3", [2]float64{0.9, 4}, 30, 2)}
	var seen []string
	mf, err := MergeHosts(files, []string{"a1", "a2", "a3"}, spread(&seen))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Errorf("statistics asked %d times, want once per point (2)", len(seen))
	}
	c := mf.Curves[0]
	if c.Class != "zram-lz4" || c.Host != "a1, a2, a3" || c.Source != "memplan probe; merged over 3 hosts" {
		t.Errorf("curve %s on %q from %q", c.Class, c.Host, c.Source)
	}
	want := []Point{
		{Fit: 0.75, Slowdown: 1.1667, CI: []float64{1, 1.4}, PageRate: 20},
		{Fit: 0.5, Slowdown: 4, CI: []float64{3, 5}, PageRate: 20},
	}
	if !reflect.DeepEqual(c.Points, want) {
		t.Errorf("points %+v\nwant   %+v", c.Points, want)
	}
	if r := c.Reference; r.Device != "zram a1 | zram a2 | zram a3" || r.ReadLatency != 1000 || r.ReadIOPS != 100 {
		t.Errorf("reference %+v", r)
	}
	if s := mf.Software; len(s) != 1 || s[0].Ratio != 3 || s[0].Latency != 5000 {
		t.Errorf("software %+v, want zram-lz4 ratio 3 (the mean of 2, 3, 4)", s)
	}
	if h := mf.Host; h.CPU != "EPYC" || h.Kernel != "" || h.Hostname != "" {
		t.Errorf("host %+v, want the CPU all share, no kernel (they differ), no hostname", h)
	}

	files[1].Curves[0].Points[0].PageRate = 0
	mf, err = MergeHosts(files, []string{"a1", "a2", "a3"}, spread(&seen))
	if err != nil {
		t.Fatal(err)
	}
	if r := mf.Curves[0].Points[0].PageRate; r != 0 {
		t.Errorf("page rate %g where host a2 has none, want 0", r)
	}
}

// TestMergeHostsWidensInferredBands: a one-pass curve's merged band
// spans every host's own band, which the spread of the means does not.
func TestMergeHostsWidensInferredBands(t *testing.T) {
	files := []*File{hostFile("a1", [2]float64{1.2, 3}, 0, 0), hostFile("a2", [2]float64{1.4, 5}, 0, 0)}
	for _, f := range files {
		f.Curves[0].Provenance = Inferred
		f.Curves[0].Points[1].CI = []float64{2, 9}
	}
	var seen []string
	mf, err := MergeHosts(files, []string{"a1", "a2"}, spread(&seen))
	if err != nil {
		t.Fatal(err)
	}
	if p := mf.Curves[0].Points[1]; p.Slowdown != 4 || !reflect.DeepEqual(p.CI, []float64{2, 9}) {
		t.Errorf("inferred point %+v, want slowdown 4 with the hosts' band [2 9]", p)
	}
}

// TestMergeHostsRefusesOtherMeasurements: files whose curves cannot be
// pooled point by point are refused, naming both files.
func TestMergeHostsRefusesOtherMeasurements(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*File)
		want   string
	}{
		{"other curve", func(f *File) { f.Curves[0].Class = "zram-zstd" }, "merge: a1.json has curves [zram-lz4], but a2.json has [zram-zstd]"},
		{"other fits", func(f *File) { f.Curves[0].Points[1].Fit = 0.6 }, "merge: curve zram-lz4 has fit ratios [0.75, 0.5] in a1.json, but [0.75, 0.6] in a2.json"},
		{"inferred", func(f *File) { f.Curves[0].Provenance = Inferred }, "merge: curve zram-lz4 is measured in a1.json, but inferred in a2.json"},
	} {
		files := []*File{hostFile("a1", [2]float64{1.2, 3}, 0, 0), hostFile("a2", [2]float64{1.4, 5}, 0, 0)}
		tc.change(files[1])
		var seen []string
		_, err := MergeHosts(files, []string{"a1", "a2"}, spread(&seen))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}
