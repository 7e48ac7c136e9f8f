package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Most memplan commands are short: `recommend` on a workload file
// allocates a few tens of MiB in 20-30 ms, and at the runtime's default
// (GOGC=100, a first collection at 4 MiB) a tenth of that time went to
// collecting garbage that the process's exit would have freed anyway.
// So a command starts at gcStartPercent, and once a collection finds more
// than gcLiveLimit live (a 10k-configuration catalog or an accounting
// import), it goes back to the default, so that a large search peaks
// where it did before. GOGC set in the environment is left alone.
const (
	gcStartPercent = 400
	gcLiveLimit    = 64 << 20
)

// tuneGC applies the rule above to this process and returns at once; the
// check runs after each collection until the default is back.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	startGC(gcStartPercent, gcLiveLimit)
}

// gcSentinel is garbage from the moment it is made: its finalizer runs
// after the next collection.
type gcSentinel struct{ _ [2]*byte }

// startGC sets the collector to percent until a collection finds more
// than limit bytes of live heap, then back to 100.
func startGC(percent int, limit uint64) {
	debug.SetGCPercent(percent)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > limit {
				debug.SetGCPercent(100)
				return
			}
			arm()
		})
	}
	arm()
}
