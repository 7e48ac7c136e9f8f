package prices

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// Catalog is one price list as written by a person: one currency, one date,
// one source.
type Catalog struct {
	Name      string                 `yaml:"name" json:"name"`
	Currency  string                 `yaml:"currency" json:"currency"`
	Date      units.Date             `yaml:"date" json:"date"`
	Source    string                 `yaml:"source" json:"source"`
	Notes     string                 `yaml:"notes,omitempty" json:"notes,omitempty"`
	Rates     map[string]units.Money `yaml:"rates,omitempty" json:"rates,omitempty"`
	DIMMs     []DIMM                 `yaml:"dimms,omitempty" json:"dimms,omitempty"`
	Drives    []Drive                `yaml:"drives,omitempty" json:"drives,omitempty"`
	Platforms []Platform             `yaml:"platforms,omitempty" json:"platforms,omitempty"`

	// File is where the catalog came from ("embedded:intel-2009" or a path).
	File string     `yaml:"-" json:"-"`
	doc  *yamlx.Doc `yaml:"-"`
}

// DIMM is a memory module.
type DIMM struct {
	SKU        string      `yaml:"sku" json:"sku"`
	Model      string      `yaml:"model" json:"model"`
	Generation string      `yaml:"generation" json:"generation"` // DDR3, DDR4, DDR5
	Type       string      `yaml:"type" json:"type"`             // RDIMM, LRDIMM, UDIMM
	Capacity   units.Bytes `yaml:"capacity" json:"capacity_bytes"`
	Speed      int         `yaml:"speed" json:"speed_mts"` // MT/s
	Price      units.Money `yaml:"price" json:"price"`
	// PriceRange is the spread of quotes, [low, high] around Price, that
	// memplan's uncertainty analysis draws from (optional).
	PriceRange []units.Money `yaml:"price_range,omitempty" json:"price_range,omitempty"`
	// Watts is the module's average power draw in service (optional; the
	// model has per-generation defaults).
	Watts   float64 `yaml:"watts,omitempty" json:"watts,omitempty"`
	Source  string  `yaml:"source,omitempty" json:"source,omitempty"`
	Catalog string  `yaml:"-" json:"catalog"`
}

// Drive classes.
const (
	ClassHDD     = "hdd"
	ClassSATASSD = "sata-ssd"
	ClassNVMe    = "nvme-ssd"
)

// Drive is a storage device that can hold swap.
type Drive struct {
	SKU          string         `yaml:"sku" json:"sku"`
	Model        string         `yaml:"model" json:"model"`
	Class        string         `yaml:"class" json:"class"`         // hdd, sata-ssd, nvme-ssd
	NAND         string         `yaml:"nand,omitempty" json:"nand"` // SLC, MLC, TLC, QLC (SSDs)
	Capacity     units.Bytes    `yaml:"capacity" json:"capacity_bytes"`
	Price        units.Money    `yaml:"price" json:"price"`
	ReadLatency  units.Duration `yaml:"read_latency" json:"read_latency_ns"`
	WriteLatency units.Duration `yaml:"write_latency" json:"write_latency_ns"`
	ReadIOPS     float64        `yaml:"read_iops" json:"read_iops"`
	WriteIOPS    float64        `yaml:"write_iops" json:"write_iops"`
	// WriteBandwidth is the sustained sequential write speed, at which
	// swap-out clusters are written (optional; per-class default).
	WriteBandwidth units.Bytes   `yaml:"write_bandwidth,omitempty" json:"write_bandwidth_bytes,omitempty"`
	TBW            units.Bytes   `yaml:"tbw,omitempty" json:"tbw_bytes,omitempty"` // rated total bytes written
	DWPD           float64       `yaml:"dwpd,omitempty" json:"dwpd,omitempty"`     // drive writes per day over WarrantyYears
	Warranty       float64       `yaml:"warranty_years,omitempty" json:"warranty_years,omitempty"`
	PriceRange     []units.Money `yaml:"price_range,omitempty" json:"price_range,omitempty"` // [low, high] around Price (optional)
	Watts          float64       `yaml:"watts,omitempty" json:"watts,omitempty"`             // average draw in service (optional; per-class default)
	Source         string        `yaml:"source,omitempty" json:"source,omitempty"`
	Catalog        string        `yaml:"-" json:"catalog"`
}

// FactorClass is the key under which slowdown curves for this kind of device
// are filed: "hdd", "sata-ssd-slc", "nvme-ssd-tlc", ...
func (d Drive) FactorClass() string {
	if d.Class == ClassHDD || d.NAND == "" {
		return d.Class
	}
	return d.Class + "-" + strings.ToLower(d.NAND)
}

// Endurance returns the rated bytes written over the drive's life (TBW, or
// DWPD x capacity x warranty days). Zero means unknown/unlimited (HDDs).
func (d Drive) Endurance() units.Bytes {
	if d.TBW > 0 {
		return d.TBW
	}
	if d.DWPD > 0 {
		years := d.Warranty
		if years == 0 {
			years = 5
		}
		return units.Bytes(d.DWPD * float64(d.Capacity) * 365 * years)
	}
	return 0
}

// Platform is a server chassis with CPUs and board: what the DIMMs and
// drives go into.
type Platform struct {
	SKU     string      `yaml:"sku" json:"sku"`
	Model   string      `yaml:"model" json:"model"`
	Price   units.Money `yaml:"price" json:"price"`
	Sockets int         `yaml:"sockets" json:"sockets"`
	// Cores is the server's CPU cores (optional: without it memplan
	// assumes a core per concurrent job).
	Cores    int         `yaml:"cores,omitempty" json:"cores,omitempty"`
	Memory   MemoryRules `yaml:"memory" json:"memory"`
	Bays     int         `yaml:"drive_bays" json:"drive_bays"` // bays free for swap drives
	Classes  []string    `yaml:"drive_classes,omitempty" json:"drive_classes,omitempty"`
	Reserve  units.Bytes `yaml:"os_reserve" json:"os_reserve_bytes"`           // memory kept for OS and page cache
	Software []string    `yaml:"software_swap,omitempty" json:"software_swap"` // zram, zswap
	// PriceRange is [low, high] around Price (optional); Watts the average
	// draw of chassis, CPUs and boot drive, without DIMMs and swap drives
	// (optional; the model has a per-socket default).
	PriceRange []units.Money `yaml:"price_range,omitempty" json:"price_range,omitempty"`
	Watts      float64       `yaml:"watts,omitempty" json:"watts,omitempty"`
	Source     string        `yaml:"source,omitempty" json:"source,omitempty"`
	Catalog    string        `yaml:"-" json:"catalog"`
}

// MemoryRules say which DIMMs a platform takes and how they must be placed.
type MemoryRules struct {
	Generation  string      `yaml:"generation" json:"generation"`
	Types       []string    `yaml:"types" json:"types"`
	Slots       int         `yaml:"slots" json:"slots"`
	Channels    int         `yaml:"channels" json:"channels"`
	MaxDIMM     units.Bytes `yaml:"max_dimm_capacity,omitempty" json:"max_dimm_capacity_bytes,omitempty"`
	MaxCapacity units.Bytes `yaml:"max_capacity,omitempty" json:"max_capacity_bytes,omitempty"`
	MinSpeed    int         `yaml:"min_speed,omitempty" json:"min_speed_mts,omitempty"`
	// DIMMSpeed is the speed (MT/s) the board runs its memory at, by DIMMs
	// per channel: {1: 5600, 2: 4400}. Optional; given, it lists every
	// count the slots allow (1 to slots/channels). A DIMM rated slower
	// runs at its own speed.
	DIMMSpeed map[int]int `yaml:"dimm_speed,omitempty" json:"dimm_speed_mts,omitempty"`
}

// MemorySpeed is the speed (MT/s) count DIMMs of d run at on the
// platform: the DIMM's rated speed, or the board's for that many DIMMs
// per channel when it is lower (or the DIMM's is not given). 0 when
// neither is known.
func (p Platform) MemorySpeed(d DIMM, count int) int {
	s := d.Speed
	if p.Memory.Channels > 0 {
		if b, ok := p.Memory.DIMMSpeed[count/p.Memory.Channels]; ok && (s <= 0 || b < s) {
			s = b
		}
	}
	return s
}

// Accepts reports whether the platform can take the DIMM, and if not why.
func (p Platform) Accepts(d DIMM) (bool, string) {
	if !strings.EqualFold(p.Memory.Generation, d.Generation) {
		return false, fmt.Sprintf("%s takes %s, not %s", p.SKU, p.Memory.Generation, d.Generation)
	}
	ok := false
	for _, t := range p.Memory.Types {
		if strings.EqualFold(t, d.Type) {
			ok = true
		}
	}
	if !ok {
		return false, fmt.Sprintf("%s takes %s, not %s", p.SKU, strings.Join(p.Memory.Types, "/"), d.Type)
	}
	if p.Memory.MaxDIMM > 0 && d.Capacity > p.Memory.MaxDIMM {
		return false, fmt.Sprintf("%s takes DIMMs up to %s, not %s", p.SKU, p.Memory.MaxDIMM, d.Capacity)
	}
	if p.Memory.MinSpeed > 0 && d.Speed < p.Memory.MinSpeed {
		return false, fmt.Sprintf("%s needs DIMMs of at least %d MT/s, not %d", p.SKU, p.Memory.MinSpeed, d.Speed)
	}
	return true, ""
}

// AcceptsDrive reports whether the platform has bays for this drive class.
func (p Platform) AcceptsDrive(d Drive) bool {
	if p.Bays <= 0 {
		return false
	}
	if len(p.Classes) == 0 {
		return true
	}
	for _, c := range p.Classes {
		if c == d.Class {
			return true
		}
	}
	return false
}

// HasSoftware reports whether the platform's OS offers a software swap backend.
func (p Platform) HasSoftware(name string) bool {
	for _, s := range p.Software {
		if s == name {
			return true
		}
	}
	return false
}

var (
	validGenerations = []string{"DDR3", "DDR4", "DDR5"}
	validTypes       = []string{"RDIMM", "LRDIMM", "UDIMM", "MRDIMM"}
	validClasses     = []string{ClassHDD, ClassSATASSD, ClassNVMe}
	validNAND        = []string{"SLC", "MLC", "TLC", "QLC"}
	validSoftware    = []string{"zram", "zswap"}
)

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// MaxPrice bounds one part's price (in any currency) so that a fleet of
// bounded size stays far inside the range money.Amount counts exactly
// (see package money and model.MaxFleetCost).
const MaxPrice = money.MaxPrice

// written is a price as the file has it ("0.001 EUR"), which its
// formatting to cents would hide.
func written(d *yamlx.Doc, path string, m units.Money) string {
	if v := d.Value(path); v != "" {
		return v
	}
	return m.String()
}

// MinPrice is the least a part may cost, in any currency: one hundredth,
// the smallest amount memplan counts (package money). Below it a price
// would round to nothing.
const MinPrice = 0.01

// Parse decodes and validates one catalog. file names it in errors.
func Parse(file string, data []byte) (*Catalog, error) {
	var c Catalog
	doc, err := yamlx.Decode(file, data, &c)
	if err != nil {
		if k := yamlx.WrongKind(file, data, yamlx.KindCatalog); k != nil {
			return nil, k
		}
		return nil, err
	}
	c.File = file
	c.doc = doc
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Load reads a catalog file.
func Load(path string) (*Catalog, error) {
	return LoadContext(context.Background(), path)
}

// LoadContext reads a catalog file (a regular file of at most
// inputfile.Limit bytes); cancelling ctx stops the read.
func LoadContext(ctx context.Context, path string) (*Catalog, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		return nil, fmt.Errorf("reading price catalog: %w", err)
	}
	return Parse(inputfile.Name(path), data)
}

func (c *Catalog) validate() error {
	d := c.doc
	if c.Name == "" {
		return d.Errorf("name", "add `name: my-catalog`", "missing; every catalog needs a name")
	}
	if !units.IsCurrencyCode(c.Currency) {
		return d.Errorf("currency", "use an ISO 4217 code such as USD, EUR or RUB", "got %q, expected a three-letter currency code", c.Currency)
	}
	if c.Date.IsZero() {
		return d.Errorf("date", "prices go stale; say when they were quoted", "missing, expected a date such as 2026-03-01")
	}
	if strings.TrimSpace(c.Source) == "" {
		return d.Errorf("source", "name the quote, vendor list or report the prices come from", "missing")
	}
	if len(c.DIMMs)+len(c.Drives)+len(c.Platforms) == 0 {
		return d.Errorf("", "add at least one of dimms:, drives:, platforms:", "catalog is empty")
	}
	for cur, r := range c.Rates {
		if r.Currency == "" && r.Amount > 0 {
			// A bare number is in the catalog's own currency.
			r.Currency = c.Currency
			c.Rates[cur] = r
		}
		if msg := checkRate(cur, r); msg != "" {
			return d.Errorf("rates."+cur, "write e.g. `EUR: 1.08 USD` (one EUR buys 1.08 USD)", "%s", msg)
		}
	}
	if err := checkInverses(d, c.Rates); err != nil {
		return err
	}
	seen := map[string]string{}
	sku := func(p, s string) error {
		if strings.TrimSpace(s) == "" {
			return d.Errorf(p+".sku", "every part needs a unique sku (part number)", "missing")
		}
		if prev, ok := seen[s]; ok {
			return d.Errorf(p+".sku", "", "duplicate sku %q (also at %s)", s, prev)
		}
		seen[s] = p
		return nil
	}
	price := func(p string, m *units.Money) error {
		if m.Currency == "" {
			m.Currency = c.Currency
		}
		if m.Amount <= 0 {
			return d.Errorf(p+".price", "prices must be positive amounts such as \"389.00 "+c.Currency+"\"", "got %s, expected a price above zero", m)
		}
		if m.Amount < MinPrice {
			// Money is counted in hundredths: 0.001 EUR would be a free
			// part, and a free part wins every comparison.
			return d.Errorf(p+".price", "check the decimal point; memplan counts money in hundredths of the currency", "got %s, expected a price of at least %.2f %s", written(d, p+".price", *m), MinPrice, m.Currency)
		}
		if m.Amount > MaxPrice {
			return d.Errorf(p+".price", "check the number of digits", "got %s, expected at most %.0f for one part", m, MaxPrice)
		}
		return nil
	}
	// extras checks the optional price_range and watts of a part.
	extras := func(p string, m units.Money, rng []units.Money, watts float64) error {
		if len(rng) > 0 {
			hint := "write the quotes' spread as `price_range: [low, high]`, e.g. [25000, 30000], with the price inside it"
			if len(rng) != 2 {
				return d.Errorf(p+".price_range", hint, "got %d amounts, expected two", len(rng))
			}
			for i := range rng {
				if rng[i].Currency == "" {
					rng[i].Currency = c.Currency
				}
				if rng[i].Currency != m.Currency {
					return d.Errorf(fmt.Sprintf("%s.price_range[%d]", p, i), hint, "got %s, expected the price's currency %s", rng[i], m.Currency)
				}
			}
			if !(rng[0].Amount > 0) || !(rng[0].Amount <= m.Amount) || !(m.Amount <= rng[1].Amount) || math.IsInf(rng[1].Amount, 0) {
				return d.Errorf(p+".price_range", hint, "got [%s, %s] for the price %s, expected 0 < low <= price <= high", rng[0], rng[1], m)
			}
		}
		if watts < 0 || math.IsNaN(watts) || math.IsInf(watts, 0) {
			return d.Errorf(p+".watts", "average power draw in watts, e.g. 9.5; leave it out for memplan's default", "got %g, expected a number of watts, 0 or more", watts)
		}
		return nil
	}
	for i := range c.DIMMs {
		x := &c.DIMMs[i]
		p := fmt.Sprintf("dimms[%d]", i)
		x.Catalog = c.Name
		if err := sku(p, x.SKU); err != nil {
			return err
		}
		if !oneOf(x.Generation, validGenerations) {
			return d.Errorf(p+".generation", "", "got %q, expected one of %s", x.Generation, strings.Join(validGenerations, ", "))
		}
		if !oneOf(x.Type, validTypes) {
			return d.Errorf(p+".type", "", "got %q, expected one of %s", x.Type, strings.Join(validTypes, ", "))
		}
		if x.Capacity < units.GiB {
			return d.Errorf(p+".capacity", "write e.g. 64GiB", "got %s, expected a DIMM capacity of at least 1GiB", x.Capacity)
		}
		if x.Speed < 0 {
			return d.Errorf(p+".speed", "", "got %d, expected MT/s such as 4800", x.Speed)
		}
		if err := price(p, &x.Price); err != nil {
			return err
		}
		if err := extras(p, x.Price, x.PriceRange, x.Watts); err != nil {
			return err
		}
	}
	for i := range c.Drives {
		x := &c.Drives[i]
		p := fmt.Sprintf("drives[%d]", i)
		x.Catalog = c.Name
		if err := sku(p, x.SKU); err != nil {
			return err
		}
		if !oneOf(x.Class, validClasses) {
			return d.Errorf(p+".class", "", "got %q, expected one of %s", x.Class, strings.Join(validClasses, ", "))
		}
		if x.Class == ClassHDD && x.NAND != "" {
			return d.Errorf(p+".nand", "remove it for hdd", "an HDD has no NAND type")
		}
		if x.Class != ClassHDD && !oneOf(x.NAND, validNAND) {
			return d.Errorf(p+".nand", "", "got %q, expected one of %s for an SSD", x.NAND, strings.Join(validNAND, ", "))
		}
		if x.Capacity <= 0 {
			return d.Errorf(p+".capacity", "write e.g. 960GB", "missing or zero")
		}
		if err := price(p, &x.Price); err != nil {
			return err
		}
		if err := extras(p, x.Price, x.PriceRange, x.Watts); err != nil {
			return err
		}
		if x.ReadLatency <= 0 {
			return d.Errorf(p+".read_latency", "write e.g. 85us (4 KiB random read, queue depth 1)", "missing or zero")
		}
		if x.WriteLatency <= 0 {
			return d.Errorf(p+".write_latency", "write e.g. 20us (4 KiB random write, queue depth 1)", "missing or zero")
		}
		if x.ReadIOPS <= 0 || x.WriteIOPS <= 0 {
			f := "read_iops"
			if x.ReadIOPS > 0 {
				f = "write_iops"
			}
			return d.Errorf(p+"."+f, "4 KiB random IOPS from the data sheet", "missing or not positive")
		}
		if x.WriteBandwidth < 0 {
			return d.Errorf(p+".write_bandwidth", "sustained sequential write speed per second, e.g. 1.5GB", "cannot be negative")
		}
		if x.DWPD < 0 || x.TBW < 0 || x.Warranty < 0 {
			return d.Errorf(p+".dwpd", "", "endurance figures cannot be negative")
		}
		if x.TBW > 0 && x.DWPD > 0 {
			// Two ratings that rarely agree: memplan would silently use one.
			return d.Errorf(p+".dwpd", fmt.Sprintf("keep one: `tbw: %s` (rated total bytes written) or `dwpd: %s` with warranty_years; delete the other", d.Value(p+".tbw"), d.Value(p+".dwpd")),
				"both dwpd and tbw are given; a drive takes one endurance rating")
		}
		if x.Class != ClassHDD && x.TBW == 0 && x.DWPD == 0 {
			return d.Errorf(p, "add `tbw: 7PB` or `dwpd: 1`; swap wears flash", "SSD without an endurance rating")
		}
	}
	for i := range c.Platforms {
		x := &c.Platforms[i]
		p := fmt.Sprintf("platforms[%d]", i)
		x.Catalog = c.Name
		if err := sku(p, x.SKU); err != nil {
			return err
		}
		if err := price(p, &x.Price); err != nil {
			return err
		}
		if err := extras(p, x.Price, x.PriceRange, x.Watts); err != nil {
			return err
		}
		m := x.Memory
		if !oneOf(m.Generation, validGenerations) {
			return d.Errorf(p+".memory.generation", "", "got %q, expected one of %s", m.Generation, strings.Join(validGenerations, ", "))
		}
		if len(m.Types) == 0 {
			return d.Errorf(p+".memory.types", "e.g. [RDIMM, LRDIMM]", "missing; list the DIMM types the board takes")
		}
		for j, t := range m.Types {
			if !oneOf(t, validTypes) {
				return d.Errorf(fmt.Sprintf("%s.memory.types[%d]", p, j), "", "got %q, expected one of %s", t, strings.Join(validTypes, ", "))
			}
		}
		if m.Channels <= 0 {
			return d.Errorf(p+".memory.channels", "total memory channels across all sockets", "missing or not positive")
		}
		if m.Slots <= 0 || m.Slots%m.Channels != 0 {
			return d.Errorf(p+".memory.slots", "total DIMM slots, a multiple of channels", "got %d slots for %d channels, expected a positive multiple of the channel count", m.Slots, m.Channels)
		}
		if err := dimmSpeeds(d, p+".memory.dimm_speed", m); err != nil {
			return err
		}
		// Left out, these would silently mean "no swap drives" and "no memory
		// for the OS", both of which skew the answer; make the writer say so.
		if d.Line(p+".drive_bays") == 0 {
			return d.Errorf(p+".drive_bays", "bays free for swap drives; write 0 if there are none", "missing")
		}
		if d.Line(p+".os_reserve") == 0 {
			return d.Errorf(p+".os_reserve", "memory kept for the OS and page cache, e.g. 8GiB; write 0GiB to reserve none", "missing")
		}
		if x.Bays < 0 {
			return d.Errorf(p+".drive_bays", "", "cannot be negative")
		}
		for j, cl := range x.Classes {
			if !oneOf(cl, validClasses) {
				return d.Errorf(fmt.Sprintf("%s.drive_classes[%d]", p, j), "", "got %q, expected one of %s", cl, strings.Join(validClasses, ", "))
			}
		}
		for j, s := range x.Software {
			if !oneOf(s, validSoftware) {
				return d.Errorf(fmt.Sprintf("%s.software_swap[%d]", p, j), "", "got %q, expected one of %s", s, strings.Join(validSoftware, ", "))
			}
		}
		if x.Reserve < 0 {
			return d.Errorf(p+".os_reserve", "", "cannot be negative")
		}
		if x.Sockets < 0 {
			return d.Errorf(p+".sockets", "", "cannot be negative")
		}
		if x.Cores < 0 || (x.Cores > 0 && x.Cores < x.Sockets) {
			return d.Errorf(p+".cores", "the server's CPU cores, at least one per socket", "got %d for %d sockets", x.Cores, x.Sockets)
		}
	}
	return nil
}

// ErrorAt builds an input error pointing at a field of this catalog.
func (c *Catalog) ErrorAt(path, hint, format string, args ...any) error {
	if c.doc == nil {
		return &yamlx.InputError{File: c.File, Field: path, Msg: fmt.Sprintf(format, args...), Hint: hint}
	}
	return c.doc.Errorf(path, hint, format, args...)
}

// Set is the merged view of several catalogs: later catalogs override parts
// with the same SKU from earlier embedded ones.
type Set struct {
	Catalogs  []*Catalog
	DIMMs     []DIMM
	Drives    []Drive
	Platforms []Platform
	// Flags are the caller's flags for what Convert's hint suggests.
	Flags Flags
	rates map[[2]string]*big.Rat // exact: as written, or the exact inverse
	given map[[2]string]RateUsed // as written, by (from, to)
}

// Merge combines catalogs in order; a later part with the same SKU replaces
// an earlier one of an embedded catalog (a user catalog overrides a list
// price). Two catalog files that both list a SKU are refused: see
// quotedOnce.
func Merge(cats ...*Catalog) (*Set, error) { return MergeWith(Flags{}, cats...) }

// MergeWith is Merge for a caller that offers flags for what the hints
// suggest; the set keeps them for Convert's.
func MergeWith(f Flags, cats ...*Catalog) (*Set, error) {
	if len(cats) == 0 {
		return nil, fmt.Errorf("%w: no price catalog to merge", yamlx.ErrInput)
	}
	if err := quotedOnce(f, cats); err != nil {
		return nil, err
	}
	s := &Set{Catalogs: cats, Flags: f, rates: map[[2]string]*big.Rat{}, given: map[[2]string]RateUsed{}}
	di, dr, pl := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range cats {
		s.DIMMs = mergeBySKU(s.DIMMs, c.DIMMs, di, func(x DIMM) string { return x.SKU })
		s.Drives = mergeBySKU(s.Drives, c.Drives, dr, func(x Drive) string { return x.SKU })
		s.Platforms = mergeBySKU(s.Platforms, c.Platforms, pl, func(x Platform) string { return x.SKU })
		for cur, r := range c.Rates {
			s.setRate(cur, r, "catalog "+c.Name+" ("+c.File+")")
		}
	}
	if len(s.DIMMs) == 0 || len(s.Platforms) == 0 {
		names := make([]string, 0, len(cats))
		for _, c := range cats {
			names = append(names, c.File)
		}
		what := "DIMMs"
		if len(s.Platforms) == 0 {
			what = "platforms"
		}
		last := cats[len(cats)-1]
		withEmbedded := ""
		if f.WithEmbedded != "" {
			withEmbedded = "add the embedded list prices with " + f.WithEmbedded + ", "
		}
		return nil, &yamlx.InputError{File: last.File, Msg: fmt.Sprintf("the price catalogs (%s) list no %s, and a plan needs both DIMMs and a platform to put them in", strings.Join(names, ", "), what),
			Hint: fmt.Sprintf("add %s to your quote, %sor name both in the workload, e.g. `catalogs: [%s, %s]`", what, withEmbedded, DefaultCatalog, last.Name)}
	}
	if err := s.checkReserves(); err != nil {
		return nil, err
	}
	return s, nil
}

// builtIn reports whether the catalog is one of the embedded list prices
// (which a quote may override) rather than a file a person gave.
func (c *Catalog) builtIn() bool { return strings.HasPrefix(c.File, "embedded:") }

// quotedOnce refuses a part (by SKU) that two catalog files both quote.
// A quote replacing an embedded list price is what --prices is for; but
// of two quotes for one part, say a EUR and a USD offer being compared,
// neither is a correction of the other, and keeping whichever file came
// last would price the plan from an offer chosen by argument order,
// perhaps the dearer one. Both places are named, and the fix keeps both
// offers in play: under distinct SKUs they are weighed like any two parts
// and the cheaper wins.
func quotedOnce(f Flags, cats []*Catalog) error {
	type at struct {
		c     *Catalog
		path  string
		price units.Money
	}
	seen := map[string]at{}
	for _, c := range cats {
		if c.builtIn() {
			continue
		}
		var parts []at
		var skus []string
		for i, x := range c.DIMMs {
			parts, skus = append(parts, at{c, fmt.Sprintf("dimms[%d]", i), x.Price}), append(skus, x.SKU)
		}
		for i, x := range c.Drives {
			parts, skus = append(parts, at{c, fmt.Sprintf("drives[%d]", i), x.Price}), append(skus, x.SKU)
		}
		for i, x := range c.Platforms {
			parts, skus = append(parts, at{c, fmt.Sprintf("platforms[%d]", i), x.Price}), append(skus, x.SKU)
		}
		for k, p := range parts {
			prev, ok := seen[skus[k]]
			if !ok {
				seen[skus[k]] = p
				continue
			}
			where := prev.c.File
			if l := prev.c.doc.Line(prev.path + ".sku"); l > 0 {
				where = fmt.Sprintf("%s:%d", where, l)
			}
			hint := fmt.Sprintf("give each offer its own sku, e.g. %q, so both are weighed and the cheaper wins, or leave one file out", skus[k]+" ("+c.Name+")")
			if prev.c.File == c.File {
				hint = "the same file is given twice; give it once"
				if f.Prices != "" {
					hint = "the same file is given twice with " + f.Prices + "; give it once"
				}
			}
			return c.ErrorAt(p.path+".sku", hint, "%q is quoted here at %s and also in %s (catalog %s) at %s; memplan will not pick one of two quotes for one part",
				skus[k], p.price, where, prev.c.Name, prev.price)
		}
	}
	return nil
}

// checkReserves refuses a platform whose os_reserve is at least the most
// memory it can hold with the DIMMs of every catalog: no configuration of
// it has memory left for the jobs, which the model used to report on the
// workload's footprint line as if the jobs were too large.
func (s *Set) checkReserves() error {
	for _, pl := range s.Platforms {
		var most units.Bytes
		var best DIMM
		for _, dm := range s.DIMMs {
			if ok, _ := pl.Accepts(dm); !ok {
				continue
			}
			m := units.Bytes(pl.Memory.Slots) * dm.Capacity
			if pl.Memory.MaxCapacity > 0 && m > pl.Memory.MaxCapacity {
				m = pl.Memory.MaxCapacity
			}
			if m > most {
				most, best = m, dm
			}
		}
		if most == 0 || pl.Reserve < most {
			continue
		}
		c, i := s.platformOrigin(pl)
		if c == nil {
			continue
		}
		how := fmt.Sprintf("%d x %s %s", pl.Memory.Slots, best.Capacity, best.SKU)
		if most == pl.Memory.MaxCapacity {
			how = "its max_capacity"
		}
		return c.ErrorAt(fmt.Sprintf("platforms[%d].os_reserve", i), "memory kept for the OS and page cache, e.g. 8GiB",
			"got %s, which leaves nothing for the jobs: %s holds at most %s (%s)", pl.Reserve, pl.SKU, most, how)
	}
	return nil
}

// platformOrigin finds the catalog and index a merged platform came from
// (the last catalog that lists its SKU, as merging keeps).
func (s *Set) platformOrigin(pl Platform) (*Catalog, int) {
	for k := len(s.Catalogs) - 1; k >= 0; k-- {
		c := s.Catalogs[k]
		if c.Name != pl.Catalog {
			continue
		}
		for i := range c.Platforms {
			if c.Platforms[i].SKU == pl.SKU {
				return c, i
			}
		}
	}
	return nil, 0
}

// mergeBySKU appends parts to dst, replacing in place any part whose SKU is
// already there (index maps SKU to position in dst).
func mergeBySKU[T any](dst, parts []T, index map[string]int, sku func(T) string) []T {
	for _, x := range parts {
		if i, ok := index[sku(x)]; ok {
			dst[i] = x
			continue
		}
		index[sku(x)] = len(dst)
		dst = append(dst, x)
	}
	return dst
}

// Rate returns how many units of `to` one unit of `from` buys, directly or
// through one intermediate currency, as a float64 for display and ratios;
// conversions of money use ExactRate.
func (s *Set) Rate(from, to string) (float64, bool) {
	r, ok := s.ExactRate(from, to)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	return f, true
}

// ExactRate is Rate as an exact fraction: a rate written "1.08 USD" is
// 108/100, its inverse exactly 100/108, and a rate through an intermediate
// currency the exact product of the two.
func (s *Set) ExactRate(from, to string) (*big.Rat, bool) {
	if from == to {
		return big.NewRat(1, 1), true
	}
	if r, ok := s.rates[[2]string{from, to}]; ok {
		return r, true
	}
	keys := make([][2]string, 0, len(s.rates))
	for k := range s.rates {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		if k[0] != from {
			continue
		}
		if r2, ok := s.rates[[2]string{k[1], to}]; ok {
			return new(big.Rat).Mul(s.rates[k], r2), true
		}
	}
	return nil, false
}

// Convert expresses m in currency `to` as an exact amount, or fails naming
// both currencies. This is where a quoted price becomes cents, by
// memplan's one rounding rule: the exact product of the price as written
// and the exact rate, rounded half to even to the cent (money.FromRat). A
// price in the report currency is converted at the rate 1, so it is exact
// unless it was written with more than two decimals.
func (s *Set) Convert(m units.Money, to string) (money.Amount, error) {
	if m.Currency == to {
		// Fast path for the common case, a price in whole cents in the
		// report currency: c/100 is then the float64 nearest to that
		// decimal, so the written decimal is c/100 exactly (money.Exact).
		if c := math.Round(m.Amount * 100); math.Abs(c) < 1<<52 && c/100 == m.Amount {
			return money.Cents(int64(c)), nil
		}
	}
	r, ok := s.ExactRate(m.Currency, to)
	if !ok {
		return money.Invalid, fmt.Errorf("%w: prices in %s and %s are mixed without an exchange rate; %sadd `rates: {%s: <amount> %s}` to a catalog, or set `currency:` in the workload to one currency", yamlx.ErrInput, m.Currency, to, s.Flags.RateHint(m.Currency, to, true), m.Currency, to)
	}
	return money.FromRat(new(big.Rat).Mul(m.Exact(), r)), nil
}

// Currencies lists the currencies prices in the set are quoted in.
func (s *Set) Currencies() []string {
	m := map[string]bool{}
	for _, x := range s.DIMMs {
		m[x.Price.Currency] = true
	}
	for _, x := range s.Drives {
		m[x.Price.Currency] = true
	}
	for _, x := range s.Platforms {
		m[x.Price.Currency] = true
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// maxMTs bounds a memory speed: DDR5 runs up to about 8,800 MT/s today;
// ten times that is a typing error.
const maxMTs = 100000

// dimmSpeeds checks a platform's memory speeds by DIMMs per channel:
// every count the slots allow, each a speed, none faster than with
// fewer DIMMs per channel (a board never speeds up as it is filled).
func dimmSpeeds(d *yamlx.Doc, path string, m MemoryRules) error {
	if len(m.DIMMSpeed) == 0 {
		return nil
	}
	most := m.Slots / m.Channels
	keys := make([]int, 0, len(m.DIMMSpeed))
	for k := range m.DIMMSpeed {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		if k < 1 || k > most {
			return d.Errorf(fmt.Sprintf("%s.%d", path, k), fmt.Sprintf("the keys are DIMMs per channel, 1 to %d here (%d slots, %d channels)", most, m.Slots, m.Channels),
				"got %d DIMMs per channel, expected 1 to %d", k, most)
		}
		if v := m.DIMMSpeed[k]; v <= 0 || v > maxMTs {
			return d.Errorf(fmt.Sprintf("%s.%d", path, k), "the speed in MT/s the board runs that many DIMMs per channel at, e.g. 4400", "got %d, expected MT/s such as 4400", v)
		}
	}
	for k := 1; k <= most; k++ {
		if _, ok := m.DIMMSpeed[k]; !ok {
			return d.Errorf(path, fmt.Sprintf("list every count the slots allow, 1 to %d, e.g. {1: 5600, 2: 4400}", most), "no speed for %d DIMMs per channel", k)
		}
		if k > 1 && m.DIMMSpeed[k] > m.DIMMSpeed[k-1] {
			return d.Errorf(fmt.Sprintf("%s.%d", path, k), "more DIMMs per channel load the channel: the speed stays or falls", "got %d MT/s for %d DIMMs per channel, faster than %d for %d", m.DIMMSpeed[k], k, m.DIMMSpeed[k-1], k-1)
		}
	}
	return nil
}
