//go:build unix

package runs

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time the process has used.
func cpuTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
