//go:build unix

package inputfile

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.yaml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := readSoon(t, context.Background(), p, Limit)
	want := p + ": is a FIFO (named pipe), which could wait forever for a writer, not a regular file; memplan reads its inputs only from regular files"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	// A FIFO opened as if it were a file (it replaced one after the look)
	// does not block either.
	f, err := open(p)
	if err != nil {
		t.Fatalf("open(FIFO) = %v", err)
	}
	f.Close()
}
