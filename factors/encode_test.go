package factors

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/units"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/encode")

// golden compares data with testdata/encode/name, or writes it there
// with -update.
func golden(t *testing.T, name string, data []byte) {
	t.Helper()
	path := filepath.Join("testdata", "encode", name)
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./factors -run TestEncodeGolden -update writes it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("%s: the encoding changed:\n%s", path, data)
	}
}

// TestEncodeGolden holds both encodings of the factor files a recorded
// probe and profile wrote (with every extra measurement) to golden files,
// and the probe's with curves that carry no date of their own: in JSON
// they take the file's date (so undated.json would be probe.json), in
// YAML they stay undated. The inputs are the JSON goldens themselves, so
// each must come back byte for byte, and every golden must parse.
func TestEncodeGolden(t *testing.T) {
	read := func(name string) *File {
		data, err := os.ReadFile(filepath.Join("testdata", "encode", name))
		if err != nil {
			t.Fatal(err)
		}
		var f File
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return &f
	}
	files := map[string]*File{"probe": read("probe.json"), "profile": read("profile.json"), "undated": read("probe.json")}
	for i := range files["undated"].Curves {
		files["undated"].Curves[i].MeasuredAt = units.Date{}
	}
	for name, ff := range files {
		for _, ext := range []string{".json", ".yaml"} {
			data, err := Encode(name+ext, ff)
			if err != nil {
				t.Fatal(err)
			}
			if name == "undated" && ext == ".json" {
				if want, _ := Encode("probe.json", files["probe"]); !bytes.Equal(data, want) {
					t.Errorf("undated curves in JSON do not take the file's date:\n%s", data)
				}
				continue
			}
			golden(t, name+ext, data)
			if _, err := Parse(name+ext, data, fixed); err != nil {
				t.Errorf("%s does not parse: %v", name+ext, err)
			}
			if ext == ".json" && strings.Contains(string(data), "T00:00:00") {
				t.Errorf("%s holds a timestamp where a date belongs", name+ext)
			}
		}
	}
	if u := files["undated"]; !u.Curves[0].MeasuredAt.IsZero() {
		t.Errorf("Encode changed its argument: curve 0 measured_at %s", u.Curves[0].MeasuredAt)
	}
}

// TestEncodeHeadingSaysWhatWroteIt: a YAML factor file's first line names
// what wrote it, told from the file's own records, and the manual to read.
func TestEncodeHeadingSaysWhatWroteIt(t *testing.T) {
	profile := func(method string) map[string]any {
		p := map[string]any{"command": []any{"sort"}}
		if method != "" {
			p["method"] = method
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		extra map[string]any
		want  string
	}{
		{"probe", map[string]any{"probe": map[string]any{}, StampKey: map[string]any{"command": "probe"}},
			"# Slowdown factors measured by memplan probe; see docs/probe.md."},
		{"profile", map[string]any{"profile": profile(""), StampKey: map[string]any{"command": "profile"}},
			"# A job's slowdown profile measured by memplan profile; see docs/profile.md."},
		{"one-run", map[string]any{"profile": profile(OneRunMethod)},
			"# A job's slowdown profile measured in one run under a stepped memory limit by memplan profile --one-run; see docs/profile.md."},
		{"one-pass", map[string]any{"profile": profile(OnePassMethod)},
			"# A job's slowdown profile inferred from one unconstrained run by memplan profile --one-pass; see docs/profile.md."},
		{"merge of probes", map[string]any{MergeKey: map[string]any{}, StampKey: map[string]any{"command": "probe"}},
			"# Slowdown factors merged from hosts of one class by memplan factors merge; see docs/fleet.md."},
		{"stamp only", map[string]any{StampKey: map[string]any{"command": "profile"}},
			"# A job's slowdown profile measured by memplan profile; see docs/profile.md."},
		{"by hand", nil, "# Slowdown factors; see docs/model.md."},
	} {
		f := &File{Name: "x", Source: "y", Extra: tc.extra}
		data, err := Encode("x.yaml", f)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := strings.Cut(string(data), "\n"); got != tc.want {
			t.Errorf("%s: heading %q\nwant         %q", tc.name, got, tc.want)
		}
	}
}
