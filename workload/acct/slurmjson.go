package acct

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"
)

// SlurmJSON reads `sacct --json` (slurmdbd's OpenAPI job records: schema
// dbv0.0.38 in Slurm 22.05, v0.0.39 and later in newer releases, whose
// differences it accepts). The jobs array is decoded one job at a time,
// so memory does not grow with the file.
type SlurmJSON struct {
	file  string
	br    *bufio.Reader
	dec   *json.Decoder
	count *lineCounter
	n     int
	inArr bool
}

// lineCounter counts the newlines the decoder has consumed so far, to
// name the line of a bad job.
type lineCounter struct {
	r     io.Reader
	lines []int // offsets of newlines
	off   int
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.lines = append(c.lines, c.off+i)
		}
	}
	c.off += n
	return n, err
}

// lineAt is the 1-based line of byte offset off.
func (c *lineCounter) lineAt(off int64) int {
	lo, hi := 0, len(c.lines)
	for lo < hi {
		m := (lo + hi) / 2
		if int64(c.lines[m]) < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo + 1
}

// NewSlurmJSON finds the jobs array of r.
func NewSlurmJSON(file string, r io.Reader) (*SlurmJSON, error) {
	c := &lineCounter{r: bufio.NewReaderSize(r, 1<<20)}
	s := &SlurmJSON{file: file, count: c, dec: json.NewDecoder(c)}
	s.dec.UseNumber()
	bad := func(msg string) error {
		return inputErr(file, c.lineAt(s.dec.InputOffset()), "", "%s", msg)
	}
	t, err := s.dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, inputErr(file, 0, "", "file is empty (expected sacct --json output)")
		}
		return nil, bad("not JSON: " + err.Error())
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, bad("expected a JSON object (sacct --json output)")
	}
	for s.dec.More() {
		t, err := s.dec.Token()
		if err != nil {
			return nil, bad("JSON: " + err.Error())
		}
		if k, _ := t.(string); k == "jobs" {
			t, err := s.dec.Token()
			if d, ok := t.(json.Delim); err != nil || !ok || d != '[' {
				return nil, inputErr(file, c.lineAt(s.dec.InputOffset()), "jobs", "expected an array")
			}
			s.inArr = true
			return s, nil
		}
		var skip json.RawMessage
		if err := s.dec.Decode(&skip); err != nil {
			return nil, bad("JSON: " + err.Error())
		}
	}
	return nil, inputErr(file, 0, "jobs", "missing: is this sacct --json output?")
}

// flexInt reads a number, null, or the {"set":..,"infinite":..,"number":..}
// object of newer schemas.
type flexInt struct {
	V   int64
	Set bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '{' {
		var o struct {
			Set      bool        `json:"set"`
			Infinite bool        `json:"infinite"`
			Number   json.Number `json:"number"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		if !o.Set || o.Infinite {
			return nil
		}
		b = []byte(o.Number)
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		// As a type error, encoding/json adds the field's path to it.
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeOf(int64(0))}
	}
	f.V, f.Set = int64(v), true
	return nil
}

// flexStates reads a state as a string (dbv0.0.38) or a list of strings
// (v0.0.39 and later).
type flexStates string

func (f *flexStates) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexStates(s)
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("expected a state name or a list of them")
	}
	if len(l) > 0 {
		*f = flexStates(l[0])
	}
	return nil
}

type jsonTRES struct {
	Type  string  `json:"type"`
	Name  *string `json:"name"`
	Count flexInt `json:"count"`
}

func tresCount(l []jsonTRES, typ string) (int64, bool) {
	for _, t := range l {
		if t.Type == typ && (t.Name == nil || *t.Name == "") {
			return t.Count.V, t.Count.Set
		}
	}
	return 0, false
}

type jsonJob struct {
	Account string `json:"account"`
	Array   struct {
		JobID  flexInt `json:"job_id"`
		TaskID flexInt `json:"task_id"`
	} `json:"array"`
	JobID     flexInt `json:"job_id"`
	Name      string  `json:"name"`
	Partition string  `json:"partition"`
	Nodes     flexInt `json:"allocation_nodes"`
	State     struct {
		Current flexStates `json:"current"`
	} `json:"state"`
	Time struct {
		Elapsed    flexInt `json:"elapsed"`
		End        flexInt `json:"end"`
		Start      flexInt `json:"start"`
		Submission flexInt `json:"submission"`
	} `json:"time"`
	Required struct {
		CPUs          flexInt `json:"CPUs"`
		MemoryPerCPU  flexInt `json:"memory_per_cpu"`
		MemoryPerNode flexInt `json:"memory_per_node"`
	} `json:"required"`
	TRES struct {
		Allocated []jsonTRES `json:"allocated"`
		Requested []jsonTRES `json:"requested"`
	} `json:"tres"`
	Steps []struct {
		Step struct {
			Name string `json:"name"`
		} `json:"step"`
		Tasks struct {
			Count flexInt `json:"count"`
		} `json:"tasks"`
		Nodes struct {
			Count flexInt `json:"count"`
		} `json:"nodes"`
		TRES struct {
			Requested struct {
				Max []jsonTRES `json:"max"`
			} `json:"requested"`
		} `json:"tres"`
	} `json:"steps"`
}

// nextLine is the line the next job starts on: the decoder's offset is
// before the comma and blanks that precede it, which the buffered bytes
// show.
func (s *SlurmJSON) nextLine() int {
	start := s.dec.InputOffset()
	line := s.count.lineAt(start)
	var peek [256]byte
	n, _ := io.ReadFull(s.dec.Buffered(), peek[:])
	for _, b := range peek[:n] {
		switch b {
		case '\n':
			line++
		case ' ', '\t', '\r', ',':
		default:
			return line
		}
	}
	return line
}

// Next returns the next job.
func (s *SlurmJSON) Next() (*Job, error) {
	if !s.inArr || !s.dec.More() {
		s.inArr = false
		return nil, io.EOF
	}
	line := s.nextLine()
	var jj jsonJob
	if err := s.dec.Decode(&jj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			s.inArr = false // the stream cannot go on after a syntax error
			return nil, inputErr(s.file, s.count.lineAt(se.Offset), "", "JSON: %v", err)
		}
		s.n++
		field := ""
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field = te.Field
		}
		return nil, inputErr(s.file, line, field, "jobs[%d]: %v", s.n-1, jsonErrMsg(err))
	}
	s.n++
	return s.job(&jj, line)
}

func jsonErrMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := te.Type.String()
		switch te.Type.Kind() {
		case reflect.Int64, reflect.Int, reflect.Float64:
			want = "a number"
		case reflect.String:
			want = "a string"
		case reflect.Slice:
			want = "a list"
		case reflect.Struct:
			want = "an object"
		}
		return fmt.Sprintf("got a JSON %s, expected %s", te.Value, want)
	}
	return err.Error()
}

// jsonKind names the kind of a JSON value for an error.
func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "value"
	}
	switch b[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	}
	return "value " + string(b)
}

func (s *SlurmJSON) job(jj *jsonJob, line int) (*Job, error) {
	if !jj.JobID.Set {
		return nil, inputErr(s.file, line, "job_id", "missing")
	}
	j := &Job{Line: line, Name: jj.Name, Partition: jj.Partition, Account: jj.Account, State: string(jj.State.Current)}
	j.ID = strconv.FormatInt(jj.JobID.V, 10)
	if jj.Array.TaskID.Set && jj.Array.JobID.V > 0 {
		j.ID = strconv.FormatInt(jj.Array.JobID.V, 10) + "_" + strconv.FormatInt(jj.Array.TaskID.V, 10)
	}
	if j.State == "" {
		return nil, inputErr(s.file, line, "state.current", "missing")
	}
	for _, f := range []struct {
		v *flexInt
		t *time.Time
	}{{&jj.Time.Submission, &j.Submit}, {&jj.Time.Start, &j.Start}, {&jj.Time.End, &j.End}} {
		if f.v.V > 0 {
			*f.t = time.Unix(f.v.V, 0).UTC()
		}
	}
	if jj.Time.Elapsed.V < 0 || jj.Time.Elapsed.V > 1e9 {
		return nil, inputErr(s.file, line, "time.elapsed", "%d: expected seconds", jj.Time.Elapsed.V)
	}
	j.Elapsed = time.Duration(jj.Time.Elapsed.V) * time.Second
	// The request: the job's requested TRES mem is its total in MB. The
	// required.memory of dbv0.0.38 is left alone: it is Slurm's raw
	// ReqMem cut to 32 bits, which loses the per-CPU flag.
	nodes := max(jj.Nodes.V, 1)
	if mb, ok := tresCount(jj.TRES.Requested, "mem"); ok && mb > 0 {
		j.ReqMem = mb << 20
	} else if r := jj.Required; r.MemoryPerNode.V > 0 {
		j.ReqMem = r.MemoryPerNode.V << 20 * nodes
	} else if r.MemoryPerCPU.V > 0 {
		j.ReqMem = r.MemoryPerCPU.V << 20 * max(r.CPUs.V, 1)
	}
	if j.ReqMem < 0 {
		return nil, inputErr(s.file, line, "tres.requested", "memory out of range")
	}
	for i, st := range jj.Steps {
		b, ok := tresCount(st.TRES.Requested.Max, "mem")
		if !ok {
			continue
		}
		if b < 0 || b > 1<<52 {
			return nil, inputErr(s.file, line, fmt.Sprintf("steps[%d].tres.requested.max", i), "mem %d: out of range", b)
		}
		// TRESUsageInMax mem is the largest task's peak, in bytes.
		per := int64(1)
		if t, n := st.Tasks.Count.V, max(st.Nodes.Count.V, 1); t > n {
			per = (t + n - 1) / n
		}
		if b*per > j.MaxRSS {
			j.MaxRSS, j.TaskScaled = b*per, per > 1
		}
	}
	return j, nil
}
