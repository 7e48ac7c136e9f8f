package main

// What memplan writes and where: standard output or an --out file written
// atomically, the checks before anything is read (outputs that would
// overwrite each other or an existing file), and the helpers for paths.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memplan/memplan/reports"
)

// toStdout reports whether --out names standard output: left out, or "-".
func toStdout(out string) bool { return out == "" || out == "-" }

// checkOutputs refuses outputs that would overwrite each other or an
// existing file, before any input is read (a mistake costs nothing).
// paths maps a flag ("--out", "--xlsx") to its value; "" and "-" are
// standard output and never clash.
func checkOutputs(force bool, flags ...[2]string) error {
	for i, a := range flags {
		if toStdout(a[1]) {
			continue
		}
		if fi, err := os.Stat(a[1]); err == nil && fi.IsDir() {
			return usagef("%s %s is a directory; name a file in it, e.g. %s", a[0], a[1], filepath.Join(a[1], "plan"+outputExt(a[0])))
		}
		for _, b := range flags[i+1:] {
			if !toStdout(b[1]) && samePath(a[1], b[1]) {
				return usagef("%s and %s both name %s: one would overwrite the other; give them different files", a[0], b[0], a[1])
			}
		}
	}
	for _, a := range flags {
		if a[0] == "--out" && !toStdout(a[1]) && !force && fileExists(a[1]) {
			return usagef("%s exists; use --force to overwrite it", a[1])
		}
	}
	return nil
}

func outputExt(flag string) string {
	if flag == "--xlsx" {
		return ".xlsx"
	}
	return ".txt"
}

// samePath reports whether two paths name one file: the same cleaned
// absolute path, or (when both exist) the same file through links.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// emitJSON writes a result's JSON to the file out, streamed (a large
// search's result is hundreds of megabytes); to standard output it is
// rendered in memory first, so that a failure leaves nothing half written
// where it cannot be taken back.
func emitJSON(stdout, stderr io.Writer, out string, res reports.Output) error {
	if toStdout(out) {
		var buf bytes.Buffer
		if err := reports.RenderOutput(&buf, "json", res); err != nil {
			return err
		}
		return emit(stdout, stderr, out, buf.Bytes())
	}
	if err := writeAtomicWith(out, func(w io.Writer) error { return reports.WriteJSON(w, res) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "memplan: wrote %s\n", out)
	return nil
}

// emit writes a rendered report to standard output, or atomically to the
// --out file and says so on stderr (a file written in silence is easy to
// miss in a script's log).
func emit(stdout, stderr io.Writer, out string, data []byte) error {
	if toStdout(out) {
		_, err := stdout.Write(data)
		return err
	}
	if err := writeAtomic(out, data); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "memplan: wrote %s\n", out)
	return nil
}

// warnStderr repeats the result's warnings on standard error, one line
// each, when the report itself does not show them to the person running
// memplan: it goes to a file, or is JSON, YAML or CSV for a program.
// A table or markdown on standard output already starts with them.
func warnStderr(stderr io.Writer, format, out string, warnings []string) {
	if toStdout(out) && (format == "table" || format == "markdown") {
		return
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "memplan: warning:", strings.Join(strings.Fields(w), " "))
	}
}

// writeErr says why a file could not be written without the name of the
// temporary file it went through first.
func writeErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	dir := filepath.Dir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: directory %s does not exist; create it or choose another path", path, dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot write %s: no permission to create files in %s; choose another path", path, dir)
	}
	return fmt.Errorf("cannot write %s: %v", path, err)
}

// termWidth is the width the table must fit when it goes to w: $COLUMNS
// when set (the shell's idea of the width, and the way to ask for another),
// else the terminal's, else 80 (a pipe or a file is read in a terminal of
// unknown width later). getenv reads the environment (nil: none).
func termWidth(w io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	return 80
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fileExists reports whether p names something that exists (a file or a
// directory): what refusing to overwrite without --force checks.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// absPath is p made absolute, or p itself when that fails (no working
// directory): for comparing two paths the person gave.
func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so a failure never leaves a partial file. Errors
// name path, never the temporary file.
func writeAtomic(path string, data []byte) error {
	return writeAtomicWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomicWith is writeAtomic with the content written by write, as it
// is produced: a result's JSON streamed a configuration at a time.
func writeAtomicWith(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return writeErr(path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := write(f); err != nil {
		f.Close()
		return writeErr(path, err)
	}
	if err := f.Close(); err != nil {
		return writeErr(path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return writeErr(path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return writeErr(path, err)
	}
	return nil
}
