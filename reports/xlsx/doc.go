// Package xlsx writes a recommendation as an Excel workbook that a
// purchasing department can attach to a request and still edit: every cost
// in it is a live formula over the unit-price cells of the catalog sheets,
// so changing a price recomputes the totals, the ranking, the bill of
// materials and the savings without memplan.
//
// It renders a reports.Output and nothing else. The formulas reproduce the
// model's cost rule (platform + DIMMs + swap drives + replacement drives, x
// servers) and its ranking rule (tier, then fleet cost) so that the
// workbook agrees with memplan at the catalog prices; what does not depend
// on prices (slowdowns, runtimes, servers needed, drive wear, tiers) is
// written as values. docs/excel.md describes the sheets.
package xlsx
