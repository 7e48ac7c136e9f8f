//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/reports/measured"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

type probeDeviceOptions struct {
	Path     string
	Quick    bool
	Duration units.Duration
	Size     units.Bytes
	Tests    []string
	Format   string
	Out      string
	Force    bool
}

var probeDeviceFormats = []string{"table", "json"}

func (o *probeDeviceOptions) AddFlags(c *cobra.Command) {
	f := c.Flags()
	f.StringVarP(&o.Path, "path", "p", "", "`DIR` on the device to measure (a temporary file is created there and removed)")
	f.BoolVar(&o.Quick, "quick", false, fmt.Sprintf("smaller file and shorter tests (%v, %v each) unless --size or --duration say otherwise", device.QuickSize, units.Duration(device.QuickDuration)))
	f.TextVar(&o.Duration, "duration", units.Duration(device.DefaultDeviceDuration), "`TIME` each test runs, e.g. 5s or 500ms")
	f.TextVar(&o.Size, "size", device.DefaultSize, "`SIZE` of the test file, e.g. 1GiB; larger than the device's cache for honest random reads")
	f.StringSliceVar(&o.Tests, "tests", nil, "run only these `TESTS` (comma-separated): "+strings.Join(device.TestNames(), ", "))
	f.StringVarP(&o.Format, "format", "f", "table", "output format: "+strings.Join(probeDeviceFormats, ", ")+" (json when --out ends in .json)")
	f.StringVarP(&o.Out, "out", "o", "", "write the output to `FILE` (atomically) instead of standard output")
	f.BoolVar(&o.Force, "force", false, "overwrite --out FILE if it exists")
	_ = c.MarkFlagRequired("path")
	_ = c.MarkFlagDirname("path")
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return probeDeviceFormats, cobra.ShellCompDirectiveNoFileComp
	})
}

func newProbeDeviceCommand(d *deps) *cobra.Command {
	var o probeDeviceOptions
	c := &cobra.Command{
		Use:   "device --path DIR",
		Short: "Measure a device's 4 KiB latency and IOPS, and sequential MB/s, with O_DIRECT",
		Long: `Measure the device under DIR with a temporary file (removed afterwards):
4 KiB random reads and writes at queue depth 1 and 32 (latency p50, p99,
p99.9 and IOPS) and 1 MiB sequential reads and writes (MB/s). The latencies
and IOPS are what the model needs to carry a slowdown curve measured on one
device over to another. Needs no root; compare with fio using
bench/fio-compare.sh.`,
		Example: `  memplan probe device --path /mnt/candidate-ssd
  memplan probe device --path /var/tmp --quick --out device.json   # JSON, from the name`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("duration") && o.Quick {
				o.Duration = units.Duration(device.QuickDuration)
			}
			if !cmd.Flags().Changed("size") && o.Quick {
				o.Size = device.QuickSize
			}
			if !cmd.Flags().Changed("format") && strings.EqualFold(filepath.Ext(o.Out), ".json") {
				// As probe --out does: the file's name says what it holds.
				o.Format = "json"
			}
			return runProbeDevice(cmd.Context(), o, d.Stdout, d.Stderr)
		},
	}
	o.AddFlags(c)
	return c
}

func runProbeDevice(ctx context.Context, o probeDeviceOptions, stdout, stderr io.Writer) error {
	switch {
	case o.Format != "table" && o.Format != "json":
		return usagef("unknown --format %q; expected one of %s", o.Format, strings.Join(probeDeviceFormats, ", "))
	case o.Path == "":
		return usagef("--path is required: the directory on the device to measure")
	case o.Duration < units.Duration(100*time.Millisecond):
		return usagef("--duration %v is too short to measure anything; expected 100ms or more (5s is the default)", o.Duration)
	case o.Out != "" && !o.Force && fileExists(o.Out):
		return usagef("%s exists; use --force to overwrite it", o.Out)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	opts := device.Options{
		Size:     o.Size,
		Duration: o.Duration.D(),
		Tests:    o.Tests,
		Progress: func(s device.Step) {
			if s.Budget > 0 {
				fmt.Fprintf(stderr, "probe device: [%d/%d] %s (%v)\n", s.Index, s.Total, s.Name, units.Duration(s.Budget))
			} else {
				fmt.Fprintf(stderr, "probe device: [%d/%d] %s: writing the %v test file in %s\n", s.Index, s.Total, s.Name, o.Size, o.Path)
			}
		},
	}
	p, err := device.Measure(ctx, o.Path, opts)
	if errors.Is(err, device.ErrPath) || errors.Is(err, device.ErrDeviceOptions) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	var out strings.Builder
	if o.Format == "json" {
		b, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return err
		}
		out.Write(b)
		out.WriteByte('\n')
	} else {
		measured.WriteDevice(&out, p)
	}
	if o.Out != "" {
		if err := writeAtomic(o.Out, []byte(out.String())); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "probe device: wrote %s\n", o.Out)
		return nil
	}
	_, err = io.WriteString(stdout, out.String())
	return err
}
