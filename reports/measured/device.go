//go:build linux

package measured

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memplan/memplan/measure/device"
	"github.com/memplan/memplan/reports"
	"github.com/memplan/memplan/units"
)

// WriteDevice renders a device profile (memplan probe device) in at most
// 80 columns.
func WriteDevice(w io.Writer, p *device.Profile) {
	dev := p.DeviceName()
	if d := p.Device; d != nil {
		var facts []string
		if d.Model != "" {
			facts = append(facts, d.Name)
		}
		if d.Rotational != nil {
			facts = append(facts, map[bool]string{true: "rotational", false: "non-rotational"}[*d.Rotational])
		}
		if len(d.Stack) > 0 {
			facts = append(facts, "via "+strings.Join(d.Stack, ", "))
		}
		if len(facts) > 0 {
			dev += ", " + strings.Join(facts, ", ")
		}
	}
	direct := "O_DIRECT"
	if !p.DirectIO {
		direct = "NOT DIRECT (see warnings)"
	}
	fmt.Fprintf(w, "Device profile of %s\n", p.Path)
	fmt.Fprintf(w, "  %s on %s\n", p.Filesystem, dev)
	fmt.Fprintf(w, "  %s, %v test file, %v per test, %s\n\n", direct, p.FileSize, p.DurationPerTest, p.Elapsed)
	fmt.Fprintf(w, "%-16s %3s %9s %8s %9s %9s %9s %9s\n", "test", "QD", "IOPS", "MB/s", "p50", "p99", "p99.9", "mean")
	for _, t := range p.Tests() {
		name := map[string]string{"random": "rand ", "sequential": "seq "}[t.Pattern] + t.Op + " " + units.Bytes(t.BlockBytes).String()
		l := t.Latency
		fmt.Fprintf(w, "%-16s %3d %9.0f %8.1f %9s %9s %9s %9s\n", name, t.QueueDepth, t.IOPS, t.MBPerSec,
			micros(l.P50Us), micros(l.P99Us), micros(l.P999Us), micros(l.MeanUs))
	}
	r := p.Reference()
	fmt.Fprintf(w, "\nFor the model (4 KiB): latency read %v, write %v (mean at QD1);\n", r.ReadLatency, r.WriteLatency)
	fmt.Fprintf(w, "  IOPS read %.0f, write %.0f (QD32)\n", r.ReadIOPS, r.WriteIOPS)
	for _, warn := range p.Warnings {
		fmt.Fprintln(w, strings.Join(reports.Wrap("warning: "+warn, 78, "  "), "\n"))
	}
}

// micros shows a latency in microseconds as a duration, to 10ns.
func micros(us float64) string {
	return units.Duration(time.Duration(us * 1e3).Round(10 * time.Nanosecond)).String()
}
