//go:build linux

package profile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/onepass"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/units"
)

// DefaultProfileFits are the fit ratios memplan profile measures.
var DefaultProfileFits = []float64{0.9, 0.75, 0.5}

// Profile defaults.
const (
	DefaultProfileRuns        = 3
	DefaultProfileMinRuntime  = 500 * time.Millisecond
	DefaultProfileMaxSlowdown = 20
)

// Options control memplan profile: a real command measured in a
// memory cgroup at several fit ratios with a swap backend available.
type Options struct {
	Command []string // the command and its arguments
	Dir     string   // its working directory; "" is the current one
	Fits    []float64
	Runs    int // repetitions per fit ratio (and of the in-RAM run)
	// Precision, when above 0, repeats the fit ratios past Runs until
	// every point's 95% interval is within this share of its mean (0.05:
	// +-5%), or Budget is spent, or 100 repetitions are done.
	Precision float64
	// OnePass runs the command once, without a memory limit, and infers
	// the curve from the pages it references (measure/onepass) instead of
	// measuring it at each fit ratio.
	OnePass bool
	// OneRun runs the command once under a memory limit that steps
	// through the fit ratios while it runs, and measures the slowdown at
	// each from the command's own progress (onerun.go).
	OneRun bool
	// OneRunBudget is the extra wall time the one run may take over the
	// command's time without a limit, as a share (0.25: 25%).
	OneRunBudget float64
	// OneRunPeak (--peak) is the footprint the command is known to reach
	// (from an accounting record or an earlier run): the one run's limits
	// are fits of it from the start, as whole runs' are, instead of fits
	// of the footprint so far. 0: the footprint so far.
	OneRunPeak units.Bytes
	// OverheadFrom (one pass only) is a factor file measured on this host
	// (a probe's or a multi-run profile's) whose fault_overhead prices each
	// page the one-pass curve needs back, instead of the model's default.
	OverheadFrom string
	// Prior (one run only, --prior) is a one-pass profile of the same
	// command: its inferred figures fill the fits the run does not reach,
	// marked as the sampler's. validate loads it into prior.
	Prior string
	prior *Prior
	// Budget bounds the wall time of the repetitions past Runs (0: none,
	// then Precision alone stops them, at 100 at most).
	Budget time.Duration
	// Backend is what the curve is measured on: zram or file.
	Backend string
	// Validate, when set, is a second backend (zram or file) on which the
	// same command is measured and compared with the transfer model's
	// prediction from the first.
	Validate      string
	SwapDir       string // the swap file's directory (backend or validation "file")
	ZramAlgorithm string
	DeviceClass   string // factor class of the swap file's device; default from the device
	DeviceProfile bool   // measure the swap directory's device (the file curve's reference)
	// Readahead measures, after a zram phase, how the command's pages come
	// back from a block device (one run per fit ratio on a loop device
	// over zram).
	Readahead bool
	// DeviceDuration is the time budget of each device-profile test.
	DeviceDuration time.Duration
	MinRuntime     time.Duration // refuse commands that finish faster in RAM
	MaxSlowdown    float64       // stop a run at this multiple of the in-RAM time
	// Stdout and Stderr receive the command's output (pass-through); a
	// file name in StdoutFile/StderrFile instead gets each run's output
	// (it keeps the last run that was not stopped at the time cap).
	Stdout, Stderr         io.Writer
	StdoutFile, StderrFile string
	// Invocation is recorded in the journal so cleanup can say what left it.
	Invocation string
	Executable string // re-executed as the launcher; default /proc/self/exe
	StateDir   string // the journal; default host.DefaultStateDir (commands pass host.StateDir(os.Getenv))
}

// DefaultOptions are memplan profile's defaults.
func DefaultOptions() Options {
	return Options{Backend: measure.BackendZram, ZramAlgorithm: "lz4", DeviceProfile: true, Readahead: true,
		DeviceDuration: device.QuickDuration, MinRuntime: DefaultProfileMinRuntime, MaxSlowdown: DefaultProfileMaxSlowdown}
}

func (o *Options) fill() {
	d := DefaultOptions()
	if len(o.Fits) == 0 {
		o.Fits = append([]float64(nil), DefaultProfileFits...)
	}
	if o.Runs == 0 {
		o.Runs = DefaultProfileRuns
	}
	if o.Backend == "" {
		o.Backend = d.Backend
	}
	if o.ZramAlgorithm == "" {
		o.ZramAlgorithm = d.ZramAlgorithm
	}
	if o.DeviceDuration == 0 {
		o.DeviceDuration = d.DeviceDuration
	}
	if o.MinRuntime == 0 {
		o.MinRuntime = d.MinRuntime
	}
	if o.MaxSlowdown == 0 {
		o.MaxSlowdown = d.MaxSlowdown
	}
	if o.OneRunBudget == 0 {
		o.OneRunBudget = DefaultOneRunBudget
	}
	if o.StateDir == "" {
		o.StateDir = host.DefaultStateDir
	}
	if o.Executable == "" {
		o.Executable = "/proc/self/exe"
	}
}

var profileBackends = []string{measure.BackendZram, measure.BackendFile}

// overheadFrom reads the fault overhead a factor file measured, and says
// where it came from.
func overheadFrom(path string) (time.Duration, string, error) {
	f, err := model.LoadFactors(path)
	if err != nil {
		return 0, "", err
	}
	if f.FaultOverhead <= 0 {
		return 0, "", fmt.Errorf("%s: no fault_overhead in it; measure one on this host with memplan probe or a multi-run memplan profile", path)
	}
	return f.FaultOverhead.D(), "fault_overhead of " + path, nil
}

// validate checks what can be checked without looking at the host.
func (o *Options) validate() error {
	if len(o.Command) == 0 || strings.TrimSpace(o.Command[0]) == "" {
		return measure.OptErr("", "no command given: put the command to profile after --, e.g. memplan profile --out sim.profile.json -- ./run_sim.sh big_design")
	}
	seen := map[float64]bool{}
	below := false
	for _, f := range o.Fits {
		if !(f > 0 && f <= 1) {
			return measure.OptErr("fits", "fit ratio %g is out of range: it is the memory limit over the command's peak memory, above 0 and at most 1 (e.g. 0.75)", f)
		}
		if f < 0.05 {
			return measure.OptErr("fits", "fit ratio %g is too small to finish in any useful time; the lowest fit ratio memplan profile takes is 0.05", f)
		}
		if seen[f] {
			return measure.OptErr("fits", "fit ratio %g is given twice", f)
		}
		seen[f] = true
		below = below || f < 1
	}
	if !below {
		return measure.OptErr("fits", "give at least one fit ratio below 1: at fit 1 nothing is swapped")
	}
	if o.Runs < 1 || o.Runs > 100 {
		return measure.OptErr("runs", "%d repetitions is out of range; expected 1 to 100", o.Runs)
	}
	if o.OneRun {
		switch {
		case o.OnePass:
			return measure.OptErr("one-run", "and --one-pass are two ways to profile in one run; give one of them")
		case o.Validate != "" || o.Precision > 0:
			return measure.OptErr("one-run", "measures on one backend in one run; --validate and --precision need the multi-run profile (drop --one-run)")
		}
		if !(o.OneRunBudget > 0 && o.OneRunBudget <= 4) {
			return measure.OptErr("budget", "%g%% extra wall time is out of range for --one-run; expected above 0%% and at most 400%%", 100*o.OneRunBudget)
		}
		if o.Budget > 0 {
			return measure.OptErr("budget", "with --one-run the budget is a share of the command's own time, e.g. 25%%, not a duration (%s)", o.Budget)
		}
		if o.OneRunPeak < 0 || o.OneRunPeak > 0 && o.OneRunPeak < 16*units.MiB {
			return measure.OptErr("peak", "%s is too small a footprint to step a limit through; expected at least 16MiB", o.OneRunPeak)
		}
	} else {
		if o.OneRunPeak != 0 {
			return measure.OptErr("peak", "is the footprint --one-run steps its limits from; the multi-run profile measures it in its first run")
		}
		if o.OneRunBudget != 0 && o.OneRunBudget != DefaultOneRunBudget {
			return measure.OptErr("budget", "a share (%g%%) bounds the extra time of --one-run; for --precision give a duration, e.g. 2h", 100*o.OneRunBudget)
		}
	}
	if err := measure.CheckPrecision(o.Precision, o.Budget); err != nil {
		return err
	}
	if o.OnePass && (o.Validate != "" || o.Precision > 0) {
		return measure.OptErr("one-pass", "runs the command once and infers its curve; --validate and --precision need the multi-run profile (drop --one-pass)")
	}
	if o.Prior != "" {
		if !o.OneRun {
			return measure.OptErr("prior", "fills the fits a one run does not reach with a one-pass profile's figures; add --one-run, or drop --prior")
		}
		p, err := LoadPrior(o.Prior, o.Command)
		if err != nil {
			return measure.OptErr("prior", "%v", err)
		}
		o.prior = p
	}
	if o.OverheadFrom != "" {
		if !o.OnePass {
			return measure.OptErr("fault-overhead-from", "prices the pages a one-pass curve needs back; a multi-run profile measures its own fault overhead (add --one-pass or drop this flag)")
		}
		if _, _, err := overheadFrom(o.OverheadFrom); err != nil {
			return measure.OptErr("fault-overhead-from", "%v", err)
		}
	}
	if !slices.Contains(profileBackends, o.Backend) {
		return measure.OptErr("backend", "unknown backend %q; expected zram or file", o.Backend)
	}
	if o.Validate != "" {
		if !slices.Contains(profileBackends, o.Validate) {
			return measure.OptErr("validate-backend", "unknown backend %q; expected zram or file", o.Validate)
		}
		if o.Validate == o.Backend {
			return measure.OptErr("validate-backend", "%s is the backend the profile is measured on; validation needs the other one (zram or file)", o.Validate)
		}
	}
	if (o.Backend == measure.BackendFile || o.Validate == measure.BackendFile) && o.SwapDir == "" {
		return measure.OptErr("swap-dir", "the file backend needs a directory for the swap file on the device to measure: --swap-dir DIR")
	}
	if o.MaxSlowdown < 2 {
		return measure.OptErr("max-slowdown", "%g is too small to measure anything; expected 2 or more", o.MaxSlowdown)
	}
	if o.MinRuntime < 0 {
		return measure.OptErr("min-runtime", "cannot be negative")
	}
	if o.DeviceClass != "" && !measure.ClassRE.MatchString(o.DeviceClass) {
		return measure.OptErr("device-class", "%q is not a factor class; expected e.g. nvme-ssd-tlc, sata-ssd-slc, hdd", o.DeviceClass)
	}
	if !measure.ClassRE.MatchString(o.ZramAlgorithm) {
		return measure.OptErr("zram-algorithm", "%q is not a compressor name; expected e.g. lz4, zstd, lzo-rle", o.ZramAlgorithm)
	}
	for _, f := range []struct{ flag, name string }{{"stdout", o.StdoutFile}, {"stderr", o.StderrFile}} {
		if f.name == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(f.name)); err != nil || !fi.IsDir() {
			return measure.OptErr(f.flag, "cannot write %s: its directory does not exist", f.name)
		}
	}
	return nil
}

// Report is everything memplan profile measured.
type Report struct {
	Options  Options           `json:"-"`
	Host     factors.HostFacts `json:"host"`
	Started  time.Time         `json:"started"`
	Elapsed  float64           `json:"elapsed_s"`
	Command  []string          `json:"command"`
	Path     string            `json:"executable"`
	Dir      string            `json:"dir"`
	Cgroup   string            `json:"cgroup"`
	MemAvail units.Bytes       `json:"mem_available_bytes"`

	// Sizing is the first, unconstrained run: it gives the peak memory
	// every fit ratio refers to; it is not timed into the baseline (its
	// input files may not have been in the page cache yet).
	Sizing measure.RunResult `json:"sizing_run"`
	// Footprint is the resident peak (anonymous, shared and mapped file
	// memory; at least the largest process's peak RSS): what the fit ratio
	// divides. PeakCharged is the cgroup's peak charge, which also counts
	// page cache of the files the command read.
	Footprint   units.Bytes `json:"footprint_bytes"`
	PeakCharged units.Bytes `json:"peak_charged_bytes"`
	Dirty       float64     `json:"dirty_share"`
	DirtyNote   string      `json:"dirty_share_note,omitempty"`

	Phases      []Phase           `json:"phases"`
	Validation  *Validation       `json:"validation,omitempty"`
	Readahead   *ReadaheadReport  `json:"readahead,omitempty"`
	Device      *device.Profile   `json:"device_profile,omitempty"`
	ZramLatency *host.ZramLatency `json:"zram_latency,omitempty"`
	Transfer    TransferSummary   `json:"transfer"`
	OnePass     *OnePassReport    `json:"one_pass,omitempty"`
	OneRun      *OneRunReport     `json:"one_run,omitempty"`
	// Prior is what a one run took from its --prior (nil without one).
	Prior *PriorReport `json:"prior,omitempty"`
	Notes []string     `json:"notes,omitempty"`
}

// Phase is the command measured against one backend: in-RAM runs
// and the fit ratios, interleaved.
type Phase struct {
	Backend   string            `json:"backend"` // zram or file
	Name      string            `json:"name"`    // zram-lz4, file
	Class     string            `json:"class"`   // the curve's factor class
	Device    string            `json:"device"`
	Reference factors.Reference `json:"reference"`
	// RefSource says where the reference latencies come from.
	RefSource string              `json:"reference_source"`
	InRAM     measure.Summary     `json:"in_ram_s"` // wall seconds of the in-RAM runs
	InRAMRuns []measure.RunResult `json:"in_ram_runs"`
	Points    []Point             `json:"points"`
	// Repetitions says how many rounds ran and why they stopped: the
	// Runs asked for, the precision reached, or the budget spent.
	Repetitions string `json:"repetitions"`
	// DisturbedInRAM counts in-RAM runs the rest of the host disturbed.
	DisturbedInRAM int `json:"disturbed_in_ram_runs,omitempty"`
}

// Baseline is the phase's in-RAM runtime: the trimmed mean, so that one
// run slowed by a burst of load elsewhere does not shrink every slowdown.
func (ph *Phase) Baseline() float64 { return ph.InRAM.Trimmed }

// Point is one fit ratio on one backend.
type Point struct {
	Fit       float64         `json:"fit"`
	Limit     units.Bytes     `json:"limit_bytes"`
	Slowdown  measure.Summary `json:"slowdown"`
	Samples   []float64       `json:"samples"`
	Failed    int             `json:"failed_runs,omitempty"`
	OOMKilled int             `json:"oom_killed_runs,omitempty"`
	Censored  int             `json:"censored_runs,omitempty"`
	Wall      float64         `json:"wall_s_mean"`
	MajFlt    float64         `json:"major_faults_mean"`
	SwapIns   float64         `json:"swap_ins_mean"`
	SwapOuts  float64         `json:"swap_outs_mean"`
	PSISome   float64         `json:"psi_some_s_mean"`
	PSIFull   float64         `json:"psi_full_s_mean"`
	ZramRatio float64         `json:"zram_ratio,omitempty"`
	// Disturbed counts the runs the rest of the host disturbed (their
	// processes waited for a CPU, measure.Assess).
	Disturbed int `json:"disturbed_runs,omitempty"`
	// IdleHost is the slowdown the command would have had on an idle host:
	// each run's wall time less its wait for a CPU, over its in-RAM
	// neighbours' (measure.Contention.IdleWall).
	IdleHost measure.Summary `json:"idle_host_slowdown"`
	// Verdict, when set, says the slowdown is below 1: indistinguishable
	// from 1, or not a measurement (measure.Verdict).
	Verdict string `json:"verdict,omitempty"`
	// FaultTime is the extra wall time per major fault over the in-RAM run.
	FaultTime float64             `json:"excess_s_per_major_fault,omitempty"`
	Runs      []measure.RunResult `json:"runs"`
}

// CommandError is the command failing on its own (not a slowdown): it
// exited non-zero or was killed by a signal memplan did not send.
type CommandError struct {
	Command  string
	Stage    string
	ExitCode int
	Signal   string
	Text     string // "exit status 1"
	Stderr   string // its last words, when captured
}

func (e *CommandError) Error() string {
	how := "returned " + e.Text
	if e.Signal != "" {
		how = "was " + e.Text
	}
	msg := fmt.Sprintf("the command failed in its %s: %s %s; a failing command cannot be profiled (memplan measures how much slower a working command gets)", e.Stage, e.Command, how)
	if t := strings.TrimSpace(e.Stderr); t != "" {
		msg += "; its stderr ended with:\n" + indent(lastLines(t, 8))
	}
	return msg
}

// The clear refusals of commands memplan cannot profile on this host.
var (
	ErrTooShort  = errors.New("the command finishes too fast to measure")
	ErrTooLittle = errors.New("the command uses too little memory to measure")
	ErrTooBig    = errors.New("the command needs more memory than this host can give")
	// ErrNoFit: a one run whose command grew until its end set no limit
	// near a fit of its final footprint.
	ErrNoFit = errors.New("the one run could not step this command's memory")
)

// profileMargin is the memory left to the host beyond MemAvailable.
func profileMargin(total units.Bytes) units.Bytes { return max(256*units.MiB, total/32) }

// profileSession is one memplan profile run.
type profileSession struct {
	*host.Confinement
	prog   measure.Progress
	o      Options
	rep    *Report
	spec   launchSpec
	target *host.SwapTarget // the swap directory, when a file backend is used
	// fileClass is the class the device profile's latency files the swap
	// file under when the kernel's flags say otherwise (device.Classify).
	fileClass string
	// sampled is what the one-pass sampler saw during the sizing run.
	sampled onepass.Samples
	cap     units.Bytes // what the command may take at most (MemAvailable - margin)
	// taskstats reads the one run's delay accounting.
	taskstats *host.Taskstats
}

func (ps *profileSession) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ps.rep.Notes = append(ps.rep.Notes, msg)
	ps.prog.Note(msg)
}

// Profile runs the command unconstrained to find its peak memory, then in a
// memory cgroup at each fit ratio with the backend as swap (and, with
// Validate, on the second backend), journaling every change to the host
// and undoing all of them before it returns, also when ctx is cancelled.
// Only OptionErrors leave the host untouched without taking the lock.
func Profile(ctx context.Context, h host.Host, o Options, prog measure.Progress) (rep *Report, err error) {
	o.fill()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if prog == nil {
		prog = measure.NopProgress{}
	}
	path, err := resolveCommand(o.Command[0], o.Dir)
	if err != nil {
		return nil, err
	}
	if !h.IsRoot() {
		return nil, measure.OptErr("", "memplan profile needs root: it runs the command in memory cgroups and adds swap (zram or a swap file); run it with sudo")
	}
	layout, err := host.DetectCgroups(h)
	if err != nil {
		return nil, fmt.Errorf("detecting cgroups: %w", err)
	}
	if layout.Version == 0 {
		return nil, fmt.Errorf("memplan profile needs a memory cgroup: %s", layout.Why)
	}
	var target *host.SwapTarget
	if o.SwapDir != "" && (o.Backend == measure.BackendFile || o.Validate == measure.BackendFile) {
		if target, err = host.CheckSwapDir(h, o.SwapDir); err != nil {
			return nil, err
		}
	}
	for _, b := range []string{o.Backend, o.Validate} {
		if b == measure.BackendZram {
			if _, err := host.PlanZram(h, o.ZramAlgorithm); err != nil {
				return nil, measure.OptErr("backend", "zram: %v", err)
			}
		}
	}
	mi, err := host.ReadMeminfo(h)
	if err != nil {
		return nil, fmt.Errorf("reading /proc/meminfo: %w", err)
	}
	avail, margin := mi["MemAvailable"], profileMargin(mi["MemTotal"])
	if avail < margin+64*units.MiB {
		return nil, fmt.Errorf("%w: only %s is available, and memplan keeps %s for the host", ErrTooBig, avail, margin)
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	rep = &Report{Options: o, Started: time.Now().UTC(), Command: o.Command, Path: path, Dir: dir,
		Cgroup: layout.String(), MemAvail: avail}
	rep.Host = host.Facts(h, layout, target)

	j, err := host.NewJournal(h, o.StateDir, o.Invocation)
	if err != nil {
		return nil, err
	}
	defer func() {
		if uerr := host.CloseJournal(j); uerr != nil {
			if err == nil {
				rep, err = nil, uerr
			} else {
				err = errors.Join(err, uerr)
			}
		}
	}()
	ps := &profileSession{
		Confinement: &host.Confinement{Host: h, Journal: j, Layout: layout, Exe: o.Executable}, prog: prog,
		o: o, rep: rep, target: target, cap: avail - margin,
		spec: launchSpec{Path: path, Argv: o.Command},
	}
	// The ceiling over every run keeps the host out of an OOM whatever the
	// command does: it is what the host had available minus a margin. The
	// sizing run may not swap (to the host's own swap, if any).
	if err := ps.MakeTopCgroup(fmt.Sprintf("memplan-profile-%d", os.Getpid()), false, ps.cap, ps.cap); err != nil {
		return nil, err
	}
	if o.OneRun {
		// The one run may swap (within its own limits) from the start.
		top := &host.Cgroup{Host: ps.Host, Version: ps.Layout.Version, Mem: ps.MemDir}
		if err := top.SetLimit(ps.cap, -1); err != nil {
			return nil, fmt.Errorf("raising the memory+swap ceiling of %s: %w", ps.MemDir, err)
		}
		if err := ps.oneRun(ctx); err != nil {
			return nil, err
		}
		ps.finish()
		ps.note("%s", oneRunExtraNote(rep.OneRun))
		return rep, nil
	}
	if err := ps.sizing(ctx); err != nil {
		return nil, err
	}
	if o.OnePass {
		if err := ps.onePass(ps.sampled); err != nil {
			return nil, err
		}
		return rep, nil
	}
	backends := []string{o.Backend}
	if o.Validate != "" {
		backends = append(backends, o.Validate)
	}
	for i, b := range backends {
		if err := ps.phase(ctx, b); err != nil {
			return nil, err
		}
		if i == 0 && b == measure.BackendZram && o.Readahead {
			if err := ps.readahead(ctx); err != nil {
				return nil, err
			}
		}
	}
	ps.finish()
	return rep, nil
}

// resolveCommand finds the executable the way a shell would (PATH for a
// bare name, relative to dir for one with a slash).
func resolveCommand(name, dir string) (string, error) {
	look := name
	if strings.Contains(name, "/") && !filepath.IsAbs(name) && dir != "" {
		look = filepath.Join(dir, name)
	}
	p, err := exec.LookPath(look)
	if err != nil {
		switch {
		case errors.Is(err, exec.ErrNotFound) && !strings.Contains(name, "/"):
			return "", measure.OptErr("", "command %q not found in $PATH", name)
		case errors.Is(err, fs.ErrNotExist):
			return "", measure.OptErr("", "command %q not found: there is no such file (relative to %s)", name, dirOrCwd(dir))
		case errors.Is(err, fs.ErrPermission), errors.Is(err, exec.ErrNotFound):
			return "", measure.OptErr("", "command %q is not executable (chmod +x it, or name its interpreter: sh %s)", name, name)
		}
		return "", measure.OptErr("", "cannot run %q: %v", name, err)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

func dirOrCwd(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return dir
}

// sizing runs the command once without a memory limit of its own (only
// the ceiling, without swap) to learn its peak memory and check that it
// works and takes long enough to measure.
func (ps *profileSession) sizing(ctx context.Context) error {
	ps.prog.Stage("sizing run (no memory limit)", 1)
	timeout := 24 * time.Hour
	run, err := ps.run(ctx, measure.RunSpec{Backend: "sizing", Rep: 1, Timeout: timeout})
	if err != nil {
		return err
	}
	r := run
	// From now on runs may swap (each within its own memory+swap limit).
	top := &host.Cgroup{Host: ps.Host, Version: ps.Layout.Version, Mem: ps.MemDir}
	if err := top.SetLimit(ps.cap, -1); err != nil {
		return fmt.Errorf("raising the memory+swap ceiling of %s: %w", ps.MemDir, err)
	}
	ps.rep.Sizing = r
	ps.prog.RunDone(progress(run))
	name := measure.ShellQuote(ps.o.Command)
	if r.OOMKilled {
		return fmt.Errorf("%w: %s was killed when it reached %s, which is what the host has available (%s) minus %s memplan keeps for the host; profile it on a larger host or with a smaller input",
			ErrTooBig, name, ps.cap, ps.rep.MemAvail, ps.rep.MemAvail-ps.cap)
	}
	if r.Failed != "" {
		return &CommandError{Command: name, Stage: "unconstrained sizing run", ExitCode: r.ExitCode, Signal: r.Signal, Text: r.Failed, Stderr: r.Stderr}
	}
	if least := ps.o.MinRuntime.Seconds(); r.Wall < least {
		return fmt.Errorf("%w: %s finished in %.3fs without a memory limit; below %gs start-up and scheduling noise swamp what swapping costs; give it a bigger input so that it runs for at least a few seconds",
			ErrTooShort, name, r.Wall, least)
	}
	ps.rep.Footprint = max(r.Resident, r.MaxRSS)
	ps.rep.PeakCharged = r.Peak
	// The floor goes by what the cgroup saw the command hold: the rusage
	// peak also holds the launcher's (memplan re-executed, 9-17 MiB before
	// it execs the command; the kernel keeps the larger across exec).
	if r.Resident < 16*units.MiB {
		return fmt.Errorf("%w: %s used only %s of memory at its peak; with so little there is nothing to swap; give it a bigger input", ErrTooLittle, name, r.Resident)
	}
	// zram keeps what it holds in RAM, outside the cgroup: up to the
	// non-resident share, uncompressed in the worst case.
	need := ps.rep.Footprint + 256*units.MiB
	why := "its resident peak plus 256MiB"
	if ps.o.Backend == measure.BackendZram || ps.o.Validate == measure.BackendZram {
		need = 2*ps.rep.Footprint + 256*units.MiB
		why = "its resident peak twice over (the resident part plus what zram holds, in the worst case uncompressed) plus 256MiB"
	}
	if need > ps.cap {
		return fmt.Errorf("%w: %s has a resident peak of %s and needs about %s (%s); the host has %s available and memplan keeps %s of it; use --backend file, a larger host or a smaller input",
			ErrTooBig, name, ps.rep.Footprint, need, why, ps.rep.MemAvail, ps.rep.MemAvail-ps.cap)
	}
	return nil
}

// deviceProfile measures the swap directory's device (the file curve's
// reference): the four 4 KiB random tests the transfer model needs.
func (ps *profileSession) deviceProfile(ctx context.Context) error {
	ps.prog.Stage("device profile", 5)
	opts := device.Options{Quick: true, Duration: ps.o.DeviceDuration,
		Tests: []string{"rand-read-4k-qd1", "rand-write-4k-qd1", "rand-read-4k-qd32", "rand-write-4k-qd32"},
		Progress: func(st device.Step) {
			ps.prog.Note(fmt.Sprintf("device profile: [%d/%d] %s", st.Index, st.Total, st.Name))
		}, Record: ps.RecordFile}
	dp, err := device.Measure(ctx, ps.target.Dir, opts)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		ps.note("device profile of %s failed, the swap-file curve's reference latency falls back to the time per major fault: %v", ps.target.Dir, err)
		return nil
	}
	ps.rep.Device = dp
	for _, w := range dp.Warnings {
		ps.note("device profile: %s", w)
	}
	if ps.o.DeviceClass == "" {
		if class, msg := device.Classify(ps.target.DeviceClass(), ps.target, dp); msg != "" {
			ps.note("%s", msg)
			ps.fileClass = class
		}
	}
	return nil
}

// phase sets a backend up, runs the in-RAM runs and every fit ratio
// (repetitions go round them, so that a burst of load elsewhere spreads
// over all points) and takes the backend down again.
func (ps *profileSession) phase(ctx context.Context, backend string) (err error) {
	o := ps.o
	mark := ps.Journal.Len()
	defer func() {
		if uerr := ps.Journal.UndoTo(mark); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}()
	F := ps.rep.Footprint
	ph, zramID, err := ps.setupBackend(ctx, backend, ps.zramSize(), (F*3/2+64*units.MiB)/units.MiB*units.MiB)
	if err != nil {
		return err
	}
	stage := ph.Name
	if len(ps.rep.Phases) > 0 {
		stage = "validation on " + ph.Name
	}
	c := measure.Session{Stage: stage, Name: ph.Name, Backend: ph.Name, InRAMBackend: ph.Name, Fits: o.Fits,
		Timeout: ps.runTimeout(), Zram: measure.ZramName(zramID), Rule: ps.rule(),
		Seed: profileOrderSeed, Stream: uint64(len(ps.rep.Phases)), Unit: measure.PerRun, Work: 1, Cap: o.MaxSlowdown}
	for _, f := range o.Fits {
		l := limitAt(f, F)
		c.Limits, c.MemSw = append(c.Limits, l), append(c.MemSw, ps.memsw(l))
	}
	rr, err := measure.RunRounds(ctx, phaseRunner{ps}, c)
	if err != nil {
		return err
	}
	ph.InRAMRuns, ph.Repetitions, ph.InRAM = rr.InRAM, rr.Repetitions, rr.InRAMSeconds
	if ph.InRAM.N == 0 {
		first := ph.InRAMRuns[0]
		return &CommandError{Command: measure.ShellQuote(o.Command), Stage: "in-RAM runs on " + ph.Name, ExitCode: first.ExitCode,
			Signal: first.Signal, Text: firstNonEmpty(first.Failed, "stopped at its time cap"), Stderr: first.Stderr}
	}
	if ph.InRAM.Mean > 0 && ph.InRAM.SD/ph.InRAM.Mean > 0.1 {
		ps.note("%s: the in-RAM runtime varies by %.0f%% between runs: the host is busy; slowdowns below %.2f are noise",
			ph.Name, 100*ph.InRAM.SD/ph.InRAM.Mean, 1+2*ph.InRAM.SD/ph.InRAM.Mean)
	}
	for _, r := range ph.InRAMRuns {
		if r.Contention != nil && r.Contention.Disturbed {
			ph.DisturbedInRAM++
		}
	}
	if ph.DisturbedInRAM > 0 {
		ps.note("%s: %d of %d in-RAM runs were disturbed, %s (%s); each constrained run is compared with the in-RAM runs next to it, and the idle-host slowdown discounts the wait other work accounts for",
			ph.Name, ph.DisturbedInRAM, len(ph.InRAMRuns), measure.DisturbedBy(contentions(ph.InRAMRuns)), firstDisturbance(ph.InRAMRuns))
	}
	ph.Points = make([]Point, len(o.Fits))
	for i, f := range o.Fits {
		ph.Points[i] = Point{Fit: f, Limit: c.Limits[i]}
		ps.finishPoint(&ph, &ph.Points[i], rr, i)
	}
	ps.rep.Phases = append(ps.rep.Phases, ph)
	return nil
}

// phaseRunner does a phase's runs for measure.RunRounds: the command in a
// cgroup of its own, its progress on the profile's.
type phaseRunner struct{ ps *profileSession }

func (r phaseRunner) Run(ctx context.Context, rs measure.RunSpec) (measure.RunResult, error) {
	return r.ps.run(ctx, rs)
}
func (r phaseRunner) Stage(name string, runs int)   { r.ps.prog.Stage(name, runs) }
func (r phaseRunner) RunDone(res measure.RunResult) { r.ps.prog.RunDone(progress(res)) }
func (r phaseRunner) Note(msg string)               { r.ps.note("%s", msg) }

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// setupBackend makes backend the host's swap for a phase: a zram device of
// zramSize (its raw latency measured before it becomes swap) or a swap file
// of fileSize in the swap directory (its device profiled first). Every
// change is journaled; the caller undoes them. It returns the phase with
// the backend's names and the zram device's number (-1: a file).
func (ps *profileSession) setupBackend(ctx context.Context, backend string, zramSize, fileSize units.Bytes) (Phase, int, error) {
	o := ps.o
	ph := Phase{Backend: backend}
	zramID := -1
	switch backend {
	case measure.BackendZram:
		ph.Name, ph.Class = "zram-"+o.ZramAlgorithm, "zram-"+o.ZramAlgorithm
		ph.Device = "zram " + o.ZramAlgorithm
		z, err := host.SetupZram(ps.Host, ps.Journal, o.ZramAlgorithm, zramSize, zramSize, false, func(dev string) error {
			// The command's own pages cannot be sampled; time pages of the
			// probe's compressible content (about 3:1 for lz4).
			lat, err := host.MeasureZramLatency(ps.Host, dev, o.ZramAlgorithm, measure.ContentCompressible)
			if err != nil {
				ps.note("zram latency: %v", err)
				return nil
			}
			ps.rep.ZramLatency = lat
			return nil
		})
		if err != nil {
			return ph, -1, fmt.Errorf("setting up zram: %w", err)
		}
		zramID = z.ID
	case measure.BackendFile:
		// Right before the file's runs: a disk shared with other work
		// answers in 30us one minute and 300us the next.
		if o.DeviceProfile && ps.rep.Device == nil {
			if err := ps.deviceProfile(ctx); err != nil {
				return ph, -1, err
			}
		}
		ph.Name = "file"
		ph.Class = o.DeviceClass
		if ph.Class == "" {
			ph.Class = ps.fileClass // the measured latency's class, when the kernel's contradicts it
		}
		if ph.Class == "" {
			ph.Class = ps.target.DeviceClass()
		}
		ph.Device = ps.target.DeviceName()
		path := filepath.Join(ps.target.Dir, fmt.Sprintf("memplan-profile-%d.swap", os.Getpid()))
		if err := host.AddSwapFile(ps.Host, ps.Journal, ps.target, path, fileSize); err != nil {
			return ph, -1, err
		}
	}
	return ph, zramID, nil
}

// zramSize is the disk size (and memory limit) of a zram device that holds
// the whole resident peak, MiB aligned.
func (ps *profileSession) zramSize() units.Bytes {
	return (ps.rep.Footprint + 64*units.MiB) / units.MiB * units.MiB
}

// memsw is a limited run's memory+swap limit: the whole footprint may go
// to swap and then some.
func (ps *profileSession) memsw(limit units.Bytes) units.Bytes {
	return limit + ps.rep.Footprint*3/2 + 64*units.MiB
}

// runTimeout is when a run is stopped: --max-slowdown times the sizing
// run, at least 10s.
func (ps *profileSession) runTimeout() time.Duration {
	return time.Duration(math.Max(ps.rep.Sizing.Wall*ps.o.MaxSlowdown, 10) * float64(time.Second))
}

// limitAt is the memory limit at a fit ratio, page aligned.
func limitAt(fit float64, footprint units.Bytes) units.Bytes {
	l := units.Bytes(fit * float64(footprint))
	return l / units.Bytes(host.PageSize) * units.Bytes(host.PageSize)
}

func (ps *profileSession) finishPoint(ph *Phase, pt *Point, rr *measure.Rounds, i int) {
	base := ph.Baseline()
	pr := rr.Point(i)
	pt.Runs = rr.Points[i]
	pt.Samples, pt.Failed, pt.OOMKilled, pt.Censored, pt.Disturbed = pr.Samples, pr.Failed, pr.OOMKilled, pr.Censored, pr.Disturbed
	t := pr.Tally
	pt.MajFlt, pt.SwapIns, pt.SwapOuts, pt.PSISome, pt.PSIFull, pt.ZramRatio = t.MajFlt, t.SwapIns, t.SwapOuts, t.PSISome, t.PSIFull, t.ZramRatio
	if t.N > 0 {
		for _, r := range pt.Runs {
			if r.Failed == "" && !r.OOMKilled && !r.Censored {
				pt.Wall += r.Wall
			}
		}
		pt.Wall /= float64(t.N)
		if pt.MajFlt > 0 && pt.Wall > base {
			pt.FaultTime = (pt.Wall - base) / pt.MajFlt
		}
	}
	pt.Slowdown = measure.Summarize(pt.Samples)
	pt.IdleHost = measure.Summarize(pr.IdleHost)
	noise := 0.0
	if ph.InRAM.Mean > 0 {
		noise = ph.InRAM.SD / ph.InRAM.Mean
	}
	if pt.Verdict = measure.Verdict(pt.Slowdown, noise); pt.Verdict != "" {
		ps.note("%s at fit %g: %s", ph.Name, pt.Fit, pt.Verdict)
	}
	if pt.Disturbed > 0 {
		ps.note("%s at fit %g: %d of %d runs were disturbed, %s; the idle-host slowdown is %.3f (%.3f-%.3f) against %.3f by the clock",
			ph.Name, pt.Fit, pt.Disturbed, len(pt.Runs), measure.DisturbedBy(contentions(pt.Runs)), pt.IdleHost.Mean, pt.IdleHost.Lo, pt.IdleHost.Hi, pt.Slowdown.Mean)
	}
	if pt.Failed > 0 {
		ps.note("%s at fit %g: %d of %d runs failed (%d OOM-killed in their cgroup): %s", ph.Name, pt.Fit, pt.Failed, len(pt.Runs), pt.OOMKilled, firstFailure(pt.Runs))
	}
	if pt.Censored > 0 {
		ps.note("%s at fit %g: %d run(s) hit the %gx time cap and were stopped; their slowdown counts as the cap, a lower bound", ph.Name, pt.Fit, pt.Censored, ps.o.MaxSlowdown)
	}
}

func firstFailure(runs []measure.RunResult) string {
	for _, r := range runs {
		if r.Failed != "" {
			return r.Failed
		}
	}
	return ""
}

// contentions lists the runs' contention records.
func contentions(runs []measure.RunResult) []measure.Contention {
	var cs []measure.Contention
	for _, r := range runs {
		if r.Contention != nil {
			cs = append(cs, *r.Contention)
		}
	}
	return cs
}

// firstDisturbance describes the first disturbed run among runs.
func firstDisturbance(runs []measure.RunResult) string {
	for _, r := range runs {
		if r.Contention != nil && r.Contention.Disturbed {
			return fmt.Sprintf("run %d %s", r.Rep, r.Contention.Why)
		}
	}
	return ""
}

// profileOrderSeed seeds the order of every profile's rounds (the stream is
// the phase's index): a profile's order is the same on every host.
const profileOrderSeed = 0x6d656d706c616e

// rule is the profile's stopping rule for a phase's rounds.
func (ps *profileSession) rule() measure.RoundRule {
	return measure.RoundRule{Runs: ps.o.Runs, RunsFlag: "--runs", Precision: ps.o.Precision, Budget: ps.o.Budget}
}

// run runs the command once in a fresh cgroup below the profile's with the
// spec's limits. Only infrastructure failures and cancellation are errors;
// a command that fails is a result.
func (ps *profileSession) run(ctx context.Context, rs measure.RunSpec) (measure.RunResult, error) {
	res := measure.RunResult{Backend: rs.Backend, Fit: rs.Fit, Rep: rs.Rep, Limit: max(rs.Limit, 0)}
	mark := ps.Journal.Len()
	defer func() {
		if err := ps.Journal.UndoTo(mark); err != nil {
			ps.note("cleaning up after a run: %v", err)
		}
	}()
	cg, err := ps.NewRunCgroup(false)
	if err != nil {
		return res, err
	}
	if err := cg.SetLimit(measure.NoneIfZero(rs.Limit), measure.NoneIfZero(rs.MemSw)); err != nil {
		return res, fmt.Errorf("setting the memory limit of the run's cgroup: %w", err)
	}
	stdout, stderr, keepOut, closeOut, err := ps.outputs()
	if err != nil {
		return res, err
	}
	defer closeOut()
	var stopSampler func() (onepass.Samples, error)
	if ps.o.OnePass && rs.Backend == "sizing" {
		if stopSampler, err = ps.startSampler(ctx, cg); err != nil {
			return res, err
		}
	}
	c0 := ps.Counters(cg)
	r, err := ps.launch(ps.spec, ps.o.Dir, stdout, stderr, cg)
	if err != nil {
		var le *launchError
		if errors.As(err, &le) {
			return res, fmt.Errorf("%s: %w", measure.ShellQuote(ps.o.Command), err)
		}
		return res, err
	}
	var resident units.Bytes
	waits := map[int]time.Duration{} // per thread, the last run_delay seen
	sample := func() {
		for _, tid := range cg.Threads() {
			if w, err := host.ReadRunDelay(ps.Host, tid); err == nil && w > waits[tid] {
				waits[tid] = w
			}
		}
		if st, err := cg.Stat(); err == nil {
			resident = max(resident, residentOf(st, cg.Version))
		}
		if rs.Zram != "" {
			if m, err := host.ReadMMStat(ps.Host, rs.Zram); err == nil && m.OrigData >= res.ZramOrig {
				res.ZramOrig, res.ZramUsed, res.ZramRatio = m.OrigData, m.MemUsed, m.Ratio()
			}
		}
	}
	timedOut, err := r.wait(ctx, ps.Host, cg, rs.Timeout, sample)
	res.Wall = time.Since(r.started).Seconds()
	if stopSampler != nil {
		var serr error
		if ps.sampled, serr = stopSampler(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return res, err
	}
	sample()
	res.Resident = resident
	st := r.cmd.ProcessState
	c1 := ps.Counters(cg)
	countRun(&res, st, cg, c0, c1)
	var wait time.Duration
	for _, w := range waits {
		wait += w
	}
	contention := measure.Assess(res.Wall, res.User+res.Sys, wait.Seconds(), c0.CPU, c1.CPU)
	res.Contention = &contention
	res.ExitCode, res.Signal, res.Failed = exitDescription(st)
	if res.ExitCode == 0 && res.Signal == "" {
		res.Failed = ""
	}
	if !timedOut {
		keepOut()
	}
	switch {
	case timedOut:
		res.Censored, res.Failed = true, ""
	case res.Failed != "" && cg.OomKills() > 0:
		res.OOMKilled = true
		res.Failed = "OOM-killed inside its cgroup (" + res.Failed + ")"
	case res.Failed != "":
		res.Stderr = r.tail.String()
	}
	return res, nil
}

// residentOf is the memory the command holds that swapping (rather than
// dropping clean page cache) would have to move: anonymous and shared
// memory and mapped file pages.
func residentOf(st map[string]int64, version int) units.Bytes {
	if version == 2 {
		return units.Bytes(st["anon"] + st["shmem"] + st["file_mapped"])
	}
	return units.Bytes(st["total_rss"] + st["total_shmem"] + st["total_mapped_file"])
}

// outputs opens where the command's output goes for one run. A named
// file is written under a temporary name beside it; keep puts it in place,
// so the file holds the last run that ended by itself, never the stub of a
// run stopped at the time cap. closeAll removes what was not kept.
func (ps *profileSession) outputs() (stdout, stderr io.Writer, keep, closeAll func(), err error) {
	type out struct {
		f      *os.File
		target string
	}
	var files []out
	kept := false
	keep = func() { kept = true }
	closeAll = func() {
		for _, o := range files {
			o.f.Close()
			if o.target == "" {
				continue
			}
			if kept {
				if err := os.Rename(o.f.Name(), o.target); err == nil {
					continue
				}
			}
			os.Remove(o.f.Name())
		}
	}
	open := func(name string, pass io.Writer) (io.Writer, error) {
		if name == "" {
			if pass == nil {
				return io.Discard, nil
			}
			return pass, nil
		}
		if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() {
			// /dev/null, a pipe, a terminal: written as it is, never
			// replaced.
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("opening the command's output file: %w", err)
			}
			files = append(files, out{f, ""})
			return f, nil
		}
		f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".run-*")
		if err != nil {
			return nil, fmt.Errorf("opening the command's output file: %w", err)
		}
		files = append(files, out{f, name})
		return f, nil
	}
	if stdout, err = open(ps.o.StdoutFile, ps.o.Stdout); err != nil {
		return nil, nil, keep, closeAll, err
	}
	if stderr, err = open(ps.o.StderrFile, ps.o.Stderr); err != nil {
		closeAll()
		return nil, nil, keep, func() {}, err
	}
	return stdout, stderr, keep, closeAll, nil
}

// progress renders a run for the Progress interface: an in-RAM run named
// so, its wall time as the timed one.
func progress(r measure.RunResult) measure.RunResult {
	name := r.Backend
	if r.Fit == 0 && r.Backend != "sizing" {
		name += " in RAM"
	}
	rr := measure.RunResult{Backend: name, Fit: r.Fit, Rep: r.Rep, Limit: r.Limit, Timed: r.Wall, Wall: r.Wall,
		Slowdown: r.Slowdown, Censored: r.Censored, OOMKilled: r.OOMKilled, Failed: r.Failed,
		MajFlt: r.MajFlt, SwapIn: r.SwapIn, SwapOut: r.SwapOut, Peak: r.Peak}
	if rr.Failed == "" && rr.OOMKilled {
		rr.Failed = "OOM-killed"
	}
	return rr
}

// finish computes the dirty share and the transfer summary.
func (ps *profileSession) finish() {
	rep := ps.rep
	rep.Elapsed = time.Since(rep.Started).Seconds()
	a := &rep.Phases[0]
	var ins, outs float64
	for _, pt := range a.Points {
		ins += pt.SwapIns
		outs += pt.SwapOuts
	}
	if rep.OneRun != nil {
		// A one run's swap-outs come when a limit drops, its swap-ins
		// while it holds: only the run's totals pair them.
		ins, outs = float64(rep.Sizing.SwapIn), float64(rep.Sizing.SwapOut)
	}
	rep.Dirty, rep.DirtyNote = dirtyShare(ins, outs, a.Backend)
	for i := range rep.Phases {
		ph := &rep.Phases[i]
		ph.Reference, ph.RefSource = ps.reference(ph)
		ph.Reference.Concurrency = 1
		ph.Reference.DirtyShare = units.Ratio(rep.Dirty)
	}
	rep.Transfer = transferSummary(a, rep.Dirty, rep.Readahead)
	if len(rep.Phases) > 1 {
		o := time.Duration(rep.Transfer.Calibrated * 1e3)
		v := validate(a, &rep.Phases[1], rep.Dirty, o, rep.Transfer.Readahead, rep.Readahead)
		rep.Validation = &v
	}
	rep.Transfer.choose(rep.Validation)
	if rep.OneRun != nil {
		rep.Transfer.oneRun(rep.OneRun.Faults)
	}
}

// DirtyMeasured reports whether the dirty share was measured (something
// was swapped in), rather than the model's default.
func (r *Report) DirtyMeasured() bool {
	return r.OnePass == nil && len(r.Phases) > 0 && !strings.HasPrefix(r.DirtyNote, "no swap-ins")
}

// dirtyShare estimates the share of evicted pages that had to be written
// (swap-outs per swap-in); the model's write term scales with it.
func dirtyShare(ins, outs float64, backend string) (float64, string) {
	if ins <= 0 {
		return float64(model.DefaultDirtyShare), fmt.Sprintf("no swap-ins were measured; the dirty share is the model's default %g", float64(model.DefaultDirtyShare))
	}
	d := math.Min(outs/ins, 1)
	note := fmt.Sprintf("swap-outs per swap-in over the fit-ratio runs: %.0f / %.0f", outs, ins)
	if backend == measure.BackendZram {
		note += "; zram frees a page's swap copy when it reads it back, so every eviction writes again and this is an upper bound of the share a swap file would write"
	}
	return measure.Round4(d), note
}

// reference is the device a phase's curve was measured on.
func (ps *profileSession) reference(ph *Phase) (factors.Reference, string) {
	ref := factors.Reference{Device: ph.Device, Drives: 1, Footprint: ps.rep.Footprint}
	fault := 0.0
	var n float64
	for _, pt := range ph.Points {
		if pt.FaultTime > 0 {
			fault += pt.FaultTime
			n++
		}
	}
	if n > 0 {
		fault /= n
	}
	fallback := func(why string) string {
		if fault <= 0 {
			return why + "; no per-fault time either"
		}
		ref.ReadLatency = units.Duration(math.Round(fault * 1e9))
		ref.WriteLatency = ref.ReadLatency
		return why + "; the reference latency is the measured extra time per major fault"
	}
	switch ph.Backend {
	case measure.BackendZram:
		if z := ps.rep.ZramLatency; z != nil && z.ReadMean > 0 {
			ref.ReadLatency = units.Duration(math.Round(z.ReadMean * 1e3))
			ref.WriteLatency = units.Duration(math.Round(z.WriteMean * 1e3))
			return ref, fmt.Sprintf("zram %s: O_DIRECT 4 KiB reads and writes of %s pages on the device before it became swap", z.Algorithm, z.Content)
		}
		return ref, fallback("no raw zram latency")
	case measure.BackendFile:
		if d := ps.rep.Device; d != nil && d.RandReadQD1 != nil && d.RandReadQD1.Latency.MeanUs > 0 {
			ref = d.Reference()
			ref.Drives = 1
			return ref, "device profile of " + d.Path + ": mean 4 KiB latency at queue depth 1, IOPS at queue depth 32"
		}
		return ref, fallback("no device profile")
	}
	return ref, ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// countRun fills a finished run's counters: swap traffic and PSI between c0
// and c1, the cgroup's peak, the command's rusage, and the cgroup's major
// faults where they are more (every process in it counts, also those the
// command did not wait for).
func countRun(res *measure.RunResult, st *os.ProcessState, cg *host.Cgroup, c0, c1 host.Counters) {
	res.SwapIn, res.SwapOut = c1.VM["pswpin"]-c0.VM["pswpin"], c1.VM["pswpout"]-c0.VM["pswpout"]
	res.PSISome = (c1.PSI.Some.Total - c0.PSI.Some.Total).Seconds()
	res.PSIFull = (c1.PSI.Full.Total - c0.PSI.Full.Total).Seconds()
	res.PSIScope = "system"
	if cg.IsV2() {
		res.PSIScope = "cgroup"
	}
	if p, err := cg.Peak(); err == nil {
		res.Peak = p
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		res.MajFlt, res.MinFlt = ru.Majflt, ru.Minflt
		res.MaxRSS = units.Bytes(ru.Maxrss) * units.KiB
		res.User = time.Duration(ru.Utime.Nano()).Seconds()
		res.Sys = time.Duration(ru.Stime.Nano()).Seconds()
	}
	if kv, err := cg.Stat(); err == nil {
		if v, ok := kv["pgmajfault"]; ok && v >= res.MajFlt {
			res.MajFlt = v
		}
	}
}
