package yamlx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxInput is the most memplan reads of one workload, catalog, rates or
// factor file: such files are kilobytes to a few megabytes, and a path
// that names something larger is a mistake to report, not to read.
const MaxInput = 64 << 20

// ReadInput reads the input file path (what names it in messages:
// "workload", "price catalog", ...). It refuses anything but a regular
// file, after symlinks, before opening it, so a FIFO cannot block and
// /dev/zero cannot fill memory; and it refuses a file larger than
// MaxInput. Both are input errors naming the file. An error from the file
// system (no such file, no permission) is returned wrapped, as
// os.ReadFile's would be.
func ReadInput(path, what string) ([]byte, error) {
	f, err := OpenInput(path, what, MaxInput)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if len(data) > MaxInput {
		return nil, tooLarge(path, what, int64(len(data)), MaxInput)
	}
	return data, nil
}

// OpenInput opens the input file path for reading after the checks of
// ReadInput, with limit as the size bound; the caller closes it.
func OpenInput(path, what string, limit int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "stat" is not what the user asked for
		}
		return nil, fmt.Errorf("reading %s %s: %w", what, path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &InputError{File: path, Msg: fmt.Sprintf("the %s is %s, not a regular file", what, fileKind(st.Mode())),
			Hint: "give the path of a file"}
	}
	if st.Size() > limit {
		return nil, tooLarge(path, what, st.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return f, nil
}

func tooLarge(path, what string, size, limit int64) error {
	return &InputError{File: path, Msg: fmt.Sprintf("the %s is larger than memplan reads (%s or more, at most %s)", what, mib(size), mib(limit)),
		Hint: "check the path: such files are kilobytes to a few megabytes"}
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file (" + m.Type().String() + ")"
}
