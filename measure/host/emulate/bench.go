//go:build linux

package emulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RandomReads reads 4 KiB at random aligned offsets below size of the
// block device dev with O_DIRECT from qd goroutines, n reads in all, and
// returns each read's time, sorted, and the time all took. It is the
// measurement the emulator is checked and calibrated with; the repository's
// device benchmark measures real drives.
func RandomReads(dev string, size int64, qd, n int) ([]time.Duration, time.Duration, error) {
	f, err := os.OpenFile(dev, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var (
		mu    sync.Mutex
		out   []time.Duration
		first error
		wg    sync.WaitGroup
	)
	per := max(1, n/qd)
	start := time.Now()
	for w := 0; w < qd; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			buf := alignedBuf(pageBytes)
			local := make([]time.Duration, 0, per)
			var err error
			for i := 0; i < per; i++ {
				off := r.Int64N(size/pageBytes) * pageBytes
				t0 := time.Now()
				if _, err = unix.Pread(int(f.Fd()), buf, off); err != nil {
					err = fmt.Errorf("reading %s at %d: %w", dev, off, err)
					break
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			out = append(out, local...)
			if err != nil && first == nil {
				first = err
			}
			mu.Unlock()
		}(uint64(w) + uint64(start.UnixNano()))
	}
	wg.Wait()
	el := time.Since(start)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, el, first
}

func alignedBuf(n int) []byte {
	b := make([]byte, n+pageBytes)
	a := int(uintptr(unsafe.Pointer(&b[0])) & (pageBytes - 1))
	if a != 0 {
		a = pageBytes - a
	}
	return b[a : a+n]
}

// Quantile of sorted durations.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(q*float64(len(sorted)-1))]
}

// Floor is what the FUSE and loop path add to a request by themselves.
type Floor struct {
	At       time.Duration // the service time of the constant-latency device measured
	P50, P99 time.Duration // of a 4 KiB O_DIRECT read at QD1, minus At
	IOPS     float64       // at QD32 with At 0: the most the emulator can serve on this host
}

// MeasureFloor starts an emulator whose every read takes exactly at,
// measures 4 KiB reads from its loop device and takes it down again (a
// second or two). What the reads take beyond at is the path's own cost.
// It depends on at: a request answered at once finds the kernel's threads
// and the CPUs still awake, one answered later has them asleep, and waking
// an idle CPU of a virtual machine takes tens of microseconds more the
// longer it slept. So calibrate at the emulated device's median latency and
// give the P50 as its Compensation; with at 0 the IOPS are the host's
// ceiling.
func MeasureFloor(ctx context.Context, at time.Duration, opts Options) (fl Floor, err error) {
	const size = 16 << 20
	dev := Zero()
	dev.Read.Random = Dist{Median: at, P99: at}
	dev.Write.Random = dev.Read.Random
	e, err := Start(ctx, dev, size, opts)
	if err != nil {
		return fl, err
	}
	defer func() {
		if cerr := e.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := e.AttachLoop(); err != nil {
		return fl, err
	}
	n := 3000
	if at > 0 {
		n = min(n, int(time.Second/at)+20) // about a second
	}
	if _, _, err := RandomReads(e.Loop, size, 1, min(200, n/5)); err != nil { // warm up
		return fl, err
	}
	l, _, err := RandomReads(e.Loop, size, 1, n)
	if err != nil {
		return fl, err
	}
	fl = Floor{At: at, P50: Quantile(l, 0.5) - at, P99: Quantile(l, 0.99) - at}
	if at == 0 {
		l32, el, err := RandomReads(e.Loop, size, 32, 16000)
		if err != nil {
			return fl, err
		}
		fl.IOPS = float64(len(l32)) / el.Seconds()
	}
	return fl, nil
}
