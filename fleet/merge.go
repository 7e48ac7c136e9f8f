package fleet

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/stats"
	"gonum.org/v1/gonum/stat"
)

// MergeKey is the key of the merge record in a merged file's extra section
// (package factors owns it).
const MergeKey = factors.MergeKey

// Merge levels: the band written into the merged curve is the prediction
// interval for one more host at Level; a host is named an outlier when its
// mean falls outside the prediction interval at OutlierLevel computed from
// the other hosts.
const (
	DefaultLevel        = 0.95
	DefaultOutlierLevel = 0.99
)

// MergeOptions say how to group and what to compute.
type MergeOptions struct {
	By           string  // label that names the group (class)
	Level        float64 // of the prediction interval (default 0.95)
	OutlierLevel float64 // of the leave-one-out interval (default 0.99)
}

// Group is the merge of one class's files.
type Group struct {
	Class    string
	Hosts    []string // in the order of Files
	Files    []string
	File     *factors.File // the merged factor file
	Curves   []CurveStats
	Outliers []Outlier
}

// CurveStats is the merge of one backend class's curve across hosts.
type CurveStats struct {
	Class  string       `json:"class"`
	Points []PointStats `json:"points"`
}

// PointStats is one fit ratio across hosts: the mean of the host means,
// their standard deviation (the spread between hosts), and the prediction
// interval for the mean one more host of the class would measure.
type PointStats struct {
	Fit    float64    `json:"fit"`
	Mean   float64    `json:"mean"`
	SD     float64    `json:"sd"`
	CV     float64    `json:"cv"` // SD / Mean
	PI     [2]float64 `json:"prediction_interval"`
	Hosts  []HostMean `json:"hosts"`
	Levels float64    `json:"level"`
}

// HostMean is what one host measured at a fit ratio.
type HostMean struct {
	Host     string    `json:"host"`
	Slowdown float64   `json:"slowdown"`
	CI       []float64 `json:"ci,omitempty"`
	Runs     int       `json:"runs,omitempty"`
}

// Outlier is a host whose mean lies outside the interval the other hosts
// predict for it.
type Outlier struct {
	Host     string     `json:"host"`
	Curve    string     `json:"curve"`
	Fit      float64    `json:"fit"`
	Slowdown float64    `json:"slowdown"`
	Expected [2]float64 `json:"expected"` // the others' prediction interval at OutlierLevel
}

// MergeError is a refusal to merge: files of one class that were not
// measured the same way.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

func refuse(format string, args ...any) error { return &MergeError{fmt.Sprintf(format, args...)} }

// flags that may differ between hosts without changing what was measured.
var hostFlags = map[string]bool{"out": true, "force": true, "plan": true, "swap-dir": true, "stdout": true, "stderr": true}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

type member struct {
	f     *factors.File
	stamp factors.Stamp
	host  string
}

// Merge groups factor files by the label o.By and merges each group. Every
// file must carry a stamp (memplan probe or profile writes one); within a
// group they must agree on memplan version, command, flags other than
// where they wrote and swapped to, resolved workload, backends and fit
// grid. Groups come back sorted by class.
func Merge(files []*factors.File, o MergeOptions) ([]Group, error) {
	if o.By == "" {
		o.By = "class"
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.OutlierLevel == 0 {
		o.OutlierLevel = DefaultOutlierLevel
	}
	groups := map[string][]member{}
	for _, f := range files {
		s, ok, err := factors.GetStamp(f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, refuse("%s: no extra.%s section: the file was not written by a memplan probe or profile that labels its files; re-run it with --label %s=NAME", f.File, factors.StampKey, o.By)
		}
		if _, merged := f.Extra[MergeKey]; merged {
			return nil, refuse("%s: this file is already a merge; merge the hosts' own files instead", f.File)
		}
		class := s.Labels[o.By]
		if class == "" {
			return nil, refuse("%s: extra.%s.labels: no label %q; re-run with --label %s=NAME (the hardware class)", f.File, factors.StampKey, o.By, o.By)
		}
		if !safeName.MatchString(class) {
			return nil, refuse("%s: extra.%s.labels.%s: %q cannot name the merged file; use letters, digits, '.', '_' and '-'", f.File, factors.StampKey, o.By, class)
		}
		host := s.Labels["host"]
		if host == "" && f.Host != nil {
			host = f.Host.Hostname
		}
		if host == "" {
			host = strings.TrimSuffix(filepath.Base(f.File), filepath.Ext(f.File))
		}
		groups[class] = append(groups[class], member{f: f, stamp: s, host: host})
	}
	var classes []string
	for c := range groups {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var out []Group
	for _, c := range classes {
		g, err := mergeGroup(c, groups[c], o)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// check refuses a group whose files were not measured the same way.
func check(class string, ms []member) error {
	a := ms[0]
	seen := map[string]string{}
	for _, b := range ms {
		if f, dup := seen[b.host]; dup {
			return refuse("%s and %s: both are host %q of class %s; keep one file per host (label hosts with --label host=NAME)", f, b.f.File, b.host, class)
		}
		seen[b.host] = b.f.File
	}
	for _, b := range ms[1:] {
		differ := func(what, x, y, fix string) error {
			return refuse("class %s: %s: %s is %s, but %s: %s is %s; %s", class, a.f.File, what, x, b.f.File, what, y, fix)
		}
		if a.stamp.Version != b.stamp.Version {
			return differ("memplan_version", a.stamp.Version, b.stamp.Version, "measure every host with the same memplan")
		}
		if a.stamp.Version == "dev" && a.stamp.Binary != b.stamp.Binary {
			return differ("memplan_sha256 (a development build)", short(a.stamp.Binary), short(b.stamp.Binary), "measure every host with the same memplan binary")
		}
		if a.stamp.Command != b.stamp.Command {
			return differ("command", a.stamp.Command, b.stamp.Command, "merge probes with probes and profiles with profiles")
		}
		// Before the flags (--one-pass is one of them), so the refusal
		// says why it matters.
		for _, ca := range a.f.Curves {
			cb := curveOf(b.f, ca.Class)
			if cb != nil && ca.Provenance != cb.Provenance && (ca.Provenance == factors.Inferred || cb.Provenance == factors.Inferred) {
				// An inferred point is the model's arithmetic on sampled
				// working sets with a band that is no sampling interval;
				// pooled with measured means it would come out labelled
				// as one of them, and its band would be lost.
				return differ("curve "+ca.Class+"'s provenance", ca.Provenance, cb.Provenance,
					"merge one-pass profiles (memplan profile --one-pass, provenance inferred) only with one-pass profiles, and measured files with measured ones")
			}
		}
		for _, k := range unionKeys(a.stamp.Flags, b.stamp.Flags) {
			if hostFlags[k] {
				continue
			}
			x, y := a.stamp.Flags[k], b.stamp.Flags[k]
			if x != y {
				return differ("--"+k, quote(x), quote(y), "run every host of a class with the same flags")
			}
		}
		if x, y := strings.Join(a.stamp.Args, " "), strings.Join(b.stamp.Args, " "); x != y {
			return differ("the profiled command", quote(x), quote(y), "profile the same command on every host")
		}
		if x, y := workload(a.f), workload(b.f); x != y {
			return differ("the probe's workload (extra.probe.workload)", x, y, "pin the sizes across hosts with --data-size and --code-size: the default data size depends on the host's RAM")
		}
		if x, y := backends(a.f), backends(b.f); x != y {
			return differ("the curves", x, y, "measure the same backends on every host (--backends; --device-class when a device is detected differently)")
		}
		for _, ca := range a.f.Curves {
			cb := curveOf(b.f, ca.Class)
			if x, y := fits(ca), fits(*cb); x != y {
				return differ("curve "+ca.Class+"'s fit ratios", x, y, "measure the same fit ratios on every host (--fit)")
			}
		}
	}
	return nil
}

func mergeGroup(class string, ms []member, o MergeOptions) (Group, error) {
	g := Group{Class: class, Outliers: []Outlier{}}
	if err := check(class, ms); err != nil {
		return g, err
	}
	if len(ms) < 2 {
		return g, refuse("class %s: only %s (host %s): the spread between hosts needs at least two; probe another host of the class or leave the class out", class, ms[0].f.File, ms[0].host)
	}
	files := make([]*factors.File, len(ms))
	for i, m := range ms {
		files[i] = m.f
		g.Hosts = append(g.Hosts, m.host)
		g.Files = append(g.Files, m.f.File)
	}
	n := len(ms)
	// The statistics are the fleet's: per fit ratio, the mean and spread
	// of the host means, the prediction interval for one more host as the
	// merged point's band, and the hosts the others do not predict.
	band := func(curve string, fit float64, pts []factors.Point) (float64, [2]float64) {
		if len(g.Curves) == 0 || g.Curves[len(g.Curves)-1].Class != curve {
			g.Curves = append(g.Curves, CurveStats{Class: curve})
		}
		cs := &g.Curves[len(g.Curves)-1]
		xs := make([]float64, n)
		ps := PointStats{Fit: fit, Levels: o.Level}
		for i, p := range pts {
			xs[i] = p.Slowdown
			ps.Hosts = append(ps.Hosts, HostMean{Host: g.Hosts[i], Slowdown: p.Slowdown, CI: p.CI, Runs: len(p.Samples)})
		}
		ps.Mean, ps.SD = stat.MeanStdDev(xs, nil)
		ps.CV = ps.SD / ps.Mean
		h := stats.PredictionHalfWidth(ps.SD, n, o.Level)
		ps.PI = [2]float64{ps.Mean - h, ps.Mean + h}
		mean, pi := ps.Mean, ps.PI
		ps.Mean, ps.SD, ps.CV = round4(ps.Mean), round4(ps.SD), round4(ps.CV)
		ps.PI = [2]float64{round4(ps.PI[0]), round4(ps.PI[1])}
		cs.Points = append(cs.Points, ps)
		g.Outliers = append(g.Outliers, outliers(curve, fit, g.Hosts, xs, o.OutlierLevel)...)
		return mean, pi
	}
	mf, err := factors.MergeHosts(files, g.Hosts, band)
	if err != nil {
		return g, refuse("class %s: %v", class, err)
	}
	mf.Name = fmt.Sprintf("memplan fleet %s: merged from %d hosts", class, n)
	mf.Source = fmt.Sprintf("merged by memplan factors merge from %d hosts of class %s (%s): each point is the mean of the host means; its band is the %.0f%% prediction interval for one more host of the class (Student-t, %d degrees of freedom)", n, class, strings.Join(g.Hosts, ", "), 100*o.Level, n-1)
	mf.Host.Hostname = fmt.Sprintf("%d hosts of class %s", n, class)
	common := ms[0].stamp
	common.Labels = commonLabels(ms)
	common.SwapInUse = 0 // a host's, not the merge's
	factors.SetStamp(mf, common)
	rec := map[string]any{
		"by": o.By, "class": class, "hosts": g.Hosts, "files": g.Files, "n_hosts": n, "level": o.Level,
		"outlier_level": o.OutlierLevel, "curves": g.Curves, "outliers": g.Outliers,
		"method": "per fit ratio: mean and standard deviation of the host means; prediction interval mean ± t(n-1) · sd · sqrt(1 + 1/n); a host is an outlier when its mean lies outside the prediction interval of the other hosts at outlier_level (needs 3 hosts or more)",
	}
	var m map[string]any
	b, _ := json.Marshal(rec)
	_ = json.Unmarshal(b, &m)
	mf.Extra[MergeKey] = m
	g.File = mf
	return g, nil
}

// outliers names the hosts whose mean falls outside the prediction
// interval the other hosts give for one more host. With fewer than three
// hosts the others cannot say anything about spread.
func outliers(curve string, fit float64, hosts []string, xs []float64, level float64) []Outlier {
	n := len(xs)
	if n < 3 {
		return nil
	}
	var out []Outlier
	for i := range xs {
		others := append(append([]float64(nil), xs[:i]...), xs[i+1:]...)
		m, sd := stat.MeanStdDev(others, nil)
		h := stats.PredictionHalfWidth(sd, len(others), level)
		// Identical others (sd 0) predict exactly their value; measurements
		// are never that exact, so allow 1% before calling a host odd.
		h = math.Max(h, 0.01*m)
		if xs[i] < m-h || xs[i] > m+h {
			out = append(out, Outlier{Host: hosts[i], Curve: curve, Fit: fit, Slowdown: xs[i], Expected: [2]float64{round4(m - h), round4(m + h)}})
		}
	}
	return out
}

// MergedFrom says how many hosts a merged factor file pools, and which;
// n is 0 for a file that is not a merge.
func MergedFrom(f *factors.File) (n int, hosts []string) {
	m, ok := f.Extra[MergeKey].(map[string]any)
	if !ok {
		return 0, nil
	}
	hs, _ := m["hosts"].([]any)
	for _, h := range hs {
		if s, ok := h.(string); ok {
			hosts = append(hosts, s)
		}
	}
	return len(hosts), hosts
}

func commonLabels(ms []member) map[string]string {
	out := map[string]string{}
	for k, v := range ms[0].stamp.Labels {
		out[k] = v
	}
	for _, m := range ms[1:] {
		for k, v := range out {
			if m.stamp.Labels[k] != v {
				delete(out, k)
			}
		}
	}
	return out
}

func workload(f *factors.File) string {
	p, ok := f.Extra["probe"].(map[string]any)
	if !ok {
		return "(none)"
	}
	b, _ := json.Marshal(p["workload"])
	return string(b)
}

func backends(f *factors.File) string {
	var cs []string
	for _, c := range f.Curves {
		cs = append(cs, c.Class)
	}
	sort.Strings(cs)
	return "[" + strings.Join(cs, ", ") + "]"
}

func curveOf(f *factors.File, class string) *factors.Curve {
	for i := range f.Curves {
		if f.Curves[i].Class == class {
			return &f.Curves[i]
		}
	}
	return nil
}

func fits(c factors.Curve) string {
	var s []string
	for _, p := range c.Points {
		s = append(s, fmt.Sprint(p.Fit))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func unionKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var ks []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}

func quote(s string) string {
	if s == "" {
		return "(not set)"
	}
	return fmt.Sprintf("%q", s)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "(unknown)"
	}
	return s
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
