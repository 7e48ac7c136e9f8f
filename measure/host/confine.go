//go:build linux

package host

import (
	"fmt"
	"os"
	"strings"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/units"
)

// confinement is what the probe and the profiler share of a run on the
// host: the host, the journal every change is recorded in, the cgroup
// layout, the executable re-executed for a run, and the cgroups made so far.
type Confinement struct {
	Host    Host
	Journal *Journal
	Layout  *CgroupLayout
	Exe     string
	MemDir  string // the top cgroup in the memory hierarchy; "" unconfined
	blkDir  string // and in blkio (v1), when throttling
	runSeq  int
}

// makeTopCgroup creates the cgroup every run's leaf goes below (name, in
// the memory hierarchy; on v1 also in blkio when blk), journaled, with a
// memory ceiling over all runs (and a memory+swap ceiling; -1: none).
func (s *Confinement) MakeTopCgroup(name string, blk bool, ceiling, memsw units.Bytes) error {
	l := s.Layout
	s.MemDir = l.MemParent + "/" + name
	if _, err := s.Journal.Record(Entry{Op: OpMkdirCgroup, Path: s.MemDir}); err != nil {
		return err
	}
	if err := s.Host.Mkdir(s.MemDir); err != nil {
		return fmt.Errorf("creating cgroup %s: %w", s.MemDir, err)
	}
	if l.Version == 2 {
		// Delegate the controllers to the per-run leaves (our own cgroup).
		ctl := "+memory"
		if l.IO {
			ctl += " +io"
		}
		if err := WriteString(s.Host, s.MemDir+"/cgroup.subtree_control", ctl); err != nil {
			return fmt.Errorf("enabling controllers in %s: %w", s.MemDir, err)
		}
		s.blkDir = s.MemDir
	} else if blk && l.BlkParent != "" {
		s.blkDir = l.BlkParent + "/" + name
		if _, err := s.Journal.Record(Entry{Op: OpMkdirCgroup, Path: s.blkDir}); err != nil {
			return err
		}
		if err := s.Host.Mkdir(s.blkDir); err != nil {
			return fmt.Errorf("creating cgroup %s: %w", s.blkDir, err)
		}
	}
	top := &Cgroup{Host: s.Host, Version: l.Version, Mem: s.MemDir}
	if err := top.SetLimit(ceiling, memsw); err != nil {
		return fmt.Errorf("setting the memory ceiling of %s: %w", s.MemDir, err)
	}
	return nil
}

// counters are the system-wide (or cgroup) figures sampled at the edges of
// the timed phase.
type Counters struct {
	VM     map[string]int64
	PSI    PSI
	Cgroup map[string]int64 // the run cgroup's memory.stat
	CPU    measure.CPUTimes // the host's CPU time (/proc/stat)
}

func (s *Confinement) Counters(cg *Cgroup) Counters {
	c := Counters{}
	c.CPU, _ = ReadCPUTimes(s.Host)
	c.VM, _ = readKeyValues(s.Host, "/proc/vmstat")
	if cg != nil {
		c.Cgroup, _ = cg.Stat()
	}
	if p, ok := cg.pressure(); ok {
		c.PSI = p
	} else {
		c.PSI, _ = readPSI(s.Host, "/proc/pressure/memory")
	}
	return c
}

// newRunCgroup creates a leaf cgroup for one run inside the probe's cgroup.
func (s *Confinement) NewRunCgroup(io bool) (*Cgroup, error) {
	s.runSeq++
	name := fmt.Sprintf("run-%d", s.runSeq)
	cg := &Cgroup{Host: s.Host, Version: s.Layout.Version, Mem: s.MemDir + "/" + name}
	if _, err := s.Journal.Record(Entry{Op: OpMkdirCgroup, Path: cg.Mem}); err != nil {
		return nil, err
	}
	if err := s.Host.Mkdir(cg.Mem); err != nil {
		return nil, fmt.Errorf("creating cgroup %s: %w", cg.Mem, err)
	}
	cg.Lines = []string{s.Layout.MemPrefix + strings.TrimPrefix(cg.Mem, s.Layout.MemParent)}
	switch {
	case s.Layout.Version == 2:
		cg.Blk = cg.Mem
	case io:
		cg.Blk = s.blkDir + "/" + name
		if _, err := s.Journal.Record(Entry{Op: OpMkdirCgroup, Path: cg.Blk}); err != nil {
			return nil, err
		}
		if err := s.Host.Mkdir(cg.Blk); err != nil {
			return nil, fmt.Errorf("creating cgroup %s: %w", cg.Blk, err)
		}
		cg.Lines = append(cg.Lines, s.Layout.BlkPrefix+strings.TrimPrefix(cg.Blk, s.Layout.BlkParent))
	}
	return cg, nil
}

// recordFile journals a file about to be created (the device profile's
// test file), so that cleanup removes it after a kill -9.
func (s *Confinement) RecordFile(path string) error {
	if s.Journal == nil {
		return nil // nothing journaled yet: an unprivileged run changes nothing else
	}
	_, err := s.Journal.Record(Entry{Op: OpFile, Path: path})
	return err
}

func CheckConfined(lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		have[l] = true
	}
	for _, want := range lines {
		if !have[want] {
			return fmt.Errorf("not confined: /proc/self/cgroup lacks %q, refusing to allocate", want)
		}
	}
	return nil
}
