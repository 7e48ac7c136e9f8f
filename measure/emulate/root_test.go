package emulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/memplan/memplan/internal/roottest"
	"golang.org/x/sys/unix"
)

// hostSnapshot is what the emulator may change: swap areas, loop devices,
// emulator mounts.
func hostSnapshot(t *testing.T) string {
	t.Helper()
	swaps, _ := os.ReadFile("/proc/swaps")
	loops, _ := exec.Command("losetup", "-a").CombinedOutput()
	return fmt.Sprintf("swaps:\n%s\nloops:\n%s\nmounts: %v\n", swaps, loops, mounts())
}

func startEmulator(t *testing.T, dev Device, size int64) *Emulator {
	t.Helper()
	roottest.Require(t)
	if err := CheckHost(); err != nil {
		t.Fatal(err)
	}
	roottest.Lock(t)
	before := hostSnapshot(t)
	e, err := Start(context.Background(), dev, size, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	t.Cleanup(func() {
		t1 := time.Now()
		defer func() { t.Logf("teardown took %v", time.Since(t1)) }()
		if err := e.Close(); err != nil {
			t.Error(err)
		}
		if after := hostSnapshot(t); after != before {
			t.Errorf("host changed:\nbefore %s\nafter %s", before, after)
		}
	})
	if _, err := e.AttachLoop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("start and attach took %v", time.Since(t0))
	return e
}

// latencies reads 4 KiB at random aligned offsets of dev with O_DIRECT from
// qd goroutines, n reads in all, and returns each read's time and the
// elapsed time.
func latencies(t *testing.T, dev string, size int64, qd, n int) ([]time.Duration, time.Duration) {
	t.Helper()
	f, err := os.OpenFile(dev, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	var out []time.Duration
	var wg sync.WaitGroup
	per := n / qd
	start := time.Now()
	for w := 0; w < qd; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			buf := alignedBuf(pageBytes)
			local := make([]time.Duration, 0, per)
			for i := 0; i < per; i++ {
				off := r.Int64N(size/pageBytes) * pageBytes
				t0 := time.Now()
				if _, err := unix.Pread(int(f.Fd()), buf, off); err != nil {
					t.Error(err)
					return
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			out = append(out, local...)
			mu.Unlock()
		}(uint64(w))
	}
	wg.Wait()
	el := time.Since(start)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, el
}

func alignedBuf(n int) []byte {
	b := make([]byte, n+pageBytes)
	a := int(uintptr(unsafe.Pointer(&b[0])) & (pageBytes - 1))
	if a != 0 {
		a = pageBytes - a
	}
	return b[a : a+n]
}

func pct(xs []time.Duration, q float64) time.Duration { return xs[int(q*float64(len(xs)-1))] }

// TestFloorRoot measures what FUSE and the loop device cost by themselves:
// a zero-latency device read at QD1. It asserts only that the path works
// and is under a millisecond; the figures go to the log (and doc.go).
func TestFloorRoot(t *testing.T) {
	const size = 16 << 20
	e := startEmulator(t, Zero(), size)
	latencies(t, e.Loop, size, 1, 200) // warm up
	l, _ := latencies(t, e.Loop, size, 1, 4000)
	st, _ := e.Stats()
	t.Logf("floor (zero-latency device, 4 KiB O_DIRECT read, QD1): p50 %v p90 %v p99 %v; server wake-up lateness p50 %v p99 %v; %d reads served",
		pct(l, 0.5), pct(l, 0.9), pct(l, 0.99), st.LateP50, st.LateP99, st.Reads)
	l32, el := latencies(t, e.Loop, size, 32, 16000)
	t.Logf("ceiling (zero-latency device, QD32): %.0f IOPS, p50 %v p99 %v", float64(len(l32))/el.Seconds(), pct(l32, 0.5), pct(l32, 0.99))
	if st.Reads < 4000 {
		t.Errorf("the server served %d reads of 4200: the page cache answered some", st.Reads)
	}
	if pct(l, 0.5) > time.Millisecond {
		t.Errorf("floor p50 %v: the FUSE path is far slower than expected", pct(l, 0.5))
	}
}

// TestLatencyRoot: the emulated device's QD1 4 KiB read p50 is within 20%
// of the model's and QD32 saturates at the model's IOPS.
func TestLatencyRoot(t *testing.T) {
	for _, tc := range []struct {
		dev     Device
		n1, n32 int
	}{
		{X25M(), 2000, 16000},
		{HDDRAID0(), 120, 640},
	} {
		t.Run(tc.dev.Name, func(t *testing.T) {
			const size = 32 << 20
			e := startEmulator(t, tc.dev, size)
			latencies(t, e.Loop, size, 1, 20)
			l, _ := latencies(t, e.Loop, size, 1, tc.n1)
			want := tc.dev.Read.Random.Quantiles(0.5)[0]
			p50 := pct(l, 0.5)
			t.Logf("%s QD1: p50 %v (model %v, %+.1f%%), p99 %v", tc.dev.Name, p50, want, 100*(float64(p50)/float64(want)-1), pct(l, 0.99))
			if r := float64(p50) / float64(want); r < 0.8 || r > 1.2 {
				t.Errorf("QD1 p50 %v, model %v: more than 20%% off", p50, want)
			}
			l32, el := latencies(t, e.Loop, size, 32, tc.n32)
			iops := float64(len(l32)) / el.Seconds()
			t.Logf("%s QD32: %.0f IOPS (model limit %.0f, %+.1f%%), p50 %v", tc.dev.Name, iops, tc.dev.Read.IOPS, 100*(iops/tc.dev.Read.IOPS-1), pct(l32, 0.5))
			if r := iops / tc.dev.Read.IOPS; r < 0.8 || r > 1.05 {
				t.Errorf("QD32 %.0f IOPS, model limit %.0f", iops, tc.dev.Read.IOPS)
			}
			st, _ := e.Stats()
			t.Logf("server: %d reads, max %d in flight, wake-up lateness p50 %v p99 %v", st.Reads, st.MaxInFlight, st.LateP50, st.LateP99)
		})
	}
}
