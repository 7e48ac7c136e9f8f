package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/factorfile and testdata/diff")

// TestEncodeFactorsGolden holds both encodings of factor files to golden
// files: the factor files a recorded probe and profile made (with their
// extra measurements), and the probe's with curves that carry no date of
// their own (they get the file's). The goldens were written by the encoder that
// still rewrote every time.Time timestamp to a date after encoding; that
// rewriting is gone (units.Date marshals itself as 2026-03-01), and the
// bytes are the same.
func TestEncodeFactorsGolden(t *testing.T) {
	files := map[string]*model.FactorFile{}
	for _, rec := range []string{"probe", "profile", "undated"} {
		recorded := rec
		if rec == "undated" {
			recorded = "probe"
		}
		data, err := os.ReadFile(filepath.Join("..", "..", "reports", "measured", "testdata", recorded+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Factors *model.FactorFile `json:"factors"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		files[rec] = r.Factors
	}
	for i := range files["undated"].Curves {
		files["undated"].Curves[i].MeasuredAt = units.Date{}
	}
	for name, ff := range files {
		for _, ext := range []string{".json", ".yaml"} {
			data, err := factors.Encode(name+ext, ff)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "factorfile", name+ext)
			if *update {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/memplan -run TestEncodeFactorsGolden -update writes it)", err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("%s: the encoding changed:\n%s", path, data)
			}
			if _, err := model.ParseFactors(name+ext, data); err != nil {
				t.Errorf("%s does not load: %v", path, err)
			}
			if ext == ".json" && strings.Contains(string(data), "T00:00:00") {
				t.Errorf("%s holds a timestamp where a date belongs", path)
			}
		}
	}
}

// TestEncodeFactors needs no root: both encodings of a factor file load
// with the model's loader (JSON dates included).
func TestEncodeFactors(t *testing.T) {
	ff := model.DefaultFactors()
	ff.Curves[0].MeasuredAt = ff.Date
	for _, name := range []string{"probe.json", "probe.yaml", "probe.YML"} {
		data, err := factors.Encode(name, ff)
		if err != nil {
			t.Fatal(err)
		}
		got, err := model.ParseFactors(name, data)
		if err != nil {
			t.Fatalf("%s does not load: %v\n%s", name, err, data)
		}
		if got.Date.String() != ff.Date.String() || len(got.Curves) != len(ff.Curves) || got.Curves[0].MeasuredAt.String() != ff.Date.String() {
			t.Errorf("%s: date %s, %d curves", name, got.Date, len(got.Curves))
		}
		if strings.HasSuffix(name, ".json") != bytes.HasPrefix(data, []byte("{")) {
			t.Errorf("%s: wrong encoding:\n%.80s", name, data)
		}
	}
}
