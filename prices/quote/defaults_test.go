package quote

import (
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/units"
)

// TestClassDefaults pins the class-default table in docs/import.md.
func TestClassDefaults(t *testing.T) {
	d, err := ClassDefaults()
	if err != nil {
		t.Fatal(err)
	}
	us := func(v float64) units.Duration { return units.Duration(v * float64(time.Microsecond)) }
	want := map[string]ClassDefault{
		"nvme-ssd-slc": {ReadLatency: us(29), WriteLatency: us(8), ReadIOPS: 1500000, WriteIOPS: 400000, DWPD: 60, From: "embedded catalog current, NVME-SLC-800G"},
		"nvme-ssd-tlc": {ReadLatency: us(85), WriteLatency: us(20), ReadIOPS: 900000, WriteIOPS: 120000, DWPD: 1, From: "embedded catalog current, NVME-TLC-1T9"},
		"nvme-ssd-qlc": {ReadLatency: us(110), WriteLatency: us(35), ReadIOPS: 800000, WriteIOPS: 30000, DWPD: 0.3, From: "embedded catalog current, NVME-QLC-7T6"},
		// The X25-E's 2 PB over 5 years on 64 GB is about 17 drive writes a day.
		"sata-ssd-slc": {ReadLatency: us(75), WriteLatency: us(85), ReadIOPS: 35000, WriteIOPS: 3300, DWPD: 17, From: "embedded catalog intel-2009, SSDSA2SH064G1"},
		"sata-ssd-mlc": {ReadLatency: us(85), WriteLatency: us(115), ReadIOPS: 35000, WriteIOPS: 3300, DWPD: 0.25, From: "embedded catalog intel-2009, SSDSA2MH080G1"},
		"hdd":          {ReadLatency: us(8500), WriteLatency: us(9500), ReadIOPS: 110, WriteIOPS: 100, From: "embedded catalog intel-2009, ST3250310NS"},
	}
	if len(d) != len(want) {
		t.Errorf("%d class defaults, want %d (update docs/import.md)", len(d), len(want))
	}
	for k, w := range want {
		g, ok := d[k]
		if !ok || g.ReadLatency != w.ReadLatency || g.WriteLatency != w.WriteLatency || g.ReadIOPS != w.ReadIOPS || g.WriteIOPS != w.WriteIOPS || g.DWPD != w.DWPD || !strings.Contains(g.From, w.From) {
			t.Errorf("%s default = %+v, want %+v (update docs/import.md)", k, g, w)
		}
	}
}
