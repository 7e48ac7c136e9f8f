package model

import (
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// Swap kinds.
const (
	SwapNone  = "none"
	SwapDrive = "drive" // swap on 1..N drives of one model, striped (RAID 0) when N > 1, or mirrored (Swap.Mirrored)
	SwapZram  = "zram"  // compressed swap in RAM
	SwapZswap = "zswap" // compressed cache in RAM in front of swap drives
)

// Part is a catalog item as used in a configuration, priced in the result's
// currency.
type Part struct {
	SKU      string
	Model    string
	Catalog  string
	Price    money.Amount // in Result.Currency, exact: the quote converted once (prices.Set.Convert)
	Quoted   units.Money  // as written in the catalog
	Capacity units.Bytes  // DIMMs and drives
	Watts    float64      // average draw of one unit (catalog or default, see Result.TCO)
}

// Swap is the swap arrangement of a configuration.
type Swap struct {
	Kind  string
	Drive *Part
	// Drives counts every drive bought. Mirrored swap keeps two copies
	// of every page (RAID 1 on two drives, RAID 10 on four or more):
	// Drives/2 drives' capacity and write bandwidth, reads from either
	// copy, and each drive written as if it were one of Drives/2.
	Drives    int
	Mirrored  bool
	Class     string      // factor class of the drives
	ZramShare float64     // zram disk size / RAM
	Algorithm string      // zram/zswap compressor
	Capacity  units.Bytes // swap space
}

// JobResult is how one job class fares on a configuration.
type JobResult struct {
	Name          string
	Touched       units.Bytes    // concurrency x footprint
	InRAM         units.Bytes    // part of it resident
	Fit           float64        // InRAM / Touched, at most 1
	Estimate      Estimate       // slowdown
	Runtime       units.Duration // predicted
	RuntimeHigh   units.Duration // at the upper end of the band
	Deadline      units.Duration
	Meets         bool
	AtRisk        bool // meets on the estimate, not on its upper bound, or BeyondPublished
	JobsPerServer float64
	SwapWrites    units.Bytes
	// WearDirty is the dirty share SwapWrites is priced at, and
	// WearDirtyFrom where it comes from (WearDirty's doc).
	WearDirty     float64
	WearDirtyFrom string
	// BeyondPublished: the job has no curve of its own (no profile) and
	// keeps less than 1-PublishedOffload of its memory in plain RAM at a
	// slowdown below BeyondPublishedSlowdown, more than production
	// deployments report offloading; at risk until the job is measured.
	BeyondPublished bool
}

// Wear is the swap drives' write load against their rated endurance.
type Wear struct {
	WritesPerDay  units.Bytes // per server, all drives
	HorizonWrites units.Bytes // per drive over the horizon
	Endurance     units.Bytes // per drive, 0 = not rated
	LifeUsed      float64     // HorizonWrites / Endurance
	WearsOut      bool
	Replacements  int // drives bought again within the horizon
}

// Cost is per-server capital cost split by part, in Result.Currency. The
// amounts are exact (package money): unit prices times counts, summed.
// Only Power involves a fraction (kWh are an estimate); it is rounded to
// the cent once per server, and TCO and TCOFleet are exact from there.
// An amount that overflowed is money.Invalid (checkMoneyRange refuses it).
type Cost struct {
	Platform     money.Amount
	DIMMs        money.Amount
	Drives       money.Amount
	Replacements money.Amount // drives replaced within the horizon
	PerServer    money.Amount // platform + DIMMs + drives + replacements
	Fleet        money.Amount // PerServer x Servers

	// Total cost of ownership over the workload's horizon (see Result.TCO
	// for the electricity price and PUE used).
	Watts     float64      // average draw per server: platform + DIMMs + swap drives
	EnergyKWh float64      // per server over the horizon, at the facility (x PUE)
	Power     money.Amount // EnergyKWh x electricity price, half to even to the cent; 0 when not priced
	TCO       money.Amount // PerServer + Power
	TCOFleet  money.Amount // TCO x Servers
}

// Config is one evaluated server configuration.
type Config struct {
	Rank      int
	ID        string
	Label     string
	Platform  Part
	Cores     int // the platform's CPU cores (0: not given, a core per job)
	DIMM      Part
	DIMMCount int
	// MemorySpeed is the speed (MT/s) the DIMMs run at on this platform
	// with DIMMCount of them (prices.Platform.MemorySpeed); 0: not known.
	MemorySpeed     int
	DIMMsPerChannel int
	Swap            Swap
	Installed       units.Bytes
	Usable          units.Bytes // after the OS/page-cache reserve
	Jobs            []JobResult
	Meets           bool
	AtRisk          bool
	Servers         int
	Cost            Cost
	Wear            *Wear
	MaxSlowdown     float64
	Extrapolated    bool
	Notes           []string
	// Packing says which job classes share servers in turn because their
	// daily windows fit in one day (fleet.go); "" when none do.
	Packing string
}

// AllDRAM reports whether the configuration has no swap at all.
func (c *Config) AllDRAM() bool { return c.Swap.Kind == SwapNone }
