//go:build unix

package handoff

import (
	"os"
	"syscall"
)

// Exec replaces the process by bin, which keeps its process id, its
// signals and its exit code. It returns only on an error.
func Exec(bin string, args []string) error {
	return syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
}
