package acct_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/workload/acct"
)

var update = flag.Bool("update", false, "rewrite golden files")

const header = "JobID|JobName|Partition|Account|State|Submit|Start|End|Elapsed|ReqMem|MaxRSS|AveRSS|NTasks|NNodes|AllocCPUS\n"

func slurmJobs(t *testing.T, text string) []*acct.Job {
	t.Helper()
	s, err := acct.NewSlurm("t.txt", strings.NewReader(header+text))
	if err != nil {
		t.Fatal(err)
	}
	var jobs []*acct.Job
	for {
		j, err := s.Next()
		if err == io.EOF {
			return jobs
		}
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
}

func importSlurm(t *testing.T, file string, o acct.Options) (*acct.Result, error) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := acct.NewSlurm(file, f)
	if err != nil {
		return nil, err
	}
	o.Source, o.Format = file, "Slurm sacct"
	return acct.Import(s, o)
}

// The produced workload matches the golden file and loads as a workload.
func TestSlurmGolden(t *testing.T) {
	res, err := importSlurm(t, "testdata/sacct.txt", acct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden := "testdata/sacct.golden.yaml"
	if *update {
		os.WriteFile(golden, res.YAML, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.YAML, want) {
		t.Errorf("workload differs from %s (go test -update to rewrite):\n%s", golden, res.YAML)
	}
	p := filepath.Join(t.TempDir(), "farm.yaml")
	os.WriteFile(p, res.YAML, 0o644)
	w, err := model.LoadWorkload(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || w.Jobs[0].Name != "sim" || w.Jobs[0].Footprint.GiBf() != 16 || w.Jobs[0].Runtime.D() != 2*time.Hour ||
		w.Jobs[0].Concurrency != 5 || w.Jobs[0].JobsPerDay != 5 || w.Jobs[1].Name != "sta_signoff" || w.Jobs[1].Footprint.GiBf() != 700 {
		t.Errorf("loaded %+v", w.Jobs)
	}
	for _, s := range []string{`class "sim": 10 job(s), 5 completed, 1 FAILED, 1 CANCELLED, 1 OUT_OF_MEMORY, 1 TIMEOUT, 1 REQUEUED, 1 capped`, "1 shorter than 60s"} {
		if !strings.Contains(res.Summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, res.Summary)
		}
	}
}

// Trap: the job's peak is the largest step's MaxRSS, in K, M or G.
func TestLargestStep(t *testing.T) {
	jobs := slurmJobs(t, `7|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G||||1|1
7.batch|batch||x|COMPLETED||||||2048K|||1|1
7.0|a||x|COMPLETED||||||3M|||1|1
7.extern|extern||x|COMPLETED||||||1G|||1|1
8|b|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|5000|||1|1
`)
	if len(jobs) != 2 || jobs[0].MaxRSS != 1<<30 || jobs[1].MaxRSS != 5000 {
		t.Fatalf("got %d jobs, MaxRSS %d, %d", len(jobs), jobs[0].MaxRSS, jobs[1].MaxRSS)
	}
}

// Trap: ReqMem per core (c) is multiplied by AllocCPUS, per node (n) by
// NNodes; a bare size is the job's total (Slurm 21.08 and later).
func TestReqMemSuffixes(t *testing.T) {
	jobs := slurmJobs(t, `1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|4000Mc||||1|4
2|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16Gn||||2|4
3|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G||||2|4
`)
	want := []int64{4 * 4000 << 20, 2 * 16 << 30, 16 << 30}
	for i, j := range jobs {
		if j.ReqMem != want[i] {
			t.Errorf("job %s: ReqMem %d, want %d", j.ID, j.ReqMem, want[i])
		}
	}
}

func oneClass(t *testing.T, text string) string {
	t.Helper()
	s, err := acct.NewSlurm("t.txt", strings.NewReader(header+text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := acct.Import(s, acct.Options{Source: "t.txt", Format: "Slurm sacct"})
	if err != nil {
		t.Fatal(err)
	}
	return string(res.YAML)
}

// Trap: a peak at the request is flagged as capped, and the capped job's
// runtime is left out of the median.
func TestCapped(t *testing.T) {
	y := oneClass(t, `1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|8G|8G|||1|1
2|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T18:00:00|10:00:00|8G|7900M|||1|1
3|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T10:00:00|02:00:00|8G|2G|||1|1
`)
	for _, s := range []string{"# CAPPED: 1 job(s) peaked at or above their request", "runtime: median Elapsed of 1 completed job(s) whose MaxRSS stayed below 95% of ReqMem", "runtime: 2h\n", "footprint: 8GiB"} {
		if !strings.Contains(y, s) {
			t.Errorf("lacks %q:\n%s", s, y)
		}
	}
}

// Trap: failed, cancelled, OOM, timed-out and requeued jobs are counted
// and never enter the figures.
func TestFailedApart(t *testing.T) {
	y := oneClass(t, `1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|4G|||1|1
2|a|p|x|OUT_OF_MEMORY|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|64G|||1|1
3|a|p|x|CANCELLED by 42|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T19:00:00|11:00:00|64G|40G|||1|1
4|a|p|x|FAILED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|50G|||1|1
5|a|p|x|TIMEOUT|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|50G|||1|1
6|a|p|x|REQUEUED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|64G|50G|||1|1
`)
	for _, s := range []string{"6 job(s), 1 completed, 1 FAILED, 1 CANCELLED, 1 OUT_OF_MEMORY, 1 TIMEOUT, 1 REQUEUED", "# OUT_OF_MEMORY: 1 job(s)", "footprint: 4GiB", "runtime: 1h\n", "concurrency: 6\n", "jobs_per_day: 1\n"} {
		if !strings.Contains(y, s) {
			t.Errorf("lacks %q:\n%s", s, y)
		}
	}
}

// Trap: jobs shorter than 60 s are flagged.
func TestShortJobs(t *testing.T) {
	y := oneClass(t, `1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T08:00:20|00:00:20|8G|1G|||1|1
2|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T08:01:00|00:01:00|8G|1G|||1|1
`)
	if !strings.Contains(y, "# SHORT: 1 job(s) ran under 60s") {
		t.Errorf("no short flag:\n%s", y)
	}
}

func TestClassName(t *testing.T) {
	for in, want := range map[string]string{"sim_0042": "sim", "sim-7": "sim", "sta[3]": "sta", "run": "run", "123": "123", "tb_top_v2": "tb_top_v"} {
		if got := acct.ClassName(in); got != want {
			t.Errorf("ClassName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Bad records name file, line and field; --skip-bad counts them.
func TestBadInput(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|12Q|||1|1\n", "t.txt:2: field MaxRSS: \"12Q\""},
		{"1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|lots|1G|||1|1\n", "t.txt:2: field ReqMem: \"lots\""},
		{"1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|1G|||1|1\n2|a|p|x|COMPLETED|yesterday|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|1G|||1|1\n", "t.txt:3: field Submit: \"yesterday\""},
		{"1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|1h|16G|1G|||1|1\n", "t.txt:2: field Elapsed: \"1h\""},
		{"1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|1G|||1|many\n", "t.txt:2: field AllocCPUS: \"many\""},
		{"1|a|p|x|COMPLETED\n", "t.txt:2: 5 fields, the header has 15"},
		{"1.batch|batch||x|COMPLETED||||||1G|||1|1\n", "t.txt:2: field JobID: step \"1.batch\" follows no line of job 1"},
	} {
		s, err := acct.NewSlurm("t.txt", strings.NewReader(header+tt.text))
		if err != nil {
			t.Fatal(err)
		}
		_, err = acct.Import(s, acct.Options{Source: "t.txt"})
		var ie *yamlx.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("error %v, want one starting %q", err, tt.want)
		}
	}
	_, err := acct.NewSlurm("t.txt", strings.NewReader("JobID|JobName|State\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.txt:1: field Partition: missing from the header") {
		t.Errorf("header error %v", err)
	}
}

func TestSkipBad(t *testing.T) {
	s, err := acct.NewSlurm("t.txt", strings.NewReader(header+`1|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G||||1|1
1.batch|batch||x|COMPLETED||||||1G|||1|1
2|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G||||1|1
2.batch|batch||x|COMPLETED||||||1Q|||1|1
2.0|a||x|COMPLETED||||||3G|||1|1
3|a|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|01:00:00|16G|2G|||1|1
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := acct.Import(s, acct.Options{Source: "t.txt", SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Summary, "read 2 job(s) from t.txt; skipped 1 bad record(s) (--skip-bad):\n  t.txt:5: field MaxRSS: \"1Q\"") {
		t.Errorf("summary:\n%s", res.Summary)
	}
	if !strings.Contains(string(res.YAML), "n=2 p50=1GiB p95=2GiB max=2GiB") {
		t.Errorf("the bad job's steps entered the figures:\n%s", res.YAML)
	}
}

func TestCSV(t *testing.T) {
	in := `# written by hand for memplan tests
Job,MaxMem,elapsed,submit,start,end,state,requested
place_1,20GiB,2h,2026-03-02T08:00:00,2026-03-02T08:00:00,2026-03-02T10:00:00,completed,32GiB
place_2,24GiB,3h,2026-03-02T09:00:00,2026-03-02T09:00:00,2026-03-02T12:00:00,COMPLETED,32GiB
place_3,30GiB,01:00:00,2026-03-02T09:00:00,2026-03-02T09:00:00,2026-03-02T10:00:00,OUT_OF_MEMORY,32GiB
`
	c, err := acct.NewCSV("t.csv", strings.NewReader(in), map[string]string{"name": "Job", "peak": "MaxMem"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := acct.Import(c, acct.Options{Source: "t.csv", Format: "CSV", Deadline: 8 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`name: "place"`, "3 job(s), 2 completed, 1 OUT_OF_MEMORY", "footprint: 24GiB", "runtime: 2h\n", "concurrency: 3\n", "deadline: 8h\n", "# deadline: --deadline"} {
		if !strings.Contains(string(res.YAML), s) {
			t.Errorf("lacks %q:\n%s", s, res.YAML)
		}
	}
	c, _ = acct.NewCSV("t.csv", strings.NewReader("name,peak,elapsed\na,3X,1h\n"), nil)
	if _, err := acct.Import(c, acct.Options{}); err == nil || !strings.HasPrefix(err.Error(), `t.csv:2: field peak: "3X"`) {
		t.Errorf("error %v", err)
	}
	if _, err := acct.NewCSV("t.csv", strings.NewReader("name,elapsed\n"), nil); err == nil || err.Error() != "t.csv:1: field peak: no such column in the header (name the column with --columns peak=HEADER)" {
		t.Errorf("error %v", err)
	}
}

// BenchmarkSlurm imports a generated million-record-scale file and
// reports records per second.
func BenchmarkSlurm(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(header)
	const jobs = 100_000 // 3 lines each
	for i := 0; i < jobs; i++ {
		fmt.Fprintf(&buf, "%d|sim_%d|p|x|COMPLETED|2026-03-02T08:00:00|2026-03-02T08:%02d:00|2026-03-02T10:00:00|01:%02d:00|4000Mc||||1|4\n", i, i%50, i%60, i%60)
		fmt.Fprintf(&buf, "%d.batch|batch||x|COMPLETED||||||%dK|||1|4\n", i, 1000000+i)
		fmt.Fprintf(&buf, "%d.0|sim||x|COMPLETED||||||%dK|||1|4\n", i, 2000000+i)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		s, err := acct.NewSlurm("bench.txt", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := acct.Import(s, acct.Options{Source: "bench.txt"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(3*jobs*b.N)/b.Elapsed().Seconds(), "records/s")
}

// A column the user maps must exist, even an optional one.
func TestCSVMappedColumnMissing(t *testing.T) {
	_, err := acct.NewCSV("t.csv", strings.NewReader("name,peak,elapsed\n"), map[string]string{"submit": "Queued"})
	if err == nil || err.Error() != "t.csv:1: field Queued: no such column in the header (--columns submit=Queued names it; check the spelling)" {
		t.Errorf("error %v", err)
	}
}
