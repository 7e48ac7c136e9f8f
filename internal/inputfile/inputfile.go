// Package inputfile reads the files a person names on memplan's command
// line (workloads, price catalogs, factor and rates files, quotes, saved
// results) so that no input can hang memplan, exhaust the host's memory or
// be something other than a file: only regular files are read (after
// following symbolic links), "-" is standard input, every read stops at a
// size limit, and a cancelled context (Ctrl-C, SIGTERM) ends it.
//
// A FIFO is refused before it is opened (and opened, on Unix, without
// blocking, in case it took the file's place in between): opening one for
// reading waits for a writer that may never come. /dev/zero and other
// devices never end; they are refused too.
package inputfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memplan/memplan/internal/usage"
)

// Size limits. A hand-written or generated YAML or JSON input (workload,
// catalog, factors, rates, a saved result) is a few kilobytes to a few
// megabytes; a quote workbook with pictures may be larger.
const (
	// Limit is the most memplan reads from one YAML or JSON input.
	Limit = 64 << 20
	// QuoteLimit is the most memplan reads from one quote (.xlsx, .csv).
	QuoteLimit = 256 << 20
)

// Name is how messages name the input at path: "standard input" for "-".
func Name(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// Stdin is what "-" reads; tests replace it.
var Stdin io.Reader = os.Stdin

// Error is an input that is not a file memplan reads: a directory, a
// device, a FIFO, or one larger than the limit. It is bad input (exit 2).
type Error struct {
	Path string // as the person named it
	Msg  string
}

func (e *Error) Error() string            { return e.Path + ": " + e.Msg }
func (e *Error) Is(target error) bool     { return target == usage.ErrInput }
func (e *Error) withPath(p string) *Error { e.Path = p; return e }

// Read returns the contents of the regular file at path ("-": standard
// input), at most limit bytes; a longer input is an error, as is anything
// but a regular file. Cancelling ctx ends the read with ctx's error.
func Read(ctx context.Context, path string, limit int64) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "-" {
		return readStdin(ctx, limit)
	}
	fi, err := os.Stat(path) // follows symbolic links
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			pe.Op = "open" // "open x.yaml: no such file or directory", as before
		}
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// What was opened may not be what was looked at (a file replaced in
	// between): look again at the open file.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	return readAll(ctx, path, f, limit)
}

// readAll reads r in chunks, checking ctx between them, and refuses more
// than limit bytes.
func readAll(ctx context.Context, path string, r io.Reader, limit int64) ([]byte, error) {
	const chunk = 1 << 20
	var buf []byte
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if int64(len(buf)) > limit {
			return nil, tooLarge(path, limit)
		}
		if cap(buf)-len(buf) < chunk {
			nb := make([]byte, len(buf), 2*cap(buf)+chunk)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+chunk)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(buf)) > limit {
				return nil, tooLarge(path, limit)
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readStdin reads standard input in the background so that a cancelled
// context ends the wait for a writer that never writes (the reading
// goroutine is left to the process's exit).
func readStdin(ctx context.Context, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	in := Stdin
	go func() {
		data, err := readAll(context.Background(), "-", io.LimitReader(in, limit+1), limit)
		done <- result{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-done:
		if e := (*Error)(nil); errors.As(r.err, &e) {
			return nil, e.withPath(Name("-"))
		}
		return r.data, r.err
	}
}

func tooLarge(path string, limit int64) error {
	return &Error{Path: path, Msg: fmt.Sprintf("larger than %s, the most memplan reads from one input of this kind; is it the file you meant?", size(limit))}
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// regular refuses anything but a regular file, saying what it is (and, for
// a symbolic link, where it leads).
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO (named pipe), which could wait forever for a writer"
	case m&fs.ModeCharDevice != 0:
		what = "a character device, which may never end (such as /dev/zero)"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	}
	name := path
	if target, err := filepath.EvalSymlinks(path); err == nil && target != filepath.Clean(path) {
		name = fmt.Sprintf("%s (a link to %s)", path, target)
	}
	return &Error{Path: name, Msg: "is " + what + ", not a regular file; memplan reads its inputs only from regular files"}
}
