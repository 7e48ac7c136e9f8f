//go:build linux

package device

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memplan/memplan/units"
	"golang.org/x/sys/unix"
)

// The deep-queue engines stop promptly too, with every operation reaped
// before their buffers go.
func TestDevEnginesCancel(t *testing.T) {
	r, done := testRunner(t)
	defer done()
	for _, aio := range []bool{true, false} {
		if aio && aioProbe() != nil {
			continue
		}
		r.aio = aio
		for _, write := range []bool{false, true} {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			tt := &Test{QueueDepth: 32, BlockBytes: randomBlock}
			err := r.run(ctx, tt, true, write, time.Minute)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("aio=%v write=%v: got %v, want context.Canceled", aio, write, err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("aio=%v write=%v: took %v to stop after 100ms", aio, write, d)
			}
			cancel()
		}
	}
}

// devTestRunner opens a filled 16 MiB O_DIRECT test file in a temporary
// directory.
func testRunner(t *testing.T) (*runner, func()) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "engine.dat")
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	direct := true
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_DIRECT, 0)
	if err != nil {
		direct = false
		fd, err = unix.Open(name, unix.O_RDWR, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{fd: fd, size: int64(16 * units.MiB), direct: direct}
	if err := r.fill(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, func() { unix.Close(fd) }
}
