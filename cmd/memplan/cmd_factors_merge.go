package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/fleet"
	"github.com/memplan/memplan/model"
	"github.com/spf13/cobra"
)

type factorsMergeOptions struct {
	By    string
	Out   string
	Force bool
	Level float64
}

func newFactorsMergeCommand(d *deps) *cobra.Command {
	var o factorsMergeOptions
	c := &cobra.Command{
		Use:   "merge --by class DIR|FILE... --out DIR",
		Short: "Pool factor files from many hosts: one file per hardware class whose bands are prediction intervals for one more host",
		Long: `Read the factor files memplan probe (or profile) wrote on many hosts, group
them by a label (--by class: the --label class=NAME each host was probed with),
and write DIR/<class>.json for each class. Each point of a merged curve is the
mean of the host means at that fit ratio; its band is the prediction interval
for one more host of the class (Student-t with n-1 degrees of freedom): what a
server you buy must be expected to meet. The per-host means, the spread
between hosts and the hosts that lie outside what the others predict are kept
in the file (extra.merge) and printed.

Files of one class must have been measured the same way: same memplan,
same flags (other than --out and --swap-dir), same workload sizes, backends
and fit ratios; merge refuses them otherwise and says what differs. See
docs/fleet.md.`,
		Example: `  memplan factors merge --by class fleet/results/RUN --out merged/
  memplan recommend -w eda.yaml --factors merged/gen5-nvme.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFactorsMerge(o, args, d.Stdout, d.Stderr)
		},
	}
	f := c.Flags()
	f.StringVar(&o.By, "by", "class", "label that names the group of hosts (the hardware class)")
	f.StringVarP(&o.Out, "out", "o", "merged", "directory for the merged files, one <class>.json per class")
	f.BoolVar(&o.Force, "force", false, "overwrite merged files that exist")
	f.Float64Var(&o.Level, "level", fleet.DefaultLevel, "level of the prediction interval written as each point's band")
	return c
}

func runFactorsMerge(o factorsMergeOptions, args []string, stdout, stderr io.Writer) error {
	if !(o.Level > 0.5 && o.Level < 1) {
		return usagef("--level %g: expected a level such as 0.95, above 0.5 and below 1", o.Level)
	}
	paths, err := factorPaths(args)
	if err != nil {
		return err
	}
	var files []*factors.File
	for _, p := range paths {
		f, err := model.LoadFactors(p)
		if err != nil {
			return fmt.Errorf("%w (check a run's files with 'memplan fleet collect DIR' first)", err)
		}
		files = append(files, f)
	}
	groups, err := fleet.Merge(files, fleet.MergeOptions{By: o.By, Level: o.Level})
	if err != nil {
		var me *fleet.MergeError
		if errors.As(err, &me) {
			return usagef("factors merge: %v", err)
		}
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	type out struct {
		path string
		data []byte
	}
	var outs []out
	for _, g := range groups {
		p := filepath.Join(o.Out, g.Class+".json")
		if !o.Force && fileExists(p) {
			return usagef("%s exists; use --force to overwrite it, or --out another directory", p)
		}
		data, err := factors.Encode(p, g.File)
		if err != nil {
			return err
		}
		if _, err := model.ParseFactors(p, data); err != nil {
			return fmt.Errorf("the merged file does not load (a bug in memplan): %w", err)
		}
		outs = append(outs, out{p, data})
	}
	// Write only when every class merged, so a refusal leaves nothing half.
	for i, g := range groups {
		if err := writeAtomic(outs[i].path, outs[i].data); err != nil {
			return err
		}
		writeMergeSummary(stdout, g, outs[i].path, o.Level)
	}
	return nil
}

// factorPaths expands directories into the factor files under them.
func factorPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") && p != a {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && isFactorName(name) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, usagef("%s: no factor files (*.json, *.yaml) under it", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func isFactorName(n string) bool {
	n = strings.ToLower(n)
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")
}

func writeMergeSummary(w io.Writer, g fleet.Group, path string, level float64) {
	fmt.Fprintf(w, "class %s: %d hosts (%s) -> %s\n", g.Class, len(g.Hosts), strings.Join(g.Hosts, ", "), path)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  curve\tfit\tmean\tsd\tcv\t%.0f%% PI, one more host\tper host\n", 100*level)
	for _, c := range g.Curves {
		for _, p := range c.Points {
			var hs []string
			for _, h := range p.Hosts {
				hs = append(hs, fmt.Sprintf("%s %.2f", h.Host, h.Slowdown))
			}
			fmt.Fprintf(tw, "  %s\t%.2f\t%.3f\t%.3f\t%.1f%%\t%.3f-%.3f\t%s\n", c.Class, p.Fit, p.Mean, p.SD, 100*p.CV, p.PI[0], p.PI[1], strings.Join(hs, ", "))
		}
	}
	tw.Flush()
	for _, c := range g.File.Curves {
		if c.Provenance == factors.Inferred {
			fmt.Fprintf(w, "  %s is inferred (memplan profile --one-pass): each point's band in the file spans the PI and every host's own one-pass band\n", c.Class)
		}
	}
	if len(g.Hosts) < 3 {
		fmt.Fprintf(w, "  outliers: not judged (%d hosts; it takes 3 for the others to predict one)\n", len(g.Hosts))
	} else if len(g.Outliers) == 0 {
		fmt.Fprintln(w, "  outliers: none (every host within what the others predict)")
	}
	for _, x := range g.Outliers {
		fmt.Fprintf(w, "  outlier: %s, %s at fit %.2f: %.3f; the other hosts predict %.3f-%.3f (kept in the merge: check the host)\n",
			x.Host, x.Curve, x.Fit, x.Slowdown, x.Expected[0], x.Expected[1])
	}
}
