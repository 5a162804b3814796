// Package benchcpu measures the CPU time a benchmark's process uses. On a
// machine shared with other work, figures against CPU time barely move
// while those against the wall clock (ns/op, MB/s) count the time spent
// waiting for a core. Where the CPU time cannot be read (outside Unix),
// nothing is reported.
package benchcpu

import (
	"testing"
	"time"
)

// A Mark is the process's CPU time at one moment.
type Mark struct {
	User, Sys time.Duration
	ok        bool
}

// Now returns the CPU time the process has used so far, user and system
// (garbage collection and every goroutine included).
func Now() Mark {
	user, sys, ok := used()
	return Mark{User: user, Sys: sys, ok: ok}
}

// Since is the CPU time used since m; ok is false where it cannot be read.
func (m Mark) Since() (user, sys time.Duration, ok bool) {
	now := Now()
	if !m.ok || !now.ok {
		return 0, 0, false
	}
	return now.User - m.User, now.Sys - m.Sys, true
}

// PerOp starts measuring and returns a function that reports the CPU
// time per operation, in unit ("ns" or "µs"), as cpu-ns/op or cpu-µs/op.
// Call it after the benchmark's setup and defer what it returns.
func PerOp(b *testing.B, unit time.Duration) func() {
	start := Now()
	return func() {
		user, sys, ok := start.Since()
		if ok && b.N > 0 {
			name := "cpu-ns/op"
			if unit == time.Microsecond {
				name = "cpu-µs/op"
			}
			b.ReportMetric(float64(user+sys)/float64(unit)/float64(b.N), name)
		}
	}
}

// Throughput starts measuring and returns a function that reports, as
// cpu-MB/s, the bytes processed (bytesPerOp an operation) per second of
// CPU time. Call it after the benchmark's setup and defer what it
// returns.
func Throughput(b *testing.B, bytesPerOp int64) func() {
	start := Now()
	return func() {
		user, sys, ok := start.Since()
		if used := user + sys; ok && used > 0 && b.N > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/used.Seconds()/1e6, "cpu-MB/s")
		}
	}
}
