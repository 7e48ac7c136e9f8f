package measure

// session is one probe run's state: the host, the journal and where its
// cgroups and files live.
type session struct {
	h        Host
	j        *Journal
	layout   *CgroupLayout
	plan     *Plan
	rep      *Report
	exe      string
	memDir   string // the probe's cgroup in the memory hierarchy; "" unconfined
	blkDir   string // and in blkio (v1), when throttling
	codeFile string
	runSeq   int
	swapMark int // journal length before the swap file; -1 when none
	baseWall float64
	zram     *zramSwap
	prog     Progress
}

func (s *session) note(format string, args ...any) {
	msg := sprintf(format, args...)
	if s.rep != nil {
		s.rep.Notes = append(s.rep.Notes, msg)
	}
	if s.prog != nil {
		s.prog.Note(msg)
	}
}

// recordFile journals a file about to be created (the device profile's
// test file), so that cleanup removes it after a kill -9.
func (s *session) recordFile(path string) error {
	if s.j == nil {
		return nil // nothing journaled yet: an unprivileged run changes nothing else
	}
	_, err := s.j.Record(Entry{Op: opFile, Path: path})
	return err
}
