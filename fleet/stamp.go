package fleet

import "github.com/memplan/memplan/factors"

// StampKey is the key of the stamp in a factor file's extra section.
const StampKey = factors.StampKey

// Stamp says who measured a factor file and how: merge compares it across
// hosts (package factors owns it, as part of the file format).
type Stamp = factors.Stamp

// SetStamp writes s into f's extra section.
func SetStamp(f *factors.File, s Stamp) { factors.SetStamp(f, s) }

// GetStamp reads the stamp of a loaded factor file; ok is false when the
// file has none (written by hand, or by a memplan before labels).
func GetStamp(f *factors.File) (s Stamp, ok bool, err error) { return factors.GetStamp(f) }
