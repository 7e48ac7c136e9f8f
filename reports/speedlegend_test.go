package reports

import "testing"

func TestSpeedLegendExplainsOnlyShownMarksWithTheirDIMMsPerChannel(t *testing.T) {
	d := Part{SKU: "D64", Model: "64 GB DDR5-5600 RDIMM"}
	one := Configuration{DIMM: d, MemorySpeedMTs: 4800, DIMMsPerChannel: 1}
	two := Configuration{DIMM: d, MemorySpeedMTs: 4400, DIMMsPerChannel: 2}
	rated := Configuration{DIMM: d, MemorySpeedMTs: 5600, DIMMsPerChannel: 1}
	rs := []Configuration{one, two, rated}

	// A board that runs one DIMM per channel below the DIMM's rating is
	// not blamed on more DIMMs per channel.
	got := speedLegend(rs, []string{"16x64GiB DDR5 @4800", "32x64GiB DDR5 @4400", "16x64GiB DDR5"})
	want := " @4800: the platform runs the DIMMs at 4800 MT/s with 1 DIMM per channel, below their rating." +
		" @4400: the platform runs the DIMMs at 4400 MT/s with 2 DIMMs per channel, below their rating."
	if got != want {
		t.Errorf("both marks shown:\n got %q\nwant %q", got, want)
	}
	// A mark every row shared was dropped to fit the table: no legend
	// for what no cell shows; nor for a cell cut before its mark.
	if got := speedLegend(rs, []string{"16x64GiB", "32x64GiB DDR..", "16x64GiB"}); got != "" {
		t.Errorf("no mark shown: got %q", got)
	}
	// One speed reached at two counts on two platforms names both.
	other := Configuration{DIMM: d, MemorySpeedMTs: 4800, DIMMsPerChannel: 2}
	got = speedLegend([]Configuration{other, one}, []string{"P1 16x64GiB DDR5 @4800", "P2 32x64GiB DDR5 @4800"})
	if want := " @4800: the platform runs the DIMMs at 4800 MT/s with 1 or 2 DIMMs per channel, below their rating."; got != want {
		t.Errorf("two counts:\n got %q\nwant %q", got, want)
	}
}

func TestMemoryLabelKeepsTheSpeedWhenTheColumnNarrows(t *testing.T) {
	d := Part{SKU: "D64", Model: "64 GB DDR5-5600 RDIMM", CapacityBytes: 64 << 30}
	cells := []string{
		"P2 " + memoryLabel(Configuration{DIMM: d, DIMMCount: 16, MemorySpeedMTs: 4800, DIMMsPerChannel: 1}),
		"P2 " + memoryLabel(Configuration{DIMM: d, DIMMCount: 32, MemorySpeedMTs: 4400, DIMMsPerChannel: 2}),
		"P1 " + memoryLabel(Configuration{DIMM: d, DIMMCount: 24, MemorySpeedMTs: 5600, DIMMsPerChannel: 1}),
	}
	if want := "P2 32x64GiB DDR5 @4400"; cells[1] != want {
		t.Fatalf("label %q, want %q", cells[1], want)
	}
	// Too narrow for the whole labels: the generation every row shares
	// goes, the speeds that tell rows apart stay.
	dropShared(cells, 17)
	want := []string{"P2 16x64GiB @4800", "P2 32x64GiB @4400", "P1 24x64GiB"}
	for i := range want {
		if cells[i] != want[i] {
			t.Errorf("cell %d = %q, want %q", i, cells[i], want[i])
		}
	}
}
