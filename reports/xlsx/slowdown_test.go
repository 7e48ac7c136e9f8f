package xlsx

import (
	"testing"
)

// The Slowdown sheet lists the points of the curves the estimates came
// from, so a reader can see what was measured or published and what was
// interpolated.
func TestSlowdownSheetListsCurvePoints(t *testing.T) {
	f, err := Build(intelOutput(t, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.GetRows(sheetSlowdown)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, r := range rows[1:] {
		if len(r) >= fSlowdown && r[fClass-1] != "" {
			found[r[fClass-1]] = r[fSlowdown-1]
		}
	}
	for class, want := range map[string]string{"sata-ssd-slc": "1.12", "sata-ssd-mlc": "1.46", "hdd": "1.94"} {
		if got, ok := found[class]; !ok || len(got) < 4 || got[:4] != want {
			t.Errorf("curve %s: slowdown cell %q, want %s (rows %v)", class, got, want, found)
		}
	}
}
