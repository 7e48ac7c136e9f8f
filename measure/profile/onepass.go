//go:build linux

package profile

import (
	"context"
	"fmt"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/onepass"
)

// One pass (memplan profile --one-pass): the command runs once, without a
// memory limit, in its own cgroup, while measure/onepass samples which of
// its pages it references over windows of many lengths; the slowdown curve
// is inferred from that (docs/profile.md, "One pass"). The sampler runs in
// this process, never in the job's cgroup, and changes nothing on the host
// that needs undoing; the cgroup is journaled like every run's.

// OnePassReport is what a one-pass profile inferred.
type OnePassReport struct {
	Result *onepass.Result `json:"result"`
	Info   onepass.Info    `json:"-"`
}

// factors is the one-pass profile as a factor file.
func (o *OnePassReport) factors(version string) (*factors.File, error) {
	info := o.Info
	info.Version = version
	return o.Result.Factors(info)
}

// startSampler starts the sampler on the run's cgroup; stop ends it and
// returns what it sampled.
func (ps *profileSession) startSampler(ctx context.Context, cg *host.Cgroup) (stop func() (onepass.Samples, error), err error) {
	s, err := onepass.New(onepass.Config{Procs: cg.Mem + "/cgroup.procs"})
	if err != nil {
		return nil, fmt.Errorf("one pass: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(sctx) }()
	return func() (onepass.Samples, error) {
		cancel()
		err := <-done
		if err != nil && sctx.Err() == nil {
			return s.Samples(), err
		}
		return s.Samples(), nil
	}, nil
}

// onePass infers the curve from the sizing run's samples.
func (ps *profileSession) onePass(samples onepass.Samples) error {
	r := ps.rep.Sizing
	info := onepass.Info{Command: ps.o.Command, Host: &ps.rep.Host, Started: ps.rep.Started,
		Runtime: time.Duration(r.Wall * float64(time.Second)), ExitCode: r.ExitCode,
		Peak: int64(ps.rep.Footprint), PeakSource: "the run cgroup's anonymous, shared and mapped file memory at its highest (memory.stat)",
		Charged: int64(ps.rep.PeakCharged), Fits: ps.o.Fits, Cgroup: ps.rep.Cgroup, Notes: ps.rep.Notes}
	costs := onepass.DefaultCosts()
	if ps.o.OverheadFrom != "" {
		o, src, err := overheadFrom(ps.o.OverheadFrom)
		if err != nil {
			return fmt.Errorf("one pass: --fault-overhead-from: %w", err)
		}
		costs = costs.Measured(o, src)
	}
	res, err := onepass.Derive(info, samples, costs)
	if err != nil {
		return fmt.Errorf("one pass: %w", err)
	}
	op := &OnePassReport{Result: res, Info: info}
	if _, err := op.factors(""); err != nil {
		return fmt.Errorf("one pass: %w", err)
	}
	ps.rep.OnePass = op
	if c := onepass.PageCacheNote(info.Charged, int64(res.Curve.Peak)); c != "" {
		ps.note("one pass: %s", c)
	}
	ps.note("one pass: the curve is inferred from %d window reads of the command's referenced pages (%s), not measured; its bands are wide, and docs/profile.md compares such curves with multi-run profiles",
		samples.Windows, samples.Method)
	return nil
}
