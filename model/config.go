package model

import (
	"github.com/memplan/memplan/units"
)

// Swap kinds.
const (
	SwapNone  = "none"
	SwapDrive = "drive" // swap on 1..N drives of one model, striped (RAID 0) when N > 1
	SwapZram  = "zram"  // compressed swap in RAM
	SwapZswap = "zswap" // compressed cache in RAM in front of swap drives
)

// Part is a catalog item as used in a configuration, priced in the result's
// currency.
type Part struct {
	SKU      string      `json:"sku"`
	Model    string      `json:"model"`
	Catalog  string      `json:"catalog"`
	Price    float64     `json:"unit_price"`     // in Result.Currency
	Quoted   units.Money `json:"quoted_price"`   // as written in the catalog
	Capacity units.Bytes `json:"capacity_bytes"` // DIMMs and drives
	Watts    float64     `json:"watts"`          // average draw of one unit (catalog or default, see Result.TCO)
}

// Swap is the swap arrangement of a configuration.
type Swap struct {
	Kind      string      `json:"kind"`
	Drive     *Part       `json:"drive,omitempty"`
	Drives    int         `json:"drives,omitempty"`
	Class     string      `json:"class,omitempty"`      // factor class of the drives
	ZramShare float64     `json:"zram_share,omitempty"` // zram disk size / RAM
	Algorithm string      `json:"algorithm,omitempty"`  // zram/zswap compressor
	Capacity  units.Bytes `json:"capacity_bytes"`       // swap space
}

// JobResult is how one job class fares on a configuration.
type JobResult struct {
	Name          string         `json:"name"`
	Touched       units.Bytes    `json:"touched_bytes"`   // concurrency x footprint
	InRAM         units.Bytes    `json:"in_ram_bytes"`    // part of it resident
	Fit           float64        `json:"fit"`             // InRAM / Touched, at most 1
	Estimate      Estimate       `json:"estimate"`        // slowdown
	Runtime       units.Duration `json:"runtime_ns"`      // predicted
	RuntimeHigh   units.Duration `json:"runtime_high_ns"` // at the upper end of the band
	Deadline      units.Duration `json:"deadline_ns"`
	Meets         bool           `json:"meets_deadline"`
	AtRisk        bool           `json:"at_risk"` // meets on the estimate, not on its upper bound
	JobsPerServer float64        `json:"jobs_per_server_day"`
	SwapWrites    units.Bytes    `json:"swap_writes_per_job_bytes"`
}

// Wear is the swap drives' write load against their rated endurance.
type Wear struct {
	WritesPerDay  units.Bytes `json:"writes_per_day_bytes"` // per server, all drives
	HorizonWrites units.Bytes `json:"horizon_writes_bytes"` // per drive over the horizon
	Endurance     units.Bytes `json:"endurance_bytes"`      // per drive, 0 = not rated
	LifeUsed      float64     `json:"life_used"`            // HorizonWrites / Endurance
	WearsOut      bool        `json:"wears_out"`
	Replacements  int         `json:"replacements_per_server"` // drives bought again within the horizon
}

// Cost is per-server capital cost split by part, in Result.Currency.
type Cost struct {
	Platform     float64 `json:"platform"`
	DIMMs        float64 `json:"dimms"`
	Drives       float64 `json:"drives"`
	Replacements float64 `json:"replacements"` // drives replaced within the horizon
	PerServer    float64 `json:"per_server"`   // platform + DIMMs + drives + replacements
	Fleet        float64 `json:"fleet"`        // PerServer x Servers

	// Total cost of ownership over the workload's horizon (see Result.TCO
	// for the electricity price and PUE used).
	Watts     float64 `json:"watts"`          // average draw per server: platform + DIMMs + swap drives
	EnergyKWh float64 `json:"energy_kwh"`     // per server over the horizon, at the facility (x PUE)
	Power     float64 `json:"power"`          // EnergyKWh x electricity price; 0 when not priced
	TCO       float64 `json:"tco_per_server"` // PerServer + Power
	TCOFleet  float64 `json:"tco_fleet"`      // TCO x Servers
}

// Config is one evaluated server configuration.
type Config struct {
	Rank         int         `json:"rank"`
	ID           string      `json:"id"`
	Label        string      `json:"label"`
	Platform     Part        `json:"platform"`
	DIMM         Part        `json:"dimm"`
	DIMMCount    int         `json:"dimm_count"`
	Swap         Swap        `json:"swap"`
	Installed    units.Bytes `json:"installed_ram_bytes"`
	Usable       units.Bytes `json:"usable_ram_bytes"` // after the OS/page-cache reserve
	Jobs         []JobResult `json:"jobs"`
	Meets        bool        `json:"meets_deadlines"`
	AtRisk       bool        `json:"at_risk"`
	Servers      int         `json:"servers"`
	Cost         Cost        `json:"cost"`
	Wear         *Wear       `json:"wear,omitempty"`
	MaxSlowdown  float64     `json:"max_slowdown"`
	Extrapolated bool        `json:"extrapolated"`
	Notes        []string    `json:"notes,omitempty"`
	// Packing says which job classes share servers in turn because their
	// daily windows fit in one day (fleet.go); "" when none do.
	Packing string `json:"packing,omitempty"`
}

// AllDRAM reports whether the configuration has no swap at all.
func (c *Config) AllDRAM() bool { return c.Swap.Kind == SwapNone }
