//go:build unix

package input

import (
	"path/filepath"
	"syscall"
	"testing"
)

// fifo makes a named pipe in a temporary folder; reading it with no writer
// would block for ever.
func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// A path replaced by a named pipe after it was checked must not block the
// open: what was opened is checked again.
func TestOpenFileDoesNotBlockOnANamedPipe(t *testing.T) {
	t.Parallel()
	p := fifo(t)
	f, err := openFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := check(p, info, MiB, false); err == nil {
		t.Fatal("the opened named pipe passes the check")
	}
}
