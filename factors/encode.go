package factors

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"
)

// What wrote a factor file, as Producer tells it from the file.
const (
	ByProbe   = "probe"    // memplan probe
	ByProfile = "profile"  // memplan profile, whole runs at each fit ratio
	ByOneRun  = "one-run"  // memplan profile --one-run
	ByOnePass = "one-pass" // memplan profile --one-pass
	ByMerge   = "merge"    // memplan factors merge
	ByOther   = ""         // a person, or a memplan that left no trace
)

// Producer says what wrote f, from what f records: a merge record
// (extra.merge), a profile's method or record (extra.profile), a probe's
// record (extra.probe), else the command in its stamp (extra.fleet).
func Producer(f *File) string {
	if _, ok := f.Extra[MergeKey]; ok {
		return ByMerge
	}
	if p, ok := f.Extra["profile"].(map[string]any); ok {
		switch m, _ := p["method"].(string); m {
		case OneRunMethod:
			return ByOneRun
		case OnePassMethod:
			return ByOnePass
		}
		return ByProfile
	}
	if _, ok := f.Extra["probe"]; ok {
		return ByProbe
	}
	if s, ok, _ := GetStamp(f); ok && (s.Command == ByProbe || s.Command == ByProfile) {
		return s.Command
	}
	return ByOther
}

// headings say in a YAML file's first line what wrote it and where its
// manual is.
var headings = map[string]string{
	ByProbe:   "# Slowdown factors measured by memplan probe; see docs/probe.md.",
	ByProfile: "# A job's slowdown profile measured by memplan profile; see docs/profile.md.",
	ByOneRun:  "# A job's slowdown profile measured in one run under a stepped memory limit by memplan profile --one-run; see docs/profile.md.",
	ByOnePass: "# A job's slowdown profile inferred from one unconstrained run by memplan profile --one-pass; see docs/profile.md.",
	ByMerge:   "# Slowdown factors merged from hosts of one class by memplan factors merge; see docs/fleet.md.",
	ByOther:   "# Slowdown factors; see docs/model.md.",
}

// Encode renders a factor file as memplan writes it (probe, profile,
// factors merge): YAML with a heading comment that says what wrote it
// (Producer) when name ends in .yaml or .yml, else indented JSON. Parse
// reads either back.
func Encode(name string, ff *File) ([]byte, error) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		var b strings.Builder
		b.WriteString(headings[Producer(ff)] + "\n")
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(ff); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
		return []byte(b.String()), nil
	}
	// omitempty cannot leave a zero units.Date out of JSON (it is a
	// struct), so it would be written as "": give undated curves the
	// file's date instead.
	c := *ff
	c.Curves = append([]Curve(nil), ff.Curves...)
	for i := range c.Curves {
		if c.Curves[i].MeasuredAt.IsZero() {
			c.Curves[i].MeasuredAt = c.Date
		}
	}
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
