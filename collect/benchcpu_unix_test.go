//go:build unix

package collect

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU starts measuring the CPU time the process uses (server and
// client alike) and returns a function that reports it per operation, as
// cpu-µs/op. Unlike ns/op it barely moves when other processes share the
// machine; it does not count the time spent waiting for fsync.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if used := cpuTime() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
