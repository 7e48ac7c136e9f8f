package acct

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// GridEngine reads a Grid Engine accounting file (accounting(5) of Sun,
// Son of and Univa Grid Engine): one finished job (or array task) a line,
// fields separated by colons in a fixed order. Lines starting with '#'
// (Son of Grid Engine writes a version header) are passed over.
type GridEngine struct {
	file string
	sc   *bufio.Scanner
	line int
	f    []string
}

// NewGridEngine returns a source of the jobs of a Grid Engine accounting
// file.
func NewGridEngine(file string, r io.Reader) *GridEngine {
	return &GridEngine{file: file, sc: newScanner(r)}
}

// Field positions (0-based) in accounting(5) order.
const (
	geQname      = 0
	geHostname   = 1
	geOwner      = 3
	geJobName    = 4
	geJobNumber  = 5
	geAccount    = 6
	geSubmission = 8
	geStart      = 9
	geEnd        = 10
	geFailed     = 11
	geExitStatus = 12
	geWallclock  = 13
	geMaxRSS     = 16 // ru_maxrss, KB as getrusage(2) gives it on Linux
	geProject    = 31
	geSlots      = 34
	geTaskNumber = 35
	geCategory   = 39
	geMaxVmem    = 42
	geFields     = 43 // through maxvmem; later versions add arid and more
)

// Next returns the next job.
func (g *GridEngine) Next() (*Job, error) {
	for g.sc.Scan() {
		g.line++
		text := g.sc.Text()
		// accounting(5): empty lines and lines of one character or less are ignored.
		if len(strings.TrimSpace(text)) <= 1 || text[0] == '#' {
			continue
		}
		g.f = strings.Split(text, ":")
		if len(g.f) < geFields {
			return nil, inputErr(g.file, g.line, "", "%d colon-separated fields, accounting(5) has at least %d (through maxvmem); a colon in a job name splits it", len(g.f), geFields)
		}
		return g.parse()
	}
	if err := g.sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", g.file, g.line+1, err)
	}
	return nil, io.EOF
}

var geFieldNames = map[int]string{geSubmission: "submission_time", geStart: "start_time", geEnd: "end_time", geFailed: "failed",
	geExitStatus: "exit_status", geWallclock: "ru_wallclock", geMaxRSS: "ru_maxrss", geSlots: "slots", geTaskNumber: "task_number", geMaxVmem: "maxvmem", geJobNumber: "job_number"}

func (g *GridEngine) num(i int) (float64, error) {
	v := strings.TrimSpace(g.f[i])
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x != x {
		return 0, inputErr(g.file, g.line, geFieldNames[i], "%q: expected a number", v)
	}
	return x, nil
}

// geTime reads a time stamp: seconds since the epoch (Sun and Son of Grid
// Engine) or milliseconds (Univa Grid Engine 8.2 and later); a value too
// large for seconds (after the year 5000) is taken as milliseconds. 0 is
// none.
func (g *GridEngine) geTime(i int) (time.Time, error) {
	x, err := g.num(i)
	if err != nil || x <= 0 {
		return time.Time{}, err
	}
	if x > 1e11 {
		return time.UnixMilli(int64(x)).UTC(), nil
	}
	return time.Unix(int64(x), 0).UTC(), nil
}

func (g *GridEngine) parse() (*Job, error) {
	f := g.f
	j := &Job{Line: g.line, Partition: f[geQname], Name: f[geJobName], Account: f[geProject]}
	if j.Account == "" || j.Account == "NONE" {
		j.Account = f[geAccount] // qsub -A; "sge" by default
	}
	id, err := g.num(geJobNumber)
	if err != nil {
		return nil, err
	}
	j.ID = strconv.FormatInt(int64(id), 10)
	task, err := g.num(geTaskNumber)
	if err != nil {
		return nil, err
	}
	if task > 0 {
		j.ID += "." + strconv.FormatInt(int64(task), 10)
	}
	if j.Submit, err = g.geTime(geSubmission); err != nil {
		return nil, err
	}
	if j.Start, err = g.geTime(geStart); err != nil {
		return nil, err
	}
	if j.End, err = g.geTime(geEnd); err != nil {
		return nil, err
	}
	wall, err := g.num(geWallclock)
	if err != nil {
		return nil, err
	}
	if wall < 0 || wall > 1e9 {
		return nil, inputErr(g.file, g.line, "ru_wallclock", "%g: expected seconds", wall)
	}
	j.Elapsed = time.Duration(wall * float64(time.Second))
	failed, err := g.num(geFailed)
	if err != nil {
		return nil, err
	}
	exit, err := g.num(geExitStatus)
	if err != nil {
		return nil, err
	}
	rss, err := g.num(geMaxRSS)
	if err != nil {
		return nil, err
	}
	vmem, err := g.num(geMaxVmem)
	if err != nil {
		return nil, err
	}
	slots, err := g.num(geSlots)
	if err != nil {
		return nil, err
	}
	if rss < 0 || vmem < 0 || rss > 1<<50 || vmem > 1<<60 {
		return nil, inputErr(g.file, g.line, "maxvmem", "%g: out of range", vmem)
	}
	// ru_maxrss is resident memory but only the job script's own process
	// tree as getrusage saw it, and some builds leave it 0; maxvmem is
	// the whole job's virtual size, an upper bound on what was resident.
	if rss > 0 {
		j.MaxRSS = int64(rss) << 10
	} else if vmem > 0 {
		j.MaxRSS, j.PeakVirtual = int64(vmem), true
	}
	if j.ReqMem, err = geRequest(f[geCategory], int(max(slots, 1))); err != nil {
		return nil, inputErr(g.file, g.line, "category", "%q: %v", f[geCategory], err)
	}
	switch {
	case failed == 0 && exit == 0:
		j.State = "COMPLETED"
	case failed != 0 && j.Start.IsZero():
		j.State = "FAILED" // never started on the host
	case exit == 137 || exit == 152: // SIGKILL, SIGXCPU (128+9, 128+24)
		// Grid Engine kills a job over its h_vmem or h_rt limit with
		// SIGKILL; qdel does too. A peak at 95% of the request or above
		// says which.
		if j.ReqMem > 0 && vmem >= CapShare*float64(j.ReqMem) {
			j.State = "OUT_OF_MEMORY"
		} else {
			j.State = "CANCELLED"
		}
	default:
		j.State = "FAILED"
	}
	return j, nil
}

var geMem = regexp.MustCompile(`(?:^|[\s,])(h_vmem|mem_free|virtual_free|h_rss|m_mem_free)=([^\s,]+)`)

// geRequest is the job's memory request from its category (the qsub -l
// list): h_vmem, else h_rss, m_mem_free, mem_free or virtual_free, per slot
// as Grid Engine's consumables are, so times the slots granted.
func geRequest(category string, slots int) (int64, error) {
	best := map[string]string{}
	for _, m := range geMem.FindAllStringSubmatch(category, -1) {
		best[m[1]] = m[2]
	}
	for _, k := range []string{"h_vmem", "h_rss", "m_mem_free", "mem_free", "virtual_free"} {
		v, ok := best[k]
		if !ok {
			continue
		}
		b, err := geSize(v)
		if err != nil {
			return 0, fmt.Errorf("%s=%s: %v", k, v, err)
		}
		return b * int64(slots), nil
	}
	return 0, nil
}

// geSize reads a Grid Engine memory specifier (sge_types(1)): K, M, G, T
// are powers of 1024, k, m, g, t powers of 1000, a bare number is bytes.
func geSize(v string) (int64, error) {
	if v == "" {
		return 0, errors.New("expected a size such as 4G or 4096M")
	}
	mult := 1.0
	switch v[len(v)-1] {
	case 'K':
		mult = 1 << 10
	case 'M':
		mult = 1 << 20
	case 'G':
		mult = 1 << 30
	case 'T':
		mult = 1 << 40
	case 'k':
		mult = 1e3
	case 'm':
		mult = 1e6
	case 'g':
		mult = 1e9
	case 't':
		mult = 1e12
	}
	num := v
	if mult != 1 {
		num = v[:len(v)-1]
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x < 0 || x*mult > 1<<62 {
		return 0, errors.New("expected a size such as 4G or 4096M")
	}
	return int64(x * mult), nil
}
