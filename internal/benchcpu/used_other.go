//go:build !unix

package benchcpu

import "time"

func used() (user, sys time.Duration, ok bool) { return 0, 0, false }
