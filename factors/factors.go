package factors

import "github.com/memplan/memplan/units"

// HostFacts describe the machine a curve was measured on.
type HostFacts struct {
	Hostname string `yaml:"hostname,omitempty" json:"hostname,omitempty"`
	CPU      string `yaml:"cpu,omitempty" json:"cpu,omitempty"`
	Kernel   string `yaml:"kernel,omitempty" json:"kernel,omitempty"`
	RAM      string `yaml:"ram,omitempty" json:"ram,omitempty"`
	Cgroup   string `yaml:"cgroup,omitempty" json:"cgroup,omitempty"`
	Device   string `yaml:"device,omitempty" json:"device,omitempty"`
	FS       string `yaml:"filesystem,omitempty" json:"filesystem,omitempty"`
}

// Reference is the device and load a curve was obtained with; the transfer
// model scales a curve by the ratio of per-fault service times.
type Reference struct {
	Device       string         `yaml:"device,omitempty" json:"device,omitempty"`
	ReadLatency  units.Duration `yaml:"read_latency" json:"read_latency"`
	WriteLatency units.Duration `yaml:"write_latency" json:"write_latency"`
	ReadIOPS     float64        `yaml:"read_iops,omitempty" json:"read_iops,omitempty"`
	WriteIOPS    float64        `yaml:"write_iops,omitempty" json:"write_iops,omitempty"`
	Drives       int            `yaml:"drives,omitempty" json:"drives,omitempty"`
	Concurrency  int            `yaml:"concurrency,omitempty" json:"concurrency,omitempty"`
	DirtyShare   units.Ratio    `yaml:"dirty_share,omitempty" json:"dirty_share,omitempty"`
	// WriteBandwidth is the device's sustained sequential write speed,
	// at which swap-out clusters are written.
	WriteBandwidth units.Bytes `yaml:"write_bandwidth,omitempty" json:"write_bandwidth,omitempty"`
	// SeqReadLatency is the 4 KiB read latency when a read follows on from
	// the one before (default: the model's DefaultSeqReadLatency for the
	// class).
	SeqReadLatency units.Duration `yaml:"seq_read_latency,omitempty" json:"seq_read_latency,omitempty"`
	// DirtyShareRange and WriteBandwidthRange are where the dirty share and
	// the write bandwidth may really have been when they were not measured
	// (a published figure); predictions and crossval span them.
	DirtyShareRange     []units.Ratio `yaml:"dirty_share_range,omitempty" json:"dirty_share_range,omitempty"`
	WriteBandwidthRange []units.Bytes `yaml:"write_bandwidth_range,omitempty" json:"write_bandwidth_range,omitempty"`
	// Footprint is the resident peak of one job the curve was measured on
	// (memplan profile writes it; 0: not stated). The model carries a
	// curve's page rate per second to a job of any size; recommend says
	// so when a job class is far larger or smaller than this.
	Footprint units.Bytes `yaml:"footprint,omitempty" json:"footprint,omitempty"`
}
