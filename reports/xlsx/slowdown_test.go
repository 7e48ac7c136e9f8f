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
	// The curves' points are listed below the points and their bases,
	// under a header row "Factor curve", in the points' columns.
	found := map[string]string{}
	head := findRow(rows, 0, "Factor curve")
	if head < 0 {
		t.Fatal("no Factor curve table on the Slowdown sheet")
	}
	for _, r := range rows[head+1:] {
		if len(r) < pSlowdown || r[pClass-1] == "" {
			break
		}
		found[r[pClass-1]] = r[pSlowdown-1]
	}
	for class, want := range map[string]string{"sata-ssd-slc": "1.12", "sata-ssd-mlc": "1.46", "hdd": "1.94"} {
		if got, ok := found[class]; !ok || len(got) < 4 || got[:4] != want {
			t.Errorf("curve %s: slowdown cell %q, want %s (rows %v)", class, got, want, found)
		}
	}
}
