//go:build !unix

package runs

import "time"

// cpuTime is not measured here: BenchmarkEvaluate reports wall time only.
func cpuTime() (user, sys time.Duration) { return 0, 0 }
