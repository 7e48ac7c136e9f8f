package main

import (
	"encoding/json"
	"strings"

	"github.com/memplan/memplan/model"
	"gopkg.in/yaml.v3"
)

// The factor files memplan writes (probe, profile, factors merge).

// encodeFactors renders the factor file as YAML for .yaml/.yml, else JSON.
func encodeFactors(name string, ff *model.FactorFile) ([]byte, error) {
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
	c.Curves = append([]model.Curve(nil), ff.Curves...)
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
