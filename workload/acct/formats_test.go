package acct_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/workload/acct"
)

// The LSF, Grid Engine and sacct --json fixtures are written by hand from
// each scheduler's documented record format (IBM Spectrum LSF lsb.acct(5)
// and bacct -l, Grid Engine accounting(5), Slurm 22.05's dbv0.0.38 job
// schema), not taken from a real cluster. They hold the same farm as
// sacct.txt, so the figures can be compared across formats.

func openSource(t *testing.T, format, file string) acct.Source {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src, err := newSource(format, file, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func newSource(format, file string, r io.Reader) (acct.Source, error) {
	switch format {
	case "lsb.acct":
		return acct.NewLSBAcct(file, r, acct.LSFOptions{}), nil
	case "bacct":
		return acct.NewBacctL(file, r, acct.LSFOptions{Year: 2026}), nil
	case "sge":
		return acct.NewGridEngine(file, r), nil
	case "json":
		return acct.NewSlurmJSON(file, r)
	}
	panic(format)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *update {
		os.WriteFile(name, got, 0o644)
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update to rewrite):\n%s", name, got)
	}
}

func allJobs(t *testing.T, src acct.Source) []*acct.Job {
	t.Helper()
	var out []*acct.Job
	for {
		j, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, j)
	}
}

// Each format's fixture imports to its golden workload, which loads.
func TestFormatGoldens(t *testing.T) {
	for _, tt := range []struct {
		format, file string
		o            acct.Options
		classes      int
		has          []string
	}{
		{"lsb.acct", "testdata/lsb.acct", acct.Options{Format: "LSF lsb.acct", Peak: "maxRMem", Request: "rusage mem", Elapsed: "run time"}, 2,
			[]string{`"sim"`, "9 job(s), 5 completed, 1 FAILED, 1 CANCELLED, 1 OUT_OF_MEMORY, 1 TIMEOUT", `"sta_signoff"`, "footprint: 700GiB", "1 capped"}},
		{"bacct", "testdata/bacct-l.txt", acct.Options{Format: "LSF bacct -l", Peak: "MEM", Request: "rusage mem", Elapsed: "run time"}, 2,
			[]string{"3 job(s), 2 completed, 1 OUT_OF_MEMORY", "footprint: 10GiB", "footprint: 700GiB", "runtime: 2h\n"}},
		{"sge", "testdata/sge-accounting", acct.Options{Format: "Grid Engine", Peak: "ru_maxrss or maxvmem", Request: "h_vmem", Elapsed: "ru_wallclock"}, 2,
			[]string{"9 job(s), 5 completed, 2 FAILED, 1 CANCELLED, 1 OUT_OF_MEMORY", "# VIRTUAL: 1 job(s)", "footprint: 700GiB"}},
		{"json", "testdata/sacct.json", acct.Options{Format: "Slurm sacct --json", Peak: "TRESUsageInMax mem (largest step)"}, 2,
			[]string{"7 job(s), 5 completed, 1 CANCELLED, 1 OUT_OF_MEMORY", "# PER-TASK: 1 job(s)", "footprint: 16GiB", "footprint: 700GiB"}},
	} {
		t.Run(tt.format, func(t *testing.T) {
			o := tt.o
			o.Source = tt.file
			res, err := acct.Import(openSource(t, tt.format, tt.file), o)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file+".golden.yaml", res.YAML)
			for _, s := range tt.has {
				if !strings.Contains(string(res.YAML), s) {
					t.Errorf("lacks %q:\n%s", s, res.YAML)
				}
			}
			p := filepath.Join(t.TempDir(), "farm.yaml")
			os.WriteFile(p, res.YAML, 0o644)
			w, err := model.LoadWorkload(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Jobs) != tt.classes {
				t.Errorf("%d classes, want %d", len(w.Jobs), tt.classes)
			}
		})
	}
}

// LSF traps: quoted strings with spaces and doubled quotes, variable
// host lists (asked and executed, SHORT_EVENTFILE's "4*hostA"), array
// elements (jobId[idx], the array's name), rusage per host, per task and
// per job, exit reasons.
func TestLSBAcctFields(t *testing.T) {
	jobs := allJobs(t, openSource(t, "lsb.acct", "testdata/lsb.acct"))
	if len(jobs) != 11 {
		t.Fatalf("%d jobs, want 11 (the EVENT_ADRSV_FINISH record is not a job)", len(jobs))
	}
	want := []struct {
		id, name, state string
		peak, req       int64
	}{
		{"101", "sim_001", "COMPLETED", 9000000 << 10, 16384 << 20}, // mem=16384 MB per host, one host
		{"102", "sim_002", "COMPLETED", 10 << 30, 4 * 4096 << 20},   // mem=4096/task, 4 tasks; 2 asked hosts skipped
		{"103", "sim_003", "COMPLETED", 8 << 30, 16 << 30},          // command and cwd with blanks and quotes
		{"104", "sim_004", "COMPLETED", 16 << 30, 16 << 30},
		{"105", "sim_005", "OUT_OF_MEMORY", 16 << 30, 16 << 30}, // TERM_MEMLIMIT
		{"106", "sim_006", "CANCELLED", 3 << 30, 16 << 30},      // TERM_OWNER
		{"107", "sim_007", "TIMEOUT", 9 << 30, 16 << 30},        // TERM_RUNLIMIT
		{"108", "sim_008", "FAILED", 1 << 30, 16 << 30},
		{"109", "sim_010", "COMPLETED", 500 << 20, 16 << 30},
		{"200[1]", "sta_signoff", "COMPLETED", 700 << 30, 768 << 30}, // /job: not times 32 slots
		{"200[2]", "sta_signoff", "COMPLETED", 690 << 30, 768 << 30},
	}
	for i, w := range want {
		j := jobs[i]
		if j.ID != w.id || j.Name != w.name || j.State != w.state || j.MaxRSS != w.peak || j.ReqMem != w.req {
			t.Errorf("job %d: got %s %q %s peak %d req %d, want %s %q %s peak %d req %d", i, j.ID, j.Name, j.State, j.MaxRSS, j.ReqMem, w.id, w.name, w.state, w.peak, w.req)
		}
	}
	if jobs[0].Elapsed.Hours() != 2 || jobs[0].Partition != "regress" || jobs[0].Account != "chipA" {
		t.Errorf("job 101: %+v", jobs[0])
	}
}

// rusage mem per task when the cluster reserves per task, and in the
// cluster's LSF_UNIT_FOR_LIMITS.
func TestLSFReserveOptions(t *testing.T) {
	rec := `"JOB_FINISH" "10.108" 1772445610 1 1001 0 4 1772438400 0 0 1772438410 "u" "q" "rusage[mem=2]" "" "" "h" "/" "" "" "" "f" 0 2 "2*hA" "2*hB" 64 1.00 "a" "c" 0 0 -1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "" "p" 0 4 "" "" 0 1048576 0 "" "" "" "" 0 "" 0` + "\n"
	for _, tt := range []struct {
		o    acct.LSFOptions
		want int64
	}{
		{acct.LSFOptions{}, 2 * 2 << 20},                             // per host, 2 hosts, MB
		{acct.LSFOptions{PerTask: true}, 4 * 2 << 20},                // per task, 4 processors
		{acct.LSFOptions{Unit: 1 << 30}, 2 * 2 << 30},                // LSF_UNIT_FOR_LIMITS=GB
		{acct.LSFOptions{Unit: 1 << 30, PerTask: true}, 4 * 2 << 30}, // both
	} {
		j := allJobs(t, acct.NewLSBAcct("t.acct", strings.NewReader(rec), tt.o))
		if len(j) != 1 || j[0].ReqMem != tt.want || j[0].MaxRSS != 1<<30 {
			t.Errorf("%+v: ReqMem %d, want %d", tt.o, j[0].ReqMem, tt.want)
		}
	}
}

// bacct -l: wrapped lines are joined, the MEM column is the peak, a time
// without a year needs --lsf-year, and one with a year does not.
func TestBacctL(t *testing.T) {
	jobs := allJobs(t, openSource(t, "bacct", "testdata/bacct-l.txt"))
	if len(jobs) != 4 {
		t.Fatalf("%d jobs", len(jobs))
	}
	j := jobs[1]
	if j.ID != "102" || j.Partition != "regress" || j.MaxRSS != 10<<30 || j.ReqMem != 4*4096<<20 || j.Elapsed.Minutes() != 150 {
		t.Errorf("job 102: %+v", j)
	}
	if jobs[2].State != "OUT_OF_MEMORY" || jobs[3].ID != "200[1]" || jobs[3].Name != "sta_signoff" || jobs[3].MaxRSS != 700<<30 || jobs[3].End.Day() != 3 {
		t.Errorf("jobs %+v %+v", jobs[2], jobs[3])
	}
	_, err := acct.Import(acct.NewBacctL("b.txt", strings.NewReader(bacctOne("Mon Mar  2 08:00:00")), acct.LSFOptions{}), acct.Options{Source: "b.txt"})
	if err == nil || !strings.HasPrefix(err.Error(), `b.txt:2: field time: "Mon Mar 2 08:00:00" has no year: give --lsf-year YYYY`) {
		t.Errorf("error %v", err)
	}
	jobs = allJobs(t, acct.NewBacctL("b.txt", strings.NewReader(bacctOne("Mon Mar  2 08:00:00 2027")), acct.LSFOptions{}))
	if len(jobs) != 1 || jobs[0].Submit.Year() != 2027 || jobs[0].MaxRSS != 2<<30 {
		t.Errorf("jobs %+v", jobs)
	}
}

func bacctOne(at string) string {
	return "Job <7>, Job Name <a>, User <u>, Project <p>, Status <DONE>, Queue <q>\n" +
		at + ": Submitted from host <h>, CWD <$HOME>;\n" +
		at + ": Dispatched to <h>;\n" +
		at + ": Completed <done>.\n" +
		"     CPU_T     WAIT     TURNAROUND   STATUS     HOG_FACTOR    MEM    SWAP\n" +
		"      0.04        1              3     done         0.0133     2G     3G\n"
}

// Grid Engine traps: h_vmem is per slot; ru_maxrss (KB) before maxvmem,
// which is virtual and flagged; Univa's millisecond times; exit 137 at the
// limit is out of memory, below it a kill.
func TestGridEngineFields(t *testing.T) {
	jobs := allJobs(t, openSource(t, "sge", "testdata/sge-accounting"))
	if len(jobs) != 11 {
		t.Fatalf("%d jobs", len(jobs))
	}
	if j := jobs[0]; j.ReqMem != 16<<30 || j.MaxRSS != 9000000<<10 || j.PeakVirtual || j.Elapsed.Hours() != 2 || j.Partition != "regress.q" {
		t.Errorf("job 3001: %+v", j)
	}
	if j := jobs[2]; j.MaxRSS != 8<<30 || !j.PeakVirtual {
		t.Errorf("job 3003 (no ru_maxrss): %+v", j)
	}
	if jobs[4].State != "OUT_OF_MEMORY" || jobs[5].State != "CANCELLED" || jobs[6].State != "FAILED" || jobs[7].State != "FAILED" {
		t.Errorf("states %s %s %s %s", jobs[4].State, jobs[5].State, jobs[6].State, jobs[7].State)
	}
	if j := jobs[9]; j.ID != "4000.1" || j.Start.Year() != 2026 || j.Elapsed.Hours() != 9 || j.Account != "chipB" {
		t.Errorf("array task with ms times: %+v", j)
	}
}

// sacct --json: the step peak is TRESUsageInMax mem times the tasks per
// node; the request is the job's requested TRES mem (MB).
func TestSlurmJSONFields(t *testing.T) {
	jobs := allJobs(t, openSource(t, "json", "testdata/sacct.json"))
	if len(jobs) != 9 {
		t.Fatalf("%d jobs", len(jobs))
	}
	if j := jobs[0]; j.ID != "5001" || j.MaxRSS != 9000000<<10 || j.ReqMem != 16<<30 || j.TaskScaled || j.Elapsed.Hours() != 2 {
		t.Errorf("job 5001: %+v", j)
	}
	if j := jobs[1]; j.MaxRSS != 10<<30 || !j.TaskScaled {
		t.Errorf("job 5002 (4 tasks of 2.5 GiB on one node): %+v", j)
	}
	if j := jobs[7]; j.ID != "6000_1" || j.Name != "sta_signoff" {
		t.Errorf("array task: %+v", j)
	}
}

// The same per-task trap in sacct --parsable2: a step's MaxRSS times its
// tasks per node, and TRESUsageInMax where MaxRSS is empty.
func TestSlurmTasksPerNode(t *testing.T) {
	head := "JobID|JobName|Partition|Account|State|Submit|Start|End|Elapsed|ReqMem|MaxRSS|NTasks|NNodes|AllocCPUS|TRESUsageInMax\n"
	s, err := acct.NewSlurm("t.txt", strings.NewReader(head+`1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|||1|8|
1.batch|batch||x|COMPLETED||||||100M|1|1||
1.0|a||x|COMPLETED||||||2G|8|2||
2|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|||1|8|
2.batch|batch||x|COMPLETED|||||||1|1||cpu=00:01:00,energy=0,mem=3G,vmem=4G
`))
	if err != nil {
		t.Fatal(err)
	}
	jobs := allJobs(t, s)
	if len(jobs) != 2 || jobs[0].MaxRSS != 4*2<<30 || !jobs[0].TaskScaled || jobs[1].MaxRSS != 3<<30 || jobs[1].TaskScaled {
		t.Errorf("jobs %+v %+v", jobs[0], jobs[1])
	}
}

// Bad records of every format: one error naming file, line and field.
func TestFormatBadInput(t *testing.T) {
	lsbLine := func(repl ...string) string {
		data, _ := os.ReadFile("testdata/lsb.acct")
		l := strings.Split(string(data), "\n")[2]
		for i := 0; i < len(repl); i += 2 {
			l = strings.Replace(l, repl[i], repl[i+1], 1)
		}
		return "# x\n" + l + "\n"
	}
	sgeLine := func(field int, v string) string {
		data, _ := os.ReadFile("testdata/sge-accounting")
		l := strings.Split(strings.Split(string(data), "\n")[3], ":")
		l[field] = v
		return "\n" + strings.Join(l, ":") + "\n"
	}
	for _, tt := range []struct{ format, text, want string }{
		{"lsb.acct", strings.TrimSuffix(lsbLine(), "\n") + ` "unclosed` + "\n", "f:2: a quoted string is not closed"},
		{"lsb.acct", lsbLine(" 9000000 10048576 ", " 9000000K 10048576 "), `f:2: field maxRMem: "9000000K": expected a whole number`},
		{"lsb.acct", lsbLine(" 0 1 \"4*hostA\" 64 ", " 0 1 \"4*hostA\" 16 "), "f:2: field jStatus: 16: expected 64 (DONE) or 32 (EXIT)"},
		{"lsb.acct", lsbLine(" 0 1 \"4*hostA\" ", " 0 900 \"4*hostA\" "), "f:2: field numExHosts: 900: more hosts than the record has fields"},
		{"lsb.acct", `"JOB_FINISH" "10.108" 1772445610 101` + "\n", "f:1: field numAskedHosts: missing: the record has 4 fields"},
		{"lsb.acct", lsbLine("rusage[mem=16384]", "rusage[mem=.]"), ""}, // no number: no request, not an error
		{"bacct", strings.Replace(bacctOne("Mon Mar  2 08:00:00 2026"), "2G", "2Q", 1), `f:6: field MEM: "2Q": expected a size`},
		{"bacct", strings.Replace(bacctOne("Mon Mar  2 08:00:00 2026"), "<DONE>", "<RUN>", 1), `f:1: field Status: "RUN": expected DONE or EXIT`},
		{"bacct", strings.Replace(bacctOne("Mon Mar  2 08:00:00 2026"), "Mar", "Mrz", 1), `f:2: field time: "Mon Mrz 2 08:00:00": expected a time`},
		{"bacct", strings.Split(bacctOne("Mon Mar  2 08:00:00 2026"), "     CPU_T")[0], "f:1: job 7 ends without its accounting summary"},
		{"sge", sgeLine(16, "lots"), `f:2: field ru_maxrss: "lots": expected a number`},
		{"sge", sgeLine(39, "-l h_vmem=4Q"), `f:2: field category: "-l h_vmem=4Q": h_vmem=4Q: expected a size`},
		{"sge", sgeLine(9, "yesterday"), `f:2: field start_time: "yesterday"`},
		{"sge", "regress.q:hostA:eda:alice:sim:1:sge\n", "f:1: 7 colon-separated fields, accounting(5) has at least 43"},
		{"json", `{"jobs": [{"job_id": 1, "name": "a", "state": {"current": "COMPLETED"}},` + "\n" + `{"job_id": "x"}]}`, `f:2: field job_id: jobs[1]: got a JSON string, expected a number`},
		{"json", `{"jobs": [` + "\n\n" + `{"job_id": 1, "name": "a", "state": {"current": "COMPLETED"}, "time": {"elapsed": "long"}}]}`, `f:3: field time.elapsed: jobs[0]: got a JSON string, expected a number`},
		{"json", `{"jobs": [{"job_id": 1, "name": "a"}]}`, "f:1: field state.current: missing"},
		{"json", `{"jobs": [{"job_id": 1,` + "\n" + ` "name": }]}`, "f:2: JSON: invalid character '}'"},
		{"json", `{"meta": {}}`, "f: field jobs: missing"},
		{"json", `[1]`, "f:1: expected a JSON object"},
	} {
		src, err := newSource(tt.format, "f", strings.NewReader(tt.text))
		if err == nil {
			_, err = acct.Import(src, acct.Options{Source: "f"})
		}
		if tt.want == "" {
			var ie *yamlx.InputError
			if errors.As(err, &ie) {
				t.Errorf("%s: unexpected input error %v", tt.format, err)
			}
			continue
		}
		var ie *yamlx.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one starting %q", tt.format, err, tt.want)
		}
	}
}

// BenchmarkLSBAcct imports 100,000 JOB_FINISH records (the fixture's
// first, repeated) and reports records per second.
func BenchmarkLSBAcct(b *testing.B) {
	data, err := os.ReadFile("testdata/lsb.acct")
	if err != nil {
		b.Fatal(err)
	}
	rec := strings.Split(string(data), "\n")[2] + "\n"
	var buf bytes.Buffer
	const n = 100_000
	for i := 0; i < n; i++ {
		buf.WriteString(rec)
	}
	in := buf.Bytes()
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if _, err := acct.Import(acct.NewLSBAcct("b.acct", bytes.NewReader(in), acct.LSFOptions{}), acct.Options{Source: "b.acct"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkSlurmJSON imports 20,000 jobs of sacct --json (the fixture's
// jobs repeated) and reports jobs per second.
func BenchmarkSlurmJSON(b *testing.B) {
	data, err := os.ReadFile("testdata/sacct.json")
	if err != nil {
		b.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"jobs": [`)) + len(`"jobs": [`)
	body := bytes.TrimSuffix(bytes.TrimSpace(data[i:]), []byte("]\n}"))
	body = bytes.TrimSuffix(bytes.TrimSpace(body), []byte("]"))
	var buf bytes.Buffer
	buf.WriteString(`{"jobs": [`)
	const reps = 20_000 / 9
	for k := 0; k < reps; k++ {
		if k > 0 {
			buf.WriteString(",")
		}
		buf.Write(body)
	}
	buf.WriteString("]}\n")
	in := buf.Bytes()
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		src, err := acct.NewSlurmJSON("b.json", bytes.NewReader(in))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := acct.Import(src, acct.Options{Source: "b.json"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(reps*9*b.N)/b.Elapsed().Seconds(), "jobs/s")
}
