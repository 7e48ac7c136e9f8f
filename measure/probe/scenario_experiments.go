//go:build linux

package probe

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// The source experiments (swapdemo, the page-cache remedies, the copy
// workloads) hook into the probe here, so that the probe's own files only
// call these.

func (o *Options) validateExperiments() error {
	if o.Limit != 0 && o.Limit < 64*units.MiB {
		return measure.OptErr("limit", "%s is too small for the swapdemo experiment; expected 64MiB or more", o.Limit)
	}
	if o.Budget < 0 || (o.Budget > 0 && o.Budget < time.Second) {
		return measure.OptErr("swapdemo-budget", "%s is too short; expected a time budget per run of a second or more (the experiment's is 2m)", o.Budget)
	}
	if o.CodePasses < 0 || o.CodePasses > 100 {
		return measure.OptErr("code-passes", "%g is out of range; expected the times a swapdemo iteration reads its code through, above 0 and at most 100 (default 8)", o.CodePasses)
	}
	if o.PageCacheFit != 0 && !(o.PageCacheFit >= 0.5 && o.PageCacheFit <= 4) {
		return measure.OptErr("pagecache-fit", "%g is out of range; expected the page-cache scenario's memory limit over the workload's footprint, 0.5 to 4 (default 1)", o.PageCacheFit)
	}
	if o.CopyRuns < 0 || o.CopyRuns > 100 {
		return measure.OptErr("copy-runs", "%d is out of range; expected 3 to 100 (the benchmark ran 8)", o.CopyRuns)
	}
	if o.CopyRuns > 0 && o.CopyRuns < 3 {
		return measure.OptErr("copy-runs", "%d runs leave nothing once the best and worst are dropped; expected 3 or more (the benchmark ran 8)", o.CopyRuns)
	}
	for _, name := range o.SwapdemoSettings {
		if !slices.Contains(allSwapdemoNames(), name) {
			// Only tests set these (no flag): a plain error.
			return fmt.Errorf("probe: unknown swapdemo setting %q; expected some of %s", name, joinComma(allSwapdemoNames()))
		}
	}
	for _, r := range o.PageCacheRemedies {
		if !slices.Contains(allRemedies, r) {
			return measure.OptErr("pagecache-remedies", "unknown remedy %q; expected some of %s", r, joinComma(allRemedies))
		}
	}
	return nil
}

func (o *Options) fillExperiments() {
	if o.Budget == 0 {
		o.Budget = 2 * time.Minute
		if o.Quick {
			o.Budget = 20 * time.Second
		}
	}
	if o.PageCacheFit == 0 {
		o.PageCacheFit = 1
	}
	if o.CopyRuns == 0 {
		o.CopyRuns = 8
	}
	if o.CodePasses == 0 {
		o.CodePasses = defaultCodePasses
	}
	if len(o.PageCacheRemedies) == 0 {
		o.PageCacheRemedies = []string{RemedyNone}
	}
	if slices.Contains(o.PageCacheRemedies, "all") {
		o.PageCacheRemedies = append([]string(nil), allRemedies...)
	}
}

// needsBaseline reports whether a scenario refers to the in-RAM baseline
// (the experiments have their own references).
func (p *Plan) needsBaseline() bool {
	o := p.Options
	return o.scenario(ScenarioCurves) || o.scenario(ScenarioSwappiness) || o.scenario(ScenarioPageCache)
}

func (p *Plan) planExperiments(h host.Host) error {
	o := p.Options
	if o.scenario(ScenarioSwapdemo) {
		if err := p.planSwapdemo(); err != nil {
			return err
		}
	}
	if o.scenario(ScenarioCopy) {
		p.planCopy()
	}
	return nil
}

// experimentCeiling is the probe cgroup's memory ceiling the experiments
// need.
func (p *Plan) experimentCeiling() units.Bytes {
	var c units.Bytes
	if sd := p.Swapdemo; sd != nil {
		c = max(c, sd.Limit+128*units.MiB)
	}
	if cp := p.Copy; cp != nil {
		c = max(c, cp.Limit+128*units.MiB)
	}
	return c
}

// experimentSwapDirNeed is the room the experiments need in --swap-dir.
func (p *Plan) experimentSwapDirNeed() units.Bytes {
	var n units.Bytes
	if sd := p.Swapdemo; sd != nil && p.Root {
		n = max(n, sd.SwapFile)
	}
	if cp := p.Copy; cp != nil {
		n = max(n, 2*cp.total())
	}
	return n
}

func (p *Plan) describeExperiments(add func(string, ...any)) {
	if !p.Root {
		return
	}
	if sd := p.Swapdemo; sd != nil {
		o := p.Options
		n := len(o.swapdemoSettings()) * max(sd.Reps, 1)
		p.Runs += n
		add("swapdemo experiment: memory limit %s, %s data + %s code file, %s chunk; swap file %s (priority %d) in %s, zram %s (priority %d) for the zram runs; up to %d runs (%d per setting, a setting that cannot finish in the budget runs once) of up to %d iterations or %s each: %s",
			sd.Limit, sd.Data, sd.Code, sd.Chunk, sd.SwapFile, swapdemoFilePriority, p.Swap.Dir, sd.ZramSize, host.SwapPriority, n, max(sd.Reps, 1), sd.Iterations, units.Duration(sd.Budget), swapdemoNames(o.swapdemoSettings()))
	}
	if cp := p.Copy; cp != nil {
		p.Runs += 3 * cp.Runs
		add("copy workloads: write %s of files in %s (%d small files of ~13KB, %s of 3-10MB files, one %s file), copy each set %d times into a second directory there in a cgroup limited to %s, timed with the final sync; removed at the end",
			cp.total(), cp.Dir, cp.Small, cp.Medium, cp.Large, cp.Runs, cp.Limit)
	}
}

func swapdemoNames(settings []swapdemoSetting) string {
	var s []string
	for _, st := range settings {
		s = append(s, st.name)
	}
	return joinComma(s)
}

func allSwapdemoNames() []string {
	var s []string
	for _, st := range swapdemoSettings() {
		s = append(s, st.name)
	}
	return s
}

// swapdemoSettings are the experiment's settings the options select, in the
// table's order.
func (o *Options) swapdemoSettings() []swapdemoSetting {
	all := swapdemoSettings()
	if len(o.SwapdemoSettings) == 0 {
		return all
	}
	var out []swapdemoSetting
	for _, st := range all {
		if slices.Contains(o.SwapdemoSettings, st.name) {
			out = append(out, st)
		}
	}
	return out
}

// experiments runs the swapdemo and copy scenarios (after the shared swap
// file is gone: swapdemo sets up its own).
func (s *session) experiments(ctx context.Context) error {
	o := s.plan.Options
	if o.scenario(ScenarioSwapdemo) && s.plan.Swapdemo != nil {
		if err := s.swapdemoScenario(ctx); err != nil {
			return err
		}
	}
	if o.scenario(ScenarioCopy) && s.plan.Copy != nil {
		if err := s.copyScenario(ctx); err != nil {
			return err
		}
	}
	return nil
}

func joinComma(v []string) string {
	out := ""
	for i, x := range v {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
