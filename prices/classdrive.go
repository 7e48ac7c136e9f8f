package prices

import "fmt"

// ClassDrive is the drive that stands for a factor class where a
// measurement reaches beyond the device it ran on: the probe's emulations,
// the profile's predictions.
type ClassDrive struct {
	Class string
	Drive Drive
	// Count is the drives striped together: 2 for an HDD, the Intel
	// study's two-drive RAID 0; else 1.
	Count int
	Label string // the model, or "2 x <model>, RAID 0"
}

// CatalogClasses walks memplan's embedded catalogs, the Intel study's
// first and then today's, and returns the first drive of every factor
// class in that order.
func CatalogClasses() []ClassDrive {
	var out []ClassDrive
	seen := map[string]bool{}
	for _, name := range []string{"intel-2009", "current"} {
		c, err := Embedded(name)
		if err != nil {
			continue
		}
		for _, d := range c.Drives {
			class := d.FactorClass()
			if seen[class] {
				continue
			}
			seen[class] = true
			cd := ClassDrive{Class: class, Drive: d, Count: 1, Label: d.Model}
			if class == "hdd" {
				cd.Count = 2
				cd.Label = fmt.Sprintf("%d x %s, RAID 0", cd.Count, d.Model)
			}
			out = append(out, cd)
		}
	}
	return out
}
