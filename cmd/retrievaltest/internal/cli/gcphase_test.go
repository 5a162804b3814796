package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Commands run side by side in one process (a test binary, a program
// that calls them) share the collector's percent: the one that ends last
// must not put back the lowered percent it found when it started.
func TestOverlappingGCPhasesPutBackThePercentOfBeforeTheFirst(t *testing.T) {
	setSmallHeapLive(t, 0)
	// No t.Parallel: the percent is the process's. Setenv puts GOGC back
	// at the end; the phases run without it.
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	lowerAtAnyHeap(t)
	before := gcPercent()
	for _, tt := range []struct {
		name  string
		steps func(a, b *gcPhases)
	}{
		{"the first ends first", func(a, b *gcPhases) { a.done(); b.done() }},
		{"the second ends first", func(a, b *gcPhases) { b.done(); a.done() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := startGCPhases()
			a.read()
			a.made()
			b := startGCPhases()
			b.read()
			b.made()
			assert.Equal(t, min(before, afterReadGCPercent), gcPercent(), "while both make their runs")
			a.read()
			assert.Equal(t, before, gcPercent(), "while one reads")
			a.made()
			tt.steps(a, b)
			assert.Equal(t, before, gcPercent(), "once both are done")
		})
	}
}

// However EachRun ends, the percent of before it is put back.
func TestEachRunPutsBackThePercentHoweverItEnds(t *testing.T) {
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	const file = "../../../../testdata/examples/fix-token-expiry.claude.jsonl"
	before := gcPercent()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		names []string
		write func(*LoadedRun) error
		code  int
	}{
		{"a write fails", context.Background(), []string{file}, func(*LoadedRun) error { return errors.New("disk full") }, ExitBadInput},
		{"a trace cannot be read", context.Background(), []string{"no-such-file.jsonl"}, func(*LoadedRun) error { return nil }, ExitBadInput},
		{"the context is canceled", canceled, []string{file}, func(*LoadedRun) error { return nil }, ExitBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
			tf := AddTraceFlags(fs)
			require.NoError(t, fs.Parse(nil))
			r, err := tf.Reader("metrics", io.Discard)
			require.NoError(t, err)
			assert.Equal(t, tt.code, r.EachRun(tt.ctx, "metrics", tt.names, nil, io.Discard, tt.write))
			assert.Equal(t, before, gcPercent())
		})
	}
	t.Run("a write panics", func(t *testing.T) {
		fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
		tf := AddTraceFlags(fs)
		require.NoError(t, fs.Parse(nil))
		r, err := tf.Reader("metrics", io.Discard)
		require.NoError(t, err)
		assert.Panics(t, func() {
			r.EachRun(context.Background(), "metrics", []string{file}, nil, io.Discard, func(*LoadedRun) error { panic("bug") })
		})
		assert.Equal(t, before, gcPercent())
	})
}

func TestWorkOnWhatWasReadLowersThePercentUntilDone(t *testing.T) {
	// No t.Parallel: the percent is the process's.
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	lowerAtAnyHeap(t)
	before := gcPercent()
	done := WorkOnWhatWasRead()
	assert.Equal(t, min(before, afterReadGCPercent), gcPercent(), "while working")
	done()
	assert.Equal(t, before, gcPercent(), "put back")

	t.Setenv("GOGC", "400")
	done = WorkOnWhatWasRead()
	assert.Equal(t, before, gcPercent(), "GOGC wins")
	done()
}

// lowerAtAnyHeap makes the phases lower the percent whatever the heap's
// size, for the rest of the test.
func lowerAtAnyHeap(t *testing.T) {
	saved := lowGCMinHeap
	lowGCMinHeap = 0
	t.Cleanup(func() { lowGCMinHeap = saved })
}

// Below the heap the collector's first cycle comes at, the percent is
// left as it is: lowering it would only make a collection happen at
// start-up that nothing needs.
func TestASmallHeapKeepsThePercent(t *testing.T) {
	setSmallHeapLive(t, 0)
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	before := gcPercent()
	heap := heapObjects()
	require.NotZero(t, heap, "the heap's size is read")

	saved := lowGCMinHeap
	t.Cleanup(func() { lowGCMinHeap = saved })
	for _, tt := range []struct {
		name    string
		minHeap uint64
		want    int
	}{
		{"a heap below the threshold", heap + 1<<30, before},
		{"a heap at the threshold", heap / 2, min(before, afterReadGCPercent)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lowGCMinHeap = tt.minHeap
			done := WorkOnWhatWasRead()
			assert.Equal(t, tt.want, gcPercent())
			done()
			assert.Equal(t, before, gcPercent(), "put back")
		})
	}
}

// A folder is read at a lower percent than a file, unless a file is read
// at the same time: the file's read is the one the usual percent serves.
func TestAFolderIsReadAtItsOwnPercentUnlessAFileIsReadBesideIt(t *testing.T) {
	setSmallHeapLive(t, 0)
	// No t.Parallel: the percent is the process's.
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	lowerAtAnyHeap(t)
	before := gcPercent()
	require.Greater(t, before, folderReadGCPercent, "the test needs the usual percent")
	folder, file := startGCPhases(), startGCPhases()
	startRead(folder, "../../../../trace/testdata/openhands/v1-conversation")
	assert.Equal(t, folderReadGCPercent, gcPercent(), "a folder alone")
	startRead(file, "../../../../testdata/examples/fix-token-expiry.claude.jsonl")
	assert.Equal(t, before, gcPercent(), "a folder and a file")
	file.made()
	assert.Equal(t, folderReadGCPercent, gcPercent(), "the file read, the folder still reading")
	folder.made()
	assert.Equal(t, afterReadGCPercent, gcPercent(), "both read")
	startRead(folder, "no-such-folder")
	assert.Equal(t, before, gcPercent(), "a name that is no folder here is read as a file")
	folder.readFolder()
	assert.Equal(t, folderReadGCPercent, gcPercent(), "a phase that reads again is counted once")
	folder.read()
	assert.Equal(t, before, gcPercent(), "from a folder to a file")
	folder.done()
	file.done()
	assert.Equal(t, before, gcPercent(), "put back")

	t.Setenv("GOGC", "400")
	p := startGCPhases()
	startRead(p, "../../../../trace/testdata/openhands/v1-conversation")
	assert.Equal(t, before, gcPercent(), "GOGC wins")
	p.done()
}

// setSmallHeapLive sets the live heap up to which a read's percent is
// raised (0: never) for the test, under the lock the watcher takes.
func setSmallHeapLive(t *testing.T, live uint64) {
	t.Helper()
	gcShared.Lock()
	saved := smallHeapLive
	smallHeapLive = live
	gcShared.Unlock()
	t.Cleanup(func() {
		gcShared.Lock()
		smallHeapLive = saved
		gcShared.Unlock()
	})
}

// While the live heap is small, a read (and the work after it on a heap
// too small to lower the percent for) collects less often; the percent
// of before is put back at the end, and GOGC wins.
func TestASmallHeapIsReadAtARaisedPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	setSmallHeapLive(t, 1<<40)
	saved := lowGCMinHeap
	lowGCMinHeap = 1 << 40
	t.Cleanup(func() { lowGCMinHeap = saved })
	before := gcPercent()
	require.Less(t, before, smallHeapGCPercent, "the test needs the usual percent")

	readsDone, done := ReadThenWork()
	assert.Equal(t, smallHeapGCPercent, gcPercent(), "reading")
	readsDone()
	assert.Equal(t, smallHeapGCPercent, gcPercent(), "read, the heap too small to lower the percent")
	folder := startGCPhases()
	folder.readFolder()
	assert.Equal(t, folderReadGCPercent, gcPercent(), "a folder read beside the work: the folder's percent")
	folder.done()
	done()
	assert.Equal(t, before, gcPercent(), "put back")

	t.Setenv("GOGC", "100")
	readsDone, done = ReadThenWork()
	assert.Equal(t, before, gcPercent(), "GOGC wins")
	readsDone()
	done()
}

// Once a collection finds the live heap at smallHeapLive, the read goes on
// at the percent of before: a big trace's read holds its heap to twice
// what it keeps. A collection after the phases ended changes nothing.
func TestTheRaiseEndsOnceACollectionFindsTheHeapGrown(t *testing.T) {
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	setSmallHeapLive(t, 1<<40)
	lowerAtAnyHeap(t)
	before := gcPercent()

	readsDone, done := ReadThenWork()
	require.Equal(t, smallHeapGCPercent, gcPercent(), "reading a small heap")
	setSmallHeapLive(t, 1)
	require.Eventually(t, func() bool {
		runtime.GC()
		return gcPercent() == before
	}, 10*time.Second, 10*time.Millisecond, "a collection finds the heap grown")
	readsDone()
	assert.Equal(t, min(before, afterReadGCPercent), gcPercent(), "read")
	done()
	assert.Equal(t, before, gcPercent())

	setSmallHeapLive(t, 1<<40)
	readsDone, done = ReadThenWork()
	require.Equal(t, smallHeapGCPercent, gcPercent())
	done()
	setSmallHeapLive(t, 1)
	runtime.GC()
	runtime.GC()
	assert.Equal(t, before, gcPercent(), "the watcher of ended phases leaves the percent alone")
	readsDone()
	assert.Equal(t, before, gcPercent(), "a phase that ended sets nothing")
	done()
	assert.Equal(t, before, gcPercent(), "nor when it ends twice")
}

// Only the watcher of the phases under way ends the raise: one left from
// phases that ended (and were started again since) changes nothing.
func TestOnlyTheCurrentWatcherEndsTheRaise(t *testing.T) {
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	setSmallHeapLive(t, 1<<40)
	before := gcPercent()
	readsDone, done := ReadThenWork()
	defer done()
	defer readsDone()
	require.Equal(t, smallHeapGCPercent, gcPercent())
	setSmallHeapLive(t, 1)
	gcShared.Lock()
	current := gcShared.watch
	gcShared.Unlock()
	heapCollected(current - 1)
	assert.Equal(t, smallHeapGCPercent, gcPercent(), "a watcher of earlier phases")
	heapCollected(current)
	assert.Equal(t, before, gcPercent(), "the current watcher, the heap grown")
}
