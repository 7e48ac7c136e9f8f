package fleet

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/model"
)

// Host statuses in a collected run.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"      // the host wrote <host>.failed
	StatusUnreachable = "unreachable" // the playbook could not reach it
	StatusMissing     = "missing"     // expected, but nothing came back
	StatusInvalid     = "invalid"     // a file came back but is not usable
)

// HostResult is one host's outcome in a run.
type HostResult struct {
	Class, Host, Status, Detail, File string
}

// Collected is a run's results directory, checked.
type Collected struct {
	Dir      string
	Run      string
	Expected bool // hosts.txt listed the hosts the run was to cover
	Hosts    []HostResult
}

// Count is the number of hosts with status s.
func (c *Collected) Count(s string) int {
	n := 0
	for _, h := range c.Hosts {
		if h.Status == s {
			n++
		}
	}
	return n
}

// HostsFile lists the hosts a run covers, "class host" a line; the
// playbook writes it from the inventory, fleet init from --nodes.
const HostsFile = "hosts.txt"

// Collect checks every file of a run's results directory
// (results/<run>/<class>/<host>.json): that it loads, has curves, and
// carries the labels of where it lies and the memplan of the run's
// fleet.json, and lists the hosts that failed, could not be reached, or
// (when hosts.txt names the hosts) sent nothing back.
func Collect(dir string) (*Collected, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: give a run's results directory, results/<run>", dir)
	}
	c := &Collected{Dir: dir, Run: filepath.Base(filepath.Clean(dir))}
	var man *Manifest
	if b, err := os.ReadFile(filepath.Join(dir, "..", "..", "fleet.json")); err == nil {
		var m Manifest
		if json.Unmarshal(b, &m) == nil && m.Run == c.Run {
			man = &m
		}
	}
	byKey := map[string]*HostResult{}
	add := func(h HostResult) {
		k := h.Class + "/" + h.Host
		if old, ok := byKey[k]; ok {
			// A result wins over a failure note left from an earlier try.
			if old.Status == StatusOK || old.Status == StatusInvalid {
				return
			}
		}
		byKey[k] = &h
	}
	if f, err := os.Open(filepath.Join(dir, HostsFile)); err == nil {
		c.Expected = true
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			fs := strings.Fields(sc.Text())
			if len(fs) == 0 {
				continue
			}
			if len(fs) != 2 {
				f.Close()
				return nil, fmt.Errorf("%s:%d: expected \"class host\", got %q", filepath.Join(dir, HostsFile), line, sc.Text())
			}
			add(HostResult{Class: fs[0], Host: fs[1], Status: StatusMissing, Detail: "no factor file and no failure note came back"})
		}
		f.Close()
	}
	classes, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, ce := range classes {
		if !ce.IsDir() || strings.HasPrefix(ce.Name(), ".") {
			continue
		}
		class := ce.Name()
		entries, err := os.ReadDir(filepath.Join(dir, class))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || strings.HasPrefix(name, ".") {
				continue
			}
			path := filepath.Join(dir, class, name)
			ext := filepath.Ext(name)
			host := strings.TrimSuffix(name, ext)
			switch ext {
			case ".failed", ".unreachable":
				b, _ := os.ReadFile(path)
				status := StatusFailed
				if ext == ".unreachable" {
					status = StatusUnreachable
				}
				add(HostResult{Class: class, Host: host, Status: status, Detail: firstLine(string(b)), File: path})
			case ".json", ".yaml", ".yml":
				add(checkResult(path, class, host, c.Run, man))
			}
		}
	}
	for _, h := range byKey {
		c.Hosts = append(c.Hosts, *h)
	}
	sort.Slice(c.Hosts, func(i, j int) bool {
		a, b := c.Hosts[i], c.Hosts[j]
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Host < b.Host
	})
	return c, nil
}

func checkResult(path, class, host, run string, man *Manifest) HostResult {
	r := HostResult{Class: class, Host: host, Status: StatusInvalid, File: path}
	f, err := model.LoadFactors(path)
	if err != nil {
		r.Detail = err.Error()
		return r
	}
	s, ok, err := factors.GetStamp(f)
	switch {
	case err != nil:
		r.Detail = err.Error()
	case !ok:
		r.Detail = "no extra.fleet: not written by the run's memplan probe"
	case s.Labels["class"] != class:
		r.Detail = fmt.Sprintf("labelled class %q, but it lies in %s/", s.Labels["class"], class)
	case s.Labels["host"] != host:
		r.Detail = fmt.Sprintf("labelled host %q, but it is named %s", s.Labels["host"], filepath.Base(path))
	case s.Labels["run"] != run:
		r.Detail = fmt.Sprintf("labelled run %q, but it lies in the results of run %s", s.Labels["run"], run)
	case man != nil && man.SHA256 != "" && s.Binary != man.SHA256:
		r.Detail = fmt.Sprintf("measured by a memplan with SHA-256 %s, not the run's %s", short(s.Binary), short(man.SHA256))
	case man != nil && man.Command != "" && s.Command != man.Command:
		r.Detail = fmt.Sprintf("written by memplan %s, but the run is a %s", s.Command, man.Command)
	case len(f.Curves) == 0:
		r.Detail = "no slowdown curves (did the probe run without root?)"
	default:
		var cs []string
		for _, cv := range f.Curves {
			cs = append(cs, cv.Class)
		}
		r.Status, r.Detail = StatusOK, strings.Join(cs, ", ")
		if s.SwapInUse > 0 {
			r.Detail += fmt.Sprintf("; note: %s of other processes' memory was on swap when it started (swap is host-wide: drain the host or run it alone)", s.SwapInUse)
		}
	}
	return r
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		s = "(no reason given)"
	}
	return s
}
