//go:build !unix

package atomicfile

import (
	"os"
	"time"
)

// openThrough opens a device for writing; named pipes are a Unix matter.
func openThrough(path, target string, _ time.Duration) (*os.File, error) {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return nil, pathError(path, err)
	}
	return f, nil
}
