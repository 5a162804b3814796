package events

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/agentretrieval/agentretrieval/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// concurrentStream is NewConcurrentStream with its worker goroutine
// whatever GOMAXPROCS is.
func concurrentStream(opts Options) *Stream {
	st := NewStream(opts)
	st.pipe = &streamPipe{}
	return st
}

// assertStreamMatchesNormalize reads data three times, once keeping every
// result, once through a Stream and once through a concurrent Stream, and
// checks that the documents are the same.
func assertStreamMatchesNormalize(t *testing.T, name string, read func(trace.Options) ([]*trace.Session, error), opts Options) {
	t.Helper()
	all, err := read(trace.Options{Source: name})
	if err != nil {
		return // not a trace
	}
	want := NormalizeAll(all, name, opts)
	for _, drop := range []bool{false, true} {
		assertStreamMakes(t, name, "one goroutine", NewStream(opts), read, want, drop)
		assertStreamMakes(t, name, "concurrent", concurrentStream(opts), read, want, drop)
		assertPendingWrites(t, name, "one goroutine", NewStream(opts), read, want, drop)
		assertPendingWrites(t, name, "concurrent", concurrentStream(opts), read, want, drop)
	}
}

// assertPendingWrites reads through st and checks that each Pending
// writes, and makes, the document wanted, whichever is called first and
// however often.
func assertPendingWrites(t *testing.T, name, kind string, st *Stream, read func(trace.Options) ([]*trace.Session, error), want []*Document, drop bool) {
	t.Helper()
	if drop {
		kind += ", calls dropped"
	}
	streamed, err := read(trace.Options{Source: name, CallDone: st.CallDone, DropReleased: drop})
	require.NoError(t, err, name, kind)
	pending := st.Pending(streamed, name)
	require.Len(t, pending, len(want), name, kind)
	for i := range want {
		var w bytes.Buffer
		require.NoError(t, want[i].WriteJSON(&w))
		for round := range 2 {
			var written, made bytes.Buffer
			require.NoError(t, pending[i].WriteJSON(&written))
			assert.Equal(t, w.String(), written.String(), "%s (%s): written, round %d", name, kind, round)
			require.NoError(t, pending[i].Document().WriteJSON(&made))
			assert.Equal(t, w.String(), made.String(), "%s (%s): made, round %d", name, kind, round)
		}
	}
}

func assertStreamMakes(t *testing.T, name, kind string, st *Stream, read func(trace.Options) ([]*trace.Session, error), want []*Document, drop bool) {
	t.Helper()
	if drop {
		kind += ", calls dropped"
	}
	released := 0
	streamed, err := read(trace.Options{Source: name, DropReleased: drop, CallDone: func(s *trace.Session, i int) bool {
		ok := st.CallDone(s, i)
		if ok {
			released++
		}
		return ok
	}})
	require.NoError(t, err, name, kind)
	got := st.NormalizeAll(streamed, name)
	require.Len(t, got, len(want), name, kind)
	for i := range want {
		var w, g bytes.Buffer
		require.NoError(t, want[i].WriteJSON(&w))
		require.NoError(t, got[i].WriteJSON(&g))
		assert.Equal(t, w.String(), g.String(), "%s (%s)", name, kind)
	}
	calls, holding, kept := 0, 0, 0
	for _, s := range streamed {
		calls += s.NumCalls()
		kept += len(s.Calls)
		for _, c := range s.Calls {
			if c.Result != "" || c.Arguments != nil {
				holding++
			}
		}
	}
	assert.LessOrEqual(t, holding, calls-released, "%s (%s): released calls keep neither result nor arguments", name, kind)
	if drop {
		assert.Equal(t, calls-released, kept, "%s (%s): released calls are dropped", name, kind)
	} else {
		assert.Equal(t, calls, kept, "%s (%s): every call is kept", name, kind)
	}
}

func fromBytes(data []byte) func(trace.Options) ([]*trace.Session, error) {
	return func(o trace.Options) ([]*trace.Session, error) { return trace.ReadAll(bytes.NewReader(data), o) }
}

func TestAStreamMakesTheDocumentsNormalizeMakes(t *testing.T) {
	gt := &GroundTruth{Files: []string{"/path/to/Demo/app0/src/components/TodoItem0.tsx", "src/x.go"}}
	assertStreamMatchesNormalize(t, "real-shaped", fromBytes(benchgen.RealShaped(1<<20)), Options{GroundTruth: gt})
	assertStreamMatchesNormalize(t, "large results", fromBytes(benchgen.LargeResults(1<<20)), Options{Paths: PathNormalizer{CWD: "/workspace"}})

	// The working directory comes after the first calls: they wait for it.
	late := strings.Join([]string{
		`{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.go"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"     1→package a"}]}}`,
		`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"x"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"cat b.go"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"/w/c.go:3:x"}]}}`,
	}, "\n")
	assertStreamMatchesNormalize(t, "late cwd", fromBytes([]byte(late)), Options{})

	// Every trace fixture, in every format, and the shared samples.
	var files []string
	for _, root := range []string{"../trace/testdata", "../testdata", "../../shared/samples"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() > 16<<20 {
			continue
		}
		assertStreamMatchesNormalize(t, f, func(o trace.Options) ([]*trace.Session, error) { return trace.ReadFileAll(f, o) }, Options{})
	}
}

func TestAConcurrentStreamServesOneReadAfterAnother(t *testing.T) {
	// Past the 1 MiB the reader takes to detect the format, with hundreds
	// of calls: several batches.
	data := benchgen.RealShaped(4 << 20)
	all, err := trace.ReadAll(bytes.NewReader(data), trace.Options{Source: "s"})
	require.NoError(t, err)
	want := NormalizeAll(all, "s", Options{})
	st := concurrentStream(Options{})
	require.NoError(t, st.Wait()) // nothing handed over yet

	// A read that fails after some calls were handed over: Wait ends the
	// worker, and the events made are forgotten with the sessions.
	broken := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(errors.New("disk gone")))
	handed := 0
	_, err = trace.Read(broken, trace.Options{Source: "s", CallDone: func(s *trace.Session, i int) bool {
		handed++
		return st.CallDone(s, i)
	}})
	require.Error(t, err)
	require.Greater(t, handed, streamBatch)
	require.NoError(t, st.Wait())
	st.sessions = map[*trace.Session]*streamSession{}

	for round := range 2 {
		read, err := trace.ReadAll(bytes.NewReader(data), trace.Options{Source: "s", CallDone: st.CallDone})
		require.NoError(t, err)
		got := st.NormalizeAll(read, "s")
		require.Len(t, got, len(want))
		for i := range want {
			var w, g bytes.Buffer
			require.NoError(t, want[i].WriteJSON(&w))
			require.NoError(t, got[i].WriteJSON(&g))
			assert.Equal(t, w.String(), g.String(), "round %d", round)
		}
	}
}

func TestAConcurrentStreamWithOneCPUNormalizesInCallDone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	assert.Nil(t, NewConcurrentStream(Options{}).pipe)
}

func TestAConcurrentStreamReportsACallWhoseExtractionPanicked(t *testing.T) {
	st := concurrentStream(Options{})
	s := &trace.Session{CWD: "/w", Calls: []trace.ToolCall{{Index: 0, Name: "Read"}, {Index: 1, Name: "Grep"}}}
	// A session without a taxonomy makes extraction panic, as a bug would.
	st.sessions[s] = &streamSession{}
	assert.True(t, st.CallDone(s, 0))
	assert.True(t, st.CallDone(s, 1))
	err := st.Wait()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "extracting step 1 (Read) failed")
	assert.Panics(t, func() { st.Normalize(s) })

	// The next read starts afresh.
	sess, err := trace.Read(strings.NewReader(`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/w/a.go"}}]}}`), trace.Options{CallDone: st.CallDone})
	require.NoError(t, err)
	require.NoError(t, st.Wait())
	assert.Equal(t, []string{"a.go"}, st.Normalize(sess).Events[0].TargetFiles)
}

// A session whose calls were dropped as they were read has its events only
// in the Stream that took them: normalizing it otherwise says so, instead
// of failing on a missing call.
func TestNormalizingASessionWhoseCallsWereDroppedElsewhereSaysWhy(t *testing.T) {
	const file = "../testdata/examples/fix-token-expiry.claude.jsonl"
	want := "events: step 1 of " + file + " was dropped as it was read (trace.Options.DropReleased): only the Stream whose CallDone took it can make its event, once"
	read := func() (*Stream, *trace.Session) {
		st := NewStream(Options{})
		s, err := trace.ReadFile(file, trace.Options{CallDone: st.CallDone, DropReleased: true})
		require.NoError(t, err)
		require.Empty(t, s.Calls, "every call was dropped")
		return st, s
	}
	tests := []struct {
		name      string
		normalize func(st *Stream, s *trace.Session)
	}{
		{"with Normalize", func(_ *Stream, s *trace.Session) { Normalize(s, Options{}) }},
		{"with the Stream a second time", func(st *Stream, s *trace.Session) { st.Normalize(s); st.Normalize(s) }},
		{"with another Stream", func(_ *Stream, s *trace.Session) { NewStream(Options{}).Normalize(s) }},
		{"with the Pending of another Stream", func(_ *Stream, s *trace.Session) {
			_ = NewStream(Options{}).Pending([]*trace.Session{s}, "s")[0].WriteJSON(io.Discard)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, s := read()
			assert.PanicsWithValue(t, want, func() { tt.normalize(st, s) })
		})
	}
}

func TestStreamsReadingTogetherMakeTheDocumentsEachMakesAlone(t *testing.T) {
	tax, err := LoadTaxonomy(nil)
	require.NoError(t, err)
	other, err := LoadTaxonomy([]string{"aura"})
	require.NoError(t, err)
	gt := func(files ...string) *GroundTruth { return &GroundTruth{Files: files} }
	opts := []Options{
		{Taxonomy: tax, GroundTruth: gt("src/hooks/useTodos1.tsx")},
		{Taxonomy: tax},
		{Taxonomy: tax, GroundTruth: gt("src/x.go", "app0/src/styles/TodoList0.tsx")},
		{Taxonomy: other, GroundTruth: gt("src/hooks/useTodos1.tsx")},
		{Taxonomy: tax, Paths: PathNormalizer{CWD: "/path/to/Demo"}, GroundTruth: gt("app0/src/components/TodoItem0.tsx")},
	}
	data := benchgen.RealShaped(1 << 20)
	for _, withPipe := range []bool{false, true} {
		streams := make([]*Stream, len(opts))
		for k, o := range opts {
			streams[k] = NewStream(o)
		}
		if withPipe {
			streams[1] = concurrentStream(opts[1])
		}
		s, err := trace.Read(bytes.NewReader(data), trace.Options{CallDone: func(s *trace.Session, i int) bool {
			return CallDoneAll(streams, s, i)
		}, DropReleased: true})
		require.NoError(t, err)
		whole, err := trace.Read(bytes.NewReader(data), trace.Options{})
		require.NoError(t, err)
		hits := 0
		for k, o := range opts {
			want, got := documentJSON(t, Normalize(whole, o)), documentJSON(t, streams[k].Normalize(s))
			assert.Equal(t, want, got, "stream %d (a concurrent one among them: %v)", k, withPipe)
			hits += strings.Count(got, `"hits_ground_truth": true`)
		}
		assert.Positive(t, hits, "some events hit a ground truth")
	}
}

func TestCallDoneAllWaitsForTheWorkingDirectory(t *testing.T) {
	streams := []*Stream{NewStream(Options{}), NewStream(Options{})}
	s := &trace.Session{Calls: []trace.ToolCall{{Name: "Read", Arguments: []byte(`{"file_path":"/w/a.go"}`)}}}
	assert.False(t, CallDoneAll(streams, s, 0), "no working directory yet")
	s.CWD = "/w"
	assert.True(t, CallDoneAll(streams, s, 0))
	assert.False(t, CallDoneAll(nil, s, 0), "no stream takes it")
}

func TestAStreamTakesTheCallsOfAFormatThatRecordsNoWorkingDirectoryAsTheyCome(t *testing.T) {
	st := NewStream(Options{})
	taken := 0
	s, err := trace.ReadFile("../trace/testdata/gemini-cli/error-result.session.jsonl", trace.Options{DropReleased: true, CallDone: func(s *trace.Session, i int) bool {
		ok := st.CallDone(s, i)
		if ok {
			taken++
		}
		return ok
	}})
	require.NoError(t, err)
	assert.Empty(t, s.CWD)
	assert.Equal(t, 3, s.NumCalls())
	assert.Equal(t, 3, taken, "Gemini CLI records no working directory: none is waited for")
	assert.Empty(t, s.Calls, "every call is dropped once taken")
}

func documentJSON(t *testing.T, d *Document) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, d.WriteJSON(&b))
	return b.String()
}

func TestStreamsShareExtractionOnlyUnderTheSameRules(t *testing.T) {
	tax, err := LoadTaxonomy(nil)
	require.NoError(t, err)
	other, err := LoadTaxonomy(nil)
	require.NoError(t, err)
	base := Options{Taxonomy: tax, Paths: PathNormalizer{CWD: "/w", Prefixes: []string{"/workspace"}}}
	with := func(change func(o *Options)) Options {
		o := base
		o.Paths.Prefixes = slices.Clone(base.Paths.Prefixes)
		change(&o)
		return o
	}
	tests := []struct {
		name string
		o    Options
		same bool
	}{
		{"the same rules, another ground truth", with(func(o *Options) { o.GroundTruth = &GroundTruth{Files: []string{"a.go"}} }), true},
		{"another taxonomy of the same profiles", with(func(o *Options) { o.Taxonomy = other }), false},
		{"another working directory", with(func(o *Options) { o.Paths.CWD = "/x" }), false},
		{"case folded", with(func(o *Options) { o.Paths.FoldCase = true }), false},
		{"other prefixes", with(func(o *Options) { o.Paths.Prefixes = []string{"/repo"} }), false},
		{"no prefix stripped", with(func(o *Options) { o.Paths.Prefixes = []string{} }), false},
		{"the default prefixes", with(func(o *Options) { o.Paths.Prefixes = nil }), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.same, sameRules(base, tt.o), tt.name)
		assert.Equal(t, tt.same, sameRules(tt.o, base), tt.name+", the other way")
	}
	empty := with(func(o *Options) { o.Paths.Prefixes = []string{} })
	assert.False(t, sameRules(empty, with(func(o *Options) { o.Paths.Prefixes = nil })), "none stripped is not the default")
}

// The Streams of CallDoneAll keep each string once between them; a
// Pending that adds a call the reader kept works on its own copy, so the
// Pendings of different Streams may be written at once (go test -race).
func TestStreamsReadingTogetherShareTheirStringsAndCopyThemToAddMore(t *testing.T) {
	task := Provenance{TaskName: "t"}
	// The first Stream folds case: it extracts by rules of its own, and
	// keeps its events itself; the other two share theirs.
	opts := []Options{{Provenance: task, Paths: PathNormalizer{FoldCase: true}}, {Provenance: task, GroundTruth: &GroundTruth{Files: []string{"a.go"}}}, {Provenance: task, GroundTruth: &GroundTruth{Files: []string{"b.go"}}}}
	streams := make([]*Stream, len(opts))
	for k, o := range opts {
		streams[k] = NewStream(o)
	}
	s := &trace.Session{Calls: []trace.ToolCall{
		{Index: 0, Name: "Read", Arguments: []byte(`{"file_path":"/w/a.go"}`), Result: "     1→package a", HasResult: true},
		{Index: 1, Name: "Read", Arguments: []byte(`{"file_path":"/w/b.go"}`), Result: "     1→package b", HasResult: true},
		{Index: 2, Name: "Grep", Arguments: []byte(`{"pattern":"x","path":"/w"}`), Result: "c.go\nd.go", HasResult: true},
	}}
	assert.False(t, CallDoneAll(streams, s, 0), "no working directory yet: the session keeps the call")
	s.CWD = "/w"
	assert.True(t, CallDoneAll(streams, s, 1))
	assert.True(t, CallDoneAll(streams, s, 2))
	shared := streams[0].strs
	for k, st := range streams {
		assert.Same(t, shared, st.strs, "stream %d", k)
	}
	assert.True(t, shared.shared)
	before := slices.Clone(shared.strs)

	pending := make([]*Pending, len(streams))
	for k, st := range streams {
		pending[k] = st.Pending([]*trace.Session{s}, "")[0]
	}
	got := make([]string, len(streams))
	var wg sync.WaitGroup
	for k := range pending {
		wg.Go(func() {
			var b bytes.Buffer
			assert.NoError(t, pending[k].WriteJSON(&b))
			got[k] = b.String()
		})
	}
	wg.Wait()
	for k, o := range opts {
		assert.Equal(t, documentJSON(t, Normalize(s, o)), got[k], "stream %d", k)
	}
	assert.NotSame(t, shared, pending[0].done.store.strs, "stream 0 added call 0 to a copy")
	assert.Nil(t, pending[0].done.shared, "stream 0 has rules of its own")
	assert.NotNil(t, pending[1].done.shared)
	assert.Same(t, pending[1].done.shared, pending[2].done.shared, "streams 1 and 2 share their events")
	assert.Equal(t, before, shared.strs, "the shared table is left as the read made it")
}

// The Streams of CallDoneAll with the same rules make a session's events
// once: the documents whose ground truth no event hits share them, and a
// document with hits marks a copy of its own. Every document is the one
// Normalize makes, with its own summary, and a warning about a call's
// arguments is in each.
func TestStreamsReadingTogetherMakeTheirEventsOnce(t *testing.T) {
	task := Provenance{TaskName: "t"}
	opts := []Options{
		{Provenance: task},
		{Provenance: task, GroundTruth: &GroundTruth{Files: []string{"b.go"}}},
		{Provenance: task, GroundTruth: &GroundTruth{Files: []string{"none.go"}}},
		{Provenance: task, GroundTruth: &GroundTruth{Files: []string{"a.go", "b.go"}}},
		// Rules of its own: its events are its own.
		{Provenance: task, Paths: PathNormalizer{FoldCase: true}, GroundTruth: &GroundTruth{Files: []string{"a.go"}}},
	}
	s := &trace.Session{Calls: []trace.ToolCall{
		{Index: 0, Name: "Read", Arguments: []byte(`{"file_path":"/w/a.go"}`), Result: "     1→package a", HasResult: true},
		{Index: 1, Name: "Read", Arguments: []byte(`{"file_path":"/w/b.go"}`), Result: "     1→package b", HasResult: true},
		{Index: 2, Name: "Read", Arguments: []byte(`{"file_path":"/w/b.go","offset":"x"}`), Result: "     1→package b", HasResult: true},
		{Index: 3, Name: "Grep", Arguments: []byte(`{"pattern":"x","path":"/w"}`), Result: "c.go\nd.go", HasResult: true},
	}}
	streams := make([]*Stream, len(opts))
	for k, o := range opts {
		streams[k] = NewStream(o)
	}
	assert.False(t, CallDoneAll(streams, s, 0), "no working directory yet: the session keeps the call")
	s.CWD = "/w"
	for i := 1; i < len(s.Calls); i++ {
		assert.True(t, CallDoneAll(streams, s, i))
	}
	want := make([]string, len(opts))
	for k, o := range opts {
		want[k] = documentJSON(t, Normalize(s, o))
	}
	assert.Contains(t, want[0], "step 3 (Read)", "the third call's arguments bring a warning")
	sh := streams[0].sessions[s].shared
	require.NotNil(t, sh)
	for k := 1; k < 4; k++ {
		assert.Same(t, sh, streams[k].sessions[s].shared, "stream %d", k)
	}
	assert.Nil(t, streams[4].sessions[s].shared, "stream 4 has rules of its own")
	assert.Empty(t, streams[0].sessions[s].store.buf, "a Stream of the group keeps no event of its own")

	docs := make([]*Document, len(streams))
	for k, st := range streams {
		docs[k] = st.Normalize(s)
		assert.Equal(t, want[k], documentJSON(t, docs[k]), "stream %d", k)
	}
	assert.Same(t, &docs[0].Events[0], &docs[2].Events[0], "no hit: the events are shared")
	assert.NotSame(t, &docs[0].Events[0], &docs[1].Events[0], "hits: a copy")
	assert.NotSame(t, &docs[1].Events[0], &docs[3].Events[0], "hits: a copy each")
	assert.Equal(t, []string{"b.go"}, docs[1].Events[1].GroundTruthHits)
	assert.Nil(t, docs[0].Events[1].GroundTruthHits, "the shared events are left unmarked")
	assert.Equal(t, 2, docs[3].Summary.GroundTruthFilesHit)
	assert.Equal(t, 0, *docs[3].Summary.FirstGroundTruthHitStep)
	assert.Equal(t, 1, *docs[1].Summary.FirstGroundTruthHitStep)
	assert.Nil(t, docs[0].Summary.FirstGroundTruthHitStep)
	docs[1].Summary.EventsByCategory[FileRead]++
	assert.Equal(t, want[0], documentJSON(t, docs[0]), "each summary has maps of its own")
}
