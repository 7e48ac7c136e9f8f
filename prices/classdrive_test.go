package prices

import (
	"strings"
	"testing"
)

// TestCatalogClasses: one drive per factor class, the first the embedded
// catalogs list (the Intel study's before today's), and an HDD as two
// drives in RAID 0.
func TestCatalogClasses(t *testing.T) {
	got := CatalogClasses()
	intel, err := Embedded("intel-2009")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(intel.Drives) == 0 || got[0].Drive.SKU != intel.Drives[0].SKU {
		t.Fatalf("first class drive %+v, want the Intel catalog's first drive", got)
	}
	seen := map[string]bool{}
	hdd := false
	for _, cd := range got {
		if seen[cd.Class] {
			t.Errorf("class %s twice", cd.Class)
		}
		seen[cd.Class] = true
		if cd.Class != cd.Drive.FactorClass() {
			t.Errorf("%s stands for class %s but is filed under %s", cd.Drive.Model, cd.Class, cd.Drive.FactorClass())
		}
		switch {
		case cd.Class == "hdd":
			hdd = true
			if cd.Count != 2 || cd.Label != "2 x "+cd.Drive.Model+", RAID 0" {
				t.Errorf("hdd: %d drives labelled %q, want 2 in RAID 0", cd.Count, cd.Label)
			}
		case cd.Count != 1 || cd.Label != cd.Drive.Model || strings.Contains(cd.Label, "RAID"):
			t.Errorf("%s: %d drives labelled %q, want one labelled by its model", cd.Class, cd.Count, cd.Label)
		}
	}
	if !hdd {
		t.Error("no hdd class: the Intel study's RAID 0 has no stand-in")
	}
}
