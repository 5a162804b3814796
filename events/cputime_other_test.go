//go:build !unix

package events

import "time"

// cpuTime is not measured on this system.
func cpuTime() time.Duration { return -1 }
