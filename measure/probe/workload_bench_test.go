//go:build linux

package probe

import (
	"testing"
	"time"

	"github.com/memplan/memplan/measure"
	"github.com/memplan/memplan/units"
)

// BenchmarkVisit measures what timing the first touch of each page costs
// the workload's hot loop (fault_latency), in RAM: go test ./measure/probe
// -run XXX -bench Visit -count 5, then compare timed=off and timed=on.
func BenchmarkVisit(b *testing.B) {
	spec := WorkloadSpec{Role: roleWorkload, DataSize: 64 * units.MiB, Chunk: units.MiB, Pattern: measure.PatternZipf, ZipfS: 1.1,
		Content: measure.ContentCompressible, WriteMix: 0.5, Passes: 2, Seed: 1}
	for _, timed := range []bool{false, true} {
		name := map[bool]string{false: "timed=off", true: "timed=on"}[timed]
		b.Run(name, func(b *testing.B) {
			wl, err := newWorkload(spec)
			if err != nil {
				b.Fatal(err)
			}
			defer wl.close()
			wl.fill()
			if timed {
				wl.touch = &measure.Hist{}
			}
			b.ResetTimer()
			wl.visit(int64(b.N), func(int64) {}, time.Time{})
		})
	}
}
