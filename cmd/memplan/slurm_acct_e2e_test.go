//go:build linux && hosttest

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/workload/acct"
)

// sacct reads accounting from slurmdbd alone: accounting_storage/none
// keeps nothing, and jobcomp/filetxt (sacct --completion) records no
// memory (its lines have no MaxRSS), so the test runs the real chain.
// sacctFormat is the field list docs/import-workload.md gives.
const sacctFormat = "JobID,JobName,Partition,Account,State,Submit,Start,End,Elapsed,ReqMem,MaxRSS,AveRSS,NTasks,NNodes,AllocCPUS"

// acctJob is a job of known memory use: it touches size bytes and holds
// them for six seconds, sampled every second.
type acctJob struct {
	name  string
	size  int64 // bytes it touches; 0: no figure expected
	array string
	wrap  string
	state string // the State sacct must give
}

// TestSlurmAccountingImport runs a one-node Slurm cluster with accounting
// for real: MariaDB, slurmdbd, munged, slurmctld and slurmd of the test's
// own (own ports and directories, no cgroups, every one stopped by its
// PID), runs jobs of known memory use (a Python job and an array of two
// that touch a known number of bytes, stress-ng --vm when installed, and
// one that fails), reads them back with sacct --parsable2 (and --json
// when the installed Slurm has it) and imports them: each completed job's
// peak must be within the sampling error of what it touched, the failed
// job kept apart, and workload import must write a class per job name.
func TestSlurmAccountingImport(t *testing.T) {
	requireRoot(t)
	tools := []string{"munged", "mungekey", "slurmctld", "slurmd", "slurmdbd", "sbatch", "sacct", "sacctmgr", "sinfo", "python3"}
	mariadbd, installDB, dbClient := firstTool("mariadbd", "mysqld"), firstTool("mariadb-install-db", "mysql_install_db"), firstTool("mariadb", "mysql")
	for _, tool := range append(tools, mariadbd, installDB, dbClient) {
		if _, err := exec.LookPath(tool); err != nil {
			msg := fmt.Sprintf("%s is not installed; the Slurm accounting test needs munge, slurm-wlm, slurmdbd, mariadb-server and python3 (.ci/run installs them)", tool)
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	// Not while another package's test measures the host: six daemons
	// and the jobs would load it.
	lockProbeTests(t)
	start := time.Now()
	w := t.TempDir()
	mkdirs(t, w, "munge", "db", "slurm/state", "slurm/spool", "jobs")
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")

	// MariaDB: a data directory of the test's own, TCP on loopback only.
	// root (no password, as installed here) makes slurmdbd an account
	// through the socket; slurmdbd connects over TCP.
	dbPort := freePort(t)
	db := filepath.Join(w, "db")
	dbSock := filepath.Join(db, "mysqld.sock")
	runTool(t, w, nil, installDB, "--no-defaults", "--datadir="+db, "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db")
	daemon(t, w, "mariadbd", nil, mariadbd, "--no-defaults", "--datadir="+db, "--user=root",
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", dbPort), "--socket="+dbSock,
		"--pid-file="+filepath.Join(db, "mariadbd.pid"), "--log-error="+filepath.Join(db, "error.log"), "--innodb-buffer-pool-size=64M")
	waitTCPFor(t, fmt.Sprintf("127.0.0.1:%d", dbPort), time.Minute, w, "db/error.log")
	runTool(t, w, nil, dbClient, "--no-defaults", "--socket="+dbSock, "-u", "root",
		"-e", "CREATE USER 'slurm'@'%' IDENTIFIED BY 'memplan-ci'; GRANT ALL ON *.* TO 'slurm'@'%'; FLUSH PRIVILEGES;")

	sock := startMunge(t, w)

	// slurmdbd reads slurmdbd.conf from the directory of $SLURM_CONF; it
	// must be the SlurmUser's and private. Clients (sacctmgr, slurmctld)
	// find the munge socket for slurmdbd in AccountingStoragePass, not
	// AuthInfo: without it sacctmgr tries /run/munge/munge.socket.2.
	dbdPort, ctld, slurmd := freePort(t), freePort(t), freePort(t)
	conf := filepath.Join(w, "slurm/slurm.conf")
	writeFile(t, filepath.Join(w, "slurm/slurmdbd.conf"), fmt.Sprintf(`AuthType=auth/munge
AuthInfo=socket=%[1]s
DbdHost=%[2]s
DbdAddr=127.0.0.1
DbdPort=%[3]d
SlurmUser=root
PidFile=%[4]s/slurm/slurmdbd.pid
LogFile=%[4]s/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=%[5]d
StorageUser=slurm
StoragePass=memplan-ci
StorageLoc=memplan_ci_acct
`, sock, host, dbdPort, w, dbPort))
	writeFile(t, conf, slurmConf(host, ctld, slurmd, sock, w, fmt.Sprintf(`JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=%d
AccountingStoragePass=%s
KillWait=30
`, dbdPort, sock), fmt.Sprintf("RealMemory=%d ", halfMemoryMiB(t))))
	slurmEnv := []string{"SLURM_CONF=" + conf}
	daemon(t, w, "slurmdbd", slurmEnv, "slurmdbd", "-D")
	// The first start creates the database's tables.
	waitTCPFor(t, fmt.Sprintf("127.0.0.1:%d", dbdPort), 90*time.Second, w, "slurm/slurmdbd.log")
	runTool(t, w, slurmEnv, "sacctmgr", "-i", "add", "cluster", "memplanci")
	runTool(t, w, slurmEnv, "sacctmgr", "-i", "add", "account", "ci", "Cluster=memplanci", "Description=memplan CI", "Organization=memplan")
	runTool(t, w, slurmEnv, "sacctmgr", "-i", "add", "user", "root", "Account=ci", "Cluster=memplanci")
	daemon(t, w, "slurmctld", slurmEnv, "slurmctld", "-D", "-i", "-f", conf)
	daemon(t, w, "slurmd", slurmEnv, "slurmd", "-D", "-f", conf)
	waitIdle(t, w, slurmEnv)
	t.Logf("the cluster with accounting was up after %s", time.Since(start).Round(time.Second))

	hold := func(mib int) string {
		return fmt.Sprintf(`python3 -c "import time; b = b'x' * (%d << 20); time.sleep(6)"`, mib)
	}
	jobs := []acctJob{
		{name: "hold-256m", size: 256 << 20, wrap: hold(256), state: "COMPLETED"},
		{name: "hold-512m", size: 512 << 20, wrap: hold(512), state: "COMPLETED"},
		{name: "array-128m", size: 128 << 20, array: "1-2", wrap: hold(128), state: "COMPLETED"},
		{name: "fails", wrap: "sleep 2; exit 3", state: "FAILED"},
	}
	if _, err := exec.LookPath("stress-ng"); err == nil {
		jobs = append(jobs, acctJob{name: "stress-384m", size: 384 << 20, state: "COMPLETED",
			wrap: "stress-ng --vm 1 --vm-bytes 384M --vm-keep --timeout 6s --quiet"})
	} else {
		t.Log("stress-ng is not installed: its job is left out")
	}
	want := 0
	submitted := time.Now().Add(-time.Minute)
	for _, j := range jobs {
		args := []string{"sbatch", "--parsable", "--job-name=" + j.name, "--partition=ci", "--account=ci", "--mem=1G", "--time=2",
			"--chdir=" + filepath.Join(w, "jobs"), "--output=" + filepath.Join(w, "jobs", "%x-%j.out")}
		want++
		if j.array != "" {
			args = append(args, "--array="+j.array)
			want++ // two tasks
		}
		runTool(t, w, slurmEnv, append(args, "--wrap="+j.wrap)...)
	}

	// Wait until slurmdbd has every job in a final state, with its steps.
	sacct := filepath.Join(w, "sacct.txt")
	var got map[string][]*acct.Job
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out := runTool(t, w, slurmEnv, "sacct", "--parsable2", "--allusers", "--starttime="+submitted.Format("2006-01-02T15:04:05"), "--format="+sacctFormat)
		writeFile(t, sacct, out)
		got = readSacct(t, sacct, func(f *os.File) (acct.Source, error) { return acct.NewSlurm(sacct, f) })
		if done(got, jobs, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sacct does not show the %d jobs finished with their peaks after two minutes:\n%s\n%s", want, out,
				readLogs(w, "slurm/slurmctld.log", "slurm/slurmd.log", "slurm/slurmdbd.log"))
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("sacct --parsable2:\n%s", mustRead(t, sacct))
	checkPeaks(t, "sacct --parsable2", got, jobs)

	// workload import reads the same file: a class per job name, the
	// failed job's class counted and left out.
	farm := filepath.Join(w, "farm.yaml")
	code, _, stderr := runMemplan(t, "workload", "import", "--slurm", sacct, "--out", farm)
	if code != 0 {
		t.Fatalf("workload import: exit %d\n%s", code, stderr)
	}
	yaml := mustRead(t, farm)
	for _, j := range jobs {
		if j.size == 0 {
			continue // no completed job: the class is left out, said in a comment
		}
		if !strings.Contains(yaml, fmt.Sprintf("name: %q", j.name)) {
			t.Errorf("the imported workload has no class %s:\n%s", j.name, yaml)
		}
	}
	if !strings.Contains(stderr, `class "fails": 1 job(s), 0 completed, 1 FAILED`) {
		t.Errorf("workload import does not keep the failed job apart:\n%s", stderr)
	}

	// sacct --json, where this Slurm has it, gives the same peaks.
	cmd := exec.Command("sacct", "--json", "--allusers", "--starttime="+submitted.Format("2006-01-02T15:04:05"))
	cmd.Env = append(os.Environ(), slurmEnv...)
	if out, err := cmd.Output(); err != nil || len(out) == 0 || out[0] != '{' {
		t.Logf("sacct --json is not available here (%v): only --parsable2 checked", err)
	} else {
		js := filepath.Join(w, "sacct.json")
		writeFile(t, js, string(out))
		checkPeaks(t, "sacct --json", readSacct(t, js, func(f *os.File) (acct.Source, error) { return acct.NewSlurmJSON(js, f) }), jobs)
	}
	stopDaemons(t)
	t.Logf("the Slurm accounting test took %s", time.Since(start).Round(time.Second))
}

// firstTool is the first of names on $PATH, else the first name (whose
// absence the caller reports).
func firstTool(names ...string) string {
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return n
		}
	}
	return names[0]
}

// halfMemoryMiB is half the host's memory in MiB: a RealMemory slurmd
// accepts (a node with less than its configured memory is drained) that
// leaves room for --mem=1G.
func halfMemoryMiB(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib / 1024 / 2
		}
	}
	t.Fatal("no MemTotal in /proc/meminfo")
	return 0
}

// waitTCPFor waits up to d for something to listen on addr, and shows the
// log when nothing does.
func waitTCPFor(t *testing.T, addr string, d time.Duration, dir, log string) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s after %s\n%s", addr, d, readLogs(dir, log))
}

// waitIdle waits up to a minute for the node to be idle.
func waitIdle(t *testing.T, dir string, env []string) {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		cmd := exec.Command("sinfo", "-h", "-o", "%t")
		cmd.Env = append(os.Environ(), env...)
		b, _ := cmd.Output()
		if strings.TrimSpace(string(b)) == "idle" {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the Slurm node is not idle after a minute: %q\n%s", b, readLogs(dir, "slurm/slurmctld.log", "slurm/slurmd.log", "slurm/slurmdbd.log"))
		}
	}
}

// readSacct reads every job of an accounting file, by job name.
func readSacct(t *testing.T, path string, open func(*os.File) (acct.Source, error)) map[string][]*acct.Job {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := open(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]*acct.Job{}
	for {
		j, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[j.Name] = append(out[j.Name], j)
	}
}

// done: all want jobs are there in a final state, each completed one
// with a peak.
func done(got map[string][]*acct.Job, jobs []acctJob, want int) bool {
	n := 0
	for _, spec := range jobs {
		for _, j := range got[spec.name] {
			if j.State != spec.state || (spec.size > 0 && j.MaxRSS <= 0) {
				return false
			}
			n++
		}
	}
	return n == want
}

// checkPeaks: every completed job's peak is within the sampling error of
// what it touched: at least 85% of it (a sample a second over six seconds
// of holding it), at most 96 MiB over it (the interpreter or stress-ng's
// own processes); the failed job is there, FAILED.
func checkPeaks(t *testing.T, from string, got map[string][]*acct.Job, jobs []acctJob) {
	t.Helper()
	for _, spec := range jobs {
		js := got[spec.name]
		if len(js) == 0 {
			t.Errorf("%s: no job %s", from, spec.name)
		}
		for _, j := range js {
			if j.State != spec.state {
				t.Errorf("%s: job %s (%s) is %s, want %s", from, j.ID, spec.name, j.State, spec.state)
			}
			if spec.size == 0 {
				continue
			}
			lo, hi := spec.size*85/100, spec.size+96<<20
			if j.MaxRSS < lo || j.MaxRSS > hi {
				t.Errorf("%s: job %s (%s) peaked at %d MiB, want %d to %d MiB", from, j.ID, spec.name, j.MaxRSS>>20, lo>>20, hi>>20)
			}
			if j.ReqMem != 1<<30 {
				t.Errorf("%s: job %s requested %d bytes, want 1 GiB (--mem=1G)", from, j.ID, j.ReqMem)
			}
		}
	}
	if arr := got["array-128m"]; len(arr) != 2 || !strings.Contains(arr[0].ID, "_") {
		t.Errorf("%s: the array's tasks are %d, want 2 with IDs JOB_TASK", from, len(arr))
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
