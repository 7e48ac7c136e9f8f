//go:build linux

package probe

import (
	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
)

// session is one probe run's state: the host, the journal and where its
// cgroups and files live.
type session struct {
	*host.Confinement
	plan *Plan // as MakePlan made it; read only
	// stages are the plan's stages this run measures: the device profile
	// drops the emulations throttling cannot make (deviceProfile).
	stages []Stage
	// workDir is where the code file and the scenarios' files go: the
	// plan's, or a temporary directory for an unprivileged run.
	workDir  string
	rep      *Report
	codeFile string
	swapMark int // journal length before the swap file; -1 when none
	baseWall float64
	zram     *host.ZramSwap
	prog     measure.Progress
}

func (s *session) note(format string, args ...any) {
	msg := measure.Sprintf(format, args...)
	if s.rep != nil {
		s.rep.Notes = append(s.rep.Notes, msg)
	}
	if s.prog != nil {
		s.prog.Note(msg)
	}
}
