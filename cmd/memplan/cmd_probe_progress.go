//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/memplan/memplan/measure"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// probeProgress renders the probe's progress on stderr: bars on a
// terminal, plain lines otherwise (logs, CI, pipes).
type probeProgress interface {
	measure.Progress
	Close()
}

func newProbeProgress(stderr io.Writer) probeProgress { return newProgress(stderr, "probe") }

// newProgress renders progress with lines and notes prefixed by name
// ("probe", "profile").
func newProgress(stderr io.Writer, name string) probeProgress {
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		b := newBarProgress(f)
		b.name = name
		return b
	}
	return &lineProgress{w: stderr, name: name}
}

func describeRun(r measure.RunResult) string {
	switch {
	case r.OOMKilled:
		return "OOM-killed in its cgroup"
	case r.Failed != "":
		return "failed: " + r.Failed
	}
	s := fmt.Sprintf("%.2fs timed", r.Timed)
	if r.Slowdown > 0 {
		s = fmt.Sprintf("%.2fx (%s, %d major faults)", r.Slowdown, s, r.MajFlt)
	}
	if r.Censored {
		s += ", stopped at the time cap"
	}
	return s
}

type lineProgress struct {
	w     io.Writer
	name  string
	stage string
	runs  int
	done  int
}

func (p *lineProgress) Stage(name string, runs int) {
	p.stage, p.runs, p.done = name, runs, 0
	if runs == 0 {
		fmt.Fprintf(p.w, "%s: %s\n", p.name, name)
		return
	}
	fmt.Fprintf(p.w, "%s: %s: %d run(s)\n", p.name, name, runs)
}

func (p *lineProgress) RunDone(r measure.RunResult) {
	p.done++
	where := ""
	if r.Fit > 0 {
		where = fmt.Sprintf(" fit %g", r.Fit)
	}
	count := fmt.Sprintf("%d/%d", p.done, p.runs)
	if p.runs == 0 {
		count = fmt.Sprint(p.done)
	}
	fmt.Fprintf(p.w, "%s: %s%s [%s]: %s\n", p.name, r.Backend, where, count, describeRun(r))
}

func (p *lineProgress) Note(msg string) { fmt.Fprintf(p.w, "%s: %s\n", p.name, msg) }
func (p *lineProgress) Close()          {}

type barProgress struct {
	name string
	p    *mpb.Progress
	bar  *mpb.Bar
	mu   sync.Mutex
	msg  *string // the current bar's last result
}

func newBarProgress(w io.Writer) *barProgress {
	return &barProgress{name: "probe", p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(30))}
}

func (b *barProgress) finishBar() {
	if b.bar != nil {
		b.bar.SetTotal(-1, true)
		b.bar.Wait()
		b.bar = nil
	}
}

func (b *barProgress) Stage(name string, runs int) {
	b.finishBar()
	msg := new(string)
	b.mu.Lock()
	b.msg = msg
	b.mu.Unlock()
	// A stage of as many runs as the work takes (0) counts them with no
	// total and completes only when the next stage starts (finishBar).
	count := decor.CountersNoUnit("%d/%d", decor.WCSyncWidth)
	if runs == 0 {
		count = decor.CurrentNoUnit("%d", decor.WCSyncWidth)
	}
	b.bar = b.p.AddBar(int64(max(runs, 0)),
		mpb.PrependDecorators(decor.Name(name, decor.WC{W: 24, C: decor.DindentRight}), count),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace), decor.Any(func(decor.Statistics) string {
			b.mu.Lock()
			defer b.mu.Unlock()
			return "  " + *msg
		})))
}

func (b *barProgress) RunDone(r measure.RunResult) {
	b.mu.Lock()
	if b.msg != nil {
		*b.msg = fmt.Sprintf("fit %g: %s", r.Fit, describeRun(r))
	}
	b.mu.Unlock()
	if b.bar != nil {
		b.bar.Increment()
	}
}

func (b *barProgress) Note(msg string) { fmt.Fprintf(b.p, "%s: %s\n", b.name, msg) }

func (b *barProgress) Close() {
	b.finishBar()
	b.p.Wait()
}
