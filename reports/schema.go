package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/memplan/memplan/model"
	mon "github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// SchemaVersion is the version of Output. It changes only when a field is
// removed, renamed or changes meaning or unit; readers refuse other versions
// rather than guess. docs/result-json.md documents every field.
const SchemaVersion = 1

// ErrSchema marks a result file that is not a memplan result this version
// can read (wrong or missing schema_version, unknown fields, bad JSON).
var ErrSchema = errors.New("not a memplan result file this version can read")

// Options control how much of a Result is shown.
type Options struct {
	// Top limits the ranked configurations listed to the N best; 0 lists
	// them all. The recommended and baseline configurations are always
	// present in their own fields (and as rows of the table and CSV).
	Top int
	// Version is the memplan version recorded in the output.
	Version string
	// BreakEven and Uncertainty are the robustness analyses run on the
	// same inputs (model.BreakEven, model.Uncertainty); nil when not run.
	// BreakEvenNote, when BreakEven is nil, says why it was not computed
	// and how to ask for it; the output then carries
	// break_even.computed = false with that note.
	BreakEven     *model.BreakEvenResult
	BreakEvenNote string
	Uncertainty   *model.UncertaintyResult
	// Width is the terminal's width the table must fit (0: 80 columns);
	// Wide shows full labels without a width limit.
	Width int
	Wide  bool
	// Explain adds to the table and Markdown reports what lies behind the
	// verdict: the basis of each slowdown, baseline and savings, total cost
	// of ownership, break-even prices, prices and what was not evaluated.
	// ShowBreakEven shows the break-even prices without it.
	Explain, ShowBreakEven bool
}

// JobClass is one job class of the workload, as read: the inputs the
// model sized the servers for.
type JobClass struct {
	Name         string  `json:"name" yaml:"name"`
	FootprintGiB float64 `json:"footprint_gib" yaml:"footprint_gib"`
	Concurrency  int     `json:"concurrency" yaml:"concurrency"`
	// RuntimeInRAMHours is the workload's runtime: wall time with every
	// page in RAM (the jobs' runtime_hours are predicted).
	RuntimeInRAMHours float64 `json:"runtime_in_ram_hours" yaml:"runtime_in_ram_hours"`
	DeadlineHours     float64 `json:"deadline_hours" yaml:"deadline_hours"`
	WindowHours       float64 `json:"window_hours" yaml:"window_hours"`
	JobsPerDay        float64 `json:"jobs_per_day" yaml:"jobs_per_day"`
}

// Output is the stable, documented form of a model.Result. Every number is a
// plain number in the unit its name carries (GiB, hours, TB) or, for money,
// in Currency. Slices are never null so consumers need not special-case them.
type Output struct {
	SchemaVersion  int    `json:"schema_version" yaml:"schema_version"`
	MemplanVersion string `json:"memplan_version" yaml:"memplan_version"`
	Workload       string `json:"workload" yaml:"workload"`
	WorkloadFile   string `json:"workload_file" yaml:"workload_file"`
	// JobClasses are the workload's job classes as the model read them:
	// the inputs behind every configuration's jobs. Empty in files
	// written before memplan recorded them.
	JobClasses    []JobClass     `json:"job_classes" yaml:"job_classes"`
	Currency      string         `json:"currency" yaml:"currency"`
	HorizonYears  float64        `json:"horizon_years" yaml:"horizon_years"`
	RankBy        string         `json:"rank_by" yaml:"rank_by"`
	Verdict       string         `json:"verdict" yaml:"verdict"`
	Advice        []string       `json:"advice" yaml:"advice"`
	Warnings      []string       `json:"warnings" yaml:"warnings"`
	Rates         []Rate         `json:"rates" yaml:"rates"`
	RecommendedID string         `json:"recommended_id" yaml:"recommended_id"`
	BaselineID    string         `json:"baseline_id" yaml:"baseline_id"`
	Recommended   *Configuration `json:"recommended" yaml:"recommended"`
	Baseline      *Configuration `json:"baseline" yaml:"baseline"`
	Savings       *Savings       `json:"savings" yaml:"savings"`
	// CheaperIfMeasured is the cheapest configuration, cheaper than the
	// recommendation, that meets every deadline on its central slowdowns
	// and misses only at the top of a band that is wide because no job
	// states its access pattern: measuring the jobs could make it the
	// answer. Null when there is none.
	CheaperIfMeasured *Configuration `json:"cheaper_if_measured" yaml:"cheaper_if_measured"`
	// Mirror is the recommendation with its swap drives mirrored, when it
	// puts swap on drives that are not; null otherwise.
	Mirror              *Mirror      `json:"mirror" yaml:"mirror"`
	TCO                 *TCO         `json:"tco" yaml:"tco"`
	BreakEven           *BreakEven   `json:"break_even" yaml:"break_even"`
	Uncertainty         *Uncertainty `json:"uncertainty" yaml:"uncertainty"`
	ConfigurationsTotal int          `json:"configurations_total" yaml:"configurations_total"`
	// ConfigurationsSkipped counts the configurations a search for the
	// first --top skipped (they rank after those and after the
	// baseline); RanksExact is then how many ranks hold among every
	// configuration. Both 0 when every configuration was evaluated.
	ConfigurationsSkipped int             `json:"configurations_skipped" yaml:"configurations_skipped"`
	RanksExact            int             `json:"ranks_exact" yaml:"ranks_exact"`
	Configurations        []Configuration `json:"configurations" yaml:"configurations"`
	RejectedTotal         int             `json:"rejected_total" yaml:"rejected_total"`
	Rejected              []Rejection     `json:"rejected" yaml:"rejected"`
	Catalogs              []Catalog       `json:"catalogs" yaml:"catalogs"`
	Factors               []FactorFile    `json:"factors" yaml:"factors"`
}

// layout is the table's width and whether labels may be shortened.
type layout struct {
	width int  // terminal columns; 0 means 80
	wide  bool // full labels, no width limit
	// explain adds the sections behind the first screen (basis, baseline,
	// TCO, break-even, prices, what was not evaluated) and prints warnings
	// whole; breakEven shows the break-even prices without it (asked for
	// with --break-even).
	explain, breakEven bool
}

// Mirror is the recommended configuration with its swap drives mirrored
// (model.MirrorOffer): evaluated like the others, not ranked (rank 0).
type Mirror struct {
	Configuration *Configuration `json:"configuration" yaml:"configuration"` // null when there is none
	Reason        string         `json:"reason" yaml:"reason"`               // why there is none
}

// Savings of the recommended configuration against the baseline.
type Savings struct {
	PerServer mon.Amount `json:"per_server" yaml:"per_server"`
	Fleet     mon.Amount `json:"fleet" yaml:"fleet"`
	Percent   float64    `json:"percent" yaml:"percent"`
	// The same over the total cost of ownership (purchase + power over the
	// horizon); 0 when power is not priced (tco.priced false).
	TCOPerServer mon.Amount `json:"tco_per_server" yaml:"tco_per_server"`
	TCOFleet     mon.Amount `json:"tco_fleet" yaml:"tco_fleet"`
	TCOPercent   float64    `json:"tco_percent" yaml:"tco_percent"`
}

// TCO says how power was priced for the total cost of ownership.
type TCO struct {
	ElectricityPerKWh  float64 `json:"electricity_per_kwh" yaml:"electricity_per_kwh"` // in Currency; 0 when not priced
	ElectricityQuoted  string  `json:"electricity_quoted" yaml:"electricity_quoted"`   // as written, e.g. "0.15 USD/kWh"
	ElectricityDefault bool    `json:"electricity_default" yaml:"electricity_default"` // memplan's default, not the workload's
	PUE                float64 `json:"pue" yaml:"pue"`
	HorizonHours       float64 `json:"horizon_hours" yaml:"horizon_hours"`
	Priced             bool    `json:"priced" yaml:"priced"`
	Note               string  `json:"note" yaml:"note"`
}

// BreakEven is model.BreakEvenResult in the output schema.
type BreakEven struct {
	Computed bool            `json:"computed" yaml:"computed"`
	Note     string          `json:"note" yaml:"note"` // why not, when Computed is false
	DRAM     *PriceBreakEven `json:"dram" yaml:"dram"`
	Drive    *PriceBreakEven `json:"drive" yaml:"drive"`
}

// PriceBreakEven is where one price, scaled from today's, makes another
// configuration win.
type PriceBreakEven struct {
	Scaled     string          `json:"scaled" yaml:"scaled"`
	Parts      []PartPrice     `json:"parts" yaml:"parts"`
	Falls      BreakEvenPoint  `json:"falls" yaml:"falls"`
	Rises      BreakEvenPoint  `json:"rises" yaml:"rises"`
	VsBaseline *BreakEvenPoint `json:"vs_baseline" yaml:"vs_baseline"`
	VsRunnerUp *BreakEvenPoint `json:"vs_runner_up" yaml:"vs_runner_up"`
}

// BreakEvenPoint is one price at which another configuration takes over.
type BreakEvenPoint struct {
	Exists         bool        `json:"exists" yaml:"exists"`
	Factor         float64     `json:"factor" yaml:"factor"`
	Direction      string      `json:"direction" yaml:"direction"`
	TakesOver      string      `json:"takes_over" yaml:"takes_over"`
	TakesOverLabel string      `json:"takes_over_label" yaml:"takes_over_label"`
	Prices         []PartPrice `json:"prices" yaml:"prices"`
	Method         string      `json:"method" yaml:"method"`
	Note           string      `json:"note" yaml:"note"`
}

// PartPrice is a part's price per unit and per nominal GB.
type PartPrice struct {
	SKU       string     `json:"sku" yaml:"sku"`
	Model     string     `json:"model" yaml:"model"`
	UnitPrice mon.Amount `json:"unit_price" yaml:"unit_price"`
	PerGB     float64    `json:"per_gb" yaml:"per_gb"`
}

// Uncertainty is model.UncertaintyResult in the output schema.
type Uncertainty struct {
	Runs             int           `json:"runs" yaml:"runs"`
	Seed             uint64        `json:"seed" yaml:"seed"`
	PriceSpread      float64       `json:"price_spread" yaml:"price_spread"`
	RunsMet          int           `json:"runs_met" yaml:"runs_met"`
	NoneMeets        float64       `json:"none_meets" yaml:"none_meets"`
	Winners          []WinShare    `json:"winners" yaml:"winners"`
	RecommendedShare float64       `json:"recommended_share" yaml:"recommended_share"`
	RecommendedMeets float64       `json:"recommended_meets" yaml:"recommended_meets"`
	Savings          *Distribution `json:"savings" yaml:"savings"`
	SavingsPercent   *Distribution `json:"savings_percent" yaml:"savings_percent"`
	Method           string        `json:"method" yaml:"method"`
}

// WinShare is how often one configuration came out cheapest.
type WinShare struct {
	ID    string  `json:"id" yaml:"id"`
	Label string  `json:"label" yaml:"label"`
	Runs  int     `json:"runs" yaml:"runs"`
	Share float64 `json:"share" yaml:"share"`
}

// Distribution summarises sampled values.
type Distribution struct {
	N    int     `json:"n" yaml:"n"`
	Mean float64 `json:"mean" yaml:"mean"`
	P5   float64 `json:"p5" yaml:"p5"`
	P50  float64 `json:"p50" yaml:"p50"`
	P95  float64 `json:"p95" yaml:"p95"`
	Min  float64 `json:"min" yaml:"min"`
	Max  float64 `json:"max" yaml:"max"`
}

// Configuration is one evaluated server configuration. The flat slowdown and
// runtime fields describe its critical job class, the one whose runtime
// comes closest to (or furthest past) its deadline; Jobs has every class.
type Configuration struct {
	Rank             int        `json:"rank" yaml:"rank"`
	ID               string     `json:"id" yaml:"id"`
	Label            string     `json:"label" yaml:"label"`
	Recommended      bool       `json:"recommended" yaml:"recommended"`
	Baseline         bool       `json:"baseline" yaml:"baseline"`
	AllDRAM          bool       `json:"all_dram" yaml:"all_dram"`
	Platform         Part       `json:"platform" yaml:"platform"`
	DIMM             Part       `json:"dimm" yaml:"dimm"`
	DIMMCount        int        `json:"dimm_count" yaml:"dimm_count"`
	MemorySpeedMTs   int        `json:"memory_speed_mts" yaml:"memory_speed_mts"`
	DIMMsPerChannel  int        `json:"dimms_per_channel" yaml:"dimms_per_channel"`
	InstalledRAMGiB  float64    `json:"installed_ram_gib" yaml:"installed_ram_gib"`
	UsableRAMGiB     float64    `json:"usable_ram_gib" yaml:"usable_ram_gib"`
	Swap             Swap       `json:"swap" yaml:"swap"`
	MeetsDeadlines   bool       `json:"meets_deadlines" yaml:"meets_deadlines"`
	AtRisk           bool       `json:"at_risk" yaml:"at_risk"`
	Extrapolated     bool       `json:"extrapolated" yaml:"extrapolated"`
	CriticalJob      string     `json:"critical_job" yaml:"critical_job"`
	FitRatio         float64    `json:"fit_ratio" yaml:"fit_ratio"`
	Slowdown         float64    `json:"slowdown" yaml:"slowdown"`
	SlowdownLow      float64    `json:"slowdown_low" yaml:"slowdown_low"`
	SlowdownHigh     float64    `json:"slowdown_high" yaml:"slowdown_high"`
	MaxSlowdown      float64    `json:"max_slowdown" yaml:"max_slowdown"`
	Provenance       string     `json:"provenance" yaml:"provenance"`
	RuntimeHours     float64    `json:"runtime_hours" yaml:"runtime_hours"`
	RuntimeHighHours float64    `json:"runtime_high_hours" yaml:"runtime_high_hours"`
	DeadlineHours    float64    `json:"deadline_hours" yaml:"deadline_hours"`
	Servers          int        `json:"servers" yaml:"servers"`
	PlatformCost     mon.Amount `json:"platform_cost" yaml:"platform_cost"`
	DIMMsCost        mon.Amount `json:"dimms_cost" yaml:"dimms_cost"`
	DrivesCost       mon.Amount `json:"drives_cost" yaml:"drives_cost"`
	ReplacementsCost mon.Amount `json:"replacements_cost" yaml:"replacements_cost"`
	CostPerServer    mon.Amount `json:"cost_per_server" yaml:"cost_per_server"`
	FleetCost        mon.Amount `json:"fleet_cost" yaml:"fleet_cost"`
	Watts            float64    `json:"watts" yaml:"watts"`
	EnergyKWh        float64    `json:"energy_kwh" yaml:"energy_kwh"`
	PowerCost        mon.Amount `json:"power_cost" yaml:"power_cost"`
	TCOPerServer     mon.Amount `json:"tco_per_server" yaml:"tco_per_server"`
	TCOFleet         mon.Amount `json:"tco_fleet" yaml:"tco_fleet"`
	Wear             *Wear      `json:"wear" yaml:"wear"`
	Jobs             []Job      `json:"jobs" yaml:"jobs"`
	Notes            []string   `json:"notes" yaml:"notes"`
}

// Part is a catalog item as used in a configuration.
type Part struct {
	SKU            string     `json:"sku" yaml:"sku"`
	Model          string     `json:"model" yaml:"model"`
	Catalog        string     `json:"catalog" yaml:"catalog"`
	UnitPrice      mon.Amount `json:"unit_price" yaml:"unit_price"`
	QuotedPrice    mon.Amount `json:"quoted_price" yaml:"quoted_price"`
	QuotedCurrency string     `json:"quoted_currency" yaml:"quoted_currency"`
	CapacityBytes  int64      `json:"capacity_bytes" yaml:"capacity_bytes"`
	CapacityGiB    float64    `json:"capacity_gib" yaml:"capacity_gib"`
	Watts          float64    `json:"watts" yaml:"watts"`
}

// Swap is a configuration's swap arrangement.
type Swap struct {
	Kind        string `json:"kind" yaml:"kind"`
	DeviceClass string `json:"device_class" yaml:"device_class"`
	Drive       *Part  `json:"drive" yaml:"drive"`
	Drives      int    `json:"drives" yaml:"drives"`
	// Mirrored: two copies of every page (RAID 1, RAID 10 from four
	// drives); Drives counts both copies.
	Mirrored    bool    `json:"mirrored" yaml:"mirrored"`
	ZramShare   float64 `json:"zram_share" yaml:"zram_share"`
	Algorithm   string  `json:"algorithm" yaml:"algorithm"`
	CapacityGiB float64 `json:"capacity_gib" yaml:"capacity_gib"`
}

// Wear is the swap drives' write load against their rated endurance.
type Wear struct {
	WritesPerDayGiB         float64 `json:"writes_per_day_gib" yaml:"writes_per_day_gib"`
	HorizonWritesPerDriveTB float64 `json:"horizon_writes_per_drive_tb" yaml:"horizon_writes_per_drive_tb"`
	EndurancePerDriveTB     float64 `json:"endurance_per_drive_tb" yaml:"endurance_per_drive_tb"`
	LifeUsed                float64 `json:"life_used" yaml:"life_used"`
	WearsOut                bool    `json:"wears_out" yaml:"wears_out"`
	ReplacementsPerServer   int     `json:"replacements_per_server" yaml:"replacements_per_server"`
}

// BasisFacts is model.BasisFacts in the output schema.
type BasisFacts struct {
	FromMeasurements bool `json:"from_measurements" yaml:"from_measurements"`
	OneRun           bool `json:"one_run" yaml:"one_run"`
	Sampler          bool `json:"sampler" yaml:"sampler"`
	Carried          bool `json:"carried" yaml:"carried"`
}

// Job is how one job class fares on a configuration.
type Job struct {
	Name         string  `json:"name" yaml:"name"`
	TouchedGiB   float64 `json:"touched_gib" yaml:"touched_gib"`
	InRAMGiB     float64 `json:"in_ram_gib" yaml:"in_ram_gib"`
	FitRatio     float64 `json:"fit_ratio" yaml:"fit_ratio"`
	Slowdown     float64 `json:"slowdown" yaml:"slowdown"`
	SlowdownLow  float64 `json:"slowdown_low" yaml:"slowdown_low"`
	SlowdownHigh float64 `json:"slowdown_high" yaml:"slowdown_high"`
	Provenance   string  `json:"provenance" yaml:"provenance"`
	Basis        string  `json:"basis" yaml:"basis"`
	// BasisFacts are what the verdict decides by (model.BasisFacts); nil
	// in files written before memplan recorded them (basisFacts reads
	// their basis text then).
	BasisFacts   *BasisFacts `json:"basis_facts" yaml:"basis_facts"`
	Extrapolated bool        `json:"extrapolated" yaml:"extrapolated"`
	// Shape is the access-pattern family of the central figure (the job's
	// access:, or the one the curves' agreement picked); ShapeUnknown that
	// the job did not state it and the band spans every family.
	Shape               string  `json:"shape" yaml:"shape"`
	ShapeUnknown        bool    `json:"shape_unknown" yaml:"shape_unknown"`
	RuntimeHours        float64 `json:"runtime_hours" yaml:"runtime_hours"`
	RuntimeHighHours    float64 `json:"runtime_high_hours" yaml:"runtime_high_hours"`
	DeadlineHours       float64 `json:"deadline_hours" yaml:"deadline_hours"`
	MeetsDeadline       bool    `json:"meets_deadline" yaml:"meets_deadline"`
	AtRisk              bool    `json:"at_risk" yaml:"at_risk"`
	JobsPerServerDay    float64 `json:"jobs_per_server_day" yaml:"jobs_per_server_day"`
	SwapWritesPerJobGiB float64 `json:"swap_writes_per_job_gib" yaml:"swap_writes_per_job_gib"`
	// WearDirtyShare is the share of the pages read back that the swap
	// writes are priced as writing again, and WearDirtyShareFrom where it
	// comes from (the workload, the curves, the default); 0 and "" for a
	// job that writes nothing to a drive.
	WearDirtyShare     float64 `json:"wear_dirty_share" yaml:"wear_dirty_share"`
	WearDirtyShareFrom string  `json:"wear_dirty_share_from" yaml:"wear_dirty_share_from"`
	// BeyondPublished: at risk because the job, without a curve of its
	// own, keeps less of its memory in RAM at under 5% slowdown than
	// production deployments report (model.JobResult.BeyondPublished).
	BeyondPublished bool `json:"beyond_published" yaml:"beyond_published"`
	// AboveMeasuredFit is the highest fit ratio the curve behind the
	// slowdown stands on, when FitRatio lies above it (0: it does not):
	// the shape family carried the figure there (model.Estimate.Above).
	AboveMeasuredFit float64 `json:"above_measured_fit" yaml:"above_measured_fit"`
}

// Rejection counts configurations dropped before evaluation, by reason.
type Rejection struct {
	Reason string `json:"reason" yaml:"reason"`
	Count  int    `json:"count" yaml:"count"`
	// Note is the specific case behind a reason that cannot say what to
	// do by itself: for a fit ratio far below the curves, the nearest
	// refused configuration and the memplan profile --fits run to make.
	Note string `json:"note" yaml:"note"`
}

// Catalog identifies a price catalog the prices came from.
type Catalog struct {
	Name     string `json:"name" yaml:"name"`
	File     string `json:"file" yaml:"file"`
	Currency string `json:"currency" yaml:"currency"`
	Date     string `json:"date" yaml:"date"`
	Source   string `json:"source" yaml:"source"`
	// Embedded is true for a catalog built into memplan (list prices),
	// false for one the user gave (a quote).
	Embedded bool `json:"embedded" yaml:"embedded"`
}

// FactorFile identifies a slowdown factor file and its curves' provenance.
type FactorFile struct {
	Name   string  `json:"name" yaml:"name"`
	File   string  `json:"file" yaml:"file"`
	Date   string  `json:"date" yaml:"date"`
	Source string  `json:"source" yaml:"source"`
	Host   string  `json:"host" yaml:"host"`
	Curves []Curve `json:"curves" yaml:"curves"`
	// Measurements is what a probe recorded besides the curves (per-fault
	// latency, the source experiments); null for other files.
	Measurements *Measurements `json:"measurements" yaml:"measurements"`
}

// Curve is one slowdown curve's device class and where it came from.
type Curve struct {
	Class      string       `json:"class" yaml:"class"`
	Provenance string       `json:"provenance" yaml:"provenance"`
	Method     string       `json:"method" yaml:"method"` // "one-run" when memplan profile --one-run measured it; "" for whole runs or published
	Points     []CurvePoint `json:"points" yaml:"points"`
}

// Rate is an exchange rate memplan converted prices with: one From buys
// Rate To.
type Rate struct {
	From   string  `json:"from" yaml:"from"`
	To     string  `json:"to" yaml:"to"`
	Rate   float64 `json:"rate" yaml:"rate"`
	Source string  `json:"source" yaml:"source"`
}

// CurvePoint is one point of a slowdown curve as the factor file gives it.
type CurvePoint struct {
	Fit      float64 `json:"fit" yaml:"fit"`
	Slowdown float64 `json:"slowdown" yaml:"slowdown"`
	CILow    float64 `json:"ci_low" yaml:"ci_low"`   // 0 when the point has no interval
	CIHigh   float64 `json:"ci_high" yaml:"ci_high"` // 0 when the point has no interval
	Samples  int     `json:"samples" yaml:"samples"` // runs behind the point; 0 for a published figure
	// Source is, on a one-run curve that took a --prior, "one-run" for a
	// point the run measured and "sampler" for one the one-pass sampler
	// filled; "" everywhere else.
	Source string `json:"source" yaml:"source"`
}

// Rounding keeps files readable and diffs quiet; the precision kept is far
// below what any input is known to (prices to the cent, slowdowns to 1e-4,
// runtimes to a third of a second).
// money rounds a statistic of amounts (the uncertainty savings' mean and
// percentiles) to the cent for the file; amounts themselves are exact
// money.Amount values, which encoding/json and yaml.v3 write as the same
// numbers as before (at most two decimals) and read back exactly.
func money(v float64) float64 { return math.Round(v*100) / 100 }
func r4(v float64) float64    { return math.Round(v*1e4) / 1e4 }
func gib(b units.Bytes) float64 {
	return r4(float64(b) / float64(units.GiB))
}
func tb(b units.Bytes) float64       { return r4(float64(b) / 1e12) }
func hours(d units.Duration) float64 { return model.ReportedHours(d) }

// r6 keeps break-even factors and electricity prices (fractions of a
// currency unit per kWh) to a millionth.
func r6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// NewOutput converts a model result into the output schema.
func NewOutput(res *model.Result, opts Options) Output {
	out := Output{
		SchemaVersion:  SchemaVersion,
		MemplanVersion: opts.Version,
		Advice:         []string{},
		Warnings:       []string{},
		Rates:          []Rate{},
		JobClasses:     []JobClass{},
		Configurations: []Configuration{},
		Rejected:       []Rejection{},
		Catalogs:       []Catalog{},
		Factors:        []FactorFile{},
	}
	if res == nil {
		return out
	}
	out.Workload, out.WorkloadFile = res.Workload, res.WorkloadFile
	for _, j := range res.Jobs {
		out.JobClasses = append(out.JobClasses, JobClass{
			Name: j.Name, FootprintGiB: gib(j.Footprint), Concurrency: j.Concurrency,
			RuntimeInRAMHours: hours(j.Runtime), DeadlineHours: hours(j.Deadline), WindowHours: hours(j.Window),
			JobsPerDay: r4(j.JobsPerDay),
		})
	}
	out.Currency, out.HorizonYears = res.Currency, r4(res.HorizonYears)
	out.RankBy = model.RankCapital
	if t := res.TCO; t != nil {
		if t.RankBy != "" {
			out.RankBy = t.RankBy
		}
		out.TCO = &TCO{
			ElectricityPerKWh: r6(t.Electricity), ElectricityQuoted: t.Quoted, ElectricityDefault: t.Default,
			PUE: r4(t.PUE), HorizonHours: r4(t.HorizonHours), Priced: t.Priced, Note: t.Note,
		}
	}
	out.Verdict = res.Verdict
	out.Advice = append(out.Advice, res.Advice...)
	out.Warnings = append(out.Warnings, res.Warnings...)
	for _, r := range res.Rates {
		out.Rates = append(out.Rates, Rate{From: r.From, To: r.To, Rate: r.Rate, Source: r.Source})
	}

	var recID, baseID string
	if res.Recommended != nil {
		recID = res.Recommended.ID
	}
	if res.Baseline != nil {
		baseID = res.Baseline.ID
	}
	out.RecommendedID, out.BaselineID = recID, baseID
	conv := func(c *model.Config) Configuration { return newConfiguration(c, recID, baseID) }
	if res.Recommended != nil {
		c := conv(res.Recommended)
		out.Recommended = &c
	}
	if res.Baseline != nil {
		c := conv(res.Baseline)
		out.Baseline = &c
	}
	if c := cheaperIfMeasured(res); c != nil {
		x := conv(c)
		out.CheaperIfMeasured = &x
	}
	if m := res.Mirror; m != nil {
		out.Mirror = &Mirror{Reason: m.Reason}
		if m.Config != nil {
			x := conv(m.Config)
			out.Mirror.Configuration = &x
		}
	}
	if s := res.Savings; s != nil {
		out.Savings = &Savings{PerServer: s.PerServer, Fleet: s.Fleet, Percent: r4(s.Percent),
			TCOPerServer: s.TCOPerServer, TCOFleet: s.TCOFleet, TCOPercent: r4(s.TCOPercent)}
	}
	switch {
	case opts.BreakEven != nil:
		out.BreakEven = newBreakEven(opts.BreakEven)
	case opts.BreakEvenNote != "":
		out.BreakEven = &BreakEven{Note: opts.BreakEvenNote}
	}
	if u := opts.Uncertainty; u != nil {
		out.Uncertainty = newUncertainty(u)
	}
	out.ConfigurationsTotal = len(res.Configs)
	out.ConfigurationsSkipped, out.RanksExact = res.Skipped, res.RanksExact
	for i := range res.Configs {
		if opts.Top > 0 && i >= opts.Top {
			break
		}
		out.Configurations = append(out.Configurations, conv(&res.Configs[i]))
	}
	for reason, n := range res.Rejected {
		out.Rejected = append(out.Rejected, Rejection{Reason: reason.String(), Count: n, Note: res.RejectedNotes[reason]})
		out.RejectedTotal += n
	}
	sort.Slice(out.Rejected, func(i, j int) bool {
		a, b := out.Rejected[i], out.Rejected[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Reason < b.Reason
	})
	for _, c := range res.Catalogs {
		out.Catalogs = append(out.Catalogs, Catalog{Name: c.Name, File: c.File, Currency: c.Currency, Date: c.Date, Source: c.Source,
			Embedded: strings.HasPrefix(c.File, "embedded:")})
	}
	for _, f := range res.Factors {
		ff := FactorFile{Name: f.Name, File: f.File, Date: f.Date, Source: f.Source, Host: f.Host, Curves: []Curve{}}
		for class, prov := range f.Curves {
			c := Curve{Class: class, Provenance: prov, Method: f.Methods[class], Points: []CurvePoint{}}
			for _, pt := range f.Points[class] {
				cp := CurvePoint{Fit: r4(pt.Fit), Slowdown: r4(pt.Slowdown), Samples: len(pt.Samples), Source: pt.Source}
				if len(pt.CI) == 2 {
					cp.CILow, cp.CIHigh = r4(pt.CI[0]), r4(pt.CI[1])
				}
				c.Points = append(c.Points, cp)
			}
			ff.Curves = append(ff.Curves, c)
		}
		sort.Slice(ff.Curves, func(i, j int) bool { return ff.Curves[i].Class < ff.Curves[j].Class })
		var warnings []string
		ff.Measurements, warnings = measurementsOf(f.File, f.Extra) // measurements.go
		out.Warnings = append(out.Warnings, warnings...)
		out.Factors = append(out.Factors, ff)
	}
	return out
}

func newPart(p model.Part) Part {
	return Part{
		SKU: p.SKU, Model: p.Model, Catalog: p.Catalog,
		UnitPrice: p.Price, QuotedPrice: mon.FromRat(p.Quoted.Exact()), QuotedCurrency: p.Quoted.Currency,
		CapacityBytes: int64(p.Capacity), CapacityGiB: gib(p.Capacity), Watts: r4(p.Watts),
	}
}

func newBreakEven(b *model.BreakEvenResult) *BreakEven {
	out := &BreakEven{Computed: true, DRAM: newPriceBreakEven(&b.DRAM)}
	if b.Drive != nil {
		out.Drive = newPriceBreakEven(b.Drive)
	}
	return out
}

func newPriceBreakEven(p *model.PriceBreakEven) *PriceBreakEven {
	out := &PriceBreakEven{Scaled: p.Scaled, Parts: newPartPrices(p.Parts), Falls: newPoint(p.Falls), Rises: newPoint(p.Rises)}
	if v := p.VsBaseline; v != nil {
		pt := newPoint(*v)
		out.VsBaseline = &pt
	}
	if v := p.VsRunnerUp; v != nil {
		pt := newPoint(*v)
		out.VsRunnerUp = &pt
	}
	return out
}

func newPoint(p model.BreakEvenPoint) BreakEvenPoint {
	return BreakEvenPoint{
		Exists: p.Exists, Factor: r6(p.Factor), Direction: p.Direction,
		TakesOver: p.TakesOver, TakesOverLabel: p.TakesOverLabel, Prices: newPartPrices(p.Prices),
		Method: p.Method, Note: p.Note,
	}
}

func newPartPrices(ps []model.PartPrice) []PartPrice {
	out := []PartPrice{}
	for _, p := range ps {
		out = append(out, PartPrice{SKU: p.SKU, Model: p.Model, UnitPrice: p.Unit, PerGB: r4(p.PerGB)})
	}
	return out
}

// newUncertainty keeps the shares exact (runs / runs_met), so that they
// sum to 1 in the file as they do in the model.
func newUncertainty(u *model.UncertaintyResult) *Uncertainty {
	out := &Uncertainty{
		Runs: u.Runs, Seed: u.Seed, PriceSpread: r4(u.PriceSpread), RunsMet: u.Met, NoneMeets: u.NoneMeets,
		Winners: []WinShare{}, RecommendedShare: u.RecommendedShare, RecommendedMeets: u.RecommendedMeets,
		Method: u.Method,
	}
	for _, w := range u.Winners {
		out.Winners = append(out.Winners, WinShare{ID: w.ID, Label: w.Label, Runs: w.Runs, Share: w.Share})
	}
	if d := u.Savings; d != nil {
		out.Savings = &Distribution{N: d.N, Mean: money(d.Mean), P5: money(d.P5), P50: money(d.P50), P95: money(d.P95), Min: money(d.Min), Max: money(d.Max)}
	}
	if d := u.SavingsPercent; d != nil {
		out.SavingsPercent = &Distribution{N: d.N, Mean: r4(d.Mean), P5: r4(d.P5), P50: r4(d.P50), P95: r4(d.P95), Min: r4(d.Min), Max: r4(d.Max)}
	}
	return out
}

// cheaperIfMeasured is the configuration the model's verdict names as
// meeting the deadlines if the jobs use memory the way the jobs behind the
// published curves do (model.shapeNote): at risk only because a job's
// access pattern is unknown, not extrapolated, and cheaper than the
// recommendation by the cost the ranking compares.
func cheaperIfMeasured(res *model.Result) *model.Config {
	tco := res.TCO != nil && res.TCO.RankBy == model.RankTCO
	cost := func(c *model.Config) mon.Amount {
		if tco {
			return c.Cost.TCOFleet
		}
		return c.Cost.Fleet
	}
	r := res.Recommended
	var best *model.Config
	for i := range res.Configs {
		c := &res.Configs[i]
		if !c.Meets || !c.AtRisk || c.Extrapolated || (r != nil && cost(c) >= cost(r)) {
			continue
		}
		unknown := false
		for _, j := range c.Jobs {
			unknown = unknown || (j.AtRisk && (j.Estimate.ShapeUnknown || j.BeyondPublished))
		}
		if unknown && (best == nil || cost(c) < cost(best)) {
			best = c
		}
	}
	return best
}

// criticalJob is the job class whose runtime is largest relative to its
// deadline: the one that decides whether the configuration works.
func criticalJob(jobs []model.JobResult) int {
	best, worst := -1, math.Inf(-1)
	for i, j := range jobs {
		r := math.Inf(1)
		if j.Deadline > 0 {
			r = float64(j.Runtime) / float64(j.Deadline)
		}
		if r > worst {
			best, worst = i, r
		}
	}
	return best
}

func newConfiguration(c *model.Config, recID, baseID string) Configuration {
	out := Configuration{
		Rank: c.Rank, ID: c.ID, Label: c.Label,
		Recommended: c.ID == recID, Baseline: c.ID == baseID, AllDRAM: c.AllDRAM(),
		Platform: newPart(c.Platform), DIMM: newPart(c.DIMM), DIMMCount: c.DIMMCount, MemorySpeedMTs: c.MemorySpeed, DIMMsPerChannel: c.DIMMsPerChannel,
		InstalledRAMGiB: gib(c.Installed), UsableRAMGiB: gib(c.Usable),
		Swap: Swap{
			Kind: c.Swap.Kind, DeviceClass: c.Swap.Class, Drives: c.Swap.Drives, Mirrored: c.Swap.Mirrored,
			ZramShare: r4(c.Swap.ZramShare), Algorithm: c.Swap.Algorithm, CapacityGiB: gib(c.Swap.Capacity),
		},
		MeetsDeadlines: c.Meets, AtRisk: c.AtRisk, Extrapolated: c.Extrapolated,
		MaxSlowdown: model.ReportedRatio(c.MaxSlowdown), Servers: c.Servers,
		PlatformCost: c.Cost.Platform, DIMMsCost: c.Cost.DIMMs, DrivesCost: c.Cost.Drives,
		ReplacementsCost: c.Cost.Replacements, CostPerServer: c.Cost.PerServer, FleetCost: c.Cost.Fleet,
		Watts: r4(c.Cost.Watts), EnergyKWh: r4(c.Cost.EnergyKWh), PowerCost: c.Cost.Power,
		TCOPerServer: c.Cost.TCO, TCOFleet: c.Cost.TCOFleet,
		Jobs:  []Job{},
		Notes: append([]string{}, c.Notes...),
	}
	if c.Swap.Drive != nil {
		d := newPart(*c.Swap.Drive)
		out.Swap.Drive = &d
	}
	if w := c.Wear; w != nil {
		out.Wear = &Wear{
			WritesPerDayGiB: gib(w.WritesPerDay), HorizonWritesPerDriveTB: tb(w.HorizonWrites),
			EndurancePerDriveTB: tb(w.Endurance), LifeUsed: r4(w.LifeUsed), WearsOut: w.WearsOut,
			ReplacementsPerServer: w.Replacements,
		}
	}
	for _, j := range c.Jobs {
		out.Jobs = append(out.Jobs, Job{
			Name: j.Name, TouchedGiB: gib(j.Touched), InRAMGiB: gib(j.InRAM), FitRatio: r4(j.Fit),
			Slowdown: r4(j.Estimate.Slowdown), SlowdownLow: r4(j.Estimate.Low), SlowdownHigh: r4(j.Estimate.High),
			Provenance: j.Estimate.Provenance, Basis: j.Estimate.Basis.String(), BasisFacts: newBasisFacts(j.Estimate.Basis.Facts()),
			Extrapolated: j.Estimate.Extrapolated,
			Shape:        j.Estimate.Shape, ShapeUnknown: j.Estimate.ShapeUnknown,
			RuntimeHours: hours(j.Runtime), RuntimeHighHours: hours(j.RuntimeHigh), DeadlineHours: hours(j.Deadline),
			MeetsDeadline: j.Meets, AtRisk: j.AtRisk, BeyondPublished: j.BeyondPublished, AboveMeasuredFit: j.Estimate.Above,
			JobsPerServerDay: r4(j.JobsPerServer), SwapWritesPerJobGiB: gib(j.SwapWrites),
			WearDirtyShare: r4(j.WearDirty), WearDirtyShareFrom: j.WearDirtyFrom,
		})
	}
	if i := criticalJob(c.Jobs); i >= 0 {
		j := out.Jobs[i]
		out.CriticalJob, out.FitRatio = j.Name, j.FitRatio
		out.Slowdown, out.SlowdownLow, out.SlowdownHigh = j.Slowdown, j.SlowdownLow, j.SlowdownHigh
		out.Provenance = j.Provenance
		out.RuntimeHours, out.RuntimeHighHours, out.DeadlineHours = j.RuntimeHours, j.RuntimeHighHours, j.DeadlineHours
	}
	return out
}

// RankKey is the configuration's key in the model's ranking rule, rebuilt
// from the reported figures exactly as the model computed it
// (model.Config.RankKey): the workbook ranks by it.
func (c Configuration) RankKey() model.RankKey {
	k := model.RankKey{Tier: model.RankTier(c.MeetsDeadlines, c.AtRisk), Replaced: c.Wear != nil && c.Wear.ReplacementsPerServer > 0, Slowdown: c.MaxSlowdown, ID: c.ID}
	if k.Tier == model.TierMisses {
		for _, j := range c.Jobs {
			k.Miss = math.Max(k.Miss, model.MissRatio(j.RuntimeHours, j.DeadlineHours))
		}
	}
	return k
}

// ReadOutput reads a result written by the json format. It is strict: a
// field it does not know means the file was written by another schema (or
// edited by hand) and guessing would put wrong numbers in a report.
func ReadOutput(r io.Reader) (Output, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Output{}, err
	}
	// The version is checked before the strict decode so that a file from a
	// newer memplan gets "wrong version", not a confusing unknown field.
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&probe); err != nil {
		return Output{}, fmt.Errorf("%w: %s", ErrSchema, jsonError(data, err))
	}
	switch {
	case probe.SchemaVersion == nil:
		return Output{}, fmt.Errorf("%w: no schema_version field; expected the JSON written by `memplan recommend --format json`", ErrSchema)
	case *probe.SchemaVersion != SchemaVersion:
		return Output{}, fmt.Errorf("%w: schema_version is %d, this memplan reads version %d; re-run `memplan recommend --format json` with this memplan, or use the memplan that wrote the file", ErrSchema, *probe.SchemaVersion, SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out Output
	if err := dec.Decode(&out); err != nil {
		return Output{}, fmt.Errorf("%w: %s", ErrSchema, jsonErrorAt(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Output{}, fmt.Errorf("%w: unexpected data after the result object (line %d)", ErrSchema, lineAt(data, dec.InputOffset()))
	}
	if err := out.check(); err != nil {
		return Output{}, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if out.JobClasses == nil {
		out.JobClasses = []JobClass{} // a file written before they were recorded
	}
	return out, nil
}

// check catches hand edits that leave the file self-contradictory, which a
// report built from it would otherwise show as two different answers.
func (o *Output) check() error {
	if o.Currency == "" {
		return errors.New("currency is empty; every amount in the file is in that currency")
	}
	same := func(field, id string, c *Configuration) error {
		switch {
		case c == nil && id != "":
			return fmt.Errorf("%s_id is %q but %s is null", field, id, field)
		case c != nil && c.ID != id:
			return fmt.Errorf("%s_id is %q but %s.id is %q; they must name the same configuration", field, id, field, c.ID)
		}
		return nil
	}
	if err := same("recommended", o.RecommendedID, o.Recommended); err != nil {
		return err
	}
	return same("baseline", o.BaselineID, o.Baseline)
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("line %d: %v", lineAt(data, se.Offset), strings.TrimPrefix(err.Error(), "json: "))
	case errors.As(err, &te):
		return typeError(data, te)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// typeError says which field holds the wrong kind of value in the words
// of the file, not of the Go types it decodes into.
func typeError(data []byte, te *json.UnmarshalTypeError) string {
	field := te.Field
	if field == "" {
		field = "the document"
	}
	want := te.Type.Kind().String()
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64:
		want = "a whole number"
	case reflect.Float64, reflect.Float32:
		want = "a number"
	case reflect.String:
		want = "text"
	case reflect.Bool:
		want = "true or false"
	case reflect.Slice, reflect.Array:
		want = "a list"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		want = "an object"
	}
	off := te.Offset
	if off == 0 && te.Field != "" {
		off = wrongValueAt(data, te.Field)
	}
	return fmt.Sprintf("line %d: field %s: got a JSON %s, expected %s", lineAt(data, off), field, te.Value, want)
}

// wrongValueAt finds where a field whose value is not a number sits, for
// type errors that come from a value's own decoder (amounts of money),
// which the decoder reports without a position: the first key of that
// name whose value does not start like a number.
func wrongValueAt(data []byte, field string) int64 {
	key := []byte(`"` + field[strings.LastIndexByte(field, '.')+1:] + `"`)
	for i := 0; ; {
		j := bytes.Index(data[i:], key)
		if j < 0 {
			return 0
		}
		at := i + j
		rest := bytes.TrimLeft(data[at+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			v := bytes.TrimLeft(rest[1:], " \t\r\n")
			if len(v) > 0 && !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
				return int64(at)
			}
		}
		i = at + len(key)
	}
}

var unknownFieldRE = regexp.MustCompile(`unknown field "((?:[^"\\]|\\.)*)"`)

// jsonErrorAt names the line of a decode error. The decoder reports an
// unknown field only after reading the whole document, so its position is
// useless there; the key is looked up instead (a name the schema does not
// know cannot also be a known key elsewhere).
func jsonErrorAt(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("line %d: %v", lineAt(data, se.Offset), err)
	case errors.As(err, &te):
		return typeError(data, te)
	}
	if m := unknownFieldRE.FindStringSubmatch(err.Error()); m != nil {
		key := regexp.MustCompile(`"` + regexp.QuoteMeta(m[1]) + `"\s*:`)
		if loc := key.FindIndex(data); loc != nil {
			return fmt.Sprintf("line %d: %v (not a field of schema version %d)", lineAt(data, int64(loc[0])), err, SchemaVersion)
		}
	}
	return err.Error()
}

func newBasisFacts(f model.BasisFacts) *BasisFacts {
	return &BasisFacts{FromMeasurements: f.FromMeasurements, OneRun: f.OneRun, Sampler: f.Sampler, Carried: f.Carried}
}
