package metrics_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// reusingSource gives a document's events as a decoding source may: each
// into the lists and elapsed seconds of the Event it fills, overwriting
// what the previous event held there. A measure that kept a list of an
// event past the next would see another event's files.
type reusingSource []events.Event

func (s reusingSource) Len() int { return len(s) }

func (s reusingSource) EventInto(i int, ev *events.Event) {
	old, e := *ev, s[i]
	*ev = e
	ev.TargetFiles = overwrite(old.TargetFiles, e.TargetFiles)
	ev.FilesRead = overwrite(old.FilesRead, e.FilesRead)
	ev.FilesWritten = overwrite(old.FilesWritten, e.FilesWritten)
	ev.Symbols = overwrite(old.Symbols, e.Symbols)
	ev.GroundTruthHits = overwrite(old.GroundTruthHits, e.GroundTruthHits)
	ev.LineRanges = overwrite(old.LineRanges, e.LineRanges)
	if e.ElapsedSeconds != nil {
		sec := old.ElapsedSeconds
		if sec == nil {
			sec = new(float64)
		}
		*sec = *e.ElapsedSeconds
		ev.ElapsedSeconds = sec
	}
}

// overwrite returns list in the array of old, written over. An empty
// list is returned with no room, lest the next event write into the
// document's own array.
func overwrite[T any](old, list []T) []T {
	if len(list) == 0 {
		return list[:0:0]
	}
	return append(old[:0], list...)
}

// withoutEvents returns a copy of doc with no Events.
func withoutEvents(doc *events.Document) *events.Document {
	c := *doc
	c.Events = nil
	return &c
}

func requireSameResult(t *testing.T, want, got *metrics.Result, desc string) {
	t.Helper()
	w, err := json.MarshalIndent(want, "", " ")
	require.NoError(t, err)
	g, err := json.MarshalIndent(got, "", " ")
	require.NoError(t, err)
	require.Equal(t, string(w), string(g), desc)
}

func TestComputeEventsIsComputeOnRandomDocuments(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 12))
	for n := range 2000 {
		doc, opts := randomDocument(rng)
		want := metrics.Compute(doc, opts)
		got := metrics.ComputeEvents(withoutEvents(doc), reusingSource(doc.Events), opts)
		requireSameResult(t, want, got, fmt.Sprintf("document %d", n))
	}
}

// Traces give what random documents seldom have: semantic calls followed
// by edits, failed calls, tools on offer. Each is judged against the
// first files it names and one it does not, as the scenarios of its
// folder would be.
func TestComputeEventsIsComputeOnTraces(t *testing.T) {
	t.Parallel()
	var files []string
	for _, dir := range []string{"../testdata/traces", "../testdata/examples", "../../shared/samples"} {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
	}
	judged := 0
	for _, file := range files {
		sessions, err := trace.ReadFileAll(file, trace.Options{})
		if err != nil {
			continue
		}
		for i, doc := range events.NormalizeAll(sessions, file, events.Options{}) {
			var named []string
			for _, ev := range doc.Events {
				for _, f := range ev.TargetFiles {
					if !slices.Contains(named, f) && len(named) < 3 {
						named = append(named, f)
					}
				}
			}
			gt := &events.GroundTruth{Files: append(named, "not/named.go"), Symbols: []events.Symbol{{File: "not/named.go", Symbol: "Token"}}}
			doc = events.Normalize(sessions[i], events.Options{GroundTruth: gt})
			for _, opts := range []metrics.Options{{}, {IncludeWrites: true, Ks: []int{2, 20}}} {
				want := metrics.Compute(doc, opts)
				got := metrics.ComputeEvents(withoutEvents(doc), reusingSource(doc.Events), opts)
				requireSameResult(t, want, got, fmt.Sprintf("%s, session %d", file, i))
				if want.Computable {
					judged++
				}
			}
		}
	}
	require.Greater(t, judged, 10, "traces with files to judge")
}

// Direct use pairs each semantic call with the edit after it: two events
// at a time, each of which must keep its own files.
func TestComputeEventsIsComputeOnSemanticCallsThenEdits(t *testing.T) {
	t.Parallel()
	semantic := func(files ...string) events.Event {
		return events.Event{ToolName: "codebase_search", ToolClass: events.Semantic, TargetFiles: files, Query: "token expiry"}
	}
	edit := func(files ...string) events.Event {
		ev := write(files...)
		ev.ToolClass = events.Edit
		return ev
	}
	doc := literal([]string{"a.go", "c.go"},
		semantic("a.go", "b.go"), edit("a.go"), semantic("c.go"), edit("c.go"), semantic(), edit("c.go"), edit("b.go"))
	want := metrics.Compute(doc, metrics.Options{})
	require.Len(t, want.IndexEffectiveness.Patterns, 3, "three semantic calls then edits")
	got := metrics.ComputeEvents(withoutEvents(doc), reusingSource(doc.Events), metrics.Options{})
	requireSameResult(t, want, got, "")
}
