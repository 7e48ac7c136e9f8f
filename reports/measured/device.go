//go:build linux

package measured

import (
	"cmp"
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
	if p.DirectIO && r.ReadLatency > 0 && r.ReadIOPS > 0 {
		fmt.Fprintf(w, "\nAs a price catalog's drive (paste under drives:, fill in sku, price and\nendurance from the quote and the data sheet, check the class):\n")
		io.WriteString(w, CatalogDrive(p))
	}
}

// CatalogDrive is the drive entry of a price catalog (docs/money.md) that
// the measurement supports, indented to sit under `drives:`: the figures
// the model reads from a catalog, as measured (4 KiB mean latencies at
// QD1, IOPS at QD32, the sequential write speed when it was measured),
// the class from the device (rotational with reads of a millisecond or
// more: hdd; an NVMe name: nvme-ssd; else sata-ssd) and the capacity of the disk behind the filesystem. The
// part number, the price, and an SSD's NAND and endurance are left for the user: `price` as written
// here does not load, so a pasted entry cannot be priced by accident.
func CatalogDrive(p *device.Profile) string {
	r := p.Reference()
	class := "sata-ssd"
	model, name := p.DeviceName(), ""
	if d := p.Device; d != nil {
		name = d.Name
		if d.Model != "" {
			model = strings.TrimSpace(strings.TrimSpace(d.Vendor) + " " + d.Model)
		}
		switch {
		case d.Rotational != nil && *d.Rotational && r.ReadLatency >= units.Duration(time.Millisecond):
			// A virtual disk may call itself rotational at 100us: only
			// a read that takes a seek's time makes it a disk.
			class = "hdd"
		case strings.HasPrefix(d.Name, "nvme"):
			class = "nvme-ssd"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  - sku: FILL-IN # your part number\n")
	fmt.Fprintf(&b, "    model: %q\n", model)
	fmt.Fprintf(&b, "    class: %s # from the device's name, flag and latency: check it\n", class)
	if class != "hdd" {
		fmt.Fprintf(&b, "    nand: FILL-IN # SLC, MLC, TLC or QLC, from the data sheet\n")
	}
	if d := p.Device; d != nil && d.Size > 0 {
		fmt.Fprintf(&b, "    capacity: %dGB # of %s\n", int64(d.Size)/1e9, name)
	} else {
		fmt.Fprintf(&b, "    capacity: FILL-IN # e.g. 1920GB\n")
	}
	fmt.Fprintf(&b, "    price: FILL-IN # e.g. 180.00 USD\n")
	fmt.Fprintf(&b, "    read_latency: %v\n    write_latency: %v\n", r.ReadLatency, r.WriteLatency)
	fmt.Fprintf(&b, "    read_iops: %.0f\n    write_iops: %.0f\n", r.ReadIOPS, r.WriteIOPS)
	if t := p.SeqWrite; t != nil && t.MBPerSec > 0 {
		fmt.Fprintf(&b, "    write_bandwidth: %.0fMB # sequential write, per second\n", t.MBPerSec)
	}
	if class != "hdd" {
		fmt.Fprintf(&b, "    tbw: FILL-IN # e.g. 3500TB, or dwpd: and warranty_years: (data sheet)\n")
	}
	fmt.Fprintf(&b, "    source: memplan probe device on %s, %s\n", cmp.Or(name, p.Filesystem), p.StartedAt.UTC().Format("2006-01-02"))
	return b.String()
}

// micros shows a latency in microseconds as a duration, to 10ns.
func micros(us float64) string {
	return units.Duration(time.Duration(us * 1e3).Round(10 * time.Nanosecond)).String()
}
