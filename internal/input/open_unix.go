//go:build unix

package input

import (
	"os"
	"syscall"
)

// openFile opens name for reading without blocking on a named pipe that
// has no writer: should the path have been replaced by one after it was
// checked, the open returns and the check of what was opened refuses it.
// (On a regular file O_NONBLOCK changes nothing.)
func openFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
