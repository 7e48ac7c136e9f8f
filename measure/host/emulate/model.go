//go:build linux

package emulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Op is the direction of one request to the device.
type Op int

const (
	Read Op = iota
	Write
)

func (o Op) String() string {
	if o == Write {
		return "write"
	}
	return "read"
}

// Dist is a service-time distribution: a lognormal given by its median and
// 99th percentile, plus an optional uniform term. A flash read is close to
// lognormal (a tight body, a tail from channel contention and garbage
// collection); a disk access is a seek (lognormal) plus a rotational wait
// that is uniform over one revolution, which is what Uniform is for.
type Dist struct {
	Median  time.Duration `json:"median"`            // of the lognormal part; 0 with P99 0 means "none"
	P99     time.Duration `json:"p99"`               // of the lognormal part; P99 == Median means constant
	Uniform time.Duration `json:"uniform,omitempty"` // plus U(0, Uniform)
}

// sigma is the lognormal's shape: ln(p99/p50) / z(0.99).
func (d Dist) sigma() float64 {
	if d.Median <= 0 || d.P99 <= d.Median {
		return 0
	}
	return math.Log(float64(d.P99)/float64(d.Median)) / 2.3263478740408408
}

// Sample draws one service time.
func (d Dist) Sample(r *rand.Rand) time.Duration {
	v := float64(d.Median)
	if s := d.sigma(); s > 0 {
		v *= math.Exp(s * r.NormFloat64())
	}
	if d.Uniform > 0 {
		v += r.Float64() * float64(d.Uniform)
	}
	return time.Duration(v)
}

// Quantiles returns the distribution's quantiles qs (0..1) by sampling it
// with a fixed seed: the sum of a lognormal and a uniform has no closed form,
// and a test comparing a measurement with the model wants the same figure
// every time.
func (d Dist) Quantiles(qs ...float64) []time.Duration {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]time.Duration, 200000)
	for i := range xs {
		xs[i] = d.Sample(r)
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	out := make([]time.Duration, len(qs))
	for i, q := range qs {
		out[i] = xs[int(q*float64(len(xs)-1))]
	}
	return out
}

// OpModel is how the device serves one direction.
type OpModel struct {
	// Random is the service time of a 4 KiB request at an offset that does
	// not continue the previous request of a unit.
	Random Dist `json:"random"`
	// Sequential, when set, is the service time of a request that starts
	// where one of the units left off: a disk does not seek for it. Zero
	// means "as Random" (flash has no head).
	Sequential *Dist `json:"sequential,omitempty"`
	// IOPS caps the rate at which requests of this direction start,
	// whatever the queue depth: the data sheet's 4 KiB random figure.
	// 0 means no cap beyond Units / latency.
	IOPS float64 `json:"iops"`
	// Bandwidth in bytes per second is the sequential transfer rate; a
	// request of n bytes occupies the device's rate gate for n/Bandwidth
	// when that is longer than 1/IOPS, and its unit for the transfer of
	// the bytes beyond the first 4 KiB.
	Bandwidth float64 `json:"bandwidth"`
}

// Device is a drive as the emulator serves it: independent parallel units
// (flash channels, the disks of a RAID 0), each serving one request at a
// time for a drawn service time, behind a rate gate per direction that
// makes IOPS and bandwidth saturate where the data sheet says.
type Device struct {
	Name   string  `json:"name"`
	Source string  `json:"source"`
	Units  int     `json:"units"`
	Read   OpModel `json:"read"`
	Write  OpModel `json:"write"`
}

// Op returns the model of one direction.
func (d *Device) Op(o Op) *OpModel {
	if o == Write {
		return &d.Write
	}
	return &d.Read
}

// Validate says what is missing from a device model.
func (d *Device) Validate() error {
	if d.Units < 1 {
		return fmt.Errorf("device %q: units is %d; want at least 1 (the number of requests it serves at once)", d.Name, d.Units)
	}
	for _, o := range []Op{Read, Write} {
		m := d.Op(o)
		if m.Random.Median < 0 || m.Random.P99 < 0 || m.Random.Uniform < 0 {
			return fmt.Errorf("device %q: %s latency is negative", d.Name, o)
		}
		if m.Random.P99 != 0 && m.Random.P99 < m.Random.Median {
			return fmt.Errorf("device %q: %s p99 %v is below its median %v", d.Name, o, m.Random.P99, m.Random.Median)
		}
		if m.IOPS < 0 || m.Bandwidth < 0 {
			return fmt.Errorf("device %q: %s IOPS or bandwidth is negative", d.Name, o)
		}
	}
	return nil
}

// The presets are the three swap devices of the Intel IT EDA study the
// seeds are calibrated on. Median latencies, random IOPS and write
// bandwidth are the figures of prices/catalogs/intel-2009.yaml and
// model/defaults/factors.yaml (data sheets); read bandwidth is the data
// sheets' 250 MB/s for both SSDs. Neither source gives a p99: the SSD
// tails (about 2x the median for reads, 3x for writes, whose tail comes from
// erase and garbage collection) are assumptions, stated so a measured
// drive can replace them.

// X25E is the Intel X25-E 64GB (SLC): 75/85 us read/write, 35,000/3,300
// IOPS, 250/170 MB/s. Its 35,000 read IOPS at 75 us need 35000*75us = 2.6
// requests in flight, hence 3 units (the drive has 10 channels, but its
// controller, not the flash, is what limits a 4 KiB random read).
func X25E() Device {
	return Device{
		Name:   "Intel X25-E 64GB (SLC)",
		Source: "Intel X25-E data sheet via prices/catalogs/intel-2009.yaml: 75/85 us, 35,000/3,300 IOPS, 250/170 MB/s; p99 assumed 2x/3x the median",
		Units:  3,
		Read:   OpModel{Random: Dist{Median: 75 * time.Microsecond, P99: 150 * time.Microsecond}, IOPS: 35000, Bandwidth: 250e6},
		Write:  OpModel{Random: Dist{Median: 85 * time.Microsecond, P99: 255 * time.Microsecond}, IOPS: 3300, Bandwidth: 170e6},
	}
}

// X25M is the Intel X25-M 80GB (MLC): 85/115 us, 35,000/3,300 IOPS, 250
// MB/s read and 40 MB/s sequential write after everyday use (the figure the
// seeds use; 70-80 MB/s new).
func X25M() Device {
	return Device{
		Name:   "Intel X25-M 80GB (MLC)",
		Source: "Intel X25-M data sheet via prices/catalogs/intel-2009.yaml and model/defaults/factors.yaml: 85/115 us, 35,000/3,300 IOPS, 250 MB/s read, 40 MB/s write used; p99 assumed 2x/3x the median",
		Units:  3,
		Read:   OpModel{Random: Dist{Median: 85 * time.Microsecond, P99: 170 * time.Microsecond}, IOPS: 35000, Bandwidth: 250e6},
		Write:  OpModel{Random: Dist{Median: 115 * time.Microsecond, P99: 345 * time.Microsecond}, IOPS: 3300, Bandwidth: 40e6},
	}
}

// HDDRAID0 is two 7200 rpm SATA disks striped: each access is a seek plus
// a rotational wait uniform over one revolution (8.33 ms at 7200 rpm), so
// the mean is the catalog's 8.5 ms read / 9.5 ms write (seek medians 4.2 /
// 5.2 ms, p99 about twice that); two units give twice one disk's 110/100
// IOPS; a request continuing the last one of a disk pays no seek or
// rotation, only the transfer at 2 x 100 MB/s.
func HDDRAID0() Device {
	rot := 8333 * time.Microsecond
	seq := &Dist{Median: 20 * time.Microsecond, P99: 40 * time.Microsecond}
	return Device{
		Name:   "2 x 7200 rpm SATA HDD, RAID 0",
		Source: "prices/catalogs/intel-2009.yaml (ST3250310NS): 8.5/9.5 ms, 110/100 IOPS and 100 MB/s per disk; two disks striped",
		Units:  2,
		Read:   OpModel{Random: Dist{Median: 4200 * time.Microsecond, P99: 9 * time.Millisecond, Uniform: rot}, Sequential: seq, IOPS: 220, Bandwidth: 200e6},
		Write:  OpModel{Random: Dist{Median: 5200 * time.Microsecond, P99: 11 * time.Millisecond, Uniform: rot}, Sequential: seq, IOPS: 200, Bandwidth: 200e6},
	}
}

// Zero is a device that answers at once with no limit: what the FUSE and
// loop path cost by themselves, the floor below which nothing can be
// emulated.
func Zero() Device {
	return Device{Name: "zero latency", Source: "no delay: measures the emulator's own overhead", Units: 1}
}

// Preset returns a preset by its short name.
func Preset(name string) (Device, error) {
	switch name {
	case "x25-e":
		return X25E(), nil
	case "x25-m":
		return X25M(), nil
	case "hdd-raid0":
		return HDDRAID0(), nil
	case "zero":
		return Zero(), nil
	}
	return Device{}, fmt.Errorf("no emulated device %q; want one of %v", name, PresetNames())
}

// PresetNames lists the names Preset accepts.
func PresetNames() []string { return []string{"x25-e", "x25-m", "hdd-raid0", "zero"} }
