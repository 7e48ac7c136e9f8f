package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/prices"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newWorkloadCommand) }

func newWorkloadCommand(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "workload", Short: "Check workload descriptions"}
	c.AddCommand(&cobra.Command{
		Use:   "validate FILE...",
		Short: "Check workload files and summarise what memplan understood",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var failed []error
			for _, f := range args {
				w, err := model.LoadWorkload(f)
				if err == nil {
					err = checkWorkloadRefs(w)
				}
				if err != nil {
					failed = append(failed, err)
					continue
				}
				fmt.Fprintf(stdout, "%s: ok: %s\n", f, describeWorkload(w))
			}
			return joinErrors(failed)
		},
	})
	return c
}

// checkWorkloadRefs checks what a workload names outside itself (embedded
// catalogs, profile files), so `validate` catches what `recommend` would.
func checkWorkloadRefs(w *model.Workload) error {
	for i, n := range w.Catalogs {
		if _, err := prices.Embedded(n); err != nil {
			return w.ErrorAt(fmt.Sprintf("catalogs[%d]", i), "", "%v", err)
		}
	}
	for i, j := range w.Jobs {
		if j.Profile == "" {
			continue
		}
		if _, err := model.LoadFactors(j.Profile); err != nil {
			if isNotExist(err) {
				return w.ErrorAt(fmt.Sprintf("jobs[%d].profile", i), "create it with `memplan profile`, or remove the field", "no such file %s", j.Profile)
			}
			return err
		}
	}
	return nil
}

func describeWorkload(w *model.Workload) string {
	var parts []string
	for _, j := range w.Jobs {
		s := fmt.Sprintf("%s: %d x %s for %s (deadline %s", j.Name, j.Concurrency, j.Footprint, j.Runtime, j.Deadline)
		if j.JobsPerDay > 0 {
			s += fmt.Sprintf(", %g jobs/day", j.JobsPerDay)
		}
		parts = append(parts, s+")")
	}
	demand := fmt.Sprintf("%d server(s)", w.Demand.Servers)
	if w.Demand.Servers == 0 {
		demand = "fleet sized to the daily job volume"
	}
	cats := "current"
	if len(w.Catalogs) > 0 {
		cats = strings.Join(w.Catalogs, ", ")
	}
	return fmt.Sprintf("%q, %s; %s; catalogs %s; horizon %.1f years", w.Name, strings.Join(parts, "; "), demand, cats, w.HorizonYears())
}

// joinErrors reports several file errors at once, one per line.
func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}
