package model

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/internal/inputfile"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// Workload describes the work a fleet must carry.
type Workload struct {
	Name     string         `yaml:"name"`
	Notes    string         `yaml:"notes,omitempty"`
	Catalogs []string       `yaml:"catalogs,omitempty"` // embedded catalogs to price from
	Currency string         `yaml:"currency,omitempty"`
	Horizon  units.Duration `yaml:"horizon"`
	Demand   Demand         `yaml:"demand"`
	Jobs     []JobClass     `yaml:"jobs"`
	Options  Options        `yaml:"options,omitempty"`
	// Electricity and PUE price the power a server draws over the horizon
	// (total cost of ownership). Defaults: DefaultElectricity, DefaultPUE.
	Electricity *EnergyPrice `yaml:"electricity,omitempty"`
	PUE         units.Ratio  `yaml:"pue,omitempty"`

	File string     `yaml:"-"`
	doc  *yamlx.Doc `yaml:"-"`
}

// Demand is either a fixed fleet (Servers) or per-job-class daily volumes
// (JobClass.JobsPerDay).
type Demand struct {
	Servers int `yaml:"servers,omitempty"`
}

// JobClass is one kind of job. Jobs of one class run Concurrency at a time
// on a server; different classes take turns (they are not co-scheduled).
type JobClass struct {
	Name            string         `yaml:"name"`
	Footprint       units.Bytes    `yaml:"footprint"`        // peak resident memory of one job
	Runtime         units.Duration `yaml:"runtime"`          // wall time fully in RAM
	Concurrency     int            `yaml:"concurrency"`      // jobs at once per server
	Deadline        units.Duration `yaml:"deadline"`         // each job must finish within
	Window          units.Duration `yaml:"window,omitempty"` // hours per day servers work on this class (default 24h)
	JobsPerDay      float64        `yaml:"jobs_per_day,omitempty"`
	Compressibility units.Ratio    `yaml:"compressibility,omitempty"` // lz4 ratio of its data; 1 = incompressible
	DirtyShare      units.Ratio    `yaml:"dirty_share,omitempty"`     // share of evicted pages that must be written
	Profile         string         `yaml:"profile,omitempty"`         // measured factor/profile file for this job
	// Access names the job's curve-shape family (uniform, cold-tail,
	// sweep); left out, predictions span every family.
	Access string `yaml:"access,omitempty"`
	// MemorySpeed says how the in-RAM runtime depends on the memory's
	// speed; left out, it does not.
	MemorySpeed *MemorySpeed `yaml:"memory_speed,omitempty"`
	// DirtyStated: the workload gives dirty_share; otherwise DirtyShare is
	// the default and wear is priced at what the curves imply (wearDirty).
	DirtyStated bool `yaml:"-"`
}

// MemorySpeed is a job class's sensitivity to memory speed: a share of
// its in-RAM runtime (Sensitivity) scales with MeasuredAt / the speed a
// configuration's memory runs at, the rest does not. A job bound by
// memory bandwidth is near 1, one that computes in cache near 0.
type MemorySpeed struct {
	MeasuredAt  int         `yaml:"measured_at"` // MT/s the runtime was measured at
	Sensitivity units.Ratio `yaml:"sensitivity"`
}

// RuntimeFactor is how much longer (above 1) or shorter the in-RAM
// runtime is with memory at speed MT/s; 1 without a sensitivity or a
// known speed.
func (m *MemorySpeed) RuntimeFactor(speed int) float64 {
	if m == nil || m.Sensitivity == 0 || speed <= 0 || m.MeasuredAt <= 0 {
		return 1
	}
	s := float64(m.Sensitivity)
	return (1 - s) + s*float64(m.MeasuredAt)/float64(speed)
}

// Options restrict or widen the search.
type Options struct {
	Platforms  []string      `yaml:"platforms,omitempty"`  // SKUs to consider (default all)
	ZramShares []units.Ratio `yaml:"zram_sizes,omitempty"` // zram disk size as a share of RAM
	// ZramMemLimit is zram's mem_limit as a share of RAM: the most its
	// compressed pool may take (0: no limit, zram's default).
	ZramMemLimit units.Ratio `yaml:"zram_mem_limit,omitempty"`
	MaxDrives    int         `yaml:"max_swap_drives,omitempty"` // cap on swap drives per server
	ZswapPool    units.Ratio `yaml:"zswap_pool,omitempty"`      // zswap max_pool_percent as a share
	NoSwap       bool        `yaml:"dram_only,omitempty"`       // consider only all-DRAM configurations
	// MirrorSwap puts swap on mirrored drives only (two copies of every
	// page), so that a dead drive kills no job; without it swap drives
	// are striped and the recommendation is offered mirrored as well
	// (Result.Mirror).
	MirrorSwap bool   `yaml:"mirror_swap,omitempty"`
	RankBy     string `yaml:"rank_by,omitempty"` // capital (default) or tco
}

// Defaults applied when a field is left out.
const (
	DefaultCompressibility = 2.0
	DefaultDirtyShare      = 0.5
	DefaultZswapPool       = 0.20
)

// Bounds on what a workload may ask for. Money is exact integer cents
// (package money) whatever the size; the bounds keep figures a person can
// check, and every amount printable as a number with its cents (JSON, the
// workbook): a fleet of MaxServers servers at the dearest plausible server
// price stays below MaxFleetCost. A product that leaves int64 cents on the
// way is caught as well (checkMoneyRange).
const (
	MaxJobsPerDay  = 1e9
	MaxServers     = 1_000_000
	MaxConcurrency = 100_000
	// MaxFleetCost is the largest fleet cost memplan reports, in the
	// report currency: below 2^46 units, float64 outputs (JSON, the
	// workbook) still hold every cent (money.MaxFleet).
	MaxFleetCost = money.MaxFleet
)

var defaultZramShares = []units.Ratio{0.25, 0.5}

// ParseWorkload decodes and validates a workload; file names it in errors.
func ParseWorkload(file string, data []byte) (*Workload, error) {
	var w Workload
	doc, err := yamlx.Decode(file, data, &w)
	if err != nil {
		if k := yamlx.WrongKind(file, data, yamlx.KindWorkload); k != nil {
			return nil, k
		}
		return nil, err
	}
	w.File, w.doc = file, doc
	if err := w.validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

// LoadWorkload reads and validates a workload file.
func LoadWorkload(path string) (*Workload, error) {
	return LoadWorkloadContext(context.Background(), path)
}

// LoadWorkloadContext reads and validates a workload file (a regular file
// of at most inputfile.Limit bytes); cancelling ctx stops the read.
func LoadWorkloadContext(ctx context.Context, path string) (*Workload, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		return nil, fmt.Errorf("reading workload: %w", err)
	}
	w, err := ParseWorkload(inputfile.Name(path), data)
	if err != nil {
		return nil, err
	}
	for i := range w.Jobs {
		if p := w.Jobs[i].Profile; p != "" && !filepath.IsAbs(p) {
			w.Jobs[i].Profile = filepath.Join(filepath.Dir(path), p)
		}
	}
	return w, nil
}

// ErrorAt points an error at a field of the workload file.
func (w *Workload) ErrorAt(path, hint, format string, args ...any) error {
	if w.doc == nil {
		return &yamlx.InputError{File: w.File, Field: path, Msg: fmt.Sprintf(format, args...), Hint: hint}
	}
	return w.doc.Errorf(path, hint, format, args...)
}

func (w *Workload) validate() error {
	d := w.doc
	if strings.TrimSpace(w.Name) == "" {
		return d.Errorf("name", "add `name: my workload`", "missing")
	}
	if len(w.Catalogs) == 0 && d.Line("catalogs") > 0 {
		return d.Errorf("catalogs", "leave the field out to price from your --prices files (or, without them, the embedded list prices), or name catalogs, e.g. [current, my-quote]",
			"an empty list names no catalog to price from")
	}
	if w.Currency != "" && !units.IsCurrencyCode(w.Currency) {
		return d.Errorf("currency", "", "got %q, expected a three-letter currency code such as USD", w.Currency)
	}
	// given tells a field written as 0 from one left out: only a left-out
	// field takes its default; a written 0 is checked like any value.
	given := func(path string) bool { return d.Line(path) > 0 }
	if w.Horizon == 0 && !given("horizon") {
		w.Horizon = units.Duration(3 * 365 * 24 * 3600 * 1e9)
	}
	if w.Horizon.Hours() < 24 {
		return d.Errorf("horizon", "the planning horizon, e.g. `horizon: 3y`", "got %s, expected at least a day", w.Horizon)
	}
	if w.Demand.Servers < 0 || (w.Demand.Servers == 0 && given("demand.servers")) {
		// A written 0 is not "no fixed fleet": that is the field left
		// out (and jobs_per_day given).
		return d.Errorf("demand.servers", "a fixed fleet needs at least 1 server; leave demand out to size the fleet from jobs_per_day",
			"got %d, expected a positive number of servers (1 or more)", w.Demand.Servers)
	}
	if w.Demand.Servers > MaxServers {
		return d.Errorf("demand.servers", "check the number of digits", "got %s, expected at most %s servers", strings.TrimSpace(Money(float64(w.Demand.Servers), "")), strings.TrimSpace(Money(MaxServers, "")))
	}
	if len(w.Jobs) == 0 {
		return d.Errorf("jobs", "list at least one job class", "missing")
	}
	names := map[string]bool{}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		p := fmt.Sprintf("jobs[%d]", i)
		if strings.TrimSpace(j.Name) == "" {
			return d.Errorf(p+".name", "", "missing")
		}
		if names[j.Name] {
			return d.Errorf(p+".name", "", "duplicate job class name %q", j.Name)
		}
		names[j.Name] = true
		if j.Footprint <= 0 {
			return d.Errorf(p+".footprint", "peak resident memory of one job, e.g. 22GiB", "missing or zero")
		}
		if j.Runtime <= 0 {
			return d.Errorf(p+".runtime", "wall time of one job when fully in RAM, e.g. 7h", "missing or zero")
		}
		if j.Concurrency == 0 && !given(p+".concurrency") {
			j.Concurrency = 1
		}
		if j.Concurrency > MaxConcurrency {
			return d.Errorf(p+".concurrency", "jobs of this class at once on one server", "got %d, expected at most %d", j.Concurrency, MaxConcurrency)
		}
		if j.Concurrency <= 0 {
			return d.Errorf(p+".concurrency", "", "got %d, expected jobs at once per server (1 or more)", j.Concurrency)
		}
		if int64(j.Footprint) > math.MaxInt64/4/int64(j.Concurrency) {
			return d.Errorf(p+".footprint", "", "%d jobs x %s is beyond any memory size memplan can reason about", j.Concurrency, j.Footprint)
		}
		if j.Deadline <= 0 {
			return d.Errorf(p+".deadline", "the longest a job may take, e.g. 8h", "missing or zero")
		}
		if j.Window == 0 {
			j.Window = units.Duration(24 * 3600 * 1e9)
		}
		if j.Window.Hours() > 24 {
			return d.Errorf(p+".window", "", "got %s, expected at most 24h (hours per day the servers work on this class)", j.Window)
		}
		// A job may run for days (a multi-day simulation) on servers that
		// work on its class around the clock; within a shorter daily window
		// it must finish inside the window.
		if j.Deadline > j.Window && j.Window.Hours() < 24 {
			return d.Errorf(p+".deadline", "leave window out (24h) for jobs that run longer than a day", "deadline %s is longer than the daily window %s", j.Deadline, j.Window)
		}
		if j.JobsPerDay < 0 {
			return d.Errorf(p+".jobs_per_day", "", "got %g, expected a positive number", j.JobsPerDay)
		}
		if j.JobsPerDay > MaxJobsPerDay {
			return d.Errorf(p+".jobs_per_day", "check the number of digits", "got %s, expected at most %s jobs a day in one class (fleet costs beyond that cannot be counted to the cent)", strings.TrimSpace(Money(j.JobsPerDay, "")), strings.TrimSpace(Money(MaxJobsPerDay, "")))
		}
		if w.Demand.Servers == 0 && j.JobsPerDay == 0 {
			return d.Errorf(p+".jobs_per_day", "or set `demand: {servers: N}` for a fixed fleet", "missing: without a fixed fleet every job class needs jobs_per_day")
		}
		if j.Compressibility == 0 && !given(p+".compressibility") {
			j.Compressibility = DefaultCompressibility
		}
		if j.Compressibility < 1 {
			return d.Errorf(p+".compressibility", "1 means incompressible (random data); 2.6 is typical lz4 on program data", "got %g, expected a compression ratio of 1 or more", float64(j.Compressibility))
		}
		j.DirtyStated = given(p + ".dirty_share")
		if j.DirtyShare == 0 && !j.DirtyStated {
			j.DirtyShare = DefaultDirtyShare
		}
		if ms := j.MemorySpeed; ms != nil {
			const mtsHint = "the memory speed in MT/s of the server the runtime was measured on, e.g. 4800"
			const shareHint = "the share of the in-RAM runtime that scales with 1/memory speed: 0 for none, 1 for a job bound by memory bandwidth"
			if !given(p + ".memory_speed.measured_at") {
				return d.Errorf(p+".memory_speed.measured_at", mtsHint, "missing")
			}
			if !given(p + ".memory_speed.sensitivity") {
				return d.Errorf(p+".memory_speed.sensitivity", shareHint, "missing")
			}
			if ms.MeasuredAt <= 0 || ms.MeasuredAt > 100000 {
				return d.Errorf(p+".memory_speed.measured_at", mtsHint, "got %d, expected MT/s such as 4800", ms.MeasuredAt)
			}
			if ms.Sensitivity < 0 || ms.Sensitivity > 1 {
				return d.Errorf(p+".memory_speed.sensitivity", shareHint, "got %g, expected a share between 0 and 1 such as 30%%", float64(ms.Sensitivity))
			}
		}
		if j.DirtyShare < 0 || j.DirtyShare > 1 {
			return d.Errorf(p+".dirty_share", "", "got %g, expected a share between 0 and 1", float64(j.DirtyShare))
		}
	}
	o := &w.Options
	if len(o.ZramShares) == 0 {
		o.ZramShares = append([]units.Ratio(nil), defaultZramShares...)
	}
	for i, s := range o.ZramShares {
		if s <= 0 || s > 2 {
			return d.Errorf(fmt.Sprintf("options.zram_sizes[%d]", i), "", "got %g, expected a share of RAM such as 25%%", float64(s))
		}
	}
	if o.ZramMemLimit < 0 || o.ZramMemLimit > 1 || (o.ZramMemLimit == 0 && given("options.zram_mem_limit")) {
		return d.Errorf("options.zram_mem_limit", "leave it out for no limit", "got %g, expected a share of RAM such as 15%%", float64(o.ZramMemLimit))
	}
	if o.ZswapPool == 0 && !given("options.zswap_pool") {
		o.ZswapPool = DefaultZswapPool
	}
	if o.ZswapPool <= 0 || o.ZswapPool > 0.9 {
		return d.Errorf("options.zswap_pool", "", "got %g, expected a share of RAM such as 20%%", float64(o.ZswapPool))
	}
	if o.MaxDrives < 0 {
		return d.Errorf("options.max_swap_drives", "", "cannot be negative")
	}
	if o.RankBy == "" {
		o.RankBy = RankCapital
	}
	if o.RankBy != RankCapital && o.RankBy != RankTCO {
		return d.Errorf("options.rank_by", "capital ranks by purchase cost; tco adds power over the horizon", "got %q, expected %s or %s", o.RankBy, RankCapital, RankTCO)
	}
	if w.PUE == 0 && !given("pue") {
		w.PUE = DefaultPUE
	}
	if !(w.PUE >= 1 && w.PUE <= 5) {
		return d.Errorf("pue", "power usage effectiveness of the data centre, e.g. 1.4", "got %g, expected a ratio between 1 and 5", float64(w.PUE))
	}
	if e := w.Electricity; e != nil && (!(e.Amount > 0) || math.IsInf(e.Amount, 0) || e.Currency == "") {
		return d.Errorf("electricity", "write e.g. `electricity: 0.15 USD/kWh`", "got %s, expected a positive price per kWh with its currency", e)
	}
	return nil
}

// Written returns a field's value as the workload file wrote it ("48GB"),
// or "" when it was left out.
func (w *Workload) Written(path string) string { return w.doc.Value(path) }

// HorizonYears is the planning horizon in years.
func (w *Workload) HorizonYears() float64 { return w.Horizon.Hours() / (365 * 24) }

// CheckAccess refuses a job's access: that names no shape family of the
// factors the job is predicted with: fs, or its own profile's (jobs, by
// job class). A factor file may define shapes of its own, so the names
// are known only once the factor files are, not when the workload is
// read; a name none defines would otherwise span every shape unnoticed.
func (w *Workload) CheckAccess(fs *Factors, jobs map[string]*Factors) error {
	for i, j := range w.Jobs {
		if j.Access == "" {
			continue
		}
		f := fs
		if jf := jobs[j.Name]; jf != nil {
			f = jf
		}
		if _, ok := f.shape(j.Access); ok {
			continue
		}
		var names []string
		for _, s := range f.ShapeList() {
			names = append(names, s.Name)
		}
		return w.ErrorAt(fmt.Sprintf("jobs[%d].access", i), "leave it out when not known: predictions then span every shape; a shape of your own goes under shapes: in a factor file given with --factors",
			"got %q, expected one of %s", j.Access, strings.Join(names, ", "))
	}
	return nil
}
