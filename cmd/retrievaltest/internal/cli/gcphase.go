package cli

import (
	"os"
	"runtime"
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
func heapObjects() uint64 { return heapBytes("/memory/classes/heap/objects:bytes") }

// heapBytes reads the runtime metric name, a count of bytes (0 when the
// runtime has no such metric).
func heapBytes(name string) uint64 {
	sample := []metrics.Sample{{Name: name}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// smallHeapGCPercent is the percent of a read while the live heap is
// small: a command on small inputs (a suite of short traces) or one whose
// read keeps little (a Codex rollout, streamed) would otherwise collect a
// heap of a few MiB every few MiB it allocates. Once a collection finds
// smallHeapLive live, the percent is the one the phase calls for, so that
// a trace whose read keeps more holds its heap to the usual twice what it
// keeps; below that, the raise costs at most smallHeapGCPercent/100 + 1
// times smallHeapLive of heap. On the 200 scenarios of bench-real.sh it
// took check from 12 collections to 7 and its wall time by 7-9%; on the
// 101 MB Codex rollout, events from 31 collections to 26 and its CPU by
// a tenth, for 1 MiB more at its peak. 400 saved more time on the suite
// but took that peak up by 9 MiB, the minimum heap of the collector at
// that percent.
const smallHeapGCPercent = 200

// smallHeapLive is the live heap (as the last collection found it) up to
// which the percent is smallHeapGCPercent. A variable for the tests.
var smallHeapLive uint64 = 4 << 20

// liveHeap reports the heap the last collection found live.
func liveHeap() uint64 { return heapBytes("/gc/heap/live:bytes") }

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
type gcPhases struct{ reading, folder, ended bool }

// gcShared is what the gcPhases under way share.
var gcShared gcState

type gcState struct {
	sync.Mutex
	active, reading int // phases under way, and those of them reading
	folders         int // those reading a folder
	before          int // the percent before the first
	// small is whether the live heap has stayed under smallHeapLive since
	// the first phase started, and watch the number of the watcher of
	// the collections that finds when it no longer is (see watchHeap).
	small bool
	watch int
}

// usual is the percent of a read and of a small heap: the one before the
// phases, raised while the heap is small.
func (g *gcState) usual() int {
	if g.small {
		return max(g.before, smallHeapGCPercent)
	}
	return g.before
}

// apply sets the percent the phases under way call for: the one before
// them while one reads a file, the folders' while only folders are read,
// else the lowest, unless the heap is still small. The caller holds the
// lock.
func (g *gcState) apply() {
	switch {
	case g.reading > g.folders:
		debug.SetGCPercent(g.usual())
	case g.reading > 0:
		debug.SetGCPercent(min(g.before, folderReadGCPercent))
	case heapObjects() < lowGCMinHeap:
		debug.SetGCPercent(g.usual())
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
		gcShared.watch++
		gcShared.small = gcShared.before >= 0 && liveHeap() < smallHeapLive
		if gcShared.small {
			watchHeap(gcShared.watch)
		}
	}
	gcShared.active++
	return &gcPhases{}
}

// A gcSentinel is an object no one refers to, whose cleanup runs after
// the collection that finds it unreachable: watchHeap's way to look at
// the live heap after each collection. It holds a pointer so that it is
// not combined with other small objects, whose cleanups may never run.
type gcSentinel struct {
	_ *int
	_ int
}

// watchHeap looks at the live heap after the next collection: once it
// has reached smallHeapLive, the percent is set to the one the phases
// call for without the raise of a small heap; until then it watches the
// collection after that. A watcher whose number is no longer gcShared's
// (the phases ended, others started) stops.
func watchHeap(watch int) {
	s := new(gcSentinel)
	runtime.AddCleanup(s, heapCollected, watch)
}

func heapCollected(watch int) {
	gcShared.Lock()
	defer gcShared.Unlock()
	if watch != gcShared.watch || !gcShared.small {
		return
	}
	if liveHeap() < smallHeapLive {
		watchHeap(watch)
		return
	}
	gcShared.small = false
	gcShared.apply()
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
	if p.ended {
		return
	}
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
	if p.ended {
		return
	}
	p.ended = true
	p.setReading(false, false)
	gcShared.active--
	if gcShared.active == 0 {
		gcShared.small = false
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

// ReadThenWork sets the garbage collector's percent for a command that
// reads its inputs and then works on them (check): the reading percent
// until readsDone is called, then WorkOnWhatWasRead's; done puts back the
// percent there was. GOGC, when set, wins.
func ReadThenWork() (readsDone, done func()) {
	p := startGCPhases()
	p.read()
	return p.made, p.done
}
