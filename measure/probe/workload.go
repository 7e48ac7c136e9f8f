//go:build linux

package probe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/units"
)

// childEnv carries the JSON WorkloadSpec to a re-executed memplan; its
// presence is what turns the process into the probe's child.
const childEnv = "MEMPLAN_PROBE_CHILD"

// Child roles.
const (
	roleWorkload = "workload"
	roleWriter   = "writer"
)

// TouchSample: the workload times the first touch of one page visit in
// this many (the pages are chosen at random, so the sample is too).
const TouchSample = 16

// WorkloadSpec is what one child does. The workload follows the seed
// experiment: a file mapped read-only stands for code and shared
// libraries and is read at random; an anonymous data segment is visited
// page by page in chunks. A page visit reads the whole page Passes times
// (the CPU work done per page of memory) and, for a WriteMix share of
// visits, dirties it.
type WorkloadSpec struct {
	Role string `json:"role"`
	// CgroupLines must all appear in the child's /proc/self/cgroup before it
	// allocates anything: the child refuses to run unconfined.
	CgroupLines []string `json:"cgroup_lines,omitempty"`

	CodeFile  string      `json:"code_file,omitempty"`
	CodeSize  units.Bytes `json:"code_size,omitempty"`
	DataSize  units.Bytes `json:"data_size,omitempty"`
	Chunk     units.Bytes `json:"chunk,omitempty"`
	Pattern   string      `json:"pattern,omitempty"`
	ZipfS     float64     `json:"zipf_s,omitempty"`
	Content   string      `json:"content,omitempty"`
	WriteMix  float64     `json:"write_mix"`
	Passes    int         `json:"passes,omitempty"`
	CodeShare float64     `json:"code_share"` // code pages read per data page visited
	Warmup    int64       `json:"warmup_visits"`
	Visits    int64       `json:"visits"`
	// Duration, when set, runs the timed phase for this long instead of a
	// fixed number of visits (the page-cache scenario measures a rate).
	Duration time.Duration `json:"duration,omitempty"`
	Seed     uint64        `json:"seed"`

	// Writer role: stream files of FileSize into Dir until killed.
	Dir      string      `json:"dir,omitempty"`
	FileSize units.Bytes `json:"file_size,omitempty"`

	// Experiments (scenario_*.go): code reads per swapdemo iteration; the
	// workload's data locked in memory; how the writer writes; what the
	// copy workload copies where.
	CodeReads int64    `json:"code_reads,omitempty"`
	Mlock     bool     `json:"mlock,omitempty"`
	WriteMode string   `json:"write_mode,omitempty"`
	CopySrc   []string `json:"copy_src,omitempty"`
	CopyDst   string   `json:"copy_dst,omitempty"`
}

// childReport is the child's last line on its report pipe.
type childReport struct {
	Init     time.Duration `json:"init"`
	Warmup   time.Duration `json:"warmup"`
	Timed    time.Duration `json:"timed"`
	Visits   int64         `json:"visits"` // timed visits
	MajFlt   int64         `json:"majflt"` // during the timed phase
	MinFlt   int64         `json:"minflt"`
	Checksum uint64        `json:"checksum"`
	// CPU and Wait are the timed phase's CPU time and time spent waiting
	// for a CPU (schedstat run_delay): what measure.Assess needs.
	CPU  time.Duration `json:"cpu,omitempty"`
	Wait time.Duration `json:"wait,omitempty"`
	// Touch is the latency of the first touch of every page the timed
	// phase visited.
	Touch    *measure.Hist `json:"touch,omitempty"`
	Written  units.Bytes   `json:"written,omitempty"`   // writer
	CodeMiss int64         `json:"code_miss,omitempty"` // swapdemo
	DataMiss int64         `json:"data_miss,omitempty"`
	Files    int64         `json:"files,omitempty"` // copy
	Copied   int64         `json:"copied,omitempty"`
}

// Progress lines on the report pipe: "<phase> <visits> <elapsed ns>" where
// phase is i (init done), w (warm-up), T (timed phase starts), t (timed),
// E (timed phase ends); the report follows as "R <json>".

// WorkloadMain runs the probe's child when memplan was re-executed for
// it; it reports whether it did and the exit code. cmd/memplan calls it
// (and profile.LauncherMain) before parsing flags; tests of this package
// call it from TestMain.
func WorkloadMain() (bool, int) {
	raw, ok := os.LookupEnv(childEnv)
	if !ok {
		return false, 0
	}
	var spec WorkloadSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "memplan probe child: bad spec:", err)
		return true, 3
	}
	if err := childMain(spec, os.Stdin, os.NewFile(3, "report")); err != nil {
		fmt.Fprintln(os.Stderr, "memplan probe child:", err)
		return true, 1
	}
	return true, 0
}

func childMain(spec WorkloadSpec, gate io.Reader, report *os.File) error {
	if report == nil {
		return errors.New("no report pipe on fd 3")
	}
	// Wait until the parent has put us in the cgroup, then verify it did.
	br := bufio.NewReader(gate)
	if line, err := br.ReadString('\n'); err != nil || strings.TrimSpace(line) != "go" {
		return fmt.Errorf("parent did not start the run (%v)", err)
	}
	if err := host.CheckConfined(spec.CgroupLines); err != nil {
		return err
	}
	// The parent keeps our stdin open; EOF means it died: stop at once so
	// nothing of ours outlives it (Pdeathsig covers most cases already).
	go func() {
		_, _ = io.Copy(io.Discard, br)
		os.Exit(4)
	}()
	w := bufio.NewWriter(report)
	defer w.Flush()
	switch spec.Role {
	case roleWorkload:
		return runWorkload(spec, w)
	case roleWriter:
		return runWriter(spec, w)
	case roleSwapdemo:
		return runSwapdemo(spec, w)
	case roleCopy:
		return runCopy(spec, w)
	}
	return fmt.Errorf("unknown role %q", spec.Role)
}

type reporter struct {
	w     *bufio.Writer
	start time.Time
}

func (r *reporter) line(phase byte, visits int64) {
	fmt.Fprintf(r.w, "%c %d %d\n", phase, visits, time.Since(r.start).Nanoseconds())
	r.w.Flush()
}

func runWorkload(spec WorkloadSpec, w *bufio.Writer) error {
	rep := &reporter{w: w, start: time.Now()}
	wl, err := newWorkload(spec)
	if err != nil {
		return err
	}
	defer wl.close()
	wl.fill()
	if spec.Mlock {
		// The page-cache scenario's remedy: the buffers cannot be swapped.
		b := unsafe.Slice((*byte)(unsafe.Pointer(&wl.data[0])), len(wl.data)*8)
		if err := host.Mlock(b); err != nil {
			return fmt.Errorf("locking %s of data in memory: %w", units.Bytes(len(b)), err)
		}
	}
	initDur := time.Since(rep.start)
	rep.line('i', 0)

	t0 := time.Now()
	wl.visit(spec.Warmup, func(n int64) { rep.line('w', n) }, time.Time{})
	wl.touch = &measure.Hist{}
	warm := time.Since(t0)

	maj0, min0, cpu0 := host.Usage()
	wait0, _ := host.ReadOwnRunDelay()
	rep.line('T', 0)
	t1 := time.Now()
	var deadline time.Time
	visits := spec.Visits
	if spec.Duration > 0 {
		deadline = t1.Add(spec.Duration)
		visits = 1 << 62
	}
	done := wl.visit(visits, func(n int64) { rep.line('t', n) }, deadline)
	timed := time.Since(t1)
	maj1, min1, cpu1 := host.Usage()
	wait1, _ := host.ReadOwnRunDelay()
	rep.line('E', done)

	out, _ := json.Marshal(childReport{Init: initDur, Warmup: warm, Timed: timed, Visits: done,
		MajFlt: maj1 - maj0, MinFlt: min1 - min0, Checksum: wl.acc ^ wl.sink, CPU: cpu1 - cpu0, Wait: wait1 - wait0, Touch: wl.touch})
	fmt.Fprintf(w, "R %s\n", out)
	return nil
}

// workload holds the mapped segments and the page chooser.
type workload struct {
	spec       WorkloadSpec
	code       []byte
	data       []uint64
	dataPages  int64
	codePages  int64
	chunkPages int64
	rng        *rand.Rand
	zipf       *rand.Zipf
	mult       uint64 // scatters zipf ranks over the pages
	next       int64  // sequential cursor
	codeAcc    float64
	acc        uint64
	sink       uint64        // first touches, kept from the compiler
	touch      *measure.Hist // the timed phase's first touch of each page visited
}

func newWorkload(spec WorkloadSpec) (*workload, error) {
	wl := &workload{spec: spec}
	wl.dataPages = int64(spec.DataSize) / host.PageSize
	if wl.dataPages < 1 {
		return nil, errors.New("data segment smaller than a page")
	}
	wl.chunkPages = max(int64(spec.Chunk)/host.PageSize, 1)
	if spec.Passes < 1 {
		spec.Passes = 1
		wl.spec.Passes = 1
	}
	data, err := host.MapAnon(int(wl.dataPages * host.PageSize))
	if err != nil {
		return nil, fmt.Errorf("mapping %s of data: %w", units.Bytes(wl.dataPages*host.PageSize), err)
	}
	// Transparent huge pages would change what swapping moves; keep 4 KiB
	// pages so runs compare across hosts.
	_ = host.NoHugePages(data)
	wl.data = unsafe.Slice((*uint64)(unsafe.Pointer(&data[0])), len(data)/8)
	if spec.CodeFile != "" && spec.CodeSize > 0 {
		f, err := os.Open(spec.CodeFile)
		if err != nil {
			return nil, err
		}
		code, err := host.MapFile(f, int(spec.CodeSize))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("mapping code file %s: %w", spec.CodeFile, err)
		}
		wl.code = code
		wl.codePages = int64(len(code)) / host.PageSize
	}
	wl.rng = rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))
	if spec.Pattern == measure.PatternZipf {
		s := spec.ZipfS
		if s <= 1 {
			s = 1.0001
		}
		wl.zipf = rand.NewZipf(wl.rng, s, 1, uint64(wl.dataPages-1))
		wl.mult = coprime(uint64(wl.dataPages))
	}
	return wl, nil
}

func (wl *workload) close() {
	if len(wl.data) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&wl.data[0])), len(wl.data)*8)
		_ = host.Unmap(b)
	}
	if wl.code != nil {
		_ = host.Unmap(wl.code)
	}
}

// coprime returns a large multiplier with no factor in common with n, so
// rank*mult mod n is a permutation that scatters hot pages.
func coprime(n uint64) uint64 {
	m := uint64(2654435761) % n
	if m < 2 {
		m = 1
	}
	for gcd(m, n) != 1 {
		m++
	}
	return m
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// fill writes every data page once so it is really allocated (a page that
// is only read maps the shared zero page) and has the requested content.
func (wl *workload) fill() {
	words := host.PageSize / 8
	x := wl.spec.Seed | 1
	for p := int64(0); p < wl.dataPages; p++ {
		measure.FillPage(wl.data[p*words:(p+1)*words], wl.spec.Content, p, &x)
	}
}

func (wl *workload) nextPage() int64 {
	switch wl.spec.Pattern {
	case measure.PatternSequential:
		p := wl.next
		wl.next++
		if wl.next == wl.dataPages {
			wl.next = 0
		}
		return p
	case measure.PatternZipf:
		r := wl.zipf.Uint64()
		return int64(r * wl.mult % uint64(wl.dataPages))
	}
	return wl.rng.Int64N(wl.dataPages)
}

// visit does n page visits (or until deadline) and reports after each chunk.
func (wl *workload) visit(n int64, progress func(int64), deadline time.Time) int64 {
	words := host.PageSize / 8
	passes := wl.spec.Passes
	var done int64
	for done < n {
		end := min(done+wl.chunkPages, n)
		for ; done < end; done++ {
			p := wl.nextPage()
			pg := wl.data[p*words : (p+1)*words]
			if wl.touch != nil && done%TouchSample == 0 {
				// The first word read is where a swapped-out page faults:
				// its time is the cost of one page brought back (pmbench's
				// per-access latency), a cache miss when resident. Every
				// TouchSample-th visit is timed: timing each one cost the
				// in-RAM loop 23% (BenchmarkVisit), which would shrink
				// every slowdown.
				t0 := time.Now()
				wl.sink ^= pg[0]
				wl.touch.Add(int64(time.Since(t0)))
			}
			acc := wl.acc
			for range passes {
				for i := 0; i < len(pg); i += 4 {
					acc = (acc ^ pg[i]) * 0x100000001b3
					acc += pg[i+1] ^ pg[i+2] ^ pg[i+3]
				}
			}
			wl.acc = acc
			if wl.spec.WriteMix > 0 && wl.rng.Float64() < wl.spec.WriteMix {
				// An atomic add of zero dirties the page without changing its
				// content (and so its compressibility); the compiler cannot
				// drop it.
				atomic.AddUint64(&pg[int(acc%uint64(words))], 0)
			}
			if wl.codePages > 0 {
				wl.codeAcc += wl.spec.CodeShare
				for wl.codeAcc >= 1 {
					wl.codeAcc--
					wl.readCode()
				}
			}
		}
		progress(done)
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
	}
	return done
}

// readCode touches one code page the way instruction fetch would: a few
// cache lines of it.
func (wl *workload) readCode() {
	var q int64
	switch wl.spec.Pattern {
	case measure.PatternZipf:
		q = int64(wl.zipf.Uint64() * wl.mult % uint64(wl.codePages))
	default:
		q = wl.rng.Int64N(wl.codePages)
	}
	off := q * host.PageSize
	for i := int64(0); i < host.PageSize; i += 1024 {
		wl.acc += uint64(wl.code[off+i])
	}
}

// runWriter writes one file of FileSize into Dir with ordinary buffered
// writes, as dd does (or, by WriteMode, with O_DIRECT or syncing and
// dropping what it wrote every 8MiB), and then keeps it (and so its page
// cache) until the parent stops it.
func runWriter(spec WorkloadSpec, w *bufio.Writer) error {
	rep := &reporter{w: w, start: time.Now()}
	// An anonymous mapping is page aligned, as O_DIRECT needs.
	buf, err := host.MapAnon(1 << 20)
	if err != nil {
		return err
	}
	x := spec.Seed | 1
	for i := 0; i+8 <= len(buf); i += 8 {
		x = measure.Xorshift(x)
		*(*uint64)(unsafe.Pointer(&buf[i])) = x
	}
	rep.line('i', 0)
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if spec.WriteMode == writeDirect {
		flags |= host.ODirect
	}
	f, err := os.OpenFile(spec.Dir+"/writer.dat", flags, 0o600)
	if err != nil {
		return err
	}
	var written int64
	for written < int64(spec.FileSize) {
		m, err := f.Write(buf[:min(int64(len(buf)), int64(spec.FileSize)-written)])
		written += int64(m)
		if err != nil {
			f.Close()
			return err
		}
		if spec.WriteMode == writeDontNeed && written%(8<<20) == 0 {
			_ = host.Fdatasync(f)
			_ = host.DropPages(f, 0, written)
		}
		if written%(16<<20) == 0 {
			rep.line('t', written>>20)
		}
	}
	if spec.WriteMode == writeDontNeed {
		_ = host.Fdatasync(f)
		_ = host.DropPages(f, 0, 0)
	}
	if err := f.Close(); err != nil {
		return err
	}
	rep.line('t', written>>20)
	for {
		time.Sleep(time.Hour)
	}
}
