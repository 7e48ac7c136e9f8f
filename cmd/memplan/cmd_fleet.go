package main

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/fleet"
	"github.com/spf13/cobra"
)

func newFleetCommand(d *deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "fleet",
		Short: "Probe many hosts through Ansible, Slurm or LSF, and check what came back",
		Long: `memplan fleet init writes the files that run memplan probe (or profile) on many
hosts with the engine you already use: an Ansible playbook, a Slurm job array
or an LSF job array. memplan fleet collect checks a run's results and lists
the hosts that failed or sent nothing; memplan factors merge then pools them
per hardware class. See docs/fleet.md.`,
	}
	c.AddCommand(newFleetInitCommand(d), newFleetCollectCommand(d))
	return c
}

type fleetInitOptions struct {
	Engine, Out, Run, ProbeArgs, Binary string
	Class, Nodes, HostLabel             string
	Partition, Constraint               string
	Tasks, Parallel                     int
	TimeLimit, Grace                    time.Duration
	Force                               bool
	profile                             []string
	invocation                          string
	now                                 func() time.Time
	stdout, stderr                      io.Writer
	explicitTasks                       bool
}

func newFleetInitCommand(d *deps) *cobra.Command {
	o := fleetInitOptions{now: d.Now, stdout: d.Stdout, stderr: d.Stderr}
	c := &cobra.Command{
		Use:   "init --engine ansible|slurm|lsf [flags] [-- COMMAND ARG... to profile]",
		Short: "Write an Ansible playbook, a Slurm or an LSF job array that probes many hosts",
		Long: `Write into --out DIR a copy of memplan (it must be a static build:
CGO_ENABLED=0) and the files that run it on many hosts:

  ansible  probe.yml: hosts one at a time (serial: 1); a host's inventory
           group is its hardware class
  slurm    probe.sbatch: a job array, --exclusive, with a time limit and
           --signal so memplan gets time to undo its changes
  lsf      probe.lsf: a job array, -x, with a run limit and a warning signal

Each host copies memplan, checks its SHA-256, runs 'memplan probe cleanup',
the probe with --probe-args (labelled with its class, host and run), writes
results/RUN/<class>/<host>.json, and runs 'memplan probe cleanup' again.
With a command after --, each host runs 'memplan profile' of that command
instead. Pin the probe's sizes in --probe-args (--data-size): its default
depends on the host's RAM, and files of different sizes do not merge.`,
		Example: `  memplan fleet init --engine ansible --probe-args "--quick --swap-dir /var/tmp --data-size 1GiB" --out fleet/
  ansible-playbook -i hosts.ini fleet/probe.yml
  memplan fleet init --engine slurm --nodes 'node[01-08]' --class gen5-nvme --partition gen5 --out /shared/fleet
  sbatch --wait /shared/fleet/probe.sbatch
  memplan fleet collect fleet/results/RUN
  memplan factors merge --by class fleet/results/RUN --out merged/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			o.explicitTasks = fl.Changed("tasks")
			if cmd.ArgsLenAtDash() < 0 && len(args) > 0 {
				return usagef("fleet init: unexpected %q; put a command to profile after --", args[0])
			}
			o.profile = args
			o.invocation = strings.Join(d.Args[2:], " ")
			return runFleetInit(o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Engine, "engine", "", "ansible, slurm or lsf (required)")
	f.StringVarP(&o.Out, "out", "o", "fleet", "directory to write the files and memplan's copy into (shared by the nodes for slurm and lsf)")
	f.StringVar(&o.Run, "run", "", "name of the run: results go to DIR/results/RUN (default: the UTC time, e.g. 20261201T0930Z)")
	f.StringVar(&o.ProbeArgs, "probe-args", "--quick", "arguments of memplan probe (or profile) on every host, space-separated")
	f.StringVar(&o.Binary, "binary", "", "the memplan to copy to the hosts (default: this one); build it with CGO_ENABLED=0")
	f.DurationVar(&o.TimeLimit, "time-limit", 2*time.Hour, "longest one host's run may take (Ansible async timeout, Slurm --time, LSF -W)")
	f.DurationVar(&o.Grace, "grace", fleet.DefaultGrace, "time memplan is given to undo its changes after a signal (Slurm --signal, LSF -wt)")
	f.StringVar(&o.Class, "class", "", "slurm, lsf: hardware class of the nodes the array runs on (labels every result)")
	f.StringVar(&o.Nodes, "nodes", "", "slurm, lsf: the nodes, e.g. 'node[01-08]': the array gets one task per node, and collect expects each")
	f.IntVar(&o.Tasks, "tasks", 0, "slurm, lsf: tasks in the array (default: the number of --nodes)")
	f.IntVar(&o.Parallel, "parallel", 1, "slurm, lsf: tasks running at once (each on its own node)")
	f.StringVar(&o.HostLabel, "host-label", "%N", "slurm, lsf: host label of a result: %N the node's name, %a the task's index")
	f.StringVar(&o.Partition, "partition", "", "slurm partition (lsf queue) of the nodes")
	f.StringVar(&o.Constraint, "constraint", "", "slurm --constraint (lsf -R select[...]) that picks the nodes of the class")
	f.BoolVar(&o.Force, "force", false, "overwrite the files of an earlier init in --out")
	f.SetInterspersed(false)
	return c
}

func runFleetInit(o fleetInitOptions) error {
	if o.Engine == "" {
		return usagef("fleet init: --engine is required: %s", strings.Join(fleet.Engines, ", "))
	}
	if o.Run == "" {
		o.Run = o.now().UTC().Format("20060102T1504Z")
	}
	if strings.ContainsAny(o.ProbeArgs, `'"\$`+"`") {
		return usagef("--probe-args %q: give plain space-separated arguments (no quotes, no $)", o.ProbeArgs)
	}
	dir, err := filepath.Abs(o.Out)
	if err != nil {
		return err
	}
	cfg := fleet.Config{Engine: o.Engine, Run: o.Run, Dir: dir, Invocation: o.invocation, ProbeArgs: strings.Fields(o.ProbeArgs),
		Profile: o.profile, TimeLimit: o.TimeLimit, Grace: o.Grace, Class: o.Class, Tasks: o.Tasks, Parallel: o.Parallel,
		HostLabel: o.HostLabel, Partition: o.Partition, Constraint: o.Constraint}
	if o.Engine == fleet.Ansible {
		// The playbook finds its files next to itself; its comments name
		// the directory as given.
		cfg.Dir = o.Out
	}
	var nodes []string
	if o.Nodes != "" {
		if o.Engine == fleet.Ansible {
			return usagef("--nodes is for slurm and lsf; Ansible's hosts come from its inventory")
		}
		if nodes, err = fleet.ExpandHosts(o.Nodes); err != nil {
			return usagef("--nodes: %v", err)
		}
		if !o.explicitTasks {
			cfg.Tasks = len(nodes)
		}
	}
	bin := o.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("reading the memplan to copy: %w", err)
	}
	if err := checkStatic(bin); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	cfg.SHA256 = hex.EncodeToString(sum[:])
	files, err := fleet.Generate(cfg)
	if err != nil {
		return usagef("fleet init: %v", err)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	if !o.Force {
		for _, f := range append(files, fleet.File{Name: "memplan"}) {
			if p := filepath.Join(o.Out, f.Name); fileExists(p) {
				return usagef("%s exists (an earlier fleet init); use --force to overwrite it, or --out another directory", p)
			}
		}
	}
	if err := writeFileMode(filepath.Join(o.Out, "memplan"), data, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFileMode(filepath.Join(o.Out, f.Name), f.Data, os.FileMode(f.Mode)); err != nil {
			return err
		}
	}
	results := filepath.Join(o.Out, "results", o.Run)
	if err := os.MkdirAll(results, 0o755); err != nil {
		return err
	}
	if len(nodes) > 0 && o.HostLabel == "%N" {
		var b strings.Builder
		for _, n := range nodes {
			fmt.Fprintf(&b, "%s %s\n", o.Class, n)
		}
		if err := writeAtomic(filepath.Join(results, fleet.HostsFile), []byte(b.String())); err != nil {
			return err
		}
	}
	w := o.stdout
	fmt.Fprintf(w, "wrote %s: memplan (SHA-256 %s) and", o.Out, cfg.SHA256[:12])
	for _, f := range files {
		fmt.Fprintf(w, " %s", f.Name)
	}
	fmt.Fprintf(w, "\nrun %s: results go to %s/<class>/<host>.json\n", o.Run, results)
	switch o.Engine {
	case fleet.Ansible:
		fmt.Fprintf(w, "next: ansible-playbook -i INVENTORY %s   (inventory group = hardware class)\n", filepath.Join(o.Out, "probe.yml"))
	case fleet.Slurm:
		fmt.Fprintf(w, "next: sbatch --wait %s\n", filepath.Join(dir, "probe.sbatch"))
	case fleet.LSF:
		fmt.Fprintf(w, "next: bsub < %s\n", filepath.Join(dir, "probe.lsf"))
	}
	fmt.Fprintf(w, "then: memplan fleet collect %s && memplan factors merge --by class %s --out merged/\n", results, results)
	fmt.Fprintf(w, "grace: memplan needs up to %s to undo its changes after a signal; the files give it that\n", o.Grace)
	if len(o.profile) == 0 && !hasFlag(cfg.ProbeArgs, "--data-size") {
		fmt.Fprintln(o.stderr, "memplan fleet init: note: --probe-args has no --data-size: the probe's default depends on each host's RAM, and files of different sizes do not merge; pin it, e.g. --data-size 1GiB")
	}
	return nil
}

// checkStatic refuses a dynamically linked memplan: the hosts may have an
// older C library than the machine it was built on.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return usagef("%s is not a Linux executable (%v); build memplan for the hosts with CGO_ENABLED=0 GOOS=linux go build -o memplan ./cmd/memplan and pass --binary", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return usagef("%s is linked dynamically, so it may not run on hosts with an older C library; build a static one with CGO_ENABLED=0 go build -o memplan ./cmd/memplan and pass --binary", path)
		}
	}
	return nil
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

func writeFileMode(path string, data []byte, mode os.FileMode) error {
	if err := writeAtomic(path, data); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

func newFleetCollectCommand(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "collect RESULTS_DIR",
		Short: "Check a fleet run's results: every factor file, and the hosts that failed or sent nothing",
		Long: `Check every file under a run's results directory (DIR/results/RUN, laid out
<class>/<host>.json): that it loads, has slowdown curves, carries the class,
host and run labels of where it lies, and was measured by the run's memplan.
List the hosts that failed (<host>.failed), could not be reached
(<host>.unreachable), or, where hosts.txt names the hosts the run was to
cover, sent nothing back. Exits 1 when any host has no usable file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFleetCollect(args[0], d.Stdout)
		},
	}
}

func runFleetCollect(dir string, w io.Writer) error {
	c, err := fleet.Collect(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return usagef("fleet collect: %s does not exist; give a run's results directory, DIR/results/RUN", dir)
		}
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\thost\tstatus\tdetail")
	for _, h := range c.Hosts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", h.Class, h.Host, h.Status, h.Detail)
	}
	tw.Flush()
	ok := c.Count(fleet.StatusOK)
	bad := len(c.Hosts) - ok
	fmt.Fprintf(w, "run %s: %d of %d hosts have a usable factor file", c.Run, ok, len(c.Hosts))
	var parts []string
	for _, s := range []string{fleet.StatusFailed, fleet.StatusUnreachable, fleet.StatusMissing, fleet.StatusInvalid} {
		if n := c.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	if !c.Expected {
		fmt.Fprintf(w, "note: no %s in %s, so hosts that sent nothing at all cannot be listed\n", fleet.HostsFile, dir)
	}
	if n := c.Count(fleet.StatusInvalid); n > 0 {
		fmt.Fprintf(w, "fix or remove the %d invalid file(s) before merging: factors merge reads every file\n", n)
	} else if ok > 0 {
		fmt.Fprintf(w, "next: memplan factors merge --by class %s --out merged/\n", dir)
	}
	if bad > 0 {
		return fmt.Errorf("fleet collect: %d of %d hosts have no usable factor file (listed above)", bad, len(c.Hosts))
	}
	return nil
}
