package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// The leave-one-out tables of the embedded anchors and of a profile
// measured on this project's test machine, in both formats.
func TestCrossvalGolden(t *testing.T) {
	sort, err := model.LoadFactors("../examples/profile/sort.profile.json")
	if err != nil {
		t.Fatal(err)
	}
	// memplan probe --quick on this project's test machine (zram and a
	// swap file on its virtio disk, the probe's own pattern).
	probe, err := model.LoadFactors("testdata/factors/probe-quick-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, files := range map[string][]*factors.File{
		"crossval-defaults": {model.DefaultFactors()},
		"crossval-sort":     {model.DefaultParameters(), sort},
		"crossval-probe":    {model.DefaultParameters(), probe},
	} {
		fs, err := model.MergeFactors(files...)
		if err != nil {
			t.Fatal(err)
		}
		cv := model.CrossValidate(fs)
		for format, ext := range map[string]string{"table": ".txt", "json": ".json"} {
			var buf bytes.Buffer
			if err := RenderCrossval(&buf, format, cv); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name+ext)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./reports -update` to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s differs from the rendered output (if intended, run `go test ./reports -update`)\n--- got\n%s", path, buf.String())
			}
		}
		// Every row says whether the actual point is inside its band, and
		// the band brackets the prediction.
		for _, r := range cv.Rows {
			if !(r.Low <= r.Predicted && r.Predicted <= r.High) || r.Inside != (r.Low <= r.Actual && r.Actual <= r.High) {
				t.Errorf("%s: row %+v", name, r)
			}
		}
	}
	var buf bytes.Buffer
	if err := RenderCrossval(&buf, "csv", model.Crossval{}); err == nil || !strings.Contains(err.Error(), "expected table or json") {
		t.Errorf("csv: %v", err)
	}
}
