//go:build !unix

package collect

import "testing"

// reportCPU reports nothing where the process's CPU time cannot be read.
func reportCPU(b *testing.B) func() { return func() {} }
