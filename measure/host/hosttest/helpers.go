//go:build linux

package hosttest

import (
	"sync"
	"testing"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
)

// Unchanged fails the test when the host's swap, zram, cgroup, swappiness
// or zswap state differs from before (host.State of the real host).
func Unchanged(t *testing.T, before string) {
	t.Helper()
	if after := host.State(host.NewOSHost()); after != before {
		t.Errorf("the host is not as it was:\n--- before\n%s--- after\n%s", before, after)
	}
}

// Progress logs what a probe or a profile reports to the test's log and
// keeps the stage names; OnRun, when set, sees every finished run.
type Progress struct {
	T      *testing.T
	mu     sync.Mutex
	Stages []string
	OnRun  func(measure.RunResult)
}

func (p *Progress) Stage(name string, runs int) {
	p.mu.Lock()
	p.Stages = append(p.Stages, name)
	p.mu.Unlock()
	p.T.Logf("stage %s: %d runs", name, runs)
}

func (p *Progress) RunDone(r measure.RunResult) {
	p.T.Logf("  %s fit %g rep %d: slowdown %.2f, timed %.2fs, %d major faults%s", r.Backend, r.Fit, r.Rep, r.Slowdown, r.Timed, r.MajFlt, map[bool]string{true: ", failed: " + r.Failed}[r.Failed != ""])
	if p.OnRun != nil {
		p.OnRun(r)
	}
}

func (p *Progress) Note(msg string) { p.T.Logf("note: %s", msg) }

// NonRoot is a host as an unprivileged user sees it.
type NonRoot struct{ host.Host }

func (NonRoot) IsRoot() bool { return false }
