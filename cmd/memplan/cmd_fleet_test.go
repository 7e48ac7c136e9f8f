package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var static struct {
	once sync.Once
	dir  string // removed when the tests end (removesStatic)
	path string
	err  error
	out  []byte
}

// staticMemplan builds memplan as fleet init requires it (CGO_ENABLED=0),
// once per test binary.
func staticMemplan(t *testing.T) string {
	t.Helper()
	static.once.Do(func() {
		dir, err := os.MkdirTemp("", "memplan-static-")
		if err != nil {
			static.err = err
			return
		}
		static.dir, static.path = dir, filepath.Join(dir, "memplan")
		cmd := exec.Command("go", "build", "-o", static.path, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		static.out, static.err = cmd.CombinedOutput()
	})
	if static.err != nil {
		t.Fatalf("building a static memplan: %v\n%s", static.err, static.out)
	}
	return static.path
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestFleetInit runs the real (static) binary's fleet init for each engine
// and checks what it wrote: the copy of itself and its checksum in the
// generated file, the hosts collect will expect, and, where Ansible is
// installed, that the playbook parses.
func TestFleetInit(t *testing.T) {
	bin := staticMemplan(t)
	sum := sha256File(t, bin)
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("memplan %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	dir := t.TempDir()

	out, stderr := run("fleet", "init", "--engine", "slurm", "--nodes", "n[1-3]", "--class", "gen5", "--run", "r1", "--out", filepath.Join(dir, "s"),
		"--probe-args", "--quick --swap-dir /var/tmp --data-size 64MiB")
	if got := sha256File(t, filepath.Join(dir, "s", "memplan")); got != sum {
		t.Errorf("the copy's SHA-256 %s, the binary's %s", got, sum)
	}
	sb, _ := os.ReadFile(filepath.Join(dir, "s", "probe.sbatch"))
	for _, want := range []string{"#SBATCH --array=1-3%1", "#SBATCH --exclusive", "#SBATCH --signal=B:TERM@120", "SHA256=" + sum, "CLASS=gen5", "--data-size 64MiB"} {
		if !strings.Contains(string(sb), want) {
			t.Errorf("probe.sbatch lacks %q", want)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "s", "probe.sbatch")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("probe.sbatch is not executable: %v", err)
	}
	hosts, _ := os.ReadFile(filepath.Join(dir, "s", "results", "r1", "hosts.txt"))
	if string(hosts) != "gen5 n1\ngen5 n2\ngen5 n3\n" {
		t.Errorf("hosts.txt:\n%s", hosts)
	}
	if !strings.Contains(out, "next: sbatch --wait "+filepath.Join(dir, "s", "probe.sbatch")) || stderr != "" {
		t.Errorf("output:\n%s\nstderr:\n%s", out, stderr)
	}

	_, stderr = run("fleet", "init", "--engine", "ansible", "--run", "r1", "--out", filepath.Join(dir, "a"))
	if !strings.Contains(stderr, "--probe-args has no --data-size") {
		t.Errorf("no note about the data size: %s", stderr)
	}
	yml := filepath.Join(dir, "a", "probe.yml")
	pb, _ := os.ReadFile(yml)
	if !strings.Contains(string(pb), `memplan_binary.stat.checksum == "`+sum+`"`) {
		t.Errorf("probe.yml does not check the SHA-256 %s", sum)
	}
	if _, err := exec.LookPath("ansible-playbook"); err == nil {
		if b, err := exec.Command("ansible-playbook", "--syntax-check", "-i", "localhost,", yml).CombinedOutput(); err != nil {
			t.Errorf("ansible-playbook --syntax-check: %v\n%s", err, b)
		}
	}
	// A second init into the same directory keeps the first.
	cmd := exec.Command(bin, "fleet", "init", "--engine", "ansible", "--out", filepath.Join(dir, "a"))
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "exists (an earlier fleet init); use --force") {
		t.Errorf("second init: %v\n%s", err, b)
	}
	run("fleet", "init", "--engine", "lsf", "--tasks", "2", "--class", "c", "--run", "r1", "--out", filepath.Join(dir, "l"), "--", "sort", "big file.txt")
	lb, _ := os.ReadFile(filepath.Join(dir, "l", "probe.lsf"))
	if !strings.Contains(string(lb), `"$LOCAL/memplan" profile --quick`) || !strings.Contains(string(lb), `-- sort 'big file.txt'`) {
		t.Errorf("probe.lsf does not profile the command:\n%s", lb)
	}
}
