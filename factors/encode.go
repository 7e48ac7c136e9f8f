package factors

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"
)

// Encode renders a factor file as memplan writes it (probe, profile,
// factors merge): YAML with a heading comment when name ends in .yaml or
// .yml, else indented JSON. Parse reads either back.
func Encode(name string, ff *File) ([]byte, error) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		var b strings.Builder
		b.WriteString("# Slowdown factors measured by memplan probe; see docs/probe.md.\n")
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
