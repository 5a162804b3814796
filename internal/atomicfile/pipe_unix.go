//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// openThrough opens a device or a named pipe for writing. Opening a named
// pipe for writing waits until a process opens it for reading, for ever if
// none does; opened with O_NONBLOCK it fails at once with ENXIO instead
// (POSIX open(2)), so the open is tried again until a reader comes or wait
// has passed.
func openThrough(path, target string, wait time.Duration) (*os.File, error) {
	if info, err := os.Stat(target); err == nil && info.Mode()&fs.ModeNamedPipe == 0 {
		// A device (/dev/null, a terminal) opens at once, and keeps the
		// blocking writes it was opened with.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, pathError(path, err)
		}
		return f, nil
	}
	deadline := time.Now().Add(wait)
	delay := time.Millisecond
	for {
		f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, pathError(path, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is a named pipe that no process opened for reading within %v; start its reader first, or write to a file", path, wait)
		}
		time.Sleep(delay)
		delay = min(2*delay, 100*time.Millisecond)
	}
}
