package inputfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/usage"
)

// readSoon calls Read and fails the test instead of hanging when it does
// not return within a few seconds.
func readSoon(t *testing.T, ctx context.Context, path string, limit int64) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		d, err := Read(ctx, path, limit)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("Read(%s) did not return within 5s", path)
		return nil, nil
	}
}

func TestReadRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(p, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := readSoon(t, context.Background(), p, Limit)
	if err != nil || string(data) != "name: x\n" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	// Through a link, too.
	l := filepath.Join(t.TempDir(), "link.yaml")
	if err := os.Symlink(p, l); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if data, err := readSoon(t, context.Background(), l, Limit); err != nil || string(data) != "name: x\n" {
		t.Fatalf("Read(link) = %q, %v", data, err)
	}
}

func TestRefusesDevZero(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	l := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.Symlink("/dev/zero", l); err != nil {
		t.Fatal(err)
	}
	_, err := readSoon(t, context.Background(), l, Limit)
	want := l + " (a link to /dev/zero): is a character device, which may never end (such as /dev/zero), not a regular file; memplan reads its inputs only from regular files"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if !errors.Is(err, usage.ErrInput) {
		t.Errorf("%v is not bad input", err)
	}
}

func TestRefusesDirectory(t *testing.T) {
	d := t.TempDir()
	_, err := readSoon(t, context.Background(), d, Limit)
	if err == nil || !strings.HasSuffix(err.Error(), ": is a directory, not a regular file; memplan reads its inputs only from regular files") || !errors.Is(err, usage.ErrInput) {
		t.Fatalf("err = %v", err)
	}
}

func TestSizeLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(p, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readSoon(t, context.Background(), p, 2<<20)
	want := p + ": larger than 2 MiB, the most memplan reads from one input of this kind; is it the file you meant?"
	if err == nil || err.Error() != want || !errors.Is(err, usage.ErrInput) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if _, err := readSoon(t, context.Background(), p, 3<<20); err != nil {
		t.Fatalf("exactly at the limit: %v", err)
	}
}

func TestMissing(t *testing.T) {
	_, err := readSoon(t, context.Background(), filepath.Join(t.TempDir(), "none.yaml"), Limit)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}

func TestStdin(t *testing.T) {
	defer func(r io.Reader) { Stdin = r }(Stdin)
	Stdin = strings.NewReader("name: x\n")
	if data, err := readSoon(t, context.Background(), "-", Limit); err != nil || string(data) != "name: x\n" {
		t.Fatalf("Read(-) = %q, %v", data, err)
	}
	Stdin = strings.NewReader(strings.Repeat("x", 100))
	if _, err := readSoon(t, context.Background(), "-", 10); err == nil || err.Error() != "standard input: larger than 10 bytes, the most memplan reads from one input of this kind; is it the file you meant?" {
		t.Fatalf("err = %v", err)
	}
	// A writer that never writes: cancelling ends the wait.
	pr, pw := io.Pipe()
	defer pw.Close()
	Stdin = pr
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := readSoon(t, ctx, "-", Limit); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(p, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readSoon(t, ctx, p, Limit); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
