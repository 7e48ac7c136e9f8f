package reports

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// csvColumns names the CSV columns; they reuse the JSON field names (with a
// prefix for nested ones) so one document describes both.
var csvColumns = []string{
	"rank", "recommended", "baseline", "id", "label",
	"platform_sku", "dimm_sku", "dimm_count", "dimm_capacity_gib", "installed_ram_gib", "usable_ram_gib",
	"swap_kind", "swap_device_class", "swap_drive_sku", "swap_drives", "swap_capacity_gib", "swap_zram_share", "swap_algorithm",
	"meets_deadlines", "at_risk", "extrapolated",
	"critical_job", "fit_ratio", "slowdown", "slowdown_low", "slowdown_high", "provenance",
	"runtime_hours", "runtime_high_hours", "deadline_hours",
	"servers", "currency", "platform_cost", "dimms_cost", "drives_cost", "replacements_cost", "cost_per_server", "fleet_cost",
	"watts", "energy_kwh", "power_cost", "tco_per_server", "tco_fleet", "uncertainty_share",
	"wear_life_used", "wear_wears_out", "wear_replacements_per_server",
	"notes",
}

func renderCSV(w io.Writer, out Output) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return err
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	// How often each configuration came out cheapest in the uncertainty
	// run; empty cells when there was none, 0 for one that never won.
	shares := map[string]float64{}
	if u := out.Uncertainty; u != nil {
		for _, w := range u.Winners {
			shares[w.ID] = w.Share
		}
	}
	for _, c := range rows(out) {
		driveSKU := ""
		if c.Swap.Drive != nil {
			driveSKU = c.Swap.Drive.SKU
		}
		// A configuration without swap drives has no wear; empty cells keep
		// that distinct from a drive that uses none of its endurance.
		lifeUsed, wearsOut, repl := "", "", ""
		if c.Wear != nil {
			lifeUsed = num(c.Wear.LifeUsed)
			wearsOut = strconv.FormatBool(c.Wear.WearsOut)
			repl = strconv.Itoa(c.Wear.ReplacementsPerServer)
		}
		share := ""
		if out.Uncertainty != nil {
			share = num(shares[c.ID])
		}
		rec := []string{
			strconv.Itoa(c.Rank), strconv.FormatBool(c.Recommended), strconv.FormatBool(c.Baseline), c.ID, c.Label,
			c.Platform.SKU, c.DIMM.SKU, strconv.Itoa(c.DIMMCount), num(c.DIMM.CapacityGiB), num(c.InstalledRAMGiB), num(c.UsableRAMGiB),
			c.Swap.Kind, c.Swap.DeviceClass, driveSKU, strconv.Itoa(c.Swap.Drives), num(c.Swap.CapacityGiB), num(c.Swap.ZramShare), c.Swap.Algorithm,
			strconv.FormatBool(c.MeetsDeadlines), strconv.FormatBool(c.AtRisk), strconv.FormatBool(c.Extrapolated),
			c.CriticalJob, num(c.FitRatio), num(c.Slowdown), num(c.SlowdownLow), num(c.SlowdownHigh), c.Provenance,
			num(c.RuntimeHours), num(c.RuntimeHighHours), num(c.DeadlineHours),
			strconv.Itoa(c.Servers), out.Currency, num(c.PlatformCost.Float()), num(c.DIMMsCost.Float()), num(c.DrivesCost.Float()), num(c.ReplacementsCost.Float()), num(c.CostPerServer.Float()), num(c.FleetCost.Float()),
			num(c.Watts), num(c.EnergyKWh), num(c.PowerCost.Float()), num(c.TCOPerServer.Float()), num(c.TCOFleet.Float()), share,
			lifeUsed, wearsOut, repl,
			strings.Join(c.Notes, "; "),
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
