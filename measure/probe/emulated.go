//go:build linux

package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/emulate"
)

// latencyStage runs an emulated drive's stage on a device with the drive's
// latency (measure/host/emulate): a FUSE server in its own memory-locked
// process, a direct-I/O loop device over its file, and swap on that at the
// top priority with no other memplan swap area on (the plan runs these
// stages before the swap file's). The journal records the emulator before
// it starts and its state after every change, so an interrupted or killed
// probe undoes it.
func (s *session) latencyStage(ctx context.Context, st *Stage) error {
	e := st.Emulation
	dev, err := emulate.Preset(e.Latency)
	if err != nil {
		return err
	}
	if s.swapMark >= 0 {
		// Both at the top priority, the kernel would spread the pages over
		// the swap file and the emulator, and the curve would be neither's.
		return fmt.Errorf("%s: the swap file is on; the latency stages must run before it is made", st.Name)
	}
	if err := emulate.CheckHost(); err != nil {
		s.note("%s: %v; skipped", st.Name, err)
		return nil
	}
	if other := topSwapArea(s.Host); other != "" {
		s.note("%s: %s is swap at priority %d, the emulator's; the kernel would share the pages between them and the curve would not be the drive's; skipped (swapoff it first)", st.Name, other, host.SwapPriority)
		return nil
	}
	mark := s.Journal.Len()
	dir := filepath.Join(s.workDir, "emulate")
	if _, err := s.Journal.Record(host.Entry{Op: host.OpMkdir, Path: dir}); err != nil {
		return err
	}
	if err := s.Host.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	idx, err := s.Journal.Record(host.Entry{Op: host.OpEmulator, Path: dir})
	if err != nil {
		return err
	}
	var recErr error
	opts := emulate.Options{Dir: dir, Exe: s.Exe, Record: func(state emulate.State) {
		b, err := json.Marshal(state)
		if err == nil {
			err = s.Journal.Update(idx, func(en *host.Entry) { en.New = string(b) })
		}
		if err != nil && recErr == nil {
			recErr = err
		}
	}}
	em, err := emulate.Start(ctx, dev, int64(s.plan.SwapFileSize), opts)
	if err == nil {
		if _, err = em.AttachLoop(); err == nil {
			err = em.SwapOn(host.SwapPriority)
		}
	}
	if err == nil && recErr != nil {
		err = fmt.Errorf("journaling the emulator: %w", recErr)
	}
	if err == nil {
		if err = s.runStage(ctx, st); err == nil {
			s.noteEmulatedLatency(st)
		}
	}
	if em != nil {
		if cerr := em.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	if uerr := s.Journal.UndoTo(mark); uerr != nil {
		err = errors.Join(err, uerr)
	}
	if err != nil && ctx.Err() == nil {
		s.note("%s: %v", st.Name, err)
	}
	return err
}

// topSwapArea names a swap area already at the top priority, or "".
func topSwapArea(h host.Host) string {
	b, err := h.ReadFile("/proc/swaps")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 5 && f[4] == strconv.Itoa(host.SwapPriority) {
			return f[0]
		}
	}
	return ""
}

// noteEmulatedLatency compares what a page brought back cost on the
// emulated device with the drive's read latency: on a host where FUSE and
// the loop device add about as much as the drive's own latency, the curve
// overstates the drive, and the note says so. The judge is the p90, not
// the median: swap readahead brings neighbours in with each read, and a
// touch of one of those costs microseconds, so the median may be a swap
// cache hit while the slow part of the distribution is the device's reads.
func (s *session) noteEmulatedLatency(st *Stage) {
	want := float64(st.Emulation.Drive.ReadLatency.D()) / 1e3 // us
	for _, pt := range s.rep.Points {
		if pt.Stage != st.Name || pt.FaultLatency == nil || pt.FaultLatency.Count < 50 {
			continue
		}
		fl := pt.FaultLatency
		s.note("%s at fit %g: a page brought back took %.0fus at the median and %.0fus at p90 (%d timed), a major fault %.0fus more than in RAM, against the drive's %.0fus read latency%s",
			st.Name, pt.Fit, fl.P50Us, fl.P90Us, fl.Count, pt.FaultTime*1e6, want, map[bool]string{true: "; FUSE and the loop device add about as much on this host, so this curve overstates the drive (docs/probe.md)", false: ""}[fl.P90Us > 2*want])
		break
	}
}
