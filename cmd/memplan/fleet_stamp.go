package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The probe and the profile stamp their factor file with who measured it
// (memplan version, binary checksum), the labels the fleet run gave it
// (class, host, run) and every flag's value, so that `memplan factors
// merge` can pool files from many hosts and refuse files that were not
// measured the same way.

// labelOptions is the repeatable --label key=value of probe and profile.
type labelOptions struct {
	Labels []string
	stamp  factors.Stamp
}

func (o *labelOptions) AddFlags(c *cobra.Command) {
	c.Flags().StringArrayVar(&o.Labels, "label", nil, "key=value written into the factor file (repeatable), e.g. class=gen5-nvme host=node07 run=2026-12-01; `memplan factors merge --by class` groups by them")
}

var labelKey = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// parseLabels checks --label values: key=value, a key of letters, digits,
// '.', '_' and '-', a value that is not empty, each key once.
func parseLabels(args []string) (map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok:
			return nil, usagef("--label %q: expected key=value, e.g. --label class=gen5-nvme", a)
		case !labelKey.MatchString(k):
			return nil, usagef("--label %q: the key must be letters, digits, '.', '_' or '-', starting with a letter or digit", a)
		case v == "":
			return nil, usagef("--label %q: the value is empty", a)
		}
		if old, dup := m[k]; dup {
			return nil, usagef("--label %s given twice (%q and %q); give each key once", k, old, v)
		}
		m[k] = v
	}
	return m, nil
}

// prepare parses the labels and records every flag of c as the command
// resolved it; call it from RunE, before the measurement.
func (o *labelOptions) prepare(c *cobra.Command, args []string) error {
	labels, err := parseLabels(o.Labels)
	if err != nil {
		return err
	}
	flags := map[string]string{}
	var changed []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "label" || f.Name == "help" {
			return
		}
		flags[f.Name] = f.Value.String()
		if f.Changed {
			changed = append(changed, f.Name)
		}
	})
	sort.Strings(changed)
	o.stamp = factors.Stamp{Version: Version(), Binary: binarySum(), Command: c.Name(), Labels: labels,
		Flags: flags, Changed: changed, Args: args}
	if plan, _ := c.Flags().GetBool("plan"); !plan {
		if used := swapInUse("/proc/meminfo"); used > 0 {
			o.stamp.SwapInUse = used
			fmt.Fprintf(c.ErrOrStderr(), "memplan %s: note: %s of other processes' memory is on swap; swap is host-wide, so it competes with the runs and may move onto memplan's swap file, whose undo must then read it back (about 18s per GiB on a virtual disk, see docs/fleet.md); drain the host or run memplan alone (Slurm --exclusive, LSF -x)\n", c.Name(), used)
		}
	}
	return nil
}

// swapInUse is SwapTotal - SwapFree from meminfo, 0 when it cannot tell.
func swapInUse(path string) units.Bytes {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var total, free int64 = -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "SwapTotal:":
			total = v
		case "SwapFree:":
			free = v
		}
	}
	if total < 0 || free < 0 || total <= free {
		return 0
	}
	return units.Bytes((total - free) * 1024)
}

// apply writes the stamp into the factor file's extra section.
func (o *labelOptions) apply(ff *factors.File) {
	factors.SetStamp(ff, o.stamp)
}

// binarySum is the SHA-256 of the running memplan executable: a
// development build's version is "dev" whatever its code, so merge tells
// builds apart by it.
func binarySum() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// labelSummary is "class=a, host=b" for messages.
func labelSummary(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b []string
	for _, k := range ks {
		b = append(b, fmt.Sprintf("%s=%s", k, m[k]))
	}
	return strings.Join(b, ", ")
}
