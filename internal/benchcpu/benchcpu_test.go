package benchcpu

import (
	"runtime"
	"testing"
	"time"
)

func TestCPUTimeGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("the CPU time is not read here")
	}
	start := Now()
	deadline := time.Now().Add(50 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	user, sys, ok := start.Since()
	if !ok {
		t.Fatal("the CPU time could not be read")
	}
	if user+sys <= 0 {
		t.Fatalf("busy for 50 ms, the process used %v user and %v system CPU time (%d rounds)", user, sys, x)
	}
	if _, _, ok := (Mark{}).Since(); ok {
		t.Fatal("a Mark that was never taken measures nothing")
	}
}
