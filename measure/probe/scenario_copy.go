//go:build linux

package probe

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// The filesystem benchmark's copy workloads (see the brief): a tree of
// small files like a kernel source tree, a collection of 3-10MB files and
// one large file, each copied between two directories on the device and
// timed including the final sync; 8 runs, the mean taken after dropping the
// best and the worst.

const roleCopy = "copy"

// Published figures of the source's copy workloads.
const (
	copySmallFiles = 17000
	copySmallMean  = 13 * units.KiB
)

// CopyPlan is the copy workloads' sizes.
type CopyPlan struct {
	Dir    string      `json:"dir"`
	Small  int         `json:"small_files"`
	Medium units.Bytes `json:"medium_bytes"`
	Large  units.Bytes `json:"large_bytes"`
	Runs   int         `json:"runs"`
	Limit  units.Bytes `json:"cgroup_limit_bytes"`
}

func (c *CopyPlan) total() units.Bytes {
	return units.Bytes(c.Small)*copySmallMean + c.Medium + c.Large
}

// planCopy sizes the workloads: the source's (17,000 files, 2.1GB, 1GB),
// or a tenth of the small files and a sixteenth of the rest with --quick.
// The copy runs in a memory cgroup (its page cache stays off the host's
// other work) of 1GiB (--quick 256MiB), smaller when the host lacks it.
func (p *Plan) planCopy() {
	o := p.Options
	c := &CopyPlan{Small: copySmallFiles, Medium: 2100 * units.MiB, Large: units.GiB, Runs: o.CopyRuns, Limit: units.GiB,
		Dir: filepath.Join(o.SwapDir, fmt.Sprintf("memplan-copy-%d", os.Getpid()))}
	if o.Quick {
		c.Small, c.Medium, c.Large, c.Limit = copySmallFiles/10, 128*units.MiB, 64*units.MiB, 256*units.MiB
	}
	for c.Limit > 64*units.MiB && c.Limit+256*units.MiB > p.MemAvail {
		c.Limit /= 2
	}
	p.Copy = c
}

// CopyWorkload is one workload's runs.
type CopyWorkload struct {
	Name      string          `json:"name"`
	Files     int64           `json:"files"`
	Bytes     units.Bytes     `json:"bytes"`
	Published string          `json:"published"`
	Seconds   measure.Summary `json:"seconds"` // per run, including the final sync
	// MBps and FilesPerSec are from the trimmed mean time (best and worst
	// run dropped), as the source reported.
	MBps        float64             `json:"mb_per_s"`
	FilesPerSec float64             `json:"files_per_s"`
	Failed      int                 `json:"failed_runs,omitempty"`
	Runs        []measure.RunResult `json:"runs"`
}

// CopyResult is the copy workloads' table.
type CopyResult struct {
	Plan      CopyPlan       `json:"plan"`
	Workloads []CopyWorkload `json:"workloads"`
	Wall      float64        `json:"wall_s"`
}

type fileSpec struct {
	rel  string
	size units.Bytes
}

// smallSizes is a tree like a kernel source tree: directories of 100
// files below 2 levels, sizes uniform between 1KiB and 25KiB (mean 13KiB).
func smallSizes(n int, seed uint64) []fileSpec {
	rng := rand.New(rand.NewPCG(seed, 17))
	out := make([]fileSpec, n)
	for i := range out {
		out[i] = fileSpec{rel: fmt.Sprintf("d%02d/d%03d/f%05d.c", i/2000, i/100, i), size: units.Bytes(1024 + rng.Int64N(24*1024+1))}
	}
	return out
}

// mediumSizes are files of 3 to 10MiB adding up to about total.
func mediumSizes(total units.Bytes, seed uint64) []fileSpec {
	rng := rand.New(rand.NewPCG(seed, 31))
	var out []fileSpec
	for sum := units.Bytes(0); sum < total; {
		sz := min(3*units.MiB+units.Bytes(rng.Int64N(int64(7*units.MiB))), max(total-sum, 4096))
		sz = (sz + 4095) / 4096 * 4096
		out = append(out, fileSpec{rel: fmt.Sprintf("m%04d.dat", len(out)), size: sz})
		sum += sz
	}
	return out
}

// writeFileSet writes the files below dir/name with incompressible content,
// syncs them and drops them from the page cache, so that every copy reads
// from the device. It returns the bytes written.
func writeFileSet(h host.Host, dir, name string, files []fileSpec, record func(string) error) (units.Bytes, error) {
	root := filepath.Join(dir, name)
	if err := record(root); err != nil {
		return 0, err
	}
	buf := make([]byte, 1<<20)
	x := uint64(0x5eed) ^ uint64(len(files))
	for i := 0; i+8 <= len(buf); i += 8 {
		x = measure.Xorshift(x)
		*(*uint64)(unsafe.Pointer(&buf[i])) = x
	}
	var total units.Bytes
	var names []string
	for i, f := range files {
		p := filepath.Join(root, f.rel)
		if err := h.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return total, err
		}
		fh, err := h.CreateFile(p)
		if err != nil {
			return total, err
		}
		for left := int64(f.size); left > 0; {
			off := int(uint64(i*4099+int(left)) % uint64(len(buf)/2))
			n := min(left, int64(len(buf)/2))
			if _, err := fh.Write(buf[off : off+int(n)]); err != nil {
				fh.Close()
				return total, fmt.Errorf("writing %s: %w", p, err)
			}
			left -= n
			// Big files are synced and dropped as they go, so generating them
			// never fills the page cache.
			if f.size >= units.MiB && (int64(f.size)-left)%(64<<20) == 0 {
				_ = host.Fdatasync(fh)
				_ = host.DropPages(fh, 0, 0)
			}
		}
		if f.size >= units.MiB {
			_ = host.Fdatasync(fh)
			_ = host.DropPages(fh, 0, 0)
		}
		if err := fh.Close(); err != nil {
			return total, err
		}
		total += f.size
		names = append(names, p)
	}
	if err := syncDir(root); err != nil {
		return total, err
	}
	dropFiles(h, names)
	return total, nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return host.Syncfs(f)
}

// dropFiles evicts the given files' clean pages (only ours: never
// drop_caches, which would hit the whole host).
func dropFiles(h host.Host, names []string) {
	for _, n := range names {
		dropCache(h, n)
	}
}

func listFiles(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// copyScenario writes the three sets and copies each one CopyRuns times.
func (s *session) copyScenario(ctx context.Context) error {
	start := time.Now()
	cp := *s.plan.Copy
	res := &CopyResult{Plan: cp}
	s.rep.Copy = res
	defer func() { res.Wall = time.Since(start).Seconds() }()
	mark := s.Journal.Len()
	defer func() {
		if err := s.Journal.UndoTo(mark); err != nil {
			s.note("copy workloads: cleaning up: %v", err)
		}
	}()
	if _, err := s.Journal.Record(host.Entry{Op: host.OpMkdir, Path: cp.Dir}); err != nil {
		return err
	}
	if err := s.Host.MkdirAll(cp.Dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", cp.Dir, err)
	}
	src := filepath.Join(cp.Dir, "src")
	sets := []struct {
		name, published string
		files           []fileSpec
	}{
		{"small files", "kernel source tree: ~17,000 files, ~230MB, ~13KB average", smallSizes(cp.Small, 1)},
		{"3-10MB files", "2.1GB of 3-10MB files", mediumSizes(cp.Medium, 2)},
		{"one large file", "one 1GB file", []fileSpec{{rel: "large.dat", size: cp.Large}}},
	}
	s.prog.Stage("copy workloads", 3*cp.Runs)
	for i, set := range sets {
		dir := fmt.Sprintf("set%d", i)
		total, err := writeFileSet(s.Host, src, dir, set.files, s.recordNothing)
		if err != nil {
			return fmt.Errorf("copy workloads: writing the %s: %w", set.name, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w := CopyWorkload{Name: set.name, Files: int64(len(set.files)), Bytes: total, Published: set.published}
		srcFiles := listFiles(filepath.Join(src, dir))
		var secs []float64
		for r := 0; r < cp.Runs; r++ {
			dst := filepath.Join(cp.Dir, fmt.Sprintf("dst-%d-%d", i, r))
			spec := WorkloadSpec{Role: roleCopy, CopySrc: []string{filepath.Join(src, dir)}, CopyDst: dst}
			rs := runSpec{RunSpec: measure.RunSpec{Backend: "copy " + set.name, Rep: r + 1, Limit: cp.Limit, MemSw: cp.Limit,
				Timeout: 2*time.Minute + time.Duration(total/(2*units.MiB))*time.Second}, Spec: spec}
			run, err := s.runOne(ctx, rs)
			_ = host.RemoveTree(s.Host, dst)
			dropFiles(s.Host, srcFiles)
			if err != nil {
				return err
			}
			s.prog.RunDone(run)
			w.Runs = append(w.Runs, run)
			if run.Failed != "" || run.Censored || run.Timed <= 0 {
				w.Failed++
				continue
			}
			secs = append(secs, run.Timed)
		}
		w.Seconds = measure.Summarize(secs)
		if t := w.Seconds.Trimmed; t > 0 {
			w.MBps = float64(total) / 1e6 / t
			w.FilesPerSec = float64(w.Files) / t
		}
		if w.Failed > 0 {
			s.note("copy workloads: %s: %d of %d runs failed", set.name, w.Failed, cp.Runs)
		}
		res.Workloads = append(res.Workloads, w)
		_ = host.RemoveTree(s.Host, filepath.Join(src, dir))
	}
	return nil
}

// runCopy is the child: copy every file below each CopySrc into CopyDst as
// cp does (1MiB reads and writes), then sync the filesystem. With
// WriteMode hold it stays until stopped (the page-cache scenario's writer).
func runCopy(spec WorkloadSpec, w *bufio.Writer) error {
	rep := &reporter{w: w, start: time.Now()}
	rep.line('i', 0)
	rep.line('T', 0)
	t0 := time.Now()
	buf := make([]byte, 1<<20)
	var files, copied, lastMiB int64
	for _, src := range spec.CopySrc {
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			dst := filepath.Join(spec.CopyDst, rel)
			if d.IsDir() {
				return os.MkdirAll(dst, 0o700)
			}
			n, err := copyFile(p, dst, buf)
			if err != nil {
				return err
			}
			files++
			copied += n
			if copied>>24 != lastMiB>>24 {
				rep.line('t', copied>>20)
			}
			lastMiB = copied
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := syncDir(spec.CopyDst); err != nil {
		return fmt.Errorf("syncing %s: %w", spec.CopyDst, err)
	}
	timed := time.Since(t0)
	rep.line('t', copied>>20)
	rep.line('E', files)
	out, _ := json.Marshal(childReport{Timed: timed, Visits: files, Files: files, Copied: copied})
	fmt.Fprintf(w, "R %s\n", out)
	w.Flush()
	if spec.WriteMode == copyHold {
		for {
			time.Sleep(time.Hour)
		}
	}
	return nil
}

func copyFile(src, dst string, buf []byte) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.CopyBuffer(onlyWriter{out}, onlyReader{in}, buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// onlyReader and onlyWriter hide ReadFrom/WriteTo so the copy goes through
// the buffer (read and write, as cp without reflinks) rather than
// copy_file_range, which some filesystems turn into a metadata operation.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }
