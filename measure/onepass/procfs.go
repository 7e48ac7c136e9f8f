//go:build linux

package onepass

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// procReader reads /proc files through one reused buffer, so that a
// sample allocates nothing that grows with the job's size or its runtime.
type procReader struct {
	root string // "/proc", or a fake tree in tests
	buf  *bufio.Reader
	line []byte
}

func newProcReader(root string) *procReader {
	return &procReader{root: root, buf: bufio.NewReaderSize(nil, 64<<10)}
}

// gone reports whether err means the process has exited (or is exiting):
// processes of a job come and go, and a vanished one is not an error.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// clearRefs clears the accessed bits of every page of pid (and the
// referenced flags of its pages), starting a window.
func (r *procReader) clearRefs(pid int) error {
	f, err := os.OpenFile(filepath.Join(r.root, strconv.Itoa(pid), "clear_refs"), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte("1\n"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// statmResident is pid's resident pages (statm's second field): cheap,
// read at a window's start to count the pages allocated during it.
func (r *procReader) statmResident(pid int) (int64, error) {
	data, err := os.ReadFile(filepath.Join(r.root, strconv.Itoa(pid), "statm"))
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(data)
	if len(f) < 2 {
		return 0, fmt.Errorf("%s/%d/statm: expected at least 2 fields, got %q", r.root, pid, data)
	}
	return strconv.ParseInt(string(f[1]), 10, 64)
}

// usage is what one read of a process's smaps says, in bytes.
type usage struct {
	Rss, Anon             int64 // resident; of it anonymous
	Ref, RefAnon, RefFile int64 // referenced since the last clear_refs; split
	Mappings              int   // VMAs seen (0 from smaps_rollup)
}

// readSmaps reads pid's referenced pages. perMapping reads
// /proc/PID/smaps and splits each mapping's referenced pages into
// anonymous and file-backed in the proportion of that mapping's own
// Anonymous to Rss (an anonymous mapping is all anonymous, a file mapping
// without copy-on-write pages all file-backed: the proportion is exact for
// both and only approximates mixed private file mappings). Otherwise it
// reads smaps_rollup, whose totals allow only the process-wide proportion.
func (r *procReader) readSmaps(pid int, perMapping bool) (usage, error) {
	name := "smaps_rollup"
	if perMapping {
		name = "smaps"
	}
	f, err := os.Open(filepath.Join(r.root, strconv.Itoa(pid), name))
	if err != nil {
		return usage{}, err
	}
	defer f.Close()
	r.buf.Reset(f)
	var u usage
	var rss, anon, ref int64 // of the current mapping
	flush := func() {
		u.Rss += rss
		u.Anon += anon
		u.Ref += ref
		if perMapping && rss > 0 {
			a := ref * anon / rss
			u.RefAnon += a
			u.RefFile += ref - a
		}
		rss, anon, ref = 0, 0, 0
	}
	for {
		line, err := r.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return usage{}, err
		}
		if len(line) == 0 {
			continue
		}
		colon := bytes.IndexByte(line, ':')
		// A mapping's header ("addr-addr perms ...") has no colon before
		// its first space; field lines are "Name:   123 kB".
		if sp := bytes.IndexByte(line, ' '); colon < 0 || (sp >= 0 && sp < colon) {
			if perMapping {
				flush()
				u.Mappings++
			}
			continue
		}
		key := line[:colon]
		var dst *int64
		switch string(key) {
		case "Rss":
			dst = &rss
		case "Anonymous":
			dst = &anon
		case "Referenced":
			dst = &ref
		default:
			continue
		}
		v, err := kB(line[colon+1:])
		if err != nil {
			return usage{}, fmt.Errorf("%s/%d/%s: field %s: %v", r.root, pid, name, key, err)
		}
		*dst = v
	}
	flush()
	if !perMapping && u.Rss > 0 {
		u.RefAnon = u.Ref * u.Anon / u.Rss
		u.RefFile = u.Ref - u.RefAnon
	}
	return u, nil
}

func (r *procReader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		chunk, isPrefix, err := r.buf.ReadLine()
		if err != nil {
			return nil, err
		}
		r.line = append(r.line, chunk...)
		if !isPrefix {
			return r.line, nil
		}
	}
}

// kB parses "   123 kB" into bytes.
func kB(s []byte) (int64, error) {
	s = bytes.TrimSpace(s)
	s = bytes.TrimSpace(bytes.TrimSuffix(s, []byte("kB")))
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("expected a size in kB, got %q", s)
	}
	return v << 10, nil
}

// cgroupPIDs appends the processes listed in procs (a cgroup.procs file)
// and in the cgroup.procs of every cgroup below it: a job that creates
// child cgroups keeps its processes followed.
func cgroupPIDs(procs string, out []int) ([]int, error) {
	out, err := readPIDs(procs, out)
	if err != nil {
		return out, err
	}
	dir := filepath.Dir(procs)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out, nil
	}
	for _, e := range entries {
		if e.IsDir() {
			sub := filepath.Join(dir, e.Name(), "cgroup.procs")
			if _, err := os.Stat(sub); err == nil {
				out, _ = cgroupPIDs(sub, out)
			}
		}
	}
	return out, nil
}

func readPIDs(path string, out []int) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return out, err
	}
	for _, f := range bytes.Fields(data) {
		pid, err := strconv.Atoi(string(f))
		if err != nil {
			return out, fmt.Errorf("%s: expected one process id per line, got %q", path, f)
		}
		out = append(out, pid)
	}
	return out, nil
}
