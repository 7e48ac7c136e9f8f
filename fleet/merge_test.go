package fleet

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/units"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// probeFile is a factor file as memplan probe writes it on one host of a
// class: a zram curve and a swap-file curve at fits 0.75 and 0.5, with
// slowdowns zram[i], file[i] at those fits.
func probeFile(host, class string, zram, file []float64) *factors.File {
	f := &factors.File{
		Name: "memplan-probe " + host, Source: "measured by memplan probe dev on " + host,
		Date: units.Date{}, File: "results/run1/" + class + "/" + host + ".json",
		Host:         &factors.HostFacts{Hostname: "vm", CPU: "2 x AMD EPYC", RAM: "23.5GiB"},
		TransferFrom: "nvme-ssd-tlc",
		Extra: map[string]any{"probe": map[string]any{"workload": map[string]any{
			"data_bytes": "64MiB", "code_bytes": "8MiB", "pattern": "zipf"}}},
	}
	fits := []float64{0.75, 0.5}
	add := func(class string, lat units.Duration, s []float64) {
		c := factors.Curve{Class: class, Provenance: factors.Measured, Host: "vm", Source: "memplan probe: " + class,
			Reference: factors.Reference{Device: class + " device", ReadLatency: lat, WriteLatency: lat, Drives: 1, Concurrency: 1}}
		for i, fit := range fits {
			c.Points = append(c.Points, factors.Point{Fit: fit, Slowdown: s[i], CI: []float64{s[i] * 0.95, s[i] * 1.05}, Samples: []float64{s[i], s[i], s[i]}})
		}
		f.Curves = append(f.Curves, c)
	}
	add("zram-lz4", 5000, zram)
	add("nvme-ssd-tlc", 80000, file)
	f.Software = []factors.Software{{Name: "zram-lz4", Latency: 5000, Ratio: 2.7}}
	factors.SetStamp(f, factors.Stamp{Version: "dev", Binary: strings.Repeat("ab", 32), Command: "probe",
		Labels: map[string]string{"class": class, "host": host, "run": "run1"},
		Flags:  map[string]string{"fit": "[0.75,0.5]", "data-size": "64MiB", "backends": "[zram,file]", "out": "/tmp/" + host + ".json", "swap-dir": "/var/tmp/" + host}})
	return f
}

func near(a, b float64) bool { return math.Abs(a-b) < 5e-4 }

func TestMergeThreeHosts(t *testing.T) {
	files := []*factors.File{
		probeFile("a1", "gen5", []float64{2.0, 4.0}, []float64{3.0, 9.0}),
		probeFile("a2", "gen5", []float64{2.2, 4.4}, []float64{3.3, 9.9}),
		probeFile("a3", "gen5", []float64{2.4, 4.2}, []float64{3.6, 9.6}),
		probeFile("b1", "gen4", []float64{2.0, 4.0}, []float64{5, 12}),
		probeFile("b2", "gen4", []float64{2.1, 4.1}, []float64{5.5, 13}),
	}
	gs, err := Merge(files, MergeOptions{By: "class"})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Class != "gen4" || gs[1].Class != "gen5" {
		t.Fatalf("groups %+v", gs)
	}
	g := gs[1]
	if strings.Join(g.Hosts, ",") != "a1,a2,a3" {
		t.Errorf("hosts %v", g.Hosts)
	}
	// zram at fit 0.75: host means 2.0, 2.2, 2.4: mean 2.2, sd 0.2, and
	// one more host lies within 2.2 ± t(2, 0.975)·0.2·sqrt(1+1/3).
	p := g.Curves[0].Points[0]
	h := 4.302653 * 0.2 * math.Sqrt(4.0/3)
	if g.Curves[0].Class != "zram-lz4" || p.Fit != 0.75 || !near(p.Mean, 2.2) || !near(p.SD, 0.2) || !near(p.PI[0], 2.2-h) || !near(p.PI[1], 2.2+h) {
		t.Errorf("zram fit 0.75: %+v, want mean 2.2 sd 0.2 PI %.4f-%.4f", p, 2.2-h, 2.2+h)
	}
	if len(p.Hosts) != 3 || p.Hosts[2].Host != "a3" || p.Hosts[2].Slowdown != 2.4 || p.Hosts[2].Runs != 3 {
		t.Errorf("per-host means %+v", p.Hosts)
	}
	mc := g.File.Curves[0]
	pt := mc.Points[0]
	if pt.Slowdown != 2.2 || !near(pt.CI[0], 2.2-h) || !near(pt.CI[1], 2.2+h) {
		t.Errorf("merged point %+v: the band must be the prediction interval", pt)
	}
	if mc.Host != "a1, a2, a3" || mc.Reference.ReadLatency != 5000 {
		t.Errorf("merged curve host %q reference %+v", mc.Host, mc.Reference)
	}
	if n, hosts := MergedFrom(g.File); n != 3 || hosts[0] != "a1" {
		t.Errorf("MergedFrom = %d %v", n, hosts)
	}
	if !strings.Contains(g.File.Source, "from 3 hosts of class gen5") || g.File.TransferFrom != "nvme-ssd-tlc" {
		t.Errorf("source %q transfer_from %q", g.File.Source, g.File.TransferFrom)
	}
	s, ok, _ := factors.GetStamp(g.File)
	if !ok || s.Labels["class"] != "gen5" || s.Labels["run"] != "run1" || s.Labels["host"] != "" {
		t.Errorf("merged stamp labels %v", s.Labels)
	}
	if len(g.File.Software) != 1 || g.File.Software[0].Ratio != 2.7 {
		t.Errorf("software %+v", g.File.Software)
	}
	// A band below 1 is clamped to 1: slowdowns are never below 1.
	if p := gs[0].File.Curves[0].Points[0]; p.CI[0] < 1 {
		t.Errorf("gen4 band %v", p.CI)
	}
}

func TestMergeRefuses(t *testing.T) {
	base := func(host string) *factors.File {
		return probeFile(host, "gen5", []float64{2, 4}, []float64{3, 9})
	}
	stamp := func(f *factors.File, edit func(*factors.Stamp)) *factors.File {
		s, _, _ := factors.GetStamp(f)
		edit(&s)
		factors.SetStamp(f, s)
		return f
	}
	cases := []struct {
		name string
		b    *factors.File
		want string
	}{
		{"version", stamp(base("h2"), func(s *factors.Stamp) { s.Version = "v1.2.0" }), `memplan_version is dev, but results/run1/gen5/h2.json: memplan_version is v1.2.0; measure every host with the same memplan`},
		{"binary", stamp(base("h2"), func(s *factors.Stamp) { s.Binary = strings.Repeat("cd", 32) }), "memplan_sha256 (a development build) is abababababab"},
		{"flag", stamp(base("h2"), func(s *factors.Stamp) { s.Flags["fit"] = "[0.9,0.5]" }), `--fit is "[0.75,0.5]", but results/run1/gen5/h2.json: --fit is "[0.9,0.5]"`},
		{"new flag", stamp(base("h2"), func(s *factors.Stamp) { s.Flags["zipf-s"] = "1.3" }), `--zipf-s is (not set)`},
		{"command", stamp(base("h2"), func(s *factors.Stamp) { s.Command = "profile" }), "merge probes with probes"},
		{"workload", func() *factors.File {
			f := base("h2")
			f.Extra["probe"] = map[string]any{"workload": map[string]any{"data_bytes": "128MiB", "code_bytes": "8MiB", "pattern": "zipf"}}
			return f
		}(), "pin the sizes across hosts with --data-size"},
		{"backends", func() *factors.File { f := base("h2"); f.Curves = f.Curves[:1]; return f }(), "the curves is [nvme-ssd-tlc, zram-lz4], but results/run1/gen5/h2.json: the curves is [zram-lz4]"},
		{"fit grid", func() *factors.File { f := base("h2"); f.Curves[1].Points[1].Fit = 0.6; return f }(), "curve nvme-ssd-tlc's fit ratios is [0.75, 0.5], but results/run1/gen5/h2.json: curve nvme-ssd-tlc's fit ratios is [0.75, 0.6]"},
		{"same host", base("h1"), `both are host "h1" of class gen5`},
		{"no label", stamp(base("h2"), func(s *factors.Stamp) { delete(s.Labels, "class") }), `h2.json: extra.fleet.labels: no label "class"; re-run with --label class=NAME`},
		{"no stamp", func() *factors.File { f := base("h2"); delete(f.Extra, factors.StampKey); return f }(), "no extra.fleet section"},
		{"bad class", stamp(base("h2"), func(s *factors.Stamp) { s.Labels["class"] = "../x" }), `"../x" cannot name the merged file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Merge([]*factors.File{base("h1"), c.b}, MergeOptions{By: "class"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant it to contain %q", err, c.want)
			}
		})
	}
	// Host-specific flags (where the file went, where the swap file was)
	// may differ; so may the host label.
	if _, err := Merge([]*factors.File{base("h1"), base("h2")}, MergeOptions{}); err != nil {
		t.Errorf("out/swap-dir differ: %v", err)
	}
	if _, err := Merge([]*factors.File{base("h1")}, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "class gen5: only results/run1/gen5/h1.json (host h1): the spread between hosts needs at least two") {
		t.Errorf("one host: %v", err)
	}
}

func TestMergeNamesOutliers(t *testing.T) {
	zram := [][]float64{{2.0, 4.0}, {2.05, 4.1}, {1.98, 3.9}, {2.02, 4.05}, {3.5, 4.0}}
	var files []*factors.File
	for i, z := range zram {
		files = append(files, probeFile("h"+string(rune('1'+i)), "gen5", z, []float64{3, 9}))
	}
	gs, err := Merge(files, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := gs[0].Outliers
	if len(out) != 1 || out[0].Host != "h5" || out[0].Curve != "zram-lz4" || out[0].Fit != 0.75 || out[0].Slowdown != 3.5 {
		t.Fatalf("outliers %+v, want h5's zram at 0.75 only", out)
	}
	if !(out[0].Expected[1] < 3.5 && out[0].Expected[0] > 1.5) {
		t.Errorf("expected interval %v", out[0].Expected)
	}
	// The outlier is named, not dropped: it widens the band.
	if gs[0].Curves[0].Points[0].Hosts[4].Host != "h5" || gs[0].File.Curves[0].Points[0].CI[1] < 3.5 {
		t.Errorf("h5 was dropped: %+v", gs[0].Curves[0].Points[0])
	}
}

// TestPredictionIntervalCoverage simulates fleets: hosts of a class differ
// (true slowdown drawn around the class's), each host's measured mean adds
// run-to-run noise; the band from n hosts must hold the next host's mean
// 95% of the time. The confidence interval of the mean (what a single
// host's CI is) covers a new host far less often: that is why the band is a
// prediction interval.
func TestPredictionIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2026))
	const trials = 4000
	for _, n := range []int{3, 5, 10} {
		piHits, ciHits := 0, 0
		for k := 0; k < trials; k++ {
			host := func() float64 { return 2.5 + 0.3*rng.NormFloat64() + 0.1*rng.NormFloat64() }
			var files []*factors.File
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = host()
				files = append(files, probeFile("h"+string(rune('a'+i)), "c", []float64{xs[i], 2 * xs[i]}, []float64{3, 9}))
			}
			gs, err := Merge(files, MergeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pi := gs[0].Curves[0].Points[0].PI
			next := host()
			if next >= pi[0] && next <= pi[1] {
				piHits++
			}
			m, sd := stat.MeanStdDev(xs, nil)
			tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
			if math.Abs(next-m) <= tq*sd/math.Sqrt(float64(n)) {
				ciHits++
			}
		}
		pi, ci := float64(piHits)/trials, float64(ciHits)/trials
		t.Logf("%2d hosts: the prediction interval held the next host in %.1f%% of %d fleets; the confidence interval of the mean in %.1f%%", n, 100*pi, trials, 100*ci)
		// Binomial sd of the coverage at 4000 trials is 0.35%: 1.2% is
		// more than three of them.
		if math.Abs(pi-0.95) > 0.012 {
			t.Errorf("%d hosts: coverage %.3f, want 0.95", n, pi)
		}
		if ci > 0.9 {
			t.Errorf("%d hosts: the CI of the mean covered %.3f: the simulation does not tell them apart", n, ci)
		}
	}
}
