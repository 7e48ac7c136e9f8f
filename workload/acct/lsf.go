package acct

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// LSF options: how the site's configuration reads a memory request.
type LSFOptions struct {
	// Unit is the unit of a bare number in rusage[mem=N]: the cluster's
	// LSF_UNIT_FOR_LIMITS (lsf.conf). Default MB.
	Unit int64
	// PerTask says the cluster sets RESOURCE_RESERVE_PER_TASK=Y
	// (lsb.params): a bare rusage mem is reserved per task, not per host.
	PerTask bool
	// Year is the year of bacct -l times printed without one (LSF prints
	// the year only with LSB_DISPLAY_YEAR=Y). 0: such a time is an error.
	Year int
}

// LSF termination reasons (exitInfo) as IBM's "Termination reasons
// displayed by bacct, bhist, and bjobs" lists them, by the state memplan
// counts them as.
var lsfTerm = map[int]string{
	1: "PREEMPTED",                                                                    // TERM_PREEMPT
	5: "TIMEOUT",                                                                      // TERM_RUNLIMIT
	6: "DEADLINE",                                                                     // TERM_DEADLINE
	8: "CANCELLED", 9: "CANCELLED", 14: "CANCELLED", 15: "CANCELLED", 23: "CANCELLED", // TERM_FORCE_OWNER/ADMIN, TERM_OWNER/ADMIN, TERM_BUCKET_KILL
	10: "REQUEUED", 11: "REQUEUED", // TERM_REQUEUE_OWNER/ADMIN
	12: "TIMEOUT",       // TERM_CPULIMIT
	16: "OUT_OF_MEMORY", // TERM_MEMLIMIT
	20: "OUT_OF_MEMORY", // TERM_SWAP
}

var lsfTermNames = map[string]string{
	"TERM_PREEMPT": "PREEMPTED", "TERM_RUNLIMIT": "TIMEOUT", "TERM_DEADLINE": "DEADLINE",
	"TERM_FORCE_OWNER": "CANCELLED", "TERM_FORCE_ADMIN": "CANCELLED", "TERM_OWNER": "CANCELLED", "TERM_ADMIN": "CANCELLED", "TERM_BUCKET_KILL": "CANCELLED",
	"TERM_REQUEUE_OWNER": "REQUEUED", "TERM_REQUEUE_ADMIN": "REQUEUED", "TERM_CPULIMIT": "TIMEOUT",
	"TERM_MEMLIMIT": "OUT_OF_MEMORY", "TERM_SWAP": "OUT_OF_MEMORY",
}

// LSBAcct reads LSF's lsb.acct: one JOB_FINISH record a line, fields
// separated by blanks, strings in double quotes ("" inside a string is a
// quote), and lists whose length is the field before them (askedHosts,
// execHosts). Other record types (EVENT_ADRSV_FINISH, JOB_RESIZE) are
// passed over.
type LSBAcct struct {
	file string
	sc   *bufio.Scanner
	line int
	o    LSFOptions
	tok  []string
}

// NewLSBAcct returns a source of the JOB_FINISH records of r.
func NewLSBAcct(file string, r io.Reader, o LSFOptions) *LSBAcct {
	if o.Unit == 0 {
		o.Unit = 1 << 20
	}
	return &LSBAcct{file: file, sc: newScanner(r), o: o}
}

// lsbFields splits a record into its fields, unquoting strings.
func lsbFields(s string, out []string) ([]string, error) {
	out = out[:0]
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return out, nil
		}
		if s[i] != '"' {
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' {
				j++
			}
			out = append(out, s[i:j])
			i = j
			continue
		}
		// A quoted string: "" inside it is one quote.
		i++
		var b strings.Builder
		start := i
		for {
			if i >= len(s) {
				return out, errors.New("a quoted string is not closed")
			}
			if s[i] == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					b.WriteString(s[start : i+1])
					i += 2
					start = i
					continue
				}
				break
			}
			i++
		}
		if b.Len() == 0 {
			out = append(out, s[start:i])
		} else {
			b.WriteString(s[start:i])
			out = append(out, b.String())
		}
		i++
	}
}

// Next returns the next finished job.
func (l *LSBAcct) Next() (*Job, error) {
	for l.sc.Scan() {
		l.line++
		text := l.sc.Text()
		if strings.TrimSpace(text) == "" || text[0] == '#' {
			continue
		}
		if !strings.HasPrefix(text, `"JOB_FINISH"`) && !strings.HasPrefix(text, "JOB_FINISH ") {
			continue // other record types carry no job
		}
		var err error
		if l.tok, err = lsbFields(text, l.tok); err != nil {
			return nil, inputErr(l.file, l.line, "", "%v", err)
		}
		return l.parse(l.tok)
	}
	if err := l.sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", l.file, l.line+1, err)
	}
	return nil, io.EOF
}

// Field positions of JOB_FINISH up to the asked-hosts list (IBM Spectrum
// LSF, lsb.acct(5)); the rest are relative to the end of the lists.
const (
	lsbEventTime     = 2
	lsbJobID         = 3
	lsbNumProcessors = 6
	lsbSubmitTime    = 7
	lsbStartTime     = 10
	lsbUserName      = 11
	lsbQueue         = 12
	lsbResReq        = 13
	lsbNumAskedHosts = 22
)

// After execHosts, at offset m: jStatus, hostFactor, jobName, command,
// 19 rusage fields, mailUser, projectName, exitStatus, maxNumProcessors,
// loginShell, timeEvent, idx, maxRMem, maxRSwap, inFileSpool,
// commandSpool, rsvId, sla, exceptMask, additionalInfo, exitInfo.
const (
	afterJStatus     = 0
	afterJobName     = 2
	afterProject     = 24
	afterExitStatus  = 25
	afterIdx         = 29
	afterMaxRMem     = 30
	afterExitInfo    = 38
	afterMinRequired = afterMaxRMem + 1
)

func (l *LSBAcct) parse(f []string) (*Job, error) {
	need := func(i int, what string) error {
		if i >= len(f) {
			return inputErr(l.file, l.line, what, "missing: the record has %d fields", len(f))
		}
		return nil
	}
	num := func(i int, what string) (int64, error) {
		if err := need(i, what); err != nil {
			return 0, err
		}
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			// %f fields (rusage) are not read as integers; only %d ones are.
			return 0, inputErr(l.file, l.line, what, "%q: expected a whole number", f[i])
		}
		return v, nil
	}
	epoch := func(i int, what string) (time.Time, error) {
		v, err := num(i, what)
		if err != nil || v <= 0 {
			return time.Time{}, err
		}
		return time.Unix(v, 0).UTC(), nil
	}
	if err := need(lsbNumAskedHosts, "numAskedHosts"); err != nil {
		return nil, err
	}
	j := &Job{Line: l.line}
	id, err := num(lsbJobID, "jobId")
	if err != nil {
		return nil, err
	}
	var end time.Time
	if end, err = epoch(lsbEventTime, "Event Time"); err != nil {
		return nil, err
	}
	if j.Submit, err = epoch(lsbSubmitTime, "submitTime"); err != nil {
		return nil, err
	}
	if j.Start, err = epoch(lsbStartTime, "startTime"); err != nil {
		return nil, err
	}
	procs, err := num(lsbNumProcessors, "numProcessors")
	if err != nil {
		return nil, err
	}
	j.Partition = f[lsbQueue]
	resReq := f[lsbResReq]
	asked, err := num(lsbNumAskedHosts, "numAskedHosts")
	if err != nil {
		return nil, err
	}
	if asked < 0 || asked > int64(len(f)) {
		return nil, inputErr(l.file, l.line, "numAskedHosts", "%d: more hosts than the record has fields", asked)
	}
	k := lsbNumAskedHosts + 1 + int(asked)
	exN, err := num(k, "numExHosts")
	if err != nil {
		return nil, err
	}
	if exN < 0 || exN > int64(len(f)) {
		return nil, inputErr(l.file, l.line, "numExHosts", "%d: more hosts than the record has fields", exN)
	}
	if err := need(k+int(exN), "execHosts"); err != nil {
		return nil, err
	}
	hosts := map[string]bool{}
	for _, h := range f[k+1 : k+1+int(exN)] {
		// LSF_HPC_EXTENSIONS=SHORT_EVENTFILE writes "4*hostA".
		if _, name, ok := strings.Cut(h, "*"); ok {
			h = name
		}
		hosts[h] = true
	}
	m := k + 1 + int(exN)
	if err := need(m+afterMinRequired-1, "maxRMem"); err != nil {
		return nil, err
	}
	jStatus, err := num(m+afterJStatus, "jStatus")
	if err != nil {
		return nil, err
	}
	j.Name = f[m+afterJobName]
	j.Account = f[m+afterProject]
	if _, err := num(m+afterExitStatus, "exitStatus"); err != nil {
		return nil, err
	}
	idx, err := num(m+afterIdx, "idx")
	if err != nil {
		return nil, err
	}
	j.ID = strconv.FormatInt(id, 10)
	if idx > 0 {
		j.ID += "[" + strconv.FormatInt(idx, 10) + "]"
		j.Name = arrayName(j.Name)
	}
	rmem, err := num(m+afterMaxRMem, "maxRMem")
	if err != nil {
		return nil, err
	}
	if rmem > 0 { // -1: not available
		if rmem > 1<<52 {
			return nil, inputErr(l.file, l.line, "maxRMem", "%d KB: too large", rmem)
		}
		j.MaxRSS = rmem << 10
	}
	exitInfo := int64(0)
	if m+afterExitInfo < len(f) {
		if exitInfo, err = num(m+afterExitInfo, "exitInfo"); err != nil {
			return nil, err
		}
	}
	switch jStatus {
	case 64: // DONE
		j.State = "COMPLETED"
	case 32: // EXIT
		j.State = "FAILED"
		if st, ok := lsfTerm[int(exitInfo)]; ok {
			j.State = st
		}
	default:
		return nil, inputErr(l.file, l.line, "jStatus", "%d: expected 64 (DONE) or 32 (EXIT) in a JOB_FINISH record", jStatus)
	}
	j.End = end
	if !j.Start.IsZero() && !end.Before(j.Start) {
		j.Elapsed = end.Sub(j.Start)
	} else {
		j.Start = time.Time{} // never dispatched
	}
	if j.ReqMem, err = lsfReqMem(resReq, procs, len(hosts), l.o); err != nil {
		return nil, inputErr(l.file, l.line, "resReq", "%q: %v", resReq, err)
	}
	return j, nil
}

// arrayName strips the index specification from an array job's name:
// LSF names every element "sim[1-100]", the array's name.
func arrayName(n string) string {
	if i := strings.LastIndexByte(n, '['); i > 0 && strings.HasSuffix(n, "]") {
		return n[:i]
	}
	return n
}

var rusageMem = regexp.MustCompile(`(?:^|[\[:,\s])mem=\(?\s*([0-9]*\.?[0-9]+)\s*([KkMmGgTt][Bb]?)?(/(?:task|job|host))?`)

// lsfReqMem is the job's memory reservation from its resource requirement
// string: rusage[mem=N] in LSF_UNIT_FOR_LIMITS, or with a unit (4GB),
// reserved per host (LSF's default), per task (/task, or
// RESOURCE_RESERVE_PER_TASK=Y) or per job (/job). Only the first mem= of
// a compound or alternative requirement is read. None: 0.
func lsfReqMem(resReq string, procs int64, hosts int, o LSFOptions) (int64, error) {
	i := strings.Index(resReq, "rusage[")
	if i < 0 {
		return 0, nil
	}
	m := rusageMem.FindStringSubmatch(resReq[i+len("rusage"):])
	if m == nil {
		return 0, nil
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, errors.New("rusage mem: expected a number such as mem=4096 or mem=4GB")
	}
	unit := float64(o.Unit)
	switch strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(m[2], "B"), "b")) {
	case "K":
		unit = 1 << 10
	case "M":
		unit = 1 << 20
	case "G":
		unit = 1 << 30
	case "T":
		unit = 1 << 40
	}
	b := v * unit
	per := strings.TrimPrefix(m[3], "/")
	if per == "" {
		per = "host"
		if o.PerTask {
			per = "task"
		}
	}
	switch per {
	case "task":
		b *= float64(max(procs, 1))
	case "host":
		b *= float64(max(hosts, 1))
	}
	if b > 1<<62 {
		return 0, errors.New("rusage mem: too large")
	}
	return int64(b), nil
}

// BacctL reads `bacct -l` text: per job a header (Job <id>, Job Name <..>,
// User <..>, Project <..>, Status <DONE|EXIT>, Queue <..>, ...), dated
// events (Submitted ... Requested Resources <..>; Dispatched N Task(s) on
// Host(s) <..>; Completed <done> or <exit>; TERM_...), and a summary table
// whose MEM column is the peak. bacct wraps long lines at 80 columns and
// indents the rest: continuation lines are joined back.
type BacctL struct {
	file    string
	sc      *bufio.Scanner
	line    int
	o       LSFOptions
	peek    string
	peekN   int
	hasPeek bool
}

// NewBacctL returns a source of the jobs in bacct -l output.
func NewBacctL(file string, r io.Reader, o LSFOptions) *BacctL {
	if o.Unit == 0 {
		o.Unit = 1 << 20
	}
	return &BacctL{file: file, sc: newScanner(r), o: o}
}

// logical returns the next line with its continuations joined, and the
// number of its first physical line.
func (b *BacctL) logical() (string, int, bool) {
	var s string
	var n int
	if b.hasPeek {
		s, n, b.hasPeek = b.peek, b.peekN, false
	} else {
		if !b.sc.Scan() {
			return "", 0, false
		}
		b.line++
		s, n = b.sc.Text(), b.line
	}
	for b.sc.Scan() {
		b.line++
		t := b.sc.Text()
		// bacct indents a wrapped line's rest by 21 or more blanks.
		if strings.HasPrefix(t, strings.Repeat(" ", 20)) && strings.TrimSpace(t) != "" && (strings.HasPrefix(s, "Job <") || dated(s)) {
			s += strings.TrimLeft(t, " ")
			continue
		}
		b.peek, b.peekN, b.hasPeek = t, b.line, true
		break
	}
	return s, n, true
}

// dated reports whether a line starts with a bacct time stamp
// ("Mon Mar  2 08:00:00:" with or without a year).
func dated(s string) bool {
	return len(s) > 20 && s[3] == ' ' && s[7] == ' ' && strings.Count(s[:min(len(s), 26)], ":") >= 3
}

var bacctTag = regexp.MustCompile(`([A-Za-z][A-Za-z ]*?) <((?:[^<>]|<[^<>]*>)*)>`)

// Next returns the next job.
func (b *BacctL) Next() (*Job, error) {
	var j *Job
	var status, reqRes string
	var procs int64
	hosts := 0
	var memAt int
	var memHead []string
	for {
		s, n, ok := b.logical()
		if !ok {
			if err := b.sc.Err(); err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", b.file, b.line+1, err)
			}
			if j != nil {
				return nil, inputErr(b.file, j.Line, "", "job %s ends without its accounting summary (CPU_T ... MEM line)", j.ID)
			}
			return nil, io.EOF
		}
		t := strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "Job <"):
			if j != nil {
				return nil, inputErr(b.file, n, "", "job %s has no accounting summary before the next job", j.ID)
			}
			j = &Job{Line: n}
			for _, m := range bacctTag.FindAllStringSubmatch(s, -1) {
				key := strings.TrimSpace(strings.TrimPrefix(m[1], ","))
				switch key {
				case "Job":
					j.ID = m[2]
				case "Job Name":
					j.Name = m[2]
				case "Project":
					j.Account = m[2]
				case "Queue":
					j.Partition = m[2]
				case "Status":
					status = m[2]
				}
			}
			if j.ID == "" {
				return nil, inputErr(b.file, n, "Job", "no job ID in %q", t)
			}
			if strings.Contains(j.ID, "[") {
				j.Name = arrayName(j.Name)
			}
			switch status {
			case "DONE":
				j.State = "COMPLETED"
			case "EXIT":
				j.State = "FAILED"
			default:
				return nil, inputErr(b.file, n, "Status", "%q: expected DONE or EXIT", status)
			}
		case j != nil && dated(s):
			at, rest, err := b.when(s)
			if err != nil {
				return nil, inputErr(b.file, n, "time", "%v", err)
			}
			if !j.Submit.IsZero() && at.Before(j.Submit.Add(-24*time.Hour)) {
				at = at.AddDate(1, 0, 0) // a year-less time after New Year
			}
			switch {
			case strings.HasPrefix(rest, "Submitted"):
				j.Submit = at
				for _, m := range bacctTag.FindAllStringSubmatch(rest, -1) {
					if strings.Contains(m[1], "Requested Resources") {
						reqRes = m[2]
					}
				}
			case strings.HasPrefix(rest, "Dispatched"):
				j.Start = at
				f := strings.Fields(rest)
				for i := 0; i+1 < len(f); i++ {
					// "Dispatched 4 Task(s) on Host(s)" or, before LSF 10,
					// "Dispatched to 4 Hosts/Processors".
					if v, err := strconv.ParseInt(f[i], 10, 64); err == nil && procs == 0 {
						procs = v
					}
				}
				seen := map[string]bool{}
				for _, h := range hostList(rest) {
					if _, name, ok := strings.Cut(h, "*"); ok {
						h = name // "4*hostA": four slots on hostA
					}
					seen[h] = true
				}
				hosts = len(seen)
			case strings.HasPrefix(rest, "Completed"):
				j.End = at
				for name, st := range lsfTermNames {
					if strings.Contains(rest, name+":") || strings.HasSuffix(strings.TrimRight(rest, ". "), name) {
						j.State = st
					}
				}
			}
		case j != nil && strings.HasPrefix(t, "CPU_T"):
			memHead = strings.Fields(t)
			memAt = -1
			for i, h := range memHead {
				if h == "MEM" {
					memAt = i
				}
			}
			if memAt < 0 {
				return nil, inputErr(b.file, n, "MEM", "missing from the summary header %q", t)
			}
		case j != nil && memHead != nil && t != "":
			vals := lsfSummaryFields(t)
			if len(vals) != len(memHead) {
				return nil, inputErr(b.file, n, "", "%d values under a summary header of %d", len(vals), len(memHead))
			}
			peak, err := lsfSize(vals[memAt])
			if err != nil {
				return nil, inputErr(b.file, n, "MEM", "%q: %v", vals[memAt], err)
			}
			j.MaxRSS = peak
			if !j.Start.IsZero() && !j.End.IsZero() && !j.End.Before(j.Start) {
				j.Elapsed = j.End.Sub(j.Start)
			}
			var err2 error
			if j.ReqMem, err2 = lsfReqMem(reqRes, procs, hosts, b.o); err2 != nil {
				return nil, inputErr(b.file, j.Line, "Requested Resources", "%q: %v", reqRes, err2)
			}
			return j, nil
		}
	}
}

// hostList returns the hosts of the first "Host(s) <a> <b>" (or, before
// LSF 10, "Hosts/Processors <a> <b>") list of a dispatch line.
func hostList(s string) []string {
	i := strings.Index(s, "Host(s) <")
	if i < 0 {
		i = strings.Index(s, "Processors <")
	}
	if i < 0 {
		return nil
	}
	s = s[strings.IndexByte(s[i:], '<')+i:]
	var out []string
	for strings.HasPrefix(s, "<") {
		e := strings.IndexByte(s, '>')
		if e < 0 {
			break
		}
		out = append(out, s[1:e])
		s = strings.TrimLeft(s[e+1:], " ")
	}
	return out
}

// lsfSummaryFields splits a summary row; "2 Gbytes" is one value.
func lsfSummaryFields(t string) []string {
	f := strings.Fields(t)
	out := f[:0]
	for _, x := range f {
		if len(out) > 0 && strings.HasSuffix(strings.ToLower(x), "bytes") {
			out[len(out)-1] += x
			continue
		}
		out = append(out, x)
	}
	return out
}

// lsfSize reads a bacct memory figure: 9G, 512M, 300K, "2 Gbytes"; "-" is
// none. Binary units, as LSF's.
func lsfSize(v string) (int64, error) {
	if v == "-" || v == "" {
		return 0, nil
	}
	v = strings.TrimSuffix(strings.TrimSuffix(v, "bytes"), "B")
	return parseSlurmMem(v)
}

var months = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

// when reads a bacct time stamp, "Mon Mar  2 08:00:00:" or with the year
// "Mon Mar  2 08:00:00 2026:", and returns the rest of the line. A time
// without a year takes LSFOptions.Year; a time earlier than the job's
// submission by more than a day moves to the next year (a job that ran
// over New Year).
func (b *BacctL) when(s string) (time.Time, string, error) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return time.Time{}, "", fmt.Errorf("%q: expected a time such as Mon Mar  2 08:00:00", s)
	}
	mon, ok := months[f[1]]
	day, err := strconv.Atoi(f[2])
	clock := strings.TrimSuffix(f[3], ":")
	hms, err2 := time.Parse("15:04:05", clock)
	if !ok || err != nil || err2 != nil {
		return time.Time{}, "", fmt.Errorf("%q: expected a time such as Mon Mar  2 08:00:00", strings.Join(append(f[:3:3], clock), " "))
	}
	year := b.o.Year
	restAt := 4
	if !strings.HasSuffix(f[3], ":") && len(f) > 4 {
		if y, err := strconv.Atoi(strings.TrimSuffix(f[4], ":")); err == nil {
			year, restAt = y, 5
		}
	}
	if year == 0 {
		return time.Time{}, "", fmt.Errorf("%q has no year: give --lsf-year YYYY, or set LSB_DISPLAY_YEAR=Y in lsf.conf before running bacct", strings.Join(append(f[:3:3], clock), " "))
	}
	t := time.Date(year, mon, day, hms.Hour(), hms.Minute(), hms.Second(), 0, time.UTC)
	rest := strings.Join(f[restAt:], " ")
	return t, rest, nil
}
