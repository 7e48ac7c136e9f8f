package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/diff")

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
