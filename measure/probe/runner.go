//go:build linux

package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// runSpec is one run to do: the run (its limits are 0 for none, such as
// the baseline's, still confined by the probe cgroup) and the workload's
// parts of it.
type runSpec struct {
	measure.RunSpec
	Swappiness *int
	Throttle   *throttleSpec
	Spec       WorkloadSpec
	Writer     *WorkloadSpec
	Zswap      bool
	// WriterLimit puts the writer in a cgroup of its own with this memory
	// limit (the page-cache scenario's remedy); 0: the workload's cgroup.
	WriterLimit units.Bytes
	// Tick, when set, is called with the run's cgroup every sample.
	Tick func(cg *host.Cgroup)
}

type throttleSpec struct {
	Dev          string
	RIOPS, WIOPS int
}

type progressLine struct {
	phase   byte
	n       int64
	elapsed time.Duration
	report  *childReport
}

// child is a started workload or writer process.
type child struct {
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
	lines  <-chan progressLine
	done   chan error
	stderr *bytes.Buffer
}

func (s *session) startChild(spec WorkloadSpec, cg *host.Cgroup) (*child, error) {
	spec.CgroupLines = cg.ProcLines()
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(s.Exe)
	cmd.Args = []string{"memplan-probe-" + spec.Role}
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{pw}
	stderr := &bytes.Buffer{}
	cmd.Stderr = &lockedWriter{w: stderr}
	// Own process group: a Ctrl-C on the terminal reaches the probe, which
	// stops the child itself. Pdeathsig kills the child if the probe dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("starting the workload (%s): %w", s.Exe, err)
	}
	pw.Close()
	lines := make(chan progressLine, 64)
	c := &child{cmd: cmd, stdin: stdin, lines: lines, done: make(chan error, 1), stderr: stderr}
	if err := cg.AddProc(cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pr.Close()
		return nil, fmt.Errorf("moving the workload into %s: %w", cg.Name(), err)
	}
	go readProgress(pr, lines)
	go func() { c.done <- cmd.Wait() }()
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

func (c *child) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 64<<10 {
		return len(p), nil
	}
	return l.w.Write(p)
}

func readProgress(r *os.File, out chan<- progressLine) {
	defer close(out)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "R "); ok {
			var rep childReport
			if json.Unmarshal([]byte(rest), &rep) == nil {
				out <- progressLine{phase: 'R', report: &rep}
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || len(f[0]) != 1 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		ns, _ := strconv.ParseInt(f[2], 10, 64)
		out <- progressLine{phase: f[0][0], n: n, elapsed: time.Duration(ns)}
	}
}

// dropCache evicts the code file's pages so that each run starts cold and
// its page cache is charged to the run's own cgroup.
func dropCache(h host.Host, name string) {
	if name == "" {
		return
	}
	_ = h.DropCache(name)
}

// runOne runs the workload once in a fresh cgroup below the probe's and
// returns its measurements. Only infrastructure failures (and
// cancellation) are errors; a workload that fails or is OOM-killed is a
// result.
func (s *session) runOne(ctx context.Context, rs runSpec) (measure.RunResult, error) {
	res := measure.RunResult{Backend: rs.Backend, Fit: rs.Fit, Rep: rs.Rep, Swappiness: rs.Swappiness}
	if rs.Limit > 0 {
		res.Limit = rs.Limit
	}
	if rs.Writer != nil {
		res.WriterFile = rs.Writer.FileSize
	}
	if s.Journal != nil {
		mark := s.Journal.Len()
		defer func() {
			dropCache(s.Host, rs.Spec.CodeFile)
			if err := s.Journal.UndoTo(mark); err != nil {
				s.note("cleaning up after a run: %v", err)
			}
		}()
	}
	var cg *host.Cgroup
	if s.MemDir != "" {
		var err error
		if cg, err = s.NewRunCgroup(rs.Throttle != nil); err != nil {
			return res, err
		}
	}
	if err := cg.SetLimit(measure.NoneIfZero(rs.Limit), measure.NoneIfZero(rs.MemSw)); err != nil {
		return res, fmt.Errorf("setting the memory limit of the run's cgroup: %w", err)
	}
	if rs.Swappiness != nil {
		if err := cg.SetSwappiness(*rs.Swappiness); err != nil {
			return res, fmt.Errorf("setting swappiness %d for the run: %w", *rs.Swappiness, err)
		}
	}
	if t := rs.Throttle; t != nil {
		if cg == nil {
			return res, host.ErrNoCgroup
		}
		if _, err := s.Journal.Record(host.Entry{Op: host.OpThrottle, Path: cg.Blk, Dev: t.Dev}); err != nil {
			return res, err
		}
		if err := cg.Throttle(t.Dev, t.RIOPS, t.WIOPS); err != nil {
			return res, fmt.Errorf("throttling %s in %s: %w", t.Dev, cg.Blk, err)
		}
	}
	dropCache(s.Host, rs.Spec.CodeFile)

	start := time.Now()
	ch, err := s.startChild(rs.Spec, cg)
	if err != nil {
		return res, err
	}
	var wr *child
	stopWriter := func() {
		if wr != nil {
			wr.kill()
			<-wr.done
			for pl := range wr.lines {
				if pl.phase == 't' {
					res.WrittenMiB = pl.n
				}
			}
			if msg := strings.TrimSpace(wr.stderr.String()); msg != "" {
				res.WriterError = msg
			}
			wr = nil
		}
	}
	defer stopWriter()

	timeout := time.NewTimer(rs.Timeout)
	defer timeout.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()

	var c0, c1 host.Counters
	var haveC0, haveC1 bool
	var report *childReport
	var last progressLine // last progress line
	var timedAt time.Duration
	var warmN int64
	var warmAt time.Duration
	var initAt time.Duration
	lines, done := ch.lines, ch.done
	defer func() {
		if lines != nil {
			go func(l <-chan progressLine) {
				for range l {
				}
			}(lines)
		}
	}()
	var waitErr error
	exited := false
	killed := false
	for !exited || lines != nil {
		select {
		case pl, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			switch pl.phase {
			case 'i':
				initAt = pl.elapsed
			case 'w':
				warmN, warmAt = pl.n, pl.elapsed
			case 'T':
				timedAt = pl.elapsed
				c0, haveC0 = s.Counters(cg), true
				if rs.Writer != nil && wr == nil {
					wcg := cg
					if rs.WriterLimit > 0 {
						if wcg, err = s.NewRunCgroup(false); err == nil {
							err = wcg.SetLimit(rs.WriterLimit, rs.WriterLimit)
						}
						if err != nil {
							ch.kill()
							return res, fmt.Errorf("the writer's cgroup: %w", err)
						}
					}
					if wr, err = s.startChild(*rs.Writer, wcg); err != nil {
						ch.kill()
						return res, err
					}
				}
			case 'E':
				c1, haveC1 = s.Counters(cg), true
				stopWriter()
			case 'R':
				report = pl.report
			}
			if pl.phase != 'R' {
				last = pl
			}
		case waitErr = <-done:
			exited = true
			done = nil
		case <-tick.C:
			s.sample(&res, rs)
			if rs.Tick != nil && cg != nil {
				rs.Tick(cg)
			}
		case <-timeout.C:
			if !killed {
				killed = true
				res.Censored = true
				if haveC0 && !haveC1 {
					c1, haveC1 = s.Counters(cg), true
				}
				ch.kill()
			}
		case <-ctx.Done():
			ch.kill()
			if done != nil {
				<-done
			}
			return res, ctx.Err()
		}
	}
	_ = ch.stdin.Close()
	stopWriter()
	res.Wall = time.Since(start).Seconds()
	s.sample(&res, rs)
	if p, err := cg.Peak(); err == nil {
		res.Peak = p
	}
	if ru, ok := ch.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if report == nil {
			res.MajFlt, res.MinFlt = ru.Majflt, ru.Minflt
		}
		if cg == nil {
			res.Peak = units.Bytes(ru.Maxrss) * units.KiB // unconfined: the best we have
		}
	}
	if haveC0 && haveC1 {
		d := func(k string) int64 { return c1.VM[k] - c0.VM[k] }
		res.SwapIn, res.SwapOut = d("pswpin"), d("pswpout")
		res.ZswapIn, res.ZswapOut = d("zswpin"), d("zswpout")
		res.FileRefaults = c1.Cgroup["workingset_refault_file"] - c0.Cgroup["workingset_refault_file"]
		res.AnonRefaults = c1.Cgroup["workingset_refault_anon"] - c0.Cgroup["workingset_refault_anon"]
		res.PSISome = (c1.PSI.Some.Total - c0.PSI.Some.Total).Seconds()
		res.PSIFull = (c1.PSI.Full.Total - c0.PSI.Full.Total).Seconds()
		res.PSIScope = "system"
		if cg.IsV2() {
			res.PSIScope = "cgroup"
		}
	}
	oom := cg.OomKills() > 0
	switch {
	case report != nil:
		res.Init, res.Warmup, res.Timed = report.Init.Seconds(), report.Warmup.Seconds(), report.Timed.Seconds()
		res.Visits, res.MajFlt, res.MinFlt = report.Visits, report.MajFlt, report.MinFlt
		res.CodeMisses, res.DataMisses = report.CodeMiss, report.DataMiss
		res.Files, res.Copied = report.Files, units.Bytes(report.Copied)
		if res.Timed > 0 {
			res.Rate = float64(res.Visits) / res.Timed
		}
		res.Touch = report.Touch
		if haveC0 && haveC1 && report.CPU > 0 {
			c := measure.Assess(res.Timed, report.CPU.Seconds(), report.Wait.Seconds(), c0.CPU, c1.CPU)
			res.Contention = &c
		}
	case killed:
		// Estimate from the progress the child had reached.
		res.Init = initAt.Seconds()
		switch {
		case last.phase == 't' && last.elapsed > timedAt:
			res.Visits = last.n
			res.Timed = (last.elapsed - timedAt).Seconds()
			res.Rate = float64(last.n) / res.Timed
		case warmN > 0 && warmAt > initAt:
			res.Warmup = (warmAt - initAt).Seconds()
			res.Rate = float64(warmN) / res.Warmup
		default:
			res.LowerOnly = true
		}
	case oom:
		res.OOMKilled = true
		res.Failed = "OOM-killed inside its cgroup"
	default:
		msg := strings.TrimSpace(ch.stderr.String())
		if msg == "" && waitErr != nil {
			msg = waitErr.Error()
		}
		if msg == "" {
			msg = "workload exited without a report"
		}
		res.Failed = msg
	}
	if oom && report == nil {
		res.OOMKilled = true
		res.Failed = "OOM-killed inside its cgroup"
	}
	return res, nil
}

// sample records zram and zswap occupancy at its highest during a run.
func (s *session) sample(res *measure.RunResult, rs runSpec) {
	if rs.Zram != "" {
		if m, err := host.ReadMMStat(s.Host, rs.Zram); err == nil && m.OrigData >= res.ZramOrig {
			res.ZramOrig, res.ZramCompr, res.ZramUsed, res.ZramSame = m.OrigData, m.ComprData, m.MemUsed, m.SamePages
			res.ZramRatio = m.Ratio()
		}
	}
	if rs.Zswap {
		if mi, err := host.ReadMeminfo(s.Host); err == nil && mi["Zswapped"] >= res.Zswapped {
			res.ZswapPool, res.Zswapped = mi["Zswap"], mi["Zswapped"]
		}
	}
}
