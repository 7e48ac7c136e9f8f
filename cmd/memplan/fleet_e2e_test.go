//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	mhost "github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/model"
)

// TestFleetEndToEnd runs a fleet for real on this machine: an sshd of the
// test's own on three loopback addresses stands for three hosts (and a
// fourth address with nothing listening for a host that is down); the
// playbook fleet init writes runs a real probe on each, one at a time;
// then a one-node Slurm cluster (munged, slurmctld, slurmd, all started
// and stopped by the test, no cgroups of Slurm's) runs the sbatch array of
// two tasks; then fleet collect, factors merge and recommend. Every daemon
// is stopped by its PID, and the host is as it was.
func TestFleetEndToEnd(t *testing.T) {
	requireRoot(t)
	for _, tool := range []string{"ansible-playbook", "/usr/sbin/sshd", "ssh-keygen", "munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; .ci/run installs ansible-core, openssh-server, munge and slurm-wlm", tool)
			}
			t.Skipf("%s is not installed (.ci/run installs ansible-core, openssh-server, munge and slurm-wlm)", tool)
		}
	}
	lockProbeTests(t)
	start := time.Now()
	before := mhost.State(mhost.NewOSHost())
	bin := staticMemplan(t)
	w := t.TempDir()
	state := filepath.Join(w, "state")
	mkdirs(t, w, "state", "ssh", "home", "remote", "munge", "slurm/state", "slurm/spool", "slurm-local")
	memplan := func(wantCode int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = w
		cmd.Env = append(os.Environ(), mhost.StateDirEnv+"="+state)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		t.Logf("$ memplan %s   (exit %d)\n%s", strings.Join(args, " "), code, out)
		if code != wantCode {
			t.Fatalf("memplan %s: exit %d, want %d", strings.Join(args, " "), code, wantCode)
		}
		return string(out)
	}
	probeArgs := "--quick --backends zram,file --data-size 64MiB --fit 0.75,0.5 --reps 2 --device-profile=false --swap-dir /var/tmp"

	// Three SSH "hosts" on loopback addresses, one sshd of the test's own.
	sshPort := freePort(t)
	runTool(t, w, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "ssh/host_key")
	runTool(t, w, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "ssh/id")
	copyFile(t, filepath.Join(w, "ssh/id.pub"), filepath.Join(w, "ssh/authorized_keys"))
	writeFile(t, filepath.Join(w, "ssh/sshd_config"), fmt.Sprintf(`Port %d
ListenAddress 127.0.0.2
ListenAddress 127.0.0.3
ListenAddress 127.0.0.4
HostKey %[2]s/ssh/host_key
PidFile %[2]s/ssh/sshd.pid
AuthorizedKeysFile %[2]s/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
SetEnv %[3]s=%[4]s
Subsystem sftp internal-sftp
`, sshPort, w, mhost.StateDirEnv, state))
	if _, err := os.Stat("/run/sshd"); os.IsNotExist(err) {
		// sshd insists on its privilege separation directory.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove("/run/sshd") })
	}
	daemon(t, w, "sshd", nil, "/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(w, "ssh/sshd_config"))
	for _, a := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		waitTCP(t, fmt.Sprintf("%s:%d", a, sshPort))
	}

	// The playbook against h1, h2, h3 and hdown (nothing listens there).
	memplan(0, "fleet", "init", "--engine", "ansible", "--run", "ci1", "--out", "fleet", "--probe-args", probeArgs)
	var inv strings.Builder
	inv.WriteString("[ci-small]\n")
	for _, h := range [][2]string{{"h1", "127.0.0.2"}, {"h2", "127.0.0.3"}, {"hdown", "127.0.0.5"}, {"h3", "127.0.0.4"}} {
		fmt.Fprintf(&inv, "%s ansible_host=%s memplan_remote_dir=%s/remote/%s\n", h[0], h[1], w, h[0])
	}
	fmt.Fprintf(&inv, `
[all:vars]
ansible_port=%d
ansible_user=root
ansible_ssh_private_key_file=%s/ssh/id
ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5'
ansible_python_interpreter=/usr/bin/python3
memplan_become=false
`, sshPort, w)
	writeFile(t, filepath.Join(w, "hosts.ini"), inv.String())
	// Ansible's own files (temporary, async status, ssh) stay in the test's
	// directory; no ssh master lingers after the run.
	ansibleEnv := []string{"HOME=" + filepath.Join(w, "home"), "ANSIBLE_LOCAL_TEMP=" + filepath.Join(w, "ansible-local"),
		"ANSIBLE_REMOTE_TEMP=" + filepath.Join(w, "ansible-remote"), "ANSIBLE_ASYNC_DIR=" + filepath.Join(w, "ansible-async"),
		"ANSIBLE_SSH_ARGS=-o ControlMaster=no", "ANSIBLE_NOCOLOR=1", "ANSIBLE_HOST_KEY_CHECKING=False", "ANSIBLE_RETRY_FILES_ENABLED=False"}
	t0 := time.Now()
	out := runTool(t, w, ansibleEnv, "ansible-playbook", "-i", "hosts.ini", "fleet/probe.yml")
	t.Logf("ansible-playbook took %s; its recap:\n%s", time.Since(t0).Round(time.Second), out[strings.LastIndex(out, "PLAY RECAP"):])
	res := filepath.Join(w, "fleet/results/ci1/ci-small")
	for _, h := range []string{"h1", "h2", "h3"} {
		if _, err := os.Stat(filepath.Join(res, h+".json")); err != nil {
			t.Fatalf("no factor file from %s: %v\n%s", h, err, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(res, "hdown.unreachable")); err != nil || !strings.Contains(string(b), "Connection refused") {
		t.Errorf("the down host is not recorded: %v %q", err, b)
	}
	oneAtATime(t, res, "h1", "h2", "h3")
	out = memplan(1, "fleet", "collect", "fleet/results/ci1")
	for _, want := range []string{"ci-small  h1     ok", "ci-small  hdown  unreachable  Failed to connect to the host via ssh", "run ci1: 3 of 4 hosts have a usable factor file (1 unreachable)"} {
		if !strings.Contains(out, want) {
			t.Errorf("fleet collect does not say %q", want)
		}
	}

	// A one-node Slurm cluster: munged, slurmctld and slurmd of the test's
	// own, no cgroups (proctrack/linuxproc, task/none).
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	sock := startMunge(t, w)
	ctld, slurmd := freePort(t), freePort(t)
	conf := filepath.Join(w, "slurm/slurm.conf")
	writeFile(t, conf, slurmConf(host, ctld, slurmd, sock, w, `JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
KillWait=60
`, ""))
	slurmEnv := []string{"SLURM_CONF=" + conf}
	daemon(t, w, "slurmctld", slurmEnv, "slurmctld", "-D", "-i", "-f", conf)
	daemon(t, w, "slurmd", slurmEnv, "slurmd", "-D", "-f", conf)
	deadline := time.Now().Add(60 * time.Second)
	for {
		cmd := exec.Command("sinfo", "-h", "-o", "%t")
		cmd.Env = append(os.Environ(), slurmEnv...)
		b, _ := cmd.Output()
		if strings.TrimSpace(string(b)) == "idle" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Slurm node is not idle after a minute: %q\n%s", b, readLogs(w, "slurm/slurmctld.log", "slurm/slurmd.log"))
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Two tasks on the one node: labelled node-task so they count as two.
	memplan(0, "fleet", "init", "--engine", "slurm", "--run", "ci1", "--class", "ci-slurm", "--tasks", "2", "--host-label", "%N-%a",
		"--partition", "ci", "--time-limit", "10m", "--grace", "60s", "--out", filepath.Join(w, "fleet-slurm"), "--probe-args", probeArgs)
	t0 = time.Now()
	out = runTool(t, w, append(slurmEnv, mhost.StateDirEnv+"="+state, "MEMPLAN_LOCAL_DIR="+filepath.Join(w, "slurm-local")),
		"sbatch", "--wait", filepath.Join(w, "fleet-slurm/probe.sbatch"))
	t.Logf("sbatch --wait took %s: %s", time.Since(t0).Round(time.Second), out)
	sres := filepath.Join(w, "fleet-slurm/results/ci1/ci-slurm")
	tasks := []string{host + "-1", host + "-2"}
	oneAtATime(t, sres, tasks...)
	out = memplan(0, "fleet", "collect", "fleet-slurm/results/ci1")
	if !strings.Contains(out, "run ci1: 2 of 2 hosts have a usable factor file") {
		t.Errorf("fleet collect of the Slurm run:\n%s", out)
	}

	out = memplan(0, "factors", "merge", "--by", "class", "fleet/results/ci1", "fleet-slurm/results/ci1", "--out", "merged")
	for _, want := range []string{"class ci-small: 3 hosts (h1, h2, h3) -> merged/ci-small.json", "class ci-slurm: 2 hosts (" + tasks[0] + ", " + tasks[1] + ") -> merged/ci-slurm.json", "zram-lz4  0.75"} {
		if !strings.Contains(out, want) {
			t.Errorf("factors merge does not say %q", want)
		}
	}
	examples, _ := filepath.Abs("../../examples")
	// The factor files behind the figures are listed under --explain
	// (wrapped: compared with the spaces collapsed).
	out = memplan(0, "recommend", "-w", filepath.Join(examples, "eda.yaml"), "--factors", "merged/ci-small.json", "--explain")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "memplan fleet ci-small: merged from 3 hosts") {
		t.Errorf("recommend does not say the curves were merged from 3 hosts")
	}
	stopDaemons(t)
	if _, err := os.Stat(filepath.Join(w, "ssh/sshd.pid")); err == nil {
		t.Errorf("sshd left its pid file: it did not stop cleanly")
	}
	hostUnchanged(t, before)
	t.Logf("the fleet test took %s", time.Since(start).Round(time.Second))
}

// startMunge starts a munged of the test's own on dir/munge (key, socket,
// log and seed there) and returns its socket.
func startMunge(t *testing.T, dir string) string {
	t.Helper()
	runTool(t, dir, nil, "mungekey", "-c", "-k", "munge/munge.key")
	sock := filepath.Join(dir, "munge/munge.sock")
	daemon(t, dir, "munged", nil, "munged", "-F", "-f", "--key-file="+filepath.Join(dir, "munge/munge.key"), "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "munge/munged.pid"), "--log-file="+filepath.Join(dir, "munge/munged.log"), "--seed-file="+filepath.Join(dir, "munge/seed"))
	waitFile(t, sock)
	return sock
}

// slurmConf is the slurm.conf of a one-node cluster on host: slurmctld
// and slurmd on the given ports, munge on sock, state, spool, pids and
// logs under dir/slurm, no cgroups (proctrack/linuxproc, task/none).
// own holds a test's own lines (job accounting, KillWait), node more of
// the node's attributes ("RealMemory=N ").
func slurmConf(host string, ctld, slurmd int, sock, dir, own, node string) string {
	return fmt.Sprintf(`ClusterName=memplanci
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/slurm/state
SlurmdSpoolDir=%[5]s/slurm/spool
SlurmctldPidFile=%[5]s/slurm/slurmctld.pid
SlurmdPidFile=%[5]s/slurm/slurmd.pid
SlurmctldLogFile=%[5]s/slurm/slurmctld.log
SlurmdLogFile=%[5]s/slurm/slurmd.log
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
%[6]sNodeName=%[1]s NodeAddr=127.0.0.1 CPUs=1 %[7]sState=UNKNOWN
PartitionName=ci Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, ctld, slurmd, sock, dir, own, node)
}

// oneAtATime checks that the probes of hosts did not overlap in time.
func oneAtATime(t *testing.T, dir string, hosts ...string) {
	t.Helper()
	type span struct {
		host       string
		start, end time.Time
	}
	var spans []span
	for _, h := range hosts {
		ff, err := model.LoadFactors(filepath.Join(dir, h+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := ff.Extra["probe"].(map[string]any)
		started, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(p["started"]))
		el, _ := p["elapsed_s"].(float64)
		if started.IsZero() || el <= 0 {
			t.Fatalf("%s: no extra.probe.started/elapsed_s", h)
		}
		spans = append(spans, span{h, started, started.Add(time.Duration(el * float64(time.Second)))})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start.Before(spans[j].start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start.Before(spans[i-1].end) {
			t.Errorf("%s's probe started before %s's ended: not one host at a time", spans[i].host, spans[i-1].host)
		}
	}
}

var daemons []*exec.Cmd

// daemon starts a long-running process of the test's own and stops it by
// its PID when the test ends (stopDaemons stops them earlier).
func daemon(t *testing.T, dir, name string, env []string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	daemons = append(daemons, cmd)
	t.Cleanup(func() {
		stopDaemons(t)
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s's output:\n%s", name, b)
		}
	})
}

// stopDaemons sends SIGTERM to each daemon by its PID, last started first,
// and waits for it (SIGKILL after ten seconds).
func stopDaemons(t *testing.T) {
	for i := len(daemons) - 1; i >= 0; i-- {
		cmd := daemons[i]
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not stop on SIGTERM within 10s; killing it", cmd.Path)
			_ = cmd.Process.Kill()
			<-done
		}
	}
	daemons = nil
}

func runTool(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitTCP(t *testing.T, addr string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s after 10s", addr)
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within 10s", path)
}

func mkdirs(t *testing.T, base string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

func readLogs(dir string, names ...string) string {
	var b strings.Builder
	for _, n := range names {
		data, _ := os.ReadFile(filepath.Join(dir, n))
		fmt.Fprintf(&b, "--- %s\n%s\n", n, data)
	}
	return b.String()
}
