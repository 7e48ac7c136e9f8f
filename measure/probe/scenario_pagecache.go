//go:build linux

package probe

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// The page-cache scenario follows the SAP study: a steady workload whose
// buffers fit its memory while a writer writes files of growing size, once
// without a remedy and once per remedy the source compared.

// Page-cache remedies.
const (
	RemedyNone         = "none"          // swappiness 60, writer in the workload's cgroup
	RemedySwappiness30 = "swappiness-30" //
	RemedySwappiness10 = "swappiness-10" //
	RemedySwappiness0  = "swappiness-0"  //
	RemedyWriterCgroup = "writer-cgroup" // the writer in a memory cgroup of its own with a limit
	RemedyODirect      = "odirect"       // the writer bypasses the page cache
	RemedyDontNeed     = "dontneed"      // the writer syncs and drops what it wrote
	RemedyMlock        = "mlock"         // the workload's buffers locked in memory
	RemedyCopy         = "copy"          // not a remedy: a copy of 3-10MB files as the writer (a backup during the day)
)

var allRemedies = []string{RemedyNone, RemedySwappiness30, RemedySwappiness10, RemedySwappiness0,
	RemedyWriterCgroup, RemedyODirect, RemedyDontNeed, RemedyMlock, RemedyCopy}

// remedyPublished is what the source reported for each remedy.
var remedyPublished = map[string]string{
	RemedyNone:         "almost 40% loss with writes of 16GiB and more",
	RemedySwappiness30: "indistinguishable from 60",
	RemedySwappiness10: "indistinguishable from 60",
	RemedySwappiness0:  "protected the application on one distribution, not on another",
	RemedyWriterCgroup: "page-cache limit: performance flat",
	RemedyODirect:      "listed as a remedy, no figure",
	RemedyDontNeed:     "listed as a remedy, no figure",
	RemedyMlock:        "listed as a remedy, no figure",
	RemedyCopy:         "not measured (a backup during the day)",
}

// Writer modes.
const (
	writeBuffered = ""         // ordinary buffered writes, as dd does
	writeDirect   = "direct"   // O_DIRECT
	writeDontNeed = "dontneed" // fdatasync and fadvise(DONTNEED) every 8MiB
	copyHold      = "hold"     // the copy child keeps running after the copy
)

// writerCgroupLimit is the writer's own cgroup's limit: a quarter of the
// workload's, as a page-cache limit would be set.
func writerCgroupLimit(limit units.Bytes) units.Bytes {
	return max(limit/4, 32*units.MiB) / units.MiB * units.MiB
}

// pageCacheScenario runs the workload for a fixed time at a limit it fits
// in, first alone and then while a writer writes one file of each size, per
// remedy, and reports the workload's throughput against the file size.
func (s *session) pageCacheScenario(ctx context.Context) error {
	if err := s.ensureSwapFile(); err != nil {
		return err
	}
	o := s.plan.Options
	reps := max(o.Reps/2, 1)
	var sizes []float64
	hasZero := false
	for _, m := range o.PageCacheSizes {
		if m == 0 {
			hasZero = true
		} else {
			sizes = append(sizes, m)
		}
	}
	runs := len(sizes) * len(o.PageCacheRemedies) * reps
	if hasZero {
		runs += reps
	}
	s.prog.Stage("page-cache scenario", runs)
	limit := s.limitFor(o.PageCacheFit)
	var alone float64
	if hasZero {
		res, err := s.pageCacheSize(ctx, RemedyNone, 0, limit, reps, 0)
		if err != nil {
			return err
		}
		alone = res.Rate.Mean
	} else {
		s.note("page-cache scenario: no run without a writer (size 0), so the throughput loss is not computed")
	}
	for _, remedy := range o.PageCacheRemedies {
		mark := s.Journal.Len()
		if v, ok := strings.CutPrefix(remedy, "swappiness-"); ok && s.Layout.Version == 2 {
			n, _ := strconv.Atoi(v)
			if err := s.setGlobalSwappiness(n); err != nil {
				s.note("page-cache scenario: %s cannot be applied: %v", remedy, err)
				continue
			}
		}
		for _, m := range sizes {
			if _, err := s.pageCacheSize(ctx, remedy, m, limit, reps, alone); err != nil {
				return err
			}
		}
		if err := s.Journal.UndoTo(mark); err != nil {
			return err
		}
	}
	return nil
}

// pageCacheSize runs one remedy at one file size.
func (s *session) pageCacheSize(ctx context.Context, remedy string, m float64, limit units.Bytes, reps int, alone float64) (*PageCacheResult, error) {
	o := s.plan.Options
	dur := 15 * time.Second
	if o.Quick {
		dur = 6 * time.Second
	}
	writerDir := filepath.Join(s.workDir, "writer")
	srcDir := filepath.Join(s.workDir, "copy-source")
	res := PageCacheResult{Multiple: m, FileSize: units.Bytes(m*float64(limit)) / units.MiB * units.MiB,
		Remedy: remedy, Published: remedyPublished[remedy]}
	if m == 0 {
		res.Published = "the reference: no writer"
	}
	if remedy == RemedyCopy && res.FileSize > 0 {
		if _, err := writeFileSet(s.Host, srcDir, "medium", mediumSizes(res.FileSize, uint64(m*100)), s.recordNothing); err != nil {
			return nil, err
		}
		defer func() { _ = host.RemoveTree(s.Host, srcDir) }()
	}
	var rates []float64
	for r := 0; r < reps; r++ {
		spec := s.spec(uint64(r))
		spec.Duration = dur
		rs := runSpec{RunSpec: measure.RunSpec{Backend: fmt.Sprintf("pagecache %s %gx", remedy, m), Fit: 1, Rep: r + 1, Limit: limit, MemSw: s.memswFor(limit),
			Timeout: dur + 2*time.Duration(s.baseWall*float64(time.Second)) + time.Minute}, Spec: spec}
		if s.Layout.Version == 1 {
			v := 60
			if n, ok := strings.CutPrefix(remedy, "swappiness-"); ok {
				v, _ = strconv.Atoi(n)
			}
			rs.Swappiness = &v
		}
		if res.FileSize > 0 {
			if err := s.Host.MkdirAll(writerDir, 0o700); err != nil {
				return nil, err
			}
			w := &WorkloadSpec{Role: roleWriter, Dir: writerDir, FileSize: res.FileSize, Seed: uint64(r + 7)}
			switch remedy {
			case RemedyWriterCgroup:
				rs.WriterLimit = writerCgroupLimit(limit)
			case RemedyODirect:
				w.WriteMode = writeDirect
			case RemedyDontNeed:
				w.WriteMode = writeDontNeed
			case RemedyMlock:
				rs.Spec.Mlock = true
			case RemedyCopy:
				w = &WorkloadSpec{Role: roleCopy, CopySrc: []string{srcDir}, CopyDst: filepath.Join(writerDir, "copy"), WriteMode: copyHold}
			}
			rs.Writer = w
		}
		run, err := s.runOne(ctx, rs)
		_ = host.RemoveTree(s.Host, writerDir)
		if err != nil {
			return nil, err
		}
		if res.FileSize == 0 && run.Rate > 0 {
			run.Slowdown = 1
		} else if alone > 0 && run.Rate > 0 {
			run.Slowdown = alone / run.Rate
		}
		s.prog.RunDone(run)
		res.Runs = append(res.Runs, run)
		if run.Failed != "" || run.Rate <= 0 {
			res.Failed++
			continue
		}
		rates = append(rates, run.Rate)
		res.SwapOuts += float64(run.SwapOut)
		res.MajFlt += float64(run.MajFlt)
		res.Written += float64(run.WrittenMiB)
	}
	if n := float64(len(rates)); n > 0 {
		res.SwapOuts /= n
		res.MajFlt /= n
		res.Written /= n
	}
	res.Rate = measure.Summarize(rates)
	if m == 0 {
		alone = res.Rate.Mean
	}
	if alone > 0 && res.Rate.N > 0 {
		res.Loss = 1 - res.Rate.Mean/alone
	}
	s.rep.PageCache = append(s.rep.PageCache, res)
	return &s.rep.PageCache[len(s.rep.PageCache)-1], nil
}

// recordNothing: files under the working directory need no journal entry
// of their own (the directory's entry removes them).
func (s *session) recordNothing(string) error { return nil }

// pageCacheRuns counts the scenario's runs: the workload alone, then every
// remedy at every non-zero size.
func (p *Plan) pageCacheRuns() int {
	o := p.Options
	reps := max(o.Reps/2, 1)
	n := 0
	for _, m := range o.PageCacheSizes {
		if m == 0 {
			n += reps
		} else {
			n += reps * len(o.PageCacheRemedies)
		}
	}
	return n
}
