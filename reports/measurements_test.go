package reports

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
	"gopkg.in/yaml.v3"
)

// A probe's factor file reads the same whether the probe wrote it as JSON
// or as YAML (--out probe.yaml).
func TestMeasurementsFromJSONAndYAML(t *testing.T) {
	js, err := model.LoadFactors("xlsx/testdata/probe-quick-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := yaml.Marshal(js)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := model.ParseFactors("probe.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	mj, wj := measurementsOf(js.File, js.Extra)
	my, wy := measurementsOf(ys.File, ys.Extra)
	if len(wj)+len(wy) > 0 {
		t.Fatalf("warnings: %v %v", wj, wy)
	}
	for name, m := range map[string]*Measurements{"json": mj, "yaml": my} {
		if m == nil || len(m.FaultLatency) != 6 || m.Swapdemo == nil || len(m.Swapdemo.Runs) != 7 || len(m.PageCache) != 5 || m.Copy == nil || len(m.Copy.Workloads) != 3 {
			t.Fatalf("%s: %+v", name, m)
		}
		fl := m.FaultLatency[0]
		var sum int64
		for _, b := range fl.Histogram {
			sum += b.Count
		}
		if fl.Stage != "file" || fl.Fit != 0.9 || fl.Count != 1129 || sum != fl.Count || fl.P999Us != 12517.38 {
			t.Errorf("%s: first point %+v (histogram sum %d)", name, fl, sum)
		}
		if s := m.Swapdemo.Runs[2]; s.Setting != "swappiness 0" || s.Published != "OOM-killed" || s.Runs != 1 {
			t.Errorf("%s: swapdemo run %+v", name, s)
		}
	}
}

// An extra that is not what the probe writes is left out with a warning
// naming the file and the part; the rest still reads.
func TestMeasurementsBadExtra(t *testing.T) {
	m, warnings := measurementsOf("hand.yaml", map[string]any{
		"swapdemo_scenario": "fast",
		"copy_scenario":     map[string]any{"wall_s": 3.5, "workloads": []any{map[string]any{"name": "one large file"}}},
	})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "hand.yaml: extra.swapdemo_scenario is not what memplan probe writes") {
		t.Errorf("warnings %q", warnings)
	}
	if m == nil || m.Swapdemo != nil || m.Copy == nil || m.Copy.Workloads[0].Name != "one large file" {
		t.Errorf("measurements %+v", m)
	}
	if m, w := measurementsOf("curves.yaml", map[string]any{"probe": map[string]any{"quick": true}}); m != nil || w != nil {
		t.Errorf("a file without measurements: %+v, %v", m, w)
	}
}
