package cli

import (
	"os"
	"runtime/debug"
)

// afterReadGCPercent is the garbage collector's percent while the runs of
// a trace are made into documents and metrics. Reading a trace allocates
// many times what it keeps, and runs at the usual percent; what follows
// holds the trace's events and allocates little, so a low percent keeps
// the heap from growing to twice the events for little CPU. On a 525 MB
// session it took the peak memory of metrics from about 139 to 104 MiB,
// at the same CPU time.
const afterReadGCPercent = 25

// gcPhases switches the garbage collector's percent between reading and
// what follows, unless the user chose one (GOGC): read sets the percent
// for a read, made for the work on what was read, and done puts back the
// percent there was.
type gcPhases struct{ before int }

func startGCPhases() *gcPhases {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	return &gcPhases{before: before}
}

func (p *gcPhases) read() {
	if p != nil {
		debug.SetGCPercent(p.before)
	}
}

func (p *gcPhases) made() {
	if p != nil {
		debug.SetGCPercent(min(p.before, afterReadGCPercent))
	}
}

func (p *gcPhases) done() {
	if p != nil {
		debug.SetGCPercent(p.before)
	}
}
