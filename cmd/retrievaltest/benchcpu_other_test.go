//go:build !unix

package main

import "testing"

// reportCPUThroughput reports nothing where the process's CPU time cannot
// be read.
func reportCPUThroughput(b *testing.B, bytesPerOp int64) func() { return func() {} }
