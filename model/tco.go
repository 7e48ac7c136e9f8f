package model

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

// What configurations are ranked by (workload `options.rank_by`).
const (
	RankCapital = "capital" // purchase: platform + DIMMs + swap drives + replacement drives
	RankTCO     = "tco"     // purchase + electricity over the horizon
)

// Defaults for pricing power when the workload does not say.
//
// DefaultElectricity is roughly the US commercial tariff of 2025 (the EIA's
// average is about 0.13 USD/kWh; 0.15 leaves room for demand charges).
// DefaultPUE sits between the industry survey average (about 1.5, Uptime
// Institute) and modern enterprise halls (1.2-1.3).
var DefaultElectricity = EnergyPrice{Amount: 0.15, Currency: "USD"}

const DefaultPUE = 1.4

// Default power draws, used when a catalog part gives no `watts`. They are
// planning figures for the average draw of a busy batch server, not
// measurements; a purchase decision should use the vendor's power calculator
// and put the figures in the catalog.
//
// DIMMs: a fixed part per module (register or PMIC, I/O) plus a part per GiB
// (DRAM devices and refresh). Per module that gives DDR3 4 GB 3 W and 8 GB
// 4 W (2009-era RDIMMs measured 2-4 W, up to ~9 W per slot at full load;
// Crucial advises budgeting 5 W per module), DDR4 32 GB 4.7 W and 64 GB 7.9 W
// (published measurements 3-6 W), DDR5 64 GB 8.9 W and 128 GB 15.3 W (DDR5
// moves the voltage regulator onto the module). About 0.14 W per GB for a
// 64 GB DDR5 RDIMM: well below the 0.375 W/GB of DDR3-era rules of thumb.
var defaultDIMMWatts = map[string]struct{ base, perGiB float64 }{
	"DDR3": {2.0, 0.25},
	"DDR4": {1.5, 0.10},
	"DDR5": {2.5, 0.10},
}

// Drives, by class: HDD 8 W (7200 rpm enterprise SATA data sheets give 5-7 W
// idle, 8-10 W under random I/O), SATA SSD 3 W (Intel X25-E data sheet: 2.4 W
// active, 0.06 W idle), NVMe SSD 10 W (enterprise U.2 data sheets: about 5 W
// idle, 12-25 W at full load; swap keeps a drive mostly between the two).
var defaultDriveWatts = map[string]float64{
	prices.ClassHDD:     8,
	prices.ClassSATASSD: 3,
	prices.ClassNVMe:    10,
}

// Platforms: 100 W (board, fans, boot drive, power-supply losses) plus 150 W
// per socket (a loaded server CPU: 95 W TDP in 2009, 200-350 W now). DIMMs and
// swap drives are counted separately.
const (
	defaultPlatformBaseWatts   = 100
	defaultPlatformSocketWatts = 150
)

// DIMMWatts is a module's average draw: the catalog's `watts`, or the
// default for its generation and capacity.
func DIMMWatts(d prices.DIMM) float64 {
	if d.Watts > 0 {
		return d.Watts
	}
	w, ok := defaultDIMMWatts[strings.ToUpper(d.Generation)]
	if !ok {
		w = defaultDIMMWatts["DDR5"]
	}
	return w.base + w.perGiB*d.Capacity.GiBf()
}

// DriveWatts is a drive's average draw: the catalog's `watts`, or the
// default for its class.
func DriveWatts(d prices.Drive) float64 {
	if d.Watts > 0 {
		return d.Watts
	}
	if w, ok := defaultDriveWatts[d.Class]; ok {
		return w
	}
	return defaultDriveWatts[prices.ClassNVMe]
}

// PlatformWatts is a platform's average draw without DIMMs and swap drives:
// the catalog's `watts`, or the per-socket default (two sockets when the
// catalog does not say).
func PlatformWatts(p prices.Platform) float64 {
	if p.Watts > 0 {
		return p.Watts
	}
	s := p.Sockets
	if s <= 0 {
		s = 2
	}
	return defaultPlatformBaseWatts + defaultPlatformSocketWatts*float64(s)
}

// EnergyPrice is a price per kWh, written "0.15 USD/kWh" (or "150 EUR/MWh").
type EnergyPrice struct {
	Amount   float64 // per kWh, for display; Exact is the price as written
	Currency string
	exact    *big.Rat
}

// Exact is the price per kWh exactly as written ("150 EUR/MWh" is exactly
// 3/20 EUR/kWh), or Amount read as the decimal it was written as for a
// price built in Go (money.Exact).
func (e EnergyPrice) Exact() *big.Rat {
	if e.exact != nil {
		return e.exact
	}
	return money.Exact(e.Amount)
}

const energyExpected = `a price per kWh such as "0.15 USD/kWh" (or "150 EUR/MWh")`

// ParseEnergyPrice parses "0.15 USD/kWh", "0.15 USD per kWh" or "150 USD/MWh".
func ParseEnergyPrice(s string) (EnergyPrice, error) {
	t := strings.TrimSpace(s)
	for strings.Contains(t, " /") || strings.Contains(t, "/ ") {
		t = strings.ReplaceAll(strings.ReplaceAll(t, " /", "/"), "/ ", "/")
	}
	lower := strings.ToLower(t)
	per := 0.0
	for _, u := range []struct {
		suffix string
		kwh    float64
	}{{"/kwh", 1}, {"per kwh", 1}, {"/mwh", 1000}, {"per mwh", 1000}} {
		if strings.HasSuffix(lower, u.suffix) {
			t, per = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.kwh
			break
		}
	}
	if per == 0 {
		return EnergyPrice{}, &units.Error{Value: s, Expected: energyExpected}
	}
	m, err := units.ParseMoney(t)
	if err != nil || m.Currency == "" || !(m.Amount > 0) {
		return EnergyPrice{}, &units.Error{Value: s, Expected: energyExpected}
	}
	exact := new(big.Rat).Quo(m.Exact(), new(big.Rat).SetFloat64(per))
	f, _ := exact.Float64()
	return EnergyPrice{Amount: f, Currency: m.Currency, exact: exact}, nil
}

// String renders "0.15 USD/kWh".
func (e EnergyPrice) String() string {
	return strconv.FormatFloat(e.Amount, 'g', -1, 64) + " " + e.Currency + "/kWh"
}

func (e *EnergyPrice) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &units.Error{Line: n.Line, Column: n.Column, Value: "a " + map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[n.Kind], Expected: energyExpected}
	}
	v, err := ParseEnergyPrice(n.Value)
	if err != nil {
		return &units.Error{Line: n.Line, Column: n.Column, Value: n.Value, Expected: energyExpected}
	}
	*e = v
	return nil
}

func (e EnergyPrice) MarshalYAML() (any, error)    { return e.String(), nil }
func (e EnergyPrice) MarshalText() ([]byte, error) { return []byte(e.String()), nil }
func (e *EnergyPrice) UnmarshalText(t []byte) error {
	v, err := ParseEnergyPrice(string(t))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// TCOInfo says how power was priced for the total cost of ownership and
// what the ranking is by.
type TCOInfo struct {
	RankBy       string  // capital or tco
	Electricity  float64 // in Result.Currency; 0 when not priced
	Quoted       string  // as written (or the default), e.g. "0.15 USD/kWh"
	Default      bool    // the workload gave no electricity price
	PUE          float64
	HorizonHours float64 // servers are assumed powered the whole horizon
	// Priced is false when the electricity price cannot be expressed in the
	// result currency (the default is in USD); Cost.Power is then 0 and
	// Cost.TCO equals the capital cost. Note says why.
	Priced bool
	Note   string
}

// powerPricing resolves the electricity price in the result currency. A
// price the workload gives must convert; the default may not (a RUB catalog
// without a USD rate), and then power is left unpriced, which is an error
// only when the workload asks to rank by TCO.
func powerPricing(w *Workload, s *prices.Set, cur string) (*TCOInfo, *big.Rat, error) {
	info := &TCOInfo{RankBy: w.Options.RankBy, PUE: float64(w.PUE), HorizonHours: w.Horizon.Hours()}
	if info.RankBy == "" {
		info.RankBy = RankCapital
	}
	if info.PUE == 0 {
		info.PUE = DefaultPUE
	}
	ep := DefaultElectricity
	if w.Electricity != nil {
		ep = *w.Electricity
	} else {
		info.Default = true
	}
	info.Quoted = ep.String()
	rate, ok := s.ExactRate(ep.Currency, cur)
	if !ok {
		if !info.Default {
			return nil, nil, w.ErrorAt("electricity", fmt.Sprintf("give the price in %s, or add `rates: {%s: <amount> %s}` to a catalog", cur, ep.Currency, cur),
				"electricity is priced in %s but the report is in %s and no catalog gives a rate between them", ep.Currency, cur)
		}
		info.Note = fmt.Sprintf("power not priced: the default electricity price %s cannot be converted to %s; set `electricity:` in the workload (e.g. in %s per kWh)", ep, cur, cur)
		if info.RankBy == RankTCO {
			return nil, nil, w.ErrorAt(FieldRankBy, fmt.Sprintf("set `electricity: <price> %s/kWh` in the workload", cur),
				"ranking by total cost of ownership needs an electricity price in %s; the default %s cannot be converted", cur, ep)
		}
		return info, nil, nil
	}
	info.Priced = true
	elec := new(big.Rat).Mul(ep.Exact(), rate)
	info.Electricity, _ = elec.Float64()
	return info, elec, nil
}

// ownership fills the configuration's power and total cost of ownership:
// the average draw of platform, DIMMs and swap drives around the clock over
// the horizon, times the PUE, at the electricity price. Replacement drives
// replace worn ones, so they add cost but no power.
func (e *evaluator) ownership(c *Config) {
	k := &c.Cost
	k.Watts, k.EnergyKWh, k.Power = e.power(c)
	k.TCO = k.PerServer.Add(k.Power)
	k.TCOFleet = k.TCO.Mul(int64(c.Servers))
}

// power is a server's average draw, its energy over the horizon and what
// that costs: it reads the parts and the swap arrangement, not how fast
// the jobs run.
func (e *evaluator) power(c *Config) (watts, kWh float64, cost money.Amount) {
	watts = c.Platform.Watts + float64(c.DIMMCount)*c.DIMM.Watts
	if c.Swap.Drive != nil {
		watts += float64(c.Swap.Drives) * c.Swap.Drive.Watts
	}
	pue := float64(e.w.PUE)
	if pue == 0 {
		pue = DefaultPUE
	}
	kWh = watts / 1000 * e.w.Horizon.Hours() * pue
	// The one fractional amount: kWh (an estimate, float64) times the exact
	// price per kWh, rounded half to even to the cent per server. The
	// fleet's power is that times the servers, exactly.
	return watts, kWh, e.elec.Times(kWh)
}

// rankCost is the fleet cost configurations are ranked by.
func rankCost(c *Config, w *Workload) money.Amount {
	if w != nil && w.Options.RankBy == RankTCO {
		return c.Cost.TCOFleet
	}
	return c.Cost.Fleet
}

// tcoVerdict adds the total cost of ownership to the verdict when the
// ranking is by it (capital-cost verdicts stay as they were).
func tcoVerdict(res *Result) string {
	t, r := res.TCO, res.Recommended
	if t == nil || t.RankBy != RankTCO || r == nil {
		return ""
	}
	years := t.HorizonHours / (365 * 24)
	s := fmt.Sprintf(" Ranked by total cost of ownership over %s years (purchase, %.0f W at %s and PUE %.2g, replacement drives): %s per server",
		strconv.FormatFloat(math.Round(years*10)/10, 'f', -1, 64), r.Cost.Watts, t.Quoted, t.PUE, moneyOf(r.Cost.TCO, res.Currency))
	if r.Servers > 1 {
		s += fmt.Sprintf(", %s for the fleet", moneyOf(r.Cost.TCOFleet, res.Currency))
	}
	s += "."
	if sv := res.Savings; sv != nil && res.Baseline != nil && res.Baseline != r {
		s += fmt.Sprintf(" Over that horizon it costs %s (%.1f%%) less than all-DRAM.", moneyOf(sv.TCOFleet, res.Currency), sv.TCOPercent)
	}
	return s
}
