//go:build unix

package main

import (
	"os"
	"syscall"
)

// execve replaces the process by bin, which keeps its process id, its
// signals and its exit code.
func execve(bin string, args []string) error {
	return syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
}
