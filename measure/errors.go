package measure

import (
	"fmt"
	"regexp"

	"github.com/memplan/memplan/internal/usage"
)

// Swap backends the probe measures.
const (
	BackendZram     = "zram"     // compressed swap in RAM
	BackendFile     = "file"     // a swap file on --swap-dir
	BackendZswap    = "zswap"    // zswap in front of the swap file
	BackendNone     = "none"     // no swap: only file-backed pages can go
	BackendEmulated = "emulated" // the swap file, IOPS-throttled to a catalog drive
)

// OptionError is a mistake in how the probe was asked to run; nothing on
// the host has changed when it is returned.
type OptionError struct {
	Flag string
	Msg  string
}

func (e *OptionError) Error() string {
	if e.Flag == "" {
		return e.Msg
	}
	return "--" + e.Flag + ": " + e.Msg
}

// Is makes an OptionError bad input (usage.ErrInput): exit status 2.
func (e *OptionError) Is(target error) bool { return target == usage.ErrInput }

func OptErr(flag, format string, args ...any) error {
	return &OptionError{Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

var ClassRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
