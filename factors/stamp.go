package factors

import (
	"encoding/json"
	"fmt"

	"github.com/memplan/memplan/units"
)

// StampKey is the key of the stamp in a factor file's extra section.
const StampKey = "fleet"

// Stamp says who measured a factor file and how: memplan probe and
// profile write it, memplan factors merge compares it across hosts.
type Stamp struct {
	Version string            `json:"memplan_version" yaml:"memplan_version"`
	Binary  string            `json:"memplan_sha256,omitempty" yaml:"memplan_sha256,omitempty"`
	Command string            `json:"command" yaml:"command"` // probe or profile
	Labels  map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	// Flags holds every flag of the command with the value it ran with
	// (defaults included); Changed names those given on the command line.
	Flags   map[string]string `json:"flags" yaml:"flags"`
	Changed []string          `json:"changed,omitempty" yaml:"changed,omitempty"`
	Args    []string          `json:"args,omitempty" yaml:"args,omitempty"` // the profiled command
	// SwapInUse is the swap the host's other processes held when the
	// command started: swap is host-wide, so they compete with the runs.
	SwapInUse units.Bytes `json:"swap_in_use_at_start,omitempty" yaml:"swap_in_use_at_start,omitempty"`
}

// SetStamp writes s into f's extra section.
func SetStamp(f *File, s Stamp) {
	if f.Extra == nil {
		f.Extra = map[string]any{}
	}
	var m map[string]any
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &m)
	f.Extra[StampKey] = m
}

// GetStamp reads the stamp of a loaded factor file; ok is false when the
// file has none (written by hand, or by a memplan before labels).
func GetStamp(f *File) (s Stamp, ok bool, err error) {
	v, found := f.Extra[StampKey]
	if !found {
		return s, false, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s, false, fmt.Errorf("%s: extra.%s: %v", f.File, StampKey, err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("%s: extra.%s: not a memplan stamp (%v)", f.File, StampKey, err)
	}
	return s, true, nil
}
