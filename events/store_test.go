package events

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/agentretrieval/agentretrieval/trace"
)

func TestTheEventStoreGivesBackTheEventsItKept(t *testing.T) {
	st := eventStore{strs: newStringTable()}
	handMade := []Event{
		{}, // every list nil, every string empty
		{
			StepIndex: 7, ToolName: "mcp__aura__search", ToolCategory: CodeSearch, ToolClass: Semantic,
			IsMCP: true, HitsGroundTruth: true, Unclassified: true, IsError: true, IsSubagent: true,
			CallID: "toolu_1", ParentCallID: "toolu_0",
			TargetFiles: []string{"a.go", "b/ü.go"}, FilesRead: []string{}, FilesWritten: []string{"a.go"},
			LineRanges:      []LineRange{{Path: "a.go", Start: 1, End: 120}, {Path: "b/ü.go", Start: -1, End: 0}},
			Symbols:         []string{"Foo", "Foo"},
			Query:           "where is \"Foo\" set?\n日本",
			GroundTruthHits: []string{"a.go"},
		},
		{TargetFiles: []string{}, LineRanges: []LineRange{}, Symbols: []string{}, GroundTruthHits: []string{}},
	}
	// Events as extraction makes them, of a real-shaped session.
	all, err := trace.ReadAll(bytes.NewReader(benchgen.RealShaped(256<<10)), trace.Options{})
	require.NoError(t, err)
	var made []Event
	for _, d := range NormalizeAll(all, "real-shaped", Options{GroundTruth: &GroundTruth{Files: []string{"src/hooks/useTodos1.tsx"}}}) {
		made = append(made, d.Events...)
	}
	require.Greater(t, len(made), 100)

	events := append(handMade, made...)
	// Out of order, as results come, and one call made twice.
	order := []int{2, 0, 1}
	for i := 3; i < len(events); i++ {
		order = append(order, i)
	}
	order = append(order, 1)
	// The time of each call: none, one a nanosecond past the zero time,
	// one in year 9999, and the others a second and a nanosecond apart.
	called := func(i int) time.Time {
		switch i {
		case 0:
			return time.Time{}
		case 1:
			return time.Time{}.Add(time.Nanosecond)
		case 2:
			return time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
		}
		return time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC).Add(time.Duration(i) * (time.Second + time.Nanosecond))
	}
	for _, i := range order {
		ev := events[i]
		ev.CumulativeTokens, ev.ElapsedSeconds = nil, nil // the session's, not kept
		var warnings []string
		if i == 1 {
			warnings = []string{"step 8 (mcp__aura__search): no query"}
		}
		st.put(i, &ev, warnings, called(i))
	}
	assert.Less(t, len(st.buf), 64*len(events), "a few dozen bytes an event")
	for i, want := range events {
		want.CumulativeTokens, want.ElapsedSeconds = nil, nil
		require.True(t, st.has(i))
		var got Event
		got.ElapsedSeconds = new(float64) // get overwrites the whole event
		at := st.get(i, &got)
		assert.Equal(t, want, got, "event %d", i)
		assert.True(t, at.Equal(called(i)), "event %d: called at %v, not %v", i, at, called(i))
		assert.Equal(t, called(i).IsZero(), at.IsZero(), "event %d", i)
	}
	assert.Equal(t, map[int][]string{1: {"step 8 (mcp__aura__search): no query"}}, st.warnings)
	assert.False(t, st.has(len(events)))

	// Decoded in turn into one Event, each event is the one get gives,
	// its nil and empty lists included, whatever the one before held.
	var reused Event
	for _, i := range append(order, 0, 1, 2, 1, 0) {
		var want Event
		st.get(i, &want)
		at := st.getReusing(i, &reused)
		assert.Equal(t, want, reused, "event %d decoded into the event before", i)
		assert.True(t, at.Equal(called(i)), "event %d", i)
	}

	// Decoded with one arena, as a document's events are, each event is
	// the one get gives, and appending to a list leaves the next alone.
	var arena listArena
	fromArena := make([]Event, len(events))
	for i := range events {
		at := st.getFrom(i, &fromArena[i], &arena)
		assert.True(t, at.Equal(called(i)), "event %d", i)
	}
	for i := range events {
		var want Event
		st.get(i, &want)
		assert.Equal(t, want, fromArena[i], "event %d from the arena", i)
	}
	for i := range fromArena {
		ev := &fromArena[i]
		ev.TargetFiles = append(ev.TargetFiles, "appended.go")
		ev.FilesRead = append(ev.FilesRead, "appended.go")
		ev.LineRanges = append(ev.LineRanges, LineRange{Path: "appended.go"})
	}
	for i := range events {
		var want Event
		st.get(i, &want)
		ev := fromArena[i]
		assert.Equal(t, "appended.go", ev.TargetFiles[len(ev.TargetFiles)-1])
		ev.TargetFiles = ev.TargetFiles[:len(ev.TargetFiles)-1]
		if want.TargetFiles == nil && len(ev.TargetFiles) == 0 {
			ev.TargetFiles = nil
		}
		ev.FilesRead = ev.FilesRead[:len(ev.FilesRead)-1]
		if want.FilesRead == nil && len(ev.FilesRead) == 0 {
			ev.FilesRead = nil
		}
		ev.LineRanges = ev.LineRanges[:len(ev.LineRanges)-1]
		if want.LineRanges == nil && len(ev.LineRanges) == 0 {
			ev.LineRanges = nil
		}
		assert.Equal(t, want, ev, "event %d: the appends to the others copied their lists", i)
	}
}

func TestAStreamDocumentOfAGeneratedSessionIsWrittenAsMade(t *testing.T) {
	// The shared samples and fixtures are compared in
	// TestAStreamMakesTheDocumentsNormalizeMakes; this is a session with
	// a ground truth, many subagents and large results.
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(file, benchgen.RealShaped(2<<20), 0o644))
	gt := &GroundTruth{Files: []string{"src/hooks/useTodos1.tsx", "src/app/api/TodoItem6.tsx"}}
	assertStreamMatchesNormalize(t, file, func(o trace.Options) ([]*trace.Session, error) { return trace.ReadFileAll(file, o) }, Options{GroundTruth: gt})
}

func TestAStreamServingManyReadsHoldsOnlyTheStringsOfTheLast(t *testing.T) {
	st := NewConcurrentStream(Options{})
	read := func(data []byte) []*Pending {
		all, err := trace.ReadAll(bytes.NewReader(data), trace.Options{CallDone: st.CallDone})
		require.NoError(t, err)
		return st.Pending(all, "s")
	}
	first := benchgen.RealShaped(64 << 10)
	second := benchgen.LargeResults(64 << 10)
	a, b := read(first), read(second)
	require.NotEmpty(t, a)
	require.NotEmpty(t, b)
	assert.NotSame(t, a[0].done.store.strs, b[0].done.store.strs, "a table for each read")
	assert.Same(t, b[0].done.store.strs, st.strs)

	// The first read's documents are whole still.
	for data, pending := range map[*[]byte][]*Pending{&first: a, &second: b} {
		all, err := trace.ReadAll(bytes.NewReader(*data), trace.Options{})
		require.NoError(t, err)
		want := NormalizeAll(all, "s", Options{})
		for i, p := range pending {
			var w, g bytes.Buffer
			require.NoError(t, want[i].WriteJSON(&w))
			require.NoError(t, p.WriteJSON(&g))
			assert.Equal(t, w.String(), g.String())
		}
	}
}

// FuzzStreamMatchesNormalize reads any input as a trace whole, and
// through Streams whose documents are written from their compact events
// (Pending.WriteJSON) and made from them (Pending.Document), the reader
// keeping the calls handed over or dropping them, and requires the same
// bytes.
func FuzzStreamMatchesNormalize(f *testing.F) {
	// The first lines of a real-shaped session: the generator makes at
	// least one whole session, over 600 KB, which the fuzzer would read
	// three times per input.
	real := benchgen.RealShaped(8 << 10)
	f.Add(real[:bytes.LastIndexByte(real[:16<<10], '\n')+1])
	for _, file := range []string{
		"../testdata/examples/fix-token-expiry.claude.jsonl",
		"../testdata/traces/claude/parallel-subagents.claude.jsonl",
		"../testdata/traces/claude/malformed-lines.claude.jsonl",
		"../testdata/traces/toolcalls/aura-semantic-then-edit.toolcalls.json",
	} {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	gt := &GroundTruth{Files: []string{"src/auth/token.go", "src/hooks/useTodos1.tsx"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, err := trace.ReadAll(bytes.NewReader(data), trace.Options{Source: "in"})
		if err != nil {
			return
		}
		want := NormalizeAll(whole, "in", Options{GroundTruth: gt})
		for _, drop := range []bool{false, true} {
			st := NewConcurrentStream(Options{GroundTruth: gt})
			streamed, err := trace.ReadAll(bytes.NewReader(data), trace.Options{Source: "in", CallDone: st.CallDone, DropReleased: drop})
			require.NoError(t, err, "the second read of the same input")
			require.NoError(t, st.Wait())
			pending := st.Pending(streamed, "in")
			require.Len(t, pending, len(want))
			for i, p := range pending {
				var w, written, made bytes.Buffer
				require.NoError(t, want[i].WriteJSON(&w))
				require.NoError(t, p.WriteJSON(&written))
				require.Equal(t, w.String(), written.String(), "calls dropped: %v", drop)
				require.NoError(t, p.Document().WriteJSON(&made))
				require.Equal(t, w.String(), made.String(), "calls dropped: %v", drop)
				// The events one at a time, decoded into the same Event.
				doc, src := p.Events()
				require.Nil(t, doc.Events)
				require.Equal(t, len(want[i].Events), src.Len())
				var ev Event
				for k := range src.Len() {
					src.EventInto(k, &ev)
					require.Equal(t, want[i].Events[k], ev, "event %d, calls dropped: %v", k, drop)
				}
				doc.Events = want[i].Events
				var parts bytes.Buffer
				require.NoError(t, doc.WriteJSON(&parts))
				require.Equal(t, w.String(), parts.String(), "calls dropped: %v", drop)
			}
		}
	})
}

func TestKeepResultsKeepsWhatItIsToldOnceAResultAndTheArguments(t *testing.T) {
	// The working directory comes after the first call: the stream takes
	// that call only once its document is made.
	late := strings.Join([]string{
		`{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.go"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"     1→package a"}]}}`,
		`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"x"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"/w/c.go:3:x"}]}}`,
		// Read over the result the reader lent for t2: keep was given a
		// copy of it.
		`{"type":"assistant","sessionId":"s","message":{"id":"m3","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/w/d.go"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"     1→package d"}]}}`,
	}, "\n")
	whole, err := trace.Read(strings.NewReader(late), trace.Options{})
	require.NoError(t, err)
	want := Normalize(whole, Options{})

	for _, keep := range []func(string) string{nil, func(r string) string { return "kept:" + r }} {
		st := NewConcurrentStream(Options{})
		seen := map[string]int{}
		counted := keep
		if keep != nil {
			counted = func(r string) string { seen[r]++; return keep(r) }
		}
		callDone, rest := st.KeepResults(counted)
		s, err := trace.Read(strings.NewReader(late), trace.Options{CallDone: callDone})
		require.NoError(t, err)
		require.NoError(t, st.Wait())
		got := st.Normalize(s)
		rest(s)
		assert.Equal(t, want.Events, got.Events)
		for i, c := range s.Calls {
			assert.Equal(t, whole.Calls[i].Arguments, c.Arguments, "call %d keeps its arguments", i)
			if keep == nil {
				assert.Empty(t, c.Result, "call %d", i)
			} else {
				assert.Equal(t, "kept:"+whole.Calls[i].Result, c.Result, "call %d", i)
			}
		}
		if keep != nil {
			assert.Equal(t, map[string]int{"     1→package a": 1, "/w/c.go:3:x": 1, "     1→package d": 1}, seen, "once a result")
		}
	}
}
