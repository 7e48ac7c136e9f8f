//go:build linux

package host

import (
	"fmt"

	"github.com/memplan/memplan/units"
)

// addSwapFile creates a fully allocated swap file of size at path in the
// swap directory t and enables it ahead of the host's swap areas; both
// steps are journaled before they are made.
func AddSwapFile(h Host, j *Journal, t *SwapTarget, path string, size units.Bytes) error {
	return AddSwapFileAt(h, j, t, path, size, SwapPriority)
}

// addSwapFileAt is addSwapFile at a given swap priority.
func AddSwapFileAt(h Host, j *Journal, t *SwapTarget, path string, size units.Bytes, prio int) error {
	free, _, err := h.Statfs(t.Dir)
	if err == nil && free < size+256*units.MiB {
		return fmt.Errorf("%s has only %s free, the swap file needs %s plus 256MiB to spare", t.Dir, free, size)
	}
	if _, err := j.Record(Entry{Op: OpFile, Path: path}); err != nil {
		return err
	}
	if err := h.MakeSwapFile(path, size); err != nil {
		return fmt.Errorf("creating swap file %s: %w", path, err)
	}
	if _, err := j.Record(Entry{Op: OpSwapon, Path: path}); err != nil {
		return err
	}
	if err := h.Swapon(path, prio); err != nil {
		return fmt.Errorf("enabling swap file %s on %s: %w (the filesystem may not support swap files)", path, t.FS, err)
	}
	return nil
}
