//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// open opens path for reading without blocking: a FIFO that took the
// place of the regular file just looked at would otherwise wait for a
// writer here (the check after opening refuses it). Regular files ignore
// O_NONBLOCK.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
