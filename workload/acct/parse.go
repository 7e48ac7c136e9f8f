// Package acct reads scheduler accounting records (Slurm `sacct
// --parsable2` text and a plain CSV with named columns) and turns them into
// a commented memplan workload file: per job class a footprint, runtime,
// concurrency, daily volume and deadline, each with where it came from.
//
// Input is streamed line by line; per job only a few numbers are kept, so
// memory grows with the number of jobs, not with the size of the records.
package acct

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/units"
)

// Job is one job after its steps are merged.
type Job struct {
	ID, Name, Partition, Account, State string
	Submit, Start, End                  time.Time
	Elapsed                             time.Duration
	ReqMem                              int64 // bytes for the whole job; 0 when unknown
	MaxRSS                              int64 // bytes, largest step
	Line                                int   // first line of the job in the file
	// PeakVirtual: MaxRSS is a virtual size (Grid Engine's maxvmem, where
	// the record has no resident peak), an upper bound on resident memory.
	PeakVirtual bool
	// TaskScaled: MaxRSS is a per-task figure multiplied by the tasks a
	// node ran (see docs/import-workload.md).
	TaskScaled bool
}

// Source yields jobs one at a time.
type Source interface {
	// Next returns the next job, or io.EOF. A bad record is an
	// *yamlx.InputError naming file, line and field.
	Next() (*Job, error)
}

func inputErr(file string, line int, field, format string, args ...any) error {
	return &yamlx.InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// newScanner reads lines of up to 16 MiB.
func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	return sc
}

// SlurmFields are the sacct fields the importer needs. Ask for them with
// sacct --parsable2 --format=JobID,JobName,Partition,Account,State,Submit,Start,End,Elapsed,ReqMem,MaxRSS,AveRSS,NTasks,NNodes,AllocCPUS
var SlurmFields = []string{"JobID", "JobName", "Partition", "Account", "State", "Submit", "Start", "End", "Elapsed", "ReqMem", "MaxRSS", "AllocCPUS"}

// Slurm reads `sacct --parsable2` output: '|'-separated fields under a
// header line. Steps (123.batch, 123.0, 123.extern) follow their job, as
// sacct prints them; a job is complete when the next job's line starts.
type Slurm struct {
	file     string
	sc       *bufio.Scanner
	line     int
	col      map[string]int
	pending  *Job // job being assembled from its steps
	stashErr error
	skipBase string
	done     bool
	fields   []string
}

// NewSlurm reads the header and returns a source of jobs.
func NewSlurm(file string, r io.Reader) (*Slurm, error) {
	s := &Slurm{file: file, sc: newScanner(r), col: map[string]int{}}
	for s.sc.Scan() {
		s.line++
		h := strings.TrimSpace(s.sc.Text())
		if h == "" || strings.HasPrefix(h, "#") {
			continue
		}
		for i, f := range strings.Split(h, "|") {
			s.col[strings.TrimSpace(f)] = i
		}
		for _, f := range SlurmFields {
			if _, ok := s.col[f]; !ok {
				return nil, &yamlx.InputError{File: file, Line: s.line, Field: f, Msg: "missing from the header",
					Hint: "run sacct --parsable2 --format=" + strings.Join(SlurmFields, ",")}
			}
		}
		return s, nil
	}
	if err := s.sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return nil, &yamlx.InputError{File: file, Msg: "file is empty", Hint: "expected sacct --parsable2 output with a header line"}
}

func (s *Slurm) get(name string) string {
	i := s.col[name]
	if i < len(s.fields) {
		return strings.TrimSpace(s.fields[i])
	}
	return ""
}

// Next returns the next whole job. After an error, Next may be called
// again to go on with the next record (--skip-bad); the steps of a bad job
// are skipped with it.
func (s *Slurm) Next() (*Job, error) {
	for {
		if s.stashErr != nil {
			err := s.stashErr
			s.stashErr = nil
			return nil, err
		}
		if s.done || !s.sc.Scan() {
			if err := s.sc.Err(); err != nil && !s.done {
				s.done = true
				return nil, fmt.Errorf("%s: line %d: %w", s.file, s.line+1, err)
			}
			s.done = true
			if s.pending != nil {
				j := s.pending
				s.pending = nil
				return j, nil
			}
			return nil, io.EOF
		}
		s.line++
		text := s.sc.Text()
		if strings.TrimSpace(text) == "" || text[0] == '#' {
			continue // sacct writes no comments; fixtures and notes may
		}
		s.fields = strings.Split(text, "|")
		if len(s.fields) != len(s.col) {
			return s.fail("", inputErr(s.file, s.line, "", "%d fields, the header has %d", len(s.fields), len(s.col)))
		}
		id := s.get("JobID")
		base, _, isStep := strings.Cut(id, ".")
		if base == "" {
			return s.fail("", inputErr(s.file, s.line, "JobID", "empty"))
		}
		if isStep {
			if s.pending == nil || s.pending.ID != base {
				if base == s.skipBase {
					continue
				}
				return s.fail(base, inputErr(s.file, s.line, "JobID", "step %q follows no line of job %s", id, base))
			}
			field, v := "MaxRSS", s.get("MaxRSS")
			if v == "" {
				// TRESUsageInMax carries the same figure as mem=.
				field, v = "TRESUsageInMax", tresMem(s.get("TRESUsageInMax"))
			}
			rss, err := parseSlurmMem(v)
			if err != nil {
				s.pending = nil // the job is bad as a whole
				return s.fail(base, inputErr(s.file, s.line, field, "%q: %v", v, err))
			}
			per, err := s.tasksPerNode()
			if err != nil {
				s.pending = nil
				return s.fail(base, err)
			}
			if rss*per > s.pending.MaxRSS {
				s.pending.MaxRSS = rss * per
				s.pending.TaskScaled = per > 1
			}
			continue
		}
		j, err := s.parseJob(base)
		if err != nil {
			return s.fail(base, err)
		}
		prev := s.pending
		s.pending = j
		if prev != nil {
			return prev, nil
		}
	}
}

// tasksPerNode is a step's tasks per node, rounded up: MaxRSS is the
// largest task's, and a node running several tasks of the step held up to
// that many times it. 1 when NTasks is not in the record.
func (s *Slurm) tasksPerNode() (int64, error) {
	tasks, err := s.count("NTasks")
	if err != nil {
		return 0, err
	}
	nodes, err := s.count("NNodes")
	if err != nil {
		return 0, err
	}
	return (tasks + nodes - 1) / nodes, nil
}

// count reads a count column of the current line; 1 when it is absent or
// empty.
func (s *Slurm) count(name string) (int64, error) {
	i, ok := s.col[name]
	if !ok || i >= len(s.fields) {
		return 1, nil
	}
	v := strings.TrimSpace(s.fields[i])
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, inputErr(s.file, s.line, name, "%q: expected a whole number", v)
	}
	return max(n, 1), nil
}

// tresMem is the mem= figure of a TRES list such as
// "cpu=00:01:00,energy=0,fs/disk=1234,mem=1000K,pages=0,vmem=2000K".
func tresMem(v string) string {
	for _, kv := range strings.Split(v, ",") {
		if m, ok := strings.CutPrefix(kv, "mem="); ok {
			return m
		}
	}
	return ""
}

// fail reports err after the job being assembled, and skips the steps of
// job base.
func (s *Slurm) fail(base string, err error) (*Job, error) {
	s.skipBase = base
	if s.pending != nil && s.pending.ID != base {
		j := s.pending
		s.pending = nil
		s.stashErr = err
		return j, nil
	}
	s.pending = nil
	return nil, err
}

func (s *Slurm) parseJob(id string) (*Job, error) {
	j := &Job{ID: id, Name: s.get("JobName"), Partition: s.get("Partition"), Account: s.get("Account"), Line: s.line}
	j.State, _, _ = strings.Cut(s.get("State"), " ") // "CANCELLED by 1000"
	var err error
	for _, f := range []struct {
		name string
		t    *time.Time
	}{{"Submit", &j.Submit}, {"Start", &j.Start}, {"End", &j.End}} {
		if *f.t, err = parseTime(s.get(f.name)); err != nil {
			return nil, inputErr(s.file, s.line, f.name, "%q: %v", s.get(f.name), err)
		}
	}
	if j.Elapsed, err = parseElapsed(s.get("Elapsed")); err != nil {
		return nil, inputErr(s.file, s.line, "Elapsed", "%q: %v", s.get("Elapsed"), err)
	}
	cpus := 1
	if v := s.get("AllocCPUS"); v != "" {
		if cpus, err = strconv.Atoi(v); err != nil || cpus < 0 {
			return nil, inputErr(s.file, s.line, "AllocCPUS", "%q: expected a whole number of CPUs", v)
		}
	}
	nodes := 1
	if i, ok := s.col["NNodes"]; ok && i < len(s.fields) {
		if v := strings.TrimSpace(s.fields[i]); v != "" {
			if nodes, err = strconv.Atoi(v); err != nil || nodes < 0 {
				return nil, inputErr(s.file, s.line, "NNodes", "%q: expected a whole number of nodes", v)
			}
		}
	}
	if j.ReqMem, err = parseReqMem(s.get("ReqMem"), cpus, nodes); err != nil {
		return nil, inputErr(s.file, s.line, "ReqMem", "%q: %v", s.get("ReqMem"), err)
	}
	if j.MaxRSS, err = parseSlurmMem(s.get("MaxRSS")); err != nil {
		return nil, inputErr(s.file, s.line, "MaxRSS", "%q: %v", s.get("MaxRSS"), err)
	}
	return j, nil
}

var errMem = errors.New("expected a size such as 1234K, 512M or 16G")

// parseSlurmMem parses a Slurm memory figure: a number with an optional
// K, M, G, T or P suffix in binary units; a bare number is bytes as sacct
// prints MaxRSS. Empty (the job line of a job with steps) is 0.
func parseSlurmMem(v string) (int64, error) {
	if v == "" || v == "0" {
		return 0, nil
	}
	mult := 1.0
	switch v[len(v)-1] {
	case 'K', 'k':
		mult = 1 << 10
	case 'M', 'm':
		mult = 1 << 20
	case 'G', 'g':
		mult = 1 << 30
	case 'T', 't':
		mult = 1 << 40
	case 'P', 'p':
		mult = 1 << 50
	}
	num := v
	if mult != 1 {
		num = v[:len(v)-1]
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) || x*mult > 1<<62 {
		return 0, errMem
	}
	return int64(math.Round(x * mult)), nil
}

// parseReqMem parses ReqMem: "16Gn" per node, "4000Mc" per core (Slurm
// before 21.08 writes the c/n suffix), or a bare "16G", the job's total.
// The result is the whole job's request.
func parseReqMem(v string, cpus, nodes int) (int64, error) {
	if v == "" || v == "0" || v == "0n" || v == "0c" {
		return 0, nil
	}
	per := byte(0) // Slurm 21.08 and later: the job's total
	if last := v[len(v)-1]; last == 'c' || last == 'n' {
		per, v = last, v[:len(v)-1]
	}
	b, err := parseSlurmMem(v)
	if err != nil {
		return 0, err
	}
	switch per {
	case 'c':
		return b * int64(max(cpus, 1)), nil
	case 'n':
		return b * int64(max(nodes, 1)), nil
	}
	return b, nil
}

// parseTime reads sacct's ISO time; "Unknown" and "None" are zero.
func parseTime(v string) (time.Time, error) {
	switch v {
	case "", "Unknown", "None":
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", time.RFC3339, "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("expected a time such as 2026-03-01T10:00:00")
}

// parseElapsed reads "[D-]HH:MM:SS", "MM:SS", or a number of seconds.
func parseElapsed(v string) (time.Duration, error) {
	bad := errors.New("expected [D-]HH:MM:SS, MM:SS or seconds")
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 || n > 1e9 {
			return 0, bad
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	days := 0
	if d, rest, ok := strings.Cut(v, "-"); ok {
		var err error
		if days, err = strconv.Atoi(d); err != nil || days < 0 {
			return 0, bad
		}
		v = rest
	}
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, bad
	}
	secs := 0.0
	for _, p := range parts {
		n, err := strconv.ParseFloat(p, 64)
		if err != nil || n < 0 {
			return 0, bad
		}
		secs = secs*60 + n
	}
	return time.Duration((float64(days)*86400 + secs) * float64(time.Second)), nil
}

// CSV reads a plain CSV whose header names its columns. Column names are
// matched case-insensitively against the names in Columns, which a user
// may remap (--columns peak=MaxMem,...).
type CSV struct {
	file  string
	r     *csv.Reader
	col   map[string]int
	heads []string
	line  int
}

// CSVColumns are the columns a CSV import reads, by role, with their
// default header names. name, peak and elapsed are required.
var CSVColumns = []string{"name", "peak", "elapsed", "submit", "start", "end", "state", "requested", "partition", "account", "id"}

// NewCSV reads the header. mapping gives header names for roles whose
// column is named otherwise (role -> header).
func NewCSV(file string, r io.Reader, mapping map[string]string) (*CSV, error) {
	c := &CSV{file: file, r: csv.NewReader(bufio.NewReaderSize(r, 1<<20)), col: map[string]int{}}
	c.r.ReuseRecord = true
	c.r.Comment = '#'
	c.r.FieldsPerRecord = -1
	for role := range mapping {
		if !contains(CSVColumns, role) {
			return nil, &yamlx.InputError{File: file, Field: role, Msg: "not a column memplan reads", Hint: "columns: " + strings.Join(CSVColumns, ", ")}
		}
	}
	head, err := c.r.Read()
	if err == io.EOF {
		return nil, &yamlx.InputError{File: file, Msg: "file is empty", Hint: "expected a header line naming the columns"}
	}
	if err != nil {
		return nil, csvErr(file, err)
	}
	c.line = 1
	c.heads = append([]string(nil), head...)
	idx := map[string]int{}
	for i, h := range head {
		idx[strings.ToLower(strings.TrimSpace(h))] = i
	}
	aliases := map[string][]string{"peak": {"peak", "peak_memory", "maxrss", "max_rss"}, "requested": {"requested", "reqmem", "requested_memory"}, "id": {"id", "jobid", "job_id"}}
	for _, role := range CSVColumns {
		names := aliases[role]
		if names == nil {
			names = []string{role}
		}
		if m, ok := mapping[role]; ok {
			names = []string{strings.ToLower(m)}
		}
		for _, n := range names {
			if i, ok := idx[n]; ok {
				c.col[role] = i
				break
			}
		}
		if m, ok := mapping[role]; ok {
			if _, found := c.col[role]; !found {
				return nil, &yamlx.InputError{File: file, Line: 1, Field: m, Msg: "no such column in the header",
					Hint: fmt.Sprintf("--columns %s=%s names it; check the spelling", role, m)}
			}
		}
	}
	for _, role := range []string{"name", "peak", "elapsed"} {
		if _, ok := c.col[role]; !ok {
			h := role
			if m, ok := mapping[role]; ok {
				h = m
			}
			return nil, &yamlx.InputError{File: file, Line: 1, Field: h, Msg: "no such column in the header",
				Hint: fmt.Sprintf("name the column with --columns %s=HEADER", role)}
		}
	}
	return c, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &yamlx.InputError{File: file, Line: pe.Line, Msg: "CSV: " + pe.Err.Error()}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// Next returns the next job (one row is one job).
func (c *CSV) Next() (*Job, error) {
	for {
		rec, err := c.r.Read()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && pe.Err == csv.ErrFieldCount {
				continue
			}
			return nil, csvErr(c.file, err)
		}
		line, _ := c.r.FieldPos(0)
		get := func(role string) (string, string) {
			i, ok := c.col[role]
			if !ok || i >= len(rec) {
				return "", ""
			}
			return strings.TrimSpace(rec[i]), role
		}
		empty := true
		for _, f := range rec {
			if strings.TrimSpace(f) != "" {
				empty = false
			}
		}
		if empty {
			continue
		}
		head := func(role string) string { return strings.TrimSpace(c.heads[c.col[role]]) }
		j := &Job{Line: line}
		j.Name, _ = get("name")
		j.ID, _ = get("id")
		j.Partition, _ = get("partition")
		j.Account, _ = get("account")
		j.State, _ = get("state")
		j.State = strings.ToUpper(j.State)
		if j.State == "" {
			j.State = "COMPLETED"
		}
		if j.ID == "" {
			j.ID = strconv.Itoa(line)
		}
		v, _ := get("peak")
		if j.MaxRSS, err = parseMem(v); err != nil {
			return nil, inputErr(c.file, line, head("peak"), "%q: %v", v, err)
		}
		v, _ = get("requested")
		if j.ReqMem, err = parseMem(v); err != nil {
			return nil, inputErr(c.file, line, head("requested"), "%q: %v", v, err)
		}
		v, _ = get("elapsed")
		if j.Elapsed, err = parseElapsed(v); err != nil {
			if d, err2 := units.ParseDuration(v); err2 == nil {
				j.Elapsed, err = d.D(), nil
			} else {
				return nil, inputErr(c.file, line, head("elapsed"), "%q: %v, or a duration such as 2h30m", v, err)
			}
		}
		for _, f := range []struct {
			role string
			t    *time.Time
		}{{"submit", &j.Submit}, {"start", &j.Start}, {"end", &j.End}} {
			v, _ := get(f.role)
			if *f.t, err = parseTime(v); err != nil {
				return nil, inputErr(c.file, line, head(f.role), "%q: %v", v, err)
			}
		}
		return j, nil
	}
}

// parseMem reads a CSV memory figure: memplan's sizes (48GiB, 512MB) or
// Slurm's (1234K, 16G; binary).
func parseMem(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	if b, err := parseSlurmMem(v); err == nil {
		return b, nil
	}
	b, err := units.ParseBytes(v)
	if err != nil {
		return 0, errors.New(`expected a size such as 48GiB, 512MB or 1234K`)
	}
	return int64(b), nil
}

func asInput(err error) bool {
	var ie *yamlx.InputError
	return errors.As(err, &ie)
}
