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

// Floor is what the FUSE and loop path cost by themselves, measured with a
// zero-latency device.
type Floor struct {
	P50, P99 time.Duration // of a 4 KiB O_DIRECT read at QD1
	IOPS     float64       // at QD32: the most the emulator can serve on this host
}

// MeasureFloor starts a zero-latency emulator, measures it and takes it
// down again: a second or two. The P50 is the Compensation to give an
// emulator on this host; a device whose median latency is below it cannot
// be emulated here, nor IOPS above IOPS.
func MeasureFloor(ctx context.Context, opts Options) (fl Floor, err error) {
	const size = 16 << 20
	e, err := Start(ctx, Zero(), size, opts)
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
	if _, _, err := RandomReads(e.Loop, size, 1, 200); err != nil { // warm up
		return fl, err
	}
	l, _, err := RandomReads(e.Loop, size, 1, 3000)
	if err != nil {
		return fl, err
	}
	l32, el, err := RandomReads(e.Loop, size, 32, 16000)
	if err != nil {
		return fl, err
	}
	return Floor{P50: Quantile(l, 0.5), P99: Quantile(l, 0.99), IOPS: float64(len(l32)) / el.Seconds()}, nil
}
