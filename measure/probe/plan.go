//go:build linux

package probe

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// Plan is what a probe will do on this host, worked out without changing
// anything: sizes, backends, emulations, and every change it will make.
type Plan struct {
	Options     Options            `json:"options"`
	Root        bool               `json:"root"`
	Cgroups     *host.CgroupLayout `json:"cgroups,omitempty"` // nil without root
	Swap        *host.SwapTarget   `json:"swap"`
	DeviceClass string             `json:"device_class"`
	MemTotal    units.Bytes        `json:"mem_total"`
	MemAvail    units.Bytes        `json:"mem_available"`

	Workload     WorkloadSpec `json:"workload"`  // template; each run sets its seed
	Footprint    units.Bytes  `json:"footprint"` // estimate until the baseline measures it
	SwapFile     string       `json:"swap_file"`
	SwapFileSize units.Bytes  `json:"swap_file_size"`
	ZramSize     units.Bytes  `json:"zram_size"`
	ZramAlg      string       `json:"zram_algorithm"`
	ZramHotAdd   bool         `json:"zram_hot_add"` // else ZramFree is the free device to use
	ZramFree     int          `json:"zram_free"`
	ZswapAlg     string       `json:"zswap_compressor"`
	WorkDir      string       `json:"work_dir"`
	Emulations   []Emulation  `json:"emulations,omitempty"`
	Stages       []Stage      `json:"stages,omitempty"`
	Scenarios    []string     `json:"scenarios"`
	// The source experiments' sizes (scenario_*.go); nil when not run.
	Swapdemo *SwapdemoPlan `json:"swapdemo,omitempty"`
	Copy     *CopyPlan     `json:"copy,omitempty"`

	// Changes lists the changes to the host in the order they are made.
	Changes []string `json:"changes,omitempty"`
	// Skipped says what will not be measured and why.
	Skipped []string `json:"skipped,omitempty"`
	// Notes qualify what will be measured.
	Notes []string `json:"notes,omitempty"`
	Runs  int      `json:"runs"`
	// Wall is the estimated wall time of the runs (EstimateWall).
	Wall WallTime `json:"wall"`
}

// WallTime is a range for the probe's wall time: Low with every run as
// fast as in RAM on a fast host, High on a slow host with every run that
// swaps stopped at --max-slowdown (and every swapdemo run at its
// budget). Left out names what the range does not count.
type WallTime struct {
	Low     time.Duration `json:"low_ns"`
	High    time.Duration `json:"high_ns"`
	LeftOut []string      `json:"left_out,omitempty"`
}

// The in-RAM time of a page visit, from this project's recorded probes:
// 814 ns on a 2-core test host (reports/measured/testdata/probe.json) and
// 1674 ns on a small VM (reports/xlsx/testdata/probe-quick-vm.json); and
// what a run costs besides its timed visits (a cgroup, a process start,
// the warm-up: the first host's in-RAM runs took 0.21 s for 0.11 s of
// visits).
const (
	FastVisit   = 800 * time.Nanosecond
	SlowVisit   = 1700 * time.Nanosecond
	runOverhead = 100 * time.Millisecond
)

// Emulation is a catalog drive the probe stands in for by throttling the
// swap file's disk to the drive's IOPS.
type Emulation struct {
	Class string       `json:"class"`
	Drive prices.Drive `json:"drive"`
	Count int          `json:"count"` // drives striped (RAID 0)
	RIOPS int          `json:"read_iops"`
	WIOPS int          `json:"write_iops"`
	Label string       `json:"label"`
	// Latency names the measure/host/emulate preset that stands in for the
	// drive with its latency (--emulate-latency): its stage swaps to a
	// FUSE-backed loop device instead of the throttled swap file.
	Latency string `json:"latency,omitempty"`
}

// latencyPresets are the emulated devices with a drive's latency, by the
// Intel study's classes.
var latencyPresets = map[string]string{"sata-ssd-slc": "x25-e", "sata-ssd-mlc": "x25-m", "hdd": "hdd-raid0"}

// Stage is a set of runs against one backend.
type Stage struct {
	Name       string     `json:"name"` // e.g. "zram-lz4", "file", "emulated sata-ssd-slc"
	Backend    string     `json:"backend"`
	Class      string     `json:"class,omitempty"` // factor class of the curve; "" for none
	Provenance string     `json:"provenance"`
	Fits       []float64  `json:"fits"`
	Reps       int        `json:"reps"`
	Emulation  *Emulation `json:"emulation,omitempty"`
}

// MakePlan validates the options against the host and works out the plan.
// It only reads.
func MakePlan(h host.Host, o Options) (*Plan, error) {
	o.fill()
	if err := o.validate(); err != nil {
		return nil, err
	}
	p := &Plan{Options: o, Root: h.IsRoot(), ZramAlg: o.ZramAlgorithm, Scenarios: o.Scenarios}
	p.ZswapAlg = o.ZswapCompressor
	if p.ZswapAlg == "" {
		p.ZswapAlg = o.ZramAlgorithm
	}
	mi, err := host.ReadMeminfo(h)
	if err != nil {
		return nil, fmt.Errorf("reading /proc/meminfo: %w", err)
	}
	p.MemTotal, p.MemAvail = mi["MemTotal"], mi["MemAvailable"]

	// The swap directory: it must exist, be a directory on a filesystem
	// that can hold a swap file, and have room.
	if p.Swap, err = host.CheckSwapDir(h, o.SwapDir); err != nil {
		return nil, err
	}
	p.DeviceClass = o.DeviceClass
	if p.DeviceClass == "" {
		p.DeviceClass = p.Swap.DeviceClass()
	}

	// Sizes: scaled to the host unless given, and checked against
	// MemAvailable so the probe never crowds the host.
	w := o.Workload
	data := w.DataSize
	auto := data == 0
	if auto {
		data = 1 * units.GiB
		if o.Quick {
			data = 192 * units.MiB
		} else {
			data = min(max(p.MemTotal/16, 256*units.MiB), 2*units.GiB)
		}
	}
	need := func(d units.Bytes) units.Bytes { return memoryNeed(d, codeSize(w, d)) }
	if need(data) > p.MemAvail {
		if !auto {
			return nil, measure.OptErr("data-size", "%s needs about %s of available memory (workload plus compressed swap); the host has %s available; give a smaller --data-size",
				data, need(data), p.MemAvail)
		}
		for data > 32*units.MiB && need(data) > p.MemAvail {
			data /= 2
		}
		if need(data) > p.MemAvail {
			return nil, fmt.Errorf("only %s of memory is available; the probe needs at least %s", p.MemAvail, need(data))
		}
	}
	data = data / units.MiB * units.MiB
	code := codeSize(w, data)
	p.Workload = WorkloadSpec{Role: roleWorkload, DataSize: data, CodeSize: code, Chunk: max(data/32, units.MiB),
		Pattern: w.Pattern, ZipfS: w.ZipfS, Content: w.Content, WriteMix: w.WriteMix, Passes: w.Passes, CodeShare: 0.25}
	pages := int64(data) / host.PageSize
	p.Workload.Warmup = pages
	p.Workload.Visits = int64(w.Rounds * float64(pages))
	p.Footprint = data + code + 16*units.MiB
	p.SwapFileSize = (p.Footprint + 64*units.MiB) / units.MiB * units.MiB
	p.ZramSize = p.SwapFileSize
	p.WorkDir = filepath.Join(o.StateDir, fmt.Sprintf("work-%d", os.Getpid()))
	p.SwapFile = filepath.Join(p.Swap.Dir, fmt.Sprintf("memplan-probe-%d.swap", os.Getpid()))

	if err := p.planExperiments(h); err != nil {
		return nil, err
	}
	if err := p.checkSpace(h); err != nil {
		return nil, err
	}
	if p.Root {
		layout, err := host.DetectCgroups(h)
		if err != nil {
			return nil, fmt.Errorf("detecting cgroups: %w", err)
		}
		p.Cgroups = layout
		if layout.Version == 0 {
			p.Root = false
			p.skip("everything that needs a memory limit (all backends and scenarios): %s", layout.Why)
		}
	} else {
		p.skip("swap backends, cgroups and scenarios: they change the host and need root (run with sudo); measuring only the in-RAM baseline and the device profile")
	}
	if p.Root {
		p.planStages(h)
	}
	p.describe()
	p.Wall = p.estimateWall()
	return p, nil
}

func codeSize(w WorkloadOptions, data units.Bytes) units.Bytes {
	if w.CodeSize > 0 {
		return w.CodeSize
	}
	return max(data/8, 4*units.MiB) / units.MiB * units.MiB
}

func (p *Plan) skip(format string, args ...any) {
	p.Skipped = append(p.Skipped, fmt.Sprintf(format, args...))
}

// checkSpace makes sure the swap file, the device profile's test file and
// the working files fit, with room to spare.
func (p *Plan) checkSpace(h host.Host) error {
	o := p.Options
	reserve := 256 * units.MiB
	swapNeed := units.Bytes(0)
	if p.Root && p.needsSwapFile() {
		swapNeed = p.SwapFileSize
	}
	if o.DeviceProfile {
		dev := device.DefaultSize
		if o.Quick {
			dev = device.QuickSize
		}
		swapNeed = max(swapNeed, dev+device.Headroom)
	}
	swapNeed = max(swapNeed, p.experimentSwapDirNeed())
	free, _, err := h.Statfs(o.SwapDir)
	if err != nil {
		return measure.OptErr("swap-dir", "%v", err)
	}
	if free < swapNeed+reserve {
		return measure.OptErr("swap-dir", "%s has %s free; the probe needs %s there (swap file %s) plus %s to spare; free some space or give a smaller --data-size",
			o.SwapDir, free, swapNeed+reserve, p.SwapFileSize, reserve)
	}
	work := p.Workload.CodeSize
	if o.scenario(ScenarioPageCache) {
		biggest := 0.0
		for _, m := range o.PageCacheSizes {
			biggest = max(biggest, m)
		}
		work += 2 * units.Bytes(biggest*float64(p.pageCacheLimit()))
	}
	stateFree, _, err := statfsNearest(h, o.StateDir)
	if err == nil && stateFree < work+reserve {
		return measure.OptErr("", "the state directory %s has %s free; the workload's files need %s plus %s to spare (set %s to another directory)",
			o.StateDir, stateFree, work, reserve, host.StateDirEnv)
	}
	return nil
}

// statfsNearest measures the filesystem of dir or, if it does not exist
// yet, of its closest existing parent.
func statfsNearest(h host.Host, dir string) (units.Bytes, int64, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if host.Exists(h, d) {
			return h.Statfs(d)
		}
		if d == "/" || d == "." {
			return 0, 0, fmt.Errorf("no existing parent of %s", dir)
		}
	}
}

// pageCacheLimit is the memory limit of the page-cache scenario:
// --pagecache-fit x the footprint (1: the workload just fits, the writer's
// cache does not).
func (p *Plan) pageCacheLimit() units.Bytes {
	return units.Bytes(float64(p.Footprint) * p.Options.PageCacheFit)
}

// memoryNeed is the memory a workload of data and code bytes needs
// available: itself and its compressed swap, and a margin for the host.
func memoryNeed(data, code units.Bytes) units.Bytes {
	return 2*(data+code) + 256*units.MiB
}

// planStages decides the backends, emulations and their fit ratios.
func (p *Plan) planStages(h host.Host) {
	o := p.Options
	curves := o.scenario(ScenarioCurves)
	if !curves {
		return
	}
	quick := o.Quick
	fits := o.Fits
	one := []float64{o.ScenarioFit}
	if o.has(measure.BackendZram) {
		if zp, err := host.PlanZram(h, p.ZramAlg); err != nil {
			p.skip("zram: %v", err)
		} else {
			p.ZramHotAdd, p.ZramFree = zp.HotAdd, zp.ID
			p.Stages = append(p.Stages, Stage{Name: "zram-" + p.ZramAlg, Backend: measure.BackendZram, Class: "zram-" + p.ZramAlg,
				Provenance: factors.Measured, Fits: fits, Reps: o.Reps})
		}
	}
	if o.has(measure.BackendEmulated) && o.EmulateLatency {
		// With their latency, the drives are emulated by a device of their
		// own: no throttling needed, and the swap directory's disk is not
		// one of them whatever the kernel calls it. Their stages come
		// before the swap file's: each device must be the only memplan
		// swap area while it runs (swapon caps priorities at 32767, so it
		// cannot go above the swap file's).
		p.Emulations = emulations(o.Emulate, "", &p.Skipped)
		// The emulator's server holds the device's data (the swap file's
		// size) in locked memory, outside every cgroup limit, while the
		// workload runs; one emulator runs at a time.
		if want := memoryNeed(p.Workload.DataSize, p.Workload.CodeSize) + p.SwapFileSize; want > p.MemAvail && len(p.Emulations) > 0 {
			p.skip("emulated drives with their latency: the emulator locks %s of memory for the device's data, which with the workload's %s needs %s available; the host has %s; give a smaller --data-size",
				p.SwapFileSize, memoryNeed(p.Workload.DataSize, p.Workload.CodeSize), want, p.MemAvail)
			p.Emulations = nil
		}
		for i := range p.Emulations {
			e := &p.Emulations[i]
			e.Latency = latencyPresets[e.Class]
			if e.Latency == "" {
				p.skip("emulated %s: no latency model for it (--emulate-latency has %s)", e.Class, strings.Join(slices.Sorted(maps.Keys(latencyPresets)), ", "))
				continue
			}
			p.Stages = append(p.Stages, Stage{Name: "emulated " + e.Class + " (latency)", Backend: measure.BackendEmulated, Class: e.Class,
				Provenance: factors.Emulated, Fits: fits, Reps: min(o.Reps, max(o.Reps/2, 3)), Emulation: e})
		}
	}
	if o.has(measure.BackendFile) {
		p.Stages = append(p.Stages, Stage{Name: "file", Backend: measure.BackendFile, Class: p.DeviceClass,
			Provenance: factors.Measured, Fits: fits, Reps: o.Reps})
	}
	if o.has(measure.BackendZswap) {
		if !host.Exists(h, host.ZswapParams+"/enabled") {
			p.skip("zswap: this kernel has no zswap (%s is missing)", host.ZswapParams)
		} else {
			f, r := fits, o.Reps
			if quick {
				f, r = one, 1
			}
			p.Stages = append(p.Stages, Stage{Name: "zswap-" + p.ZswapAlg, Backend: measure.BackendZswap, Class: "zswap",
				Provenance: factors.Measured, Fits: f, Reps: r})
		}
	}
	if o.has(measure.BackendEmulated) && !o.EmulateLatency {
		if quick {
			p.skip("emulated drives: skipped by --quick (run without it to emulate the catalog's drives by IOPS throttling)")
		} else if !p.Cgroups.IO {
			p.skip("emulated drives: cannot throttle I/O: %s", p.Cgroups.Why)
		} else if p.Swap.DiskDev == "" {
			p.skip("emulated drives: no block device found under %s to throttle", o.SwapDir)
		} else {
			p.Emulations = emulations(o.Emulate, p.DeviceClass, &p.Skipped)
			p.Notes = append(p.Notes, sameThrottle(p.Emulations)...)
			for i := range p.Emulations {
				e := &p.Emulations[i]
				p.Stages = append(p.Stages, Stage{Name: "emulated " + e.Class, Backend: measure.BackendEmulated, Class: e.Class,
					Provenance: factors.Emulated, Fits: fits, Reps: min(o.Reps, max(o.Reps/2, 3)), Emulation: e})
			}
		}
	}
	if o.has(measure.BackendNone) {
		f, r := fits, o.Reps
		if quick {
			f, r = one, 1
		} else {
			f = []float64{o.ScenarioFit, fits[len(fits)-1]}
			if f[0] == f[1] {
				f = f[:1]
			}
			r = max(o.Reps/2, 2)
		}
		p.Stages = append(p.Stages, Stage{Name: "none", Backend: measure.BackendNone, Fits: f, Reps: r})
	}
}

// emulations lists one catalog drive per factor class that is not the
// swap file's own class; an HDD stands for the Intel study's two-drive
// RAID 0. want, when set, restricts the classes.
func emulations(want []string, present string, skipped *[]string) []Emulation {
	var out []Emulation
	for _, cd := range prices.CatalogClasses() {
		class, d := cd.Class, cd.Drive
		if class == present || len(want) > 0 && !slices.Contains(want, class) && !slices.Contains(want, "all") {
			continue
		}
		e := Emulation{Class: class, Drive: d, Count: cd.Count, Label: cd.Label}
		e.RIOPS, e.WIOPS = int(d.ReadIOPS)*e.Count, int(d.WriteIOPS)*e.Count
		// Throttling can only slow the real disk down: a drive whose
		// IOPS at the workload's queue depth exceed what a SATA SSD
		// does cannot be told apart from the real device.
		if min(e.RIOPS, e.WIOPS) > emulationCeiling {
			*skipped = append(*skipped, fmt.Sprintf("emulated %s (%s): its IOPS (%d read, %d write) exceed what throttling this host's disk can imitate; the model derives it from the measured curve instead",
				class, d.Model, e.RIOPS, e.WIOPS))
			continue
		}
		out = append(out, e)
	}
	if present != "" && (len(want) == 0 || slices.Contains(want, present)) {
		*skipped = append(*skipped, fmt.Sprintf("emulated %s: not emulated because the swap file's own device is filed under that class (measured for real)", present))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].RIOPS < out[j].RIOPS })
	return out
}

// sameThrottle says which emulated drives get one and the same IOPS
// throttle: the X25-E and the X25-M are both rated 35,000 read / 3,300
// write IOPS (Intel data sheets, as in the intel-2009 catalog) and differ
// in latency and write bandwidth, which throttling does not imitate, so
// their curves measure one emulated device twice.
func sameThrottle(em []Emulation) []string {
	var notes []string
	for i := range em {
		for j := i + 1; j < len(em); j++ {
			a, b := em[i], em[j]
			if a.RIOPS != b.RIOPS || a.WIOPS != b.WIOPS {
				continue
			}
			notes = append(notes, fmt.Sprintf("emulated %s (%s) and %s (%s) get the same throttle, %d read / %d write IOPS, as their data sheets rate both; they differ in 4 KiB latency (%v/%v against %v/%v read/write) and sustained writes (%.0f against %.0f MB/s), which an IOPS throttle does not imitate, so their two curves measure one emulated device; --emulate-latency gives each its own latency",
				a.Class, a.Drive.Model, b.Class, b.Drive.Model, a.RIOPS, a.WIOPS,
				a.Drive.ReadLatency, a.Drive.WriteLatency, b.Drive.ReadLatency, b.Drive.WriteLatency, float64(a.Drive.WriteBandwidth)/1e6, float64(b.Drive.WriteBandwidth)/1e6))
		}
	}
	return notes
}

// emulationCeiling is the highest IOPS an emulation may ask for: beyond it a
// single-threaded workload never reaches the throttle.
const emulationCeiling = 50000

// describe lists the changes the plan makes, in order, and counts runs.
func (p *Plan) describe() {
	o := p.Options
	add := func(format string, args ...any) { p.Changes = append(p.Changes, fmt.Sprintf(format, args...)) }
	base := o.Reps
	if !p.needsBaseline() {
		base = 0
	}
	p.Runs = base
	if o.DeviceProfile {
		sz := device.DefaultSize
		if o.Quick {
			sz = device.QuickSize
		}
		add("device profile: write a %s temporary file in %s, measure 4 KiB latency and IOPS with O_DIRECT, remove it", sz, p.Swap.Dir)
	}
	if !p.Root {
		add("run the in-RAM baseline %d times unconfined (%s data + %s code file in %s)", base, p.Workload.DataSize, p.Workload.CodeSize, p.WorkDir)
		return
	}
	add("create %s with the workload's %s code file (removed at the end)", p.WorkDir, p.Workload.CodeSize)
	cg := p.Cgroups
	probe := fmt.Sprintf("memplan-probe-%d", os.Getpid())
	add("create cgroup %s/%s (cgroup %s) with a leaf per run, limits set per run; removed at the end", cg.MemParent, probe, cg)
	if base > 0 {
		add("run the in-RAM baseline %d times in its own cgroup to measure the footprint (~%s)", base, p.Footprint)
	}
	needFile := p.needsSwapFile()
	for _, s := range p.Stages {
		runs, at := stageRuns(s, o)
		p.Runs += runs
		switch s.Backend {
		case measure.BackendZram:
			how := "hot-add a zram device"
			if !p.ZramHotAdd {
				how = fmt.Sprintf("use the free zram device /dev/zram%d (its compressor is restored afterwards)", p.ZramFree)
			}
			add("%s, compressor %s, disk size %s; swapon priority %d; %s; then swapoff, reset and remove it", how, p.ZramAlg, p.ZramSize, host.SwapPriority, at)
		case measure.BackendFile:
			add("create swap file %s (%s, fully allocated), swapon priority %d; %s", p.SwapFile, p.SwapFileSize, host.SwapPriority, at)
		case measure.BackendEmulated:
			if e := s.Emulation; e.Latency != "" {
				add("start an emulated %s (%s: %v read latency): a FUSE server in its own memory-locked process holding %s, a direct-I/O loop device over its file, swap on it at priority %d, the only memplan swap area while it runs; %s",
					e.Label, e.Latency, e.Drive.ReadLatency, p.SwapFileSize, host.SwapPriority, at)
				continue
			}
			add("throttle the run cgroups' I/O on %s (%s) to %d read / %d write IOPS to emulate %s; %s", p.Swap.DiskDev, host.DiskName(p.Swap), s.Emulation.RIOPS, s.Emulation.WIOPS, s.Emulation.Label, at)
		case measure.BackendZswap:
			add("enable zswap (compressor %s) in front of the swap file; %s; restore every zswap parameter", p.ZswapAlg, at)
		case measure.BackendNone:
			add("no swap for the run cgroups (memory+swap limit = memory limit); %s", at)
		}
	}
	if needFile && !hasStage(p.Stages, measure.BackendFile) {
		add("create swap file %s (%s, fully allocated), swapon priority %d", p.SwapFile, p.SwapFileSize, host.SwapPriority)
	}
	if o.scenario(ScenarioSwappiness) {
		n := (len(o.Swappiness) + 1) * max(o.Reps/2, 1)
		p.Runs += n
		how := "per-cgroup memory.swappiness (v1)"
		if cg.Version == 2 {
			how = "the global vm.swappiness (cgroup v2 has no per-cgroup swappiness), restored afterwards"
		}
		add("swappiness scenario at fit %g: swappiness %s via %s, and swap off; %d runs", o.ScenarioFit, intList(o.Swappiness), how, n)
	}
	if o.scenario(ScenarioPageCache) {
		n := p.pageCacheRuns()
		p.Runs += n
		add("page-cache scenario: memory limit %s, a writer streams files of %s x the limit into %s while the workload runs; remedies %s; %d runs", p.pageCacheLimit(), floatList(o.PageCacheSizes), p.WorkDir, strings.Join(o.PageCacheRemedies, ", "), n)
	}
	if needFile {
		add("swapoff and delete %s", p.SwapFile)
	}
	p.describeExperiments(add)
	add("remove the cgroups and %s; the journal %s records each change before it is made", p.WorkDir, filepath.Join(o.StateDir, host.JournalName))
}

// stageRuns counts a stage's runs and says what they are: --reps rounds of
// an in-RAM run and every fit ratio, and a closing in-RAM run
// (measure.RunRounds); --precision may add rounds.
func stageRuns(s Stage, o Options) (int, string) {
	n, in := len(s.Fits)*s.Reps, s.Reps+1
	what := fmt.Sprintf("%s at fit %s interleaved with %d in-RAM runs in a random order", nRuns(n), fitList(s.Fits), in)
	if o.Precision > 0 {
		what += fmt.Sprintf(", and more rounds until every point is within +-%g%% (at most %d rounds", 100*o.Precision, measure.MaxRounds)
		if o.PrecisionBudget > 0 {
			what += fmt.Sprintf(", within %v", units.Duration(o.PrecisionBudget))
		}
		what += ")"
	}
	return n + in, what
}

// needsSwapFile reports whether any stage or scenario uses the swap file.
func (p *Plan) needsSwapFile() bool {
	o := p.Options
	if o.scenario(ScenarioSwappiness) || o.scenario(ScenarioPageCache) {
		return true
	}
	return o.scenario(ScenarioCurves) && (o.has(measure.BackendFile) || o.has(measure.BackendZswap) || o.has(measure.BackendEmulated) && !o.EmulateLatency)
}

func nRuns(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

func hasStage(st []Stage, backend string) bool {
	for _, s := range st {
		if s.Backend == backend {
			return true
		}
	}
	return false
}

func fitList(f []float64) string { return floatList(f) }

func floatList(f []float64) string {
	var s []string
	for _, v := range f {
		s = append(s, fmt.Sprintf("%g", v))
	}
	return strings.Join(s, ", ")
}

func intList(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

// estimateWall is the plan's wall time range (WallTime): each run's timed
// visits at FastVisit or SlowVisit a page, plus runOverhead; a run that
// swaps takes up to --max-slowdown times its in-RAM time.
func (p *Plan) estimateWall() WallTime {
	o := p.Options
	visits := time.Duration(max(p.Workload.Visits, 1))
	fast, slow := visits*FastVisit+runOverhead, visits*SlowVisit+runOverhead
	capped := time.Duration(float64(visits*SlowVisit)*o.MaxSlowdown) + runOverhead
	var w WallTime
	inRAM := func(n int) { w.Low += time.Duration(n) * fast; w.High += time.Duration(n) * slow }
	swapped := func(n int) { w.Low += time.Duration(n) * fast; w.High += time.Duration(n) * capped }
	base := o.Reps
	if !p.needsBaseline() {
		base = 0
	}
	inRAM(base)
	if !p.Root {
		return w
	}
	for _, s := range p.Stages {
		n, in := len(s.Fits)*s.Reps, s.Reps+1
		inRAM(in)
		swapped(n)
	}
	if o.Precision > 0 {
		w.LeftOut = append(w.LeftOut, "the rounds --precision adds")
	}
	if o.scenario(ScenarioSwappiness) {
		swapped((len(o.Swappiness) + 1) * max(o.Reps/2, 1))
	}
	if o.scenario(ScenarioPageCache) {
		swapped(p.pageCacheRuns())
		w.LeftOut = append(w.LeftOut, "the page-cache writer's files")
	}
	if sd := p.Swapdemo; sd != nil {
		n := len(o.swapdemoSettings()) * max(sd.Reps, 1)
		w.High += time.Duration(n) * sd.Budget
	}
	if p.Copy != nil {
		w.LeftOut = append(w.LeftOut, "the copy workloads")
	}
	if o.DeviceProfile {
		w.LeftOut = append(w.LeftOut, "the device profile")
	}
	return w
}
