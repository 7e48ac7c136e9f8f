package quote

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// ClassDefault holds the figures a quote never states (latency, IOPS) and
// often omits (endurance) for one drive class, taken from a drive of the
// same class in an embedded catalog.
type ClassDefault struct {
	Class        string // FactorClass: "nvme-ssd-tlc", "hdd", ...
	ReadLatency  units.Duration
	WriteLatency units.Duration
	ReadIOPS     float64
	WriteIOPS    float64
	DWPD         float64 // 0 for HDDs
	Warranty     float64 // years the DWPD is rated over
	From         string  // "embedded catalog current, NVME-TLC-1T9"
}

// ClassDefaults returns the class defaults the embedded catalogs provide,
// keyed by FactorClass. Classes no embedded catalog lists (sata-ssd-tlc,
// for one) have none: such drives need the --drive-* flags.
func ClassDefaults() (map[string]ClassDefault, error) {
	d, err := classDefaults()
	if err != nil {
		return nil, err
	}
	out := make(map[string]ClassDefault, len(d))
	for k, v := range d {
		out[k] = v
	}
	return out, nil
}

// classDefaults parses the embedded catalogs once; callers get copies.
var classDefaults = sync.OnceValues(readClassDefaults)

func readClassDefaults() (map[string]ClassDefault, error) {
	// Every embedded catalog, newest first: the first drive of a class
	// wins, so current figures are preferred to the 2009 ones.
	type embedded struct {
		name string
		*prices.Catalog
	}
	var cats []embedded
	for _, name := range prices.EmbeddedNames() {
		c, err := prices.Embedded(name)
		if err != nil {
			return nil, err
		}
		cats = append(cats, embedded{name, c})
	}
	sort.SliceStable(cats, func(i, j int) bool { return cats[i].Date.After(cats[j].Date.Time) })
	out := map[string]ClassDefault{}
	for _, c := range cats {
		name := c.name
		for _, d := range c.Drives {
			k := d.FactorClass()
			if _, ok := out[k]; ok {
				continue
			}
			cd := ClassDefault{
				Class: k, ReadLatency: d.ReadLatency, WriteLatency: d.WriteLatency,
				ReadIOPS: d.ReadIOPS, WriteIOPS: d.WriteIOPS, Warranty: d.Warranty,
				From: fmt.Sprintf("embedded catalog %s, %s", name, d.SKU),
			}
			if cd.Warranty == 0 {
				cd.Warranty = 5
			}
			switch {
			case d.DWPD > 0:
				cd.DWPD = d.DWPD
			case d.TBW > 0 && d.Capacity > 0:
				// The same drive writes per day over the warranty as its TBW
				// rating, two significant figures.
				dwpd := float64(d.TBW) / (float64(d.Capacity) * 365 * cd.Warranty)
				cd.DWPD = roundSig(dwpd, 2)
			}
			out[k] = cd
		}
	}
	return out, nil
}

func roundSig(v float64, digits int) float64 {
	if v == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if math.IsNaN(f) {
		return v
	}
	return f
}

// embeddedPlatforms are the platforms of every embedded catalog: an
// imported DIMM none of them takes is flagged, because recommend refuses a
// DIMM no platform in its catalogs takes.
var embeddedPlatforms = sync.OnceValue(func() []prices.Platform {
	var out []prices.Platform
	for _, n := range prices.EmbeddedNames() {
		if c, err := prices.Embedded(n); err == nil {
			out = append(out, c.Platforms...)
		}
	}
	return out
})
