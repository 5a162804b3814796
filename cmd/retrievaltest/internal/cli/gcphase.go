package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// afterReadGCPercent is the garbage collector's percent while the runs of
// a trace are made into documents and metrics. Reading a trace allocates
// many times what it keeps, and runs at the usual percent; what follows
// holds the trace's events and allocates little, so a low percent keeps
// the heap from growing to twice the events for little CPU. On a 525 MB
// session it took the peak memory of metrics from about 139 to 104 MiB,
// at the same CPU time.
const afterReadGCPercent = 25

// lowGCMinHeap is the heap below which the percent is not lowered: the
// collector's first cycle comes at 4 MiB at the usual percent, and at a
// quarter of that at the lowered one, so lowering it on a smaller heap (a
// short trace, a few scenarios) would only make a collection happen that
// nothing needs, touching memory and taking time at start-up. A variable
// for the tests.
var lowGCMinHeap uint64 = 4 << 20

// heapObjects reports the bytes of the heap's objects, live or not yet
// swept.
func heapObjects() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// folderReadGCPercent is the percent while a folder is read (an OpenHands
// V1 conversation, a file per event). Opening and reading its many small
// files takes most of the CPU, a third of it in the system, so that
// collecting twice as often costs little: on a folder of 181,833 event
// files (100 MB) it took the peak memory of metrics from 46 to 40 MiB for
// 4% more CPU time.
const folderReadGCPercent = 50

// gcPhases switches the garbage collector's percent between reading and
// what follows, unless the user chose one (GOGC): read sets the percent
// for a read (readFolder for that of a folder), made for the work on what
// was read, and done puts back the percent there was.
//
// The percent is the process's: commands that run side by side (in a
// test binary, or a program that calls them) share it. The percent
// before the first is put back when the last is done, and it stays the
// reading one while any of them reads (a folder's only while all of those
// reading read folders).
type gcPhases struct{ reading, folder bool }

// gcShared is what the gcPhases under way share.
var gcShared gcState

type gcState struct {
	sync.Mutex
	active, reading int // phases under way, and those of them reading
	folders         int // those reading a folder
	before          int // the percent before the first
}

// apply sets the percent the phases under way call for: the one before
// them while one reads a file, the folders' while only folders are read,
// else the lowest, unless the heap is still small. The caller holds the
// lock.
func (g *gcState) apply() {
	switch {
	case g.reading > g.folders:
		debug.SetGCPercent(g.before)
	case g.reading > 0:
		debug.SetGCPercent(min(g.before, folderReadGCPercent))
	case heapObjects() < lowGCMinHeap:
		debug.SetGCPercent(g.before)
	default:
		debug.SetGCPercent(min(g.before, afterReadGCPercent))
	}
}

func startGCPhases() *gcPhases {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	gcShared.Lock()
	defer gcShared.Unlock()
	if gcShared.active == 0 {
		gcShared.before = debug.SetGCPercent(100)
		debug.SetGCPercent(gcShared.before)
	}
	gcShared.active++
	return &gcPhases{}
}

func (p *gcPhases) read() { p.set(true, false) }

func (p *gcPhases) readFolder() { p.set(true, true) }

func (p *gcPhases) made() { p.set(false, false) }

// set records whether p reads, and a folder, and sets the percent all
// the phases under way call for.
func (p *gcPhases) set(reading, folder bool) {
	if p == nil {
		return
	}
	gcShared.Lock()
	defer gcShared.Unlock()
	p.setReading(reading, folder)
	gcShared.apply()
}

func (p *gcPhases) setReading(reading, folder bool) {
	if p.reading {
		gcShared.reading--
	}
	if p.folder {
		gcShared.folders--
	}
	p.reading, p.folder = reading, reading && folder
	if p.reading {
		gcShared.reading++
	}
	if p.folder {
		gcShared.folders++
	}
}

func (p *gcPhases) done() {
	if p == nil {
		return
	}
	gcShared.Lock()
	defer gcShared.Unlock()
	p.setReading(false, false)
	gcShared.active--
	if gcShared.active == 0 {
		debug.SetGCPercent(gcShared.before)
		return
	}
	gcShared.apply()
}

// WorkOnWhatWasRead sets the garbage collector's percent for a command
// that has read its inputs and now works on them, allocating little that
// it keeps (trec's evaluation of a parsed run): the heap then stays near
// what the inputs hold instead of growing to twice it. The percent is
// put back when the returned function is called. GOGC, when set, wins.
func WorkOnWhatWasRead() (done func()) {
	p := startGCPhases()
	p.made()
	return p.done
}
