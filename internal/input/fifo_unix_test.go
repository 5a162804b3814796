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
