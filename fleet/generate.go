package fleet

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
)

// Engines memplan fleet init writes files for.
const (
	Ansible = "ansible"
	Slurm   = "slurm"
	LSF     = "lsf"
)

// Engines lists them in the order the help names them.
var Engines = []string{Ansible, Slurm, LSF}

//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are parsed on first use, not at every memplan start (about
// 1,000 allocations) for the few commands that write fleet files.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Delims("[[", "]]").Funcs(template.FuncMap{"comment": comment}).ParseFS(templateFS, "templates/*.tmpl"))
})

// comment wraps text into "# " lines of at most 78 columns.
func comment(text string) string {
	var lines []string
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 78 && line != "#" {
			lines = append(lines, line)
			line = "#"
		}
		line += " " + w
	}
	return strings.Join(append(lines, line), "\n")
}

// Config is what a fleet run's files are generated from.
type Config struct {
	Engine     string
	Run        string        // the run's name: results/<run>/
	Dir        string        // the fleet directory (absolute for slurm and lsf: the nodes read it)
	Invocation string        // the fleet init arguments, for the header
	SHA256     string        // of the memplan binary in Dir
	ProbeArgs  []string      // arguments of memplan probe (or profile)
	Profile    []string      // a command to profile instead of probing
	TimeLimit  time.Duration // of one host's run
	Grace      time.Duration // the time memplan needs to undo after a signal
	// Slurm and LSF: the class every task's result is filed under, the
	// number of tasks and how many run at once, the host label template
	// (%N the node's name, %a the task's index), and where to run.
	Class      string
	Tasks      int
	Parallel   int
	HostLabel  string
	Partition  string
	Constraint string
}

// File is one generated file, relative to the fleet directory.
type File struct {
	Name string
	Data []byte
	Mode uint32
}

// Manifest is fleet.json: what init generated, for collect.
type Manifest struct {
	Engine    string   `json:"engine"`
	Run       string   `json:"run"`
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	SHA256    string   `json:"memplan_sha256"`
	Class     string   `json:"class,omitempty"`
	Tasks     int      `json:"tasks,omitempty"`
	HostLabel string   `json:"host_label,omitempty"`
	GraceS    float64  `json:"grace_s"`
	TimeS     float64  `json:"time_limit_s"`
}

// GraceWhy says where the default grace time comes from; the generated
// files repeat it.
const GraceWhy = "a probe stopped by SIGTERM with 0.5 GiB of its workload on its swap file undid everything in 0.4s (the workload is killed first, which frees its swap); swapoff of a swap file holding live pages of other processes (swap is host-wide) must read them back: 6.8s for 0.42 GiB and 25.5s for 1.41 GiB on this project's CI machine (a virtual disk), about 18s per GiB"

// DefaultGrace is the grace time the generated files ask for.
const DefaultGrace = 120 * time.Second

var safeRun = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
var hostLabelRe = regexp.MustCompile(`^([A-Za-z0-9._-]|%N|%a)+$`)

func (c *Config) check() error {
	switch c.Engine {
	case Ansible, Slurm, LSF:
	default:
		return fmt.Errorf("--engine %q: expected one of %s", c.Engine, strings.Join(Engines, ", "))
	}
	if !safeRun.MatchString(c.Run) {
		return fmt.Errorf("--run %q: use letters, digits, '.', '_' and '-' (it names a directory)", c.Run)
	}
	if c.TimeLimit <= c.Grace {
		return fmt.Errorf("--time-limit %s: must be longer than the grace time %s", c.TimeLimit, c.Grace)
	}
	for _, a := range c.ProbeArgs {
		switch a {
		case "--out", "-o", "--force", "--label", "--plan":
			return fmt.Errorf("--probe-args: %s is set by the generated files (each host writes its own file, labelled with its class, host and run); leave it out", a)
		}
		if strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "--label=") {
			return fmt.Errorf("--probe-args: %s is set by the generated files; leave it out", a)
		}
	}
	if c.Engine == Ansible {
		return nil
	}
	if !filepath.IsAbs(c.Dir) {
		return fmt.Errorf("the fleet directory %s must be absolute for %s: the nodes read it", c.Dir, c.Engine)
	}
	if !safeName.MatchString(c.Class) {
		return fmt.Errorf("--class %q: the hardware class of the nodes, in letters, digits, '.', '_' and '-' (it names a directory)", c.Class)
	}
	if c.Tasks < 1 {
		return fmt.Errorf("give --nodes LIST or --tasks N: how many hosts to probe")
	}
	if c.Parallel < 1 || c.Parallel > c.Tasks {
		c.Parallel = min(max(c.Parallel, 1), c.Tasks)
	}
	if !hostLabelRe.MatchString(c.HostLabel) || !strings.Contains(c.HostLabel, "%N") && !strings.Contains(c.HostLabel, "%a") {
		return fmt.Errorf("--host-label %q: letters, digits, '.', '_', '-' and %%N (the node's name) or %%a (the task's index)", c.HostLabel)
	}
	return nil
}

// Generate renders the engine's files. It does not touch the disk.
func Generate(c Config) ([]File, error) {
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.HostLabel == "" {
		c.HostLabel = "%N"
	}
	if c.Parallel == 0 {
		c.Parallel = 1
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	d := c.data()
	var files []File
	render := func(tmpl, name string, mode uint32) error {
		var b bytes.Buffer
		if err := templates().ExecuteTemplate(&b, tmpl, d); err != nil {
			return err
		}
		files = append(files, File{Name: name, Data: b.Bytes(), Mode: mode})
		return nil
	}
	var err error
	switch c.Engine {
	case Ansible:
		err = render("probe.yml.tmpl", "probe.yml", 0o644)
	case Slurm:
		err = render("probe.sbatch.tmpl", "probe.sbatch", 0o755)
	case LSF:
		err = render("probe.lsf.tmpl", "probe.lsf", 0o755)
	}
	if err != nil {
		return nil, err
	}
	m := Manifest{Engine: c.Engine, Run: c.Run, Command: d.Command, Args: append(append([]string{}, c.ProbeArgs...), c.Profile...), SHA256: c.SHA256,
		GraceS: c.Grace.Seconds(), TimeS: c.TimeLimit.Seconds()}
	if c.Engine != Ansible {
		m.Class, m.Tasks, m.HostLabel = c.Class, c.Tasks, c.HostLabel
	}
	mb, _ := json.MarshalIndent(m, "", "  ")
	files = append(files, File{Name: "fleet.json", Data: append(mb, '\n'), Mode: 0o644})
	return files, nil
}

type tmplData struct {
	Config
	Command, Grace, GraceWhy, GraceEngine, TimeLimit string
	TimeLimitSeconds, GraceSeconds, GraceMinutes     int
	PlaybookPath, ResultsRel, ResultsPath            string
	Argv                                             []string
	DirQ, RunQ, ClassQ, HostExpr, TaskVar            string
	CommandLine, SlurmTime, LSFTime, Placement       string
	GraceText                                        string
	SchedulerLines                                   []string
}

func (c Config) data() tmplData {
	d := tmplData{Config: c, Command: "probe", Grace: human(c.Grace), GraceWhy: GraceWhy, TimeLimit: human(c.TimeLimit),
		TimeLimitSeconds: int(c.TimeLimit.Seconds()), GraceSeconds: int(math.Ceil(c.Grace.Seconds())),
		GraceMinutes: int(math.Ceil(c.Grace.Minutes())), ResultsRel: "results/" + c.Run,
		PlaybookPath: filepath.Join(c.Dir, "probe.yml"), ResultsPath: filepath.Join(c.Dir, "results", c.Run)}
	if len(c.Profile) > 0 {
		d.Command = "profile"
	}
	// Ansible: the remote command as an argv list, each item a YAML
	// double-quoted string.
	argv := []string{"{{ memplan_dir }}/memplan", d.Command}
	argv = append(argv, c.ProbeArgs...)
	argv = append(argv, "--label", "class={{ memplan_host_class }}", "--label", "host={{ inventory_hostname }}", "--label", "run="+c.Run,
		"--out", "{{ memplan_dir }}/"+c.Run+".json", "--force")
	if len(c.Profile) > 0 {
		argv = append(append(argv, "--"), c.Profile...)
	}
	for _, a := range argv {
		d.Argv = append(d.Argv, strconv.Quote(a))
	}
	// Slurm and LSF: a bash command line.
	d.DirQ, d.RunQ, d.ClassQ = shellQuote(c.Dir), shellQuote(c.Run), shellQuote(c.Class)
	node, task := `${SLURMD_NODENAME:-$(hostname -s)}`, `${SLURM_ARRAY_TASK_ID}`
	d.TaskVar = `${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}_${SLURM_ARRAY_TASK_ID}`
	d.GraceEngine = fmt.Sprintf("--signal=B:TERM@%d sends this shell SIGTERM %s before the time limit; on scancel or at the limit Slurm sends SIGTERM and, KillWait seconds later (slurm.conf, default 30s), SIGKILL: set KillWait to at least %d for a full swap file's undo.", d.GraceSeconds, d.Grace, d.GraceSeconds)
	if c.Engine == LSF {
		node, task = `$(hostname -s)`, `${LSB_JOBINDEX}`
		d.TaskVar = `${LSB_JOBID}_${LSB_JOBINDEX}`
		d.GraceEngine = fmt.Sprintf("-wa TERM -wt %d sends SIGTERM %d minute(s) before the run limit; bkill sends SIGINT, SIGTERM and SIGKILL 10 seconds apart (JOB_TERMINATE_INTERVAL in lsb.params): set it to at least %d, or stop a run with 'bkill -s TERM' and wait.", d.GraceMinutes, d.GraceMinutes, d.GraceSeconds)
	}
	host := strings.NewReplacer("%N", node, "%a", task).Replace(c.HostLabel)
	d.HostExpr = `"` + host + `"`
	line := []string{`"$LOCAL/memplan"`, d.Command}
	for _, a := range c.ProbeArgs {
		line = append(line, shellQuote(a))
	}
	line = append(line, `--label "class=$CLASS"`, `--label "host=$HOST"`, `--label "run=$RUN"`, `--out "$LOCAL/$RUN.json"`, "--force")
	if len(c.Profile) > 0 {
		line = append(line, "--")
		for _, a := range c.Profile {
			line = append(line, shellQuote(a))
		}
	}
	d.CommandLine = strings.Join(line, " ")
	t := int(c.TimeLimit.Round(time.Minute).Minutes())
	if t < 1 {
		t = 1
	}
	d.SlurmTime = fmt.Sprintf("%d:%02d:00", t/60, t%60)
	d.LSFTime = fmt.Sprintf("%d:%02d", t/60, t%60)
	var where []string
	switch c.Engine {
	case Slurm:
		if c.Partition != "" {
			d.SchedulerLines = append(d.SchedulerLines, "--partition="+c.Partition)
			where = append(where, "partition "+c.Partition)
		}
		if c.Constraint != "" {
			d.SchedulerLines = append(d.SchedulerLines, "--constraint="+c.Constraint)
			where = append(where, "feature "+c.Constraint)
		}
	case LSF:
		if c.Partition != "" {
			d.SchedulerLines = append(d.SchedulerLines, "-q "+c.Partition)
			where = append(where, "queue "+c.Partition)
		}
		if c.Constraint != "" {
			d.SchedulerLines = append(d.SchedulerLines, `-R "select[`+c.Constraint+`]"`)
			where = append(where, "resource "+c.Constraint)
		}
	}
	if len(where) == 0 {
		d.Placement = "any it may use (give --partition or --constraint to keep the run to hosts of class " + c.Class + ")"
	} else {
		d.Placement = "from " + strings.Join(where, ", ") + " (keep those to hosts of class " + c.Class + ")"
	}
	d.Placement += "; each result is named by --host-label " + c.HostLabel
	d.Placement = map[string]string{Slurm: "Slurm", LSF: "LSF"}[c.Engine] + " chooses the hosts: " + d.Placement + "."
	lead := "Grace time: on SIGINT, SIGTERM or SIGHUP memplan undoes its changes to the host before it exits, and further INT and TERM signals do not stop that; only SIGKILL does (the next 'memplan probe cleanup' then undoes what is left). "
	if c.Engine == Ansible {
		d.GraceText = lead + fmt.Sprintf("Give it %s: %s. The async timeout (%s) ends the run with SIGKILL, after which the final cleanup undoes what it left.", d.Grace, GraceWhy, d.TimeLimit)
	} else {
		d.GraceText = lead + fmt.Sprintf("Give it %s: %s. %s", d.Grace, GraceWhy, d.GraceEngine)
	}
	return d
}

// shellQuote quotes s for bash when it needs it.
func shellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func human(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d%time.Minute == 0:
		return fmt.Sprintf("%dmin", int(d.Minutes()))
	}
	return d.String()
}

// ExpandHosts expands a Slurm-style host list: "node[01-03,07],gpu1" is
// node01, node02, node03, node07, gpu1.
func ExpandHosts(list string) ([]string, error) {
	var out []string
	for _, part := range splitTop(list) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		open := strings.IndexByte(part, '[')
		if open < 0 {
			out = append(out, part)
			continue
		}
		closing := strings.IndexByte(part, ']')
		if closing < open {
			return nil, fmt.Errorf("%q: a '[' without its ']'", part)
		}
		prefix, suffix := part[:open], part[closing+1:]
		for _, r := range strings.Split(part[open+1:closing], ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a > b || b-a > 10000 {
				return nil, fmt.Errorf("%q: %q is not a range like 01-08", part, r)
			}
			for i := a; i <= b; i++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), i, suffix))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q names no hosts", list)
	}
	return out, nil
}

// splitTop splits on commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
