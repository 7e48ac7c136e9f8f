//go:build linux

package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memplan/memplan/measure/host/emulate"
	"golang.org/x/sys/unix"
)

// StateDirEnv overrides the directory holding the journal and the lock.
const StateDirEnv = "MEMPLAN_STATE_DIR"

// DefaultStateDir holds the journal when MEMPLAN_STATE_DIR is unset.
const DefaultStateDir = "/var/lib/memplan"

// StateDir returns the state directory the environment names (getenv is
// os.Getenv, or a command's own environment), DefaultStateDir when it names
// none. Commands call it; the packages below them take the directory as an
// option.
func StateDir(getenv func(string) string) string {
	if d := getenv(StateDirEnv); d != "" {
		return d
	}
	return DefaultStateDir
}

const JournalName = "probe-journal.json"

// Journal operations. Each undo is idempotent and tolerates a change that
// was recorded but never happened (the probe died between the two).
const (
	OpMkdirCgroup = "cgroup"     // created a cgroup directory
	OpMkdir       = "dir"        // created a working directory (and everything in it)
	OpFile        = "file"       // created a regular file
	OpSwapon      = "swapon"     // enabled a swap area
	OpWrite       = "write"      // changed a kernel setting; Old is restored
	OpZramAdd     = "zram-add"   // hot-added a zram device
	OpZramReset   = "zram-reset" // configured an existing, unused zram device
	OpThrottle    = "throttle"   // I/O limit on a cgroup
	OpLoop        = "loop"       // bound a loop device to Path (a zram device)
	// OpEmulator started an emulated swap device (measure/host/emulate)
	// with its mount point under Path; New holds its State as JSON.
	OpEmulator = "emulator"
)

// Entry is one change to the host.
type Entry struct {
	Op   string    `json:"op"`
	Path string    `json:"path,omitempty"`
	Old  string    `json:"old,omitempty"`
	New  string    `json:"new,omitempty"`
	ID   int       `json:"id"` // zram device number, -1 until known
	Prev []int     `json:"existing,omitempty"`
	Dev  string    `json:"dev,omitempty"` // maj:min for a throttle
	At   time.Time `json:"at"`
}

func (e Entry) String() string {
	switch e.Op {
	case OpMkdirCgroup:
		return "cgroup " + e.Path
	case OpMkdir:
		return "directory " + e.Path
	case OpFile:
		return "file " + e.Path
	case OpSwapon:
		return "swap area " + e.Path
	case OpWrite:
		return fmt.Sprintf("%s = %q (was %q)", e.Path, e.New, e.Old)
	case OpZramAdd:
		if e.ID < 0 {
			return "zram device being hot-added"
		}
		return fmt.Sprintf("hot-added zram device /dev/zram%d", e.ID)
	case OpZramReset:
		return fmt.Sprintf("configured zram device /dev/zram%d", e.ID)
	case OpThrottle:
		return fmt.Sprintf("I/O throttle on %s in %s", e.Dev, e.Path)
	case OpEmulator:
		return "emulated swap device (FUSE server, loop device, swap) under " + e.Path
	case OpLoop:
		return "loop device over " + e.Path
	}
	return e.Op + " " + e.Path
}

type journalFile struct {
	Version int       `json:"version"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Command string    `json:"command,omitempty"`
	Entries []Entry   `json:"entries"`
}

// Journal records every change the probe makes before it makes it, so that
// the changes can be undone in reverse order by this process or, after a
// kill -9, by `memplan probe cleanup`.
type Journal struct {
	h    Host
	dir  string
	mu   sync.Mutex
	data journalFile
	lock io.Closer
}

// ErrLeftover means an earlier probe's changes are still on the host.
var ErrLeftover = errors.New("an earlier probe left changes on this host")

// ErrBusy means another probe (or cleanup) is changing this host.
var ErrBusy = errors.New("another memplan probe is running")

// prepareState creates the state directory.
func prepareState(h Host, dir string) error {
	if err := h.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating state directory: %w (set %s to use another)", err, StateDirEnv)
	}
	return nil
}

// NewJournal locks the state directory and starts an empty journal. It
// refuses when an earlier journal still lists changes.
func NewJournal(h Host, dir, command string) (*Journal, error) {
	lock, err := h.Lock()
	if err != nil {
		return nil, err
	}
	if err := prepareState(h, dir); err != nil {
		lock.Close()
		return nil, err
	}
	j := &Journal{h: h, dir: dir, lock: lock}
	if old, err := readJournal(h, dir); err == nil && len(old.Entries) > 0 {
		lock.Close()
		return nil, fmt.Errorf("%w: %s lists %d change(s) from pid %d started %s; run 'memplan probe cleanup' to undo them",
			ErrLeftover, filepath.Join(dir, JournalName), len(old.Entries), old.PID, old.Started.Format(time.RFC3339))
	}
	j.data = journalFile{Version: 1, PID: os.Getpid(), Started: time.Now().UTC(), Command: command}
	return j, nil
}

// OpenJournal locks the state directory and loads what an earlier probe
// left (for cleanup). A missing journal is an empty one.
func OpenJournal(h Host, dir string) (*Journal, error) {
	lock, err := h.Lock()
	if err != nil {
		return nil, err
	}
	j := &Journal{h: h, dir: dir, lock: lock}
	old, err := readJournal(h, dir)
	switch {
	case err == nil:
		j.data = *old
	case errors.Is(err, os.ErrNotExist):
		j.data = journalFile{Version: 1}
	default:
		lock.Close()
		return nil, err
	}
	return j, nil
}

func readJournal(h Host, dir string) (*journalFile, error) {
	name := filepath.Join(dir, JournalName)
	b, err := h.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var jf journalFile
	if err := json.Unmarshal(b, &jf); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); inspect it and remove it by hand", name, err)
	}
	return &jf, nil
}

// PendingChanges describes what the journal in dir still lists, without
// taking the lock (for the "second Ctrl-C" report).
func PendingChanges(h Host, dir string) []string {
	jf, err := readJournal(h, dir)
	if err != nil {
		return nil
	}
	var out []string
	for i := len(jf.Entries) - 1; i >= 0; i-- {
		out = append(out, jf.Entries[i].String())
	}
	return out
}

// RecoverStale undoes what the journals in dirs still list when the process
// that wrote them is gone. A test binary killed by its timeout leaves its
// changes, and their journal in its t.TempDir state directory, behind; the
// next run's tests call this first (internal/roottest). A journal whose
// writer is alive, or a host another probe holds right now, is left alone.
// It returns one line per journal it acted on.
func RecoverStale(h Host, dirs []string) []string {
	var out []string
	for _, dir := range dirs {
		jf, err := readJournal(h, dir)
		if err != nil || len(jf.Entries) == 0 || processAlive(jf.PID) {
			continue
		}
		j, err := OpenJournal(h, dir)
		if err != nil {
			continue // another probe holds the host: not ours to touch now
		}
		n := j.Len()
		if err := j.UndoAll(); err != nil {
			out = append(out, fmt.Sprintf("%s: undoing %d change(s) of pid %d (%s): %v", j.Path(), n, jf.PID, jf.Command, err))
		} else {
			out = append(out, fmt.Sprintf("%s: undid %d change(s) of pid %d (%s), which is gone", j.Path(), n, jf.PID, jf.Command))
		}
		j.Close()
	}
	return out
}

// processAlive reports whether pid names a running process.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// Path is the journal file.
func (j *Journal) Path() string { return filepath.Join(j.dir, JournalName) }

// Close releases the lock; the journal file stays if entries remain.
func (j *Journal) Close() error {
	if j.lock == nil {
		return nil
	}
	err := j.lock.Close()
	j.lock = nil
	return err
}

// Len is the number of recorded changes; a mark for UndoTo.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.data.Entries)
}

// Entries returns a copy of the recorded changes, oldest first.
func (j *Journal) Entries() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Entry(nil), j.data.Entries...)
}

// Record appends a change and makes it durable; call it before making the
// change. It returns the entry's index.
func (j *Journal) Record(e Entry) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e.At = time.Now().UTC()
	j.data.Entries = append(j.data.Entries, e)
	if err := j.save(); err != nil {
		j.data.Entries = j.data.Entries[:len(j.data.Entries)-1]
		return 0, err
	}
	return len(j.data.Entries) - 1, nil
}

// Update changes a recorded entry (a zram device number learnt after
// hot_add) and saves.
func (j *Journal) Update(i int, f func(*Entry)) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	f(&j.data.Entries[i])
	return j.save()
}

func (j *Journal) save() error {
	name := filepath.Join(j.dir, JournalName)
	if len(j.data.Entries) == 0 {
		if err := j.h.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(j.data, "", "  ")
	if err != nil {
		return err
	}
	if err := j.h.ReplaceFile(name, append(b, '\n')); err != nil {
		return fmt.Errorf("writing journal: %w", err)
	}
	return nil
}

// UndoTo undoes, newest first, every change recorded at index mark or
// later. It keeps going past failures and returns them all; entries that
// could not be undone stay in the journal.
func (j *Journal) UndoTo(mark int) error {
	var errs []error
	for i := j.Len() - 1; i >= mark; i-- {
		j.mu.Lock()
		e := j.data.Entries[i]
		j.mu.Unlock()
		if err := undo(j.h, e); err != nil {
			errs = append(errs, fmt.Errorf("undoing %s: %w", e, err))
			continue
		}
		j.mu.Lock()
		j.data.Entries = append(j.data.Entries[:i], j.data.Entries[i+1:]...)
		err := j.save()
		j.mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// UndoAll undoes every recorded change; the journal file disappears when
// all succeed.
func (j *Journal) UndoAll() error { return j.UndoTo(0) }

func undo(h Host, e Entry) error {
	switch e.Op {
	case OpEmulator:
		return undoEmulator(e)
	case OpMkdirCgroup:
		return removeCgroupDir(h, e.Path, func(pid int) { _ = h.Kill(pid) })
	case OpMkdir:
		return RemoveTree(h, e.Path)
	case OpFile:
		if err := h.Remove(e.Path); err != nil && !isNotExist(err) {
			return err
		}
		return nil
	case OpSwapon:
		return swapoffIfOn(h, e.Path)
	case OpWrite:
		if !Exists(h, e.Path) {
			return nil // the cgroup or device holding it is already gone
		}
		return WriteString(h, e.Path, e.Old)
	case OpThrottle:
		if !Exists(h, e.Path) {
			return nil
		}
		c := &Cgroup{Host: h, Version: throttleVersion(e.Path), Blk: strings.TrimSuffix(e.Path, "/")}
		return c.Throttle(e.Dev, 0, 0)
	case OpZramAdd:
		ids := []int{e.ID}
		if e.ID < 0 {
			ids = newZramDevices(h, e.Prev)
		}
		for _, id := range ids {
			if err := releaseZram(h, id, true); err != nil {
				return err
			}
		}
		return nil
	case OpZramReset:
		return releaseZram(h, e.ID, false)
	case OpLoop:
		return releaseLoops(h, e.Path)
	}
	return fmt.Errorf("unknown journal operation %q", e.Op)
}

// swapoffIfOn turns swap off on name if it is a swap area now.
func swapoffIfOn(h Host, name string) error {
	areas, err := readSwaps(h)
	if err != nil {
		return err
	}
	for _, a := range areas {
		if a.Filename == name {
			return h.Swapoff(name)
		}
	}
	return nil
}

func throttleVersion(dir string) int {
	if strings.Contains(dir, "blkio") {
		return 1
	}
	return 2
}

// removeTree deletes a directory the probe created and everything in it.
func RemoveTree(h Host, dir string) error {
	ents, err := h.ReadDir(dir)
	if isNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := dir + "/" + e.Name()
		if e.IsDir() {
			if err := RemoveTree(h, p); err != nil {
				return err
			}
			continue
		}
		if err := h.Remove(p); err != nil && !isNotExist(err) {
			return err
		}
	}
	if err := h.Remove(dir); err != nil && !isNotExist(err) {
		return err
	}
	return nil
}

// closeJournal undoes every change the journal lists, also after
// cancellation (undo takes no context), and releases the host lock. What
// could not be undone stays in the journal for 'memplan probe cleanup'.
func CloseJournal(j *Journal) error {
	defer j.Close()
	if err := j.UndoAll(); err != nil {
		return fmt.Errorf("%w; the journal %s keeps what is left: run 'memplan probe cleanup'", err, j.Path())
	}
	return nil
}

// undoEmulator stops an emulated device: from its recorded State, and any
// emulator mounted under the entry's directory that the State did not
// reach (the process died between a change and its record).
func undoEmulator(e Entry) error {
	var errs []error
	if e.New != "" {
		var st emulate.State
		if err := json.Unmarshal([]byte(e.New), &st); err != nil {
			return fmt.Errorf("emulator state in the journal: %w", err)
		}
		errs = append(errs, emulate.Cleanup(st))
	}
	for _, st := range emulate.Leftovers() {
		if e.Path != "" && strings.HasPrefix(st.Mountpoint, e.Path+"/") {
			errs = append(errs, emulate.Cleanup(st))
		}
	}
	return errors.Join(errs...)
}
