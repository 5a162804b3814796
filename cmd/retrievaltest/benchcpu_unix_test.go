//go:build unix

package main

import (
	"syscall"
	"testing"
	"time"
)

// reportCPUThroughput starts measuring the CPU time the process uses and
// returns a function that reports, as cpu-MB/s, the bytes read per second
// of it. Unlike MB/s, which is measured against the wall clock, it barely
// moves when other processes share the machine. Call it after the
// benchmark's setup and defer the function it returns.
func reportCPUThroughput(b *testing.B, bytesPerOp int64) func() {
	start := cpuTime()
	return func() {
		if used := cpuTime() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/used.Seconds()/1e6, "cpu-MB/s")
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
