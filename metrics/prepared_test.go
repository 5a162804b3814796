package metrics_test

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// preparedTraces are the traces of the testdata folders and of the samples
// (when present), read whole; files that are not one session are left out.
func preparedTraces(t *testing.T) map[string]*trace.Session {
	t.Helper()
	sessions := map[string]*trace.Session{}
	patterns := []string{"../testdata/examples/*.json*", "../testdata/traces/*/*.json*"}
	if !testing.Short() {
		patterns = append(patterns, "../../shared/samples/*/*")
	}
	for _, pattern := range patterns {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, f := range files {
			if s, err := trace.ReadFile(f, trace.Options{}); err == nil && s.NumCalls() > 0 {
				sessions[f] = s
			}
		}
	}
	require.GreaterOrEqual(t, len(sessions), 10, "sessions read")
	return sessions
}

// truthsFor returns ground truths for doc's events that hit some of its
// files, miss them under another spelling (a suffix, a base name), name
// symbols, chunks and edits, or none.
func truthsFor(doc *events.Document) []*events.GroundTruth {
	var named, read, written, queries []string
	for _, ev := range doc.Events {
		named = append(named, ev.TargetFiles...)
		read = append(read, ev.FilesRead...)
		written = append(written, ev.FilesWritten...)
		if ev.Query != "" {
			queries = append(queries, ev.Query)
		}
	}
	first := func(list []string, n int) []string { return list[:min(n, len(list))] }
	truths := []*events.GroundTruth{
		nil,
		{Files: []string{"no/such/file.go"}},
		{Files: append(first(named, 2), "no/such/file.go")},
		{Files: first(read, 3), ExpectedEditFiles: first(written, 1)},
		{Files: append(first(written, 2), first(read, 1)...)},
	}
	if len(named) > 0 {
		p := named[len(named)/2]
		misses := []string{"elsewhere/" + path.Base(p)}
		if i := strings.IndexByte(strings.TrimPrefix(p, "/"), '/'); i >= 0 {
			misses = append(misses, strings.TrimPrefix(p, "/")[i+1:])
		}
		truths = append(truths, &events.GroundTruth{Files: misses})
		chunks := []events.LineRange{{Path: p, Start: 1, End: 40}, {Path: named[0], Start: 5, End: 9}}
		truths = append(truths, &events.GroundTruth{Files: []string{p, named[0]}, Chunks: chunks,
			Symbols: []events.Symbol{{File: p, Symbol: "main"}, {File: p, Symbol: strings.Join(first(strings.Fields(strings.Join(queries, " ")), 1), "")}}})
	}
	return truths
}

func TestPreparedComputesWhatComputeComputesAlone(t *testing.T) {
	t.Parallel()
	optionSets := []metrics.Options{
		{},
		{Ks: []int{2, 7}, Level: 2, LineBudgets: []int{10}},
		{Index: metrics.IndexOptions{Symbols: []string{"main", "Read"}}},
	}
	shared := 0
	for file, sess := range preparedTraces(t) {
		base := events.Normalize(sess, events.Options{})
		for _, prep := range []metrics.Options{{}, {IncludeWrites: true}, {Index: metrics.IndexOptions{FishingMinRun: 2, TextSearchTools: []string{"Bash", "Grep"}}}} {
			p := metrics.Prepare(base, prep)
			for g, gt := range truthsFor(base) {
				doc := events.Normalize(sess, events.Options{GroundTruth: gt})
				for o, opts := range optionSets {
					opts.IncludeWrites, opts.Index.FishingMinRun, opts.Index.TextSearchTools = prep.IncludeWrites, prep.Index.FishingMinRun, prep.Index.TextSearchTools
					if gt != nil {
						opts.Grades = map[string]int{}
						for i, f := range gt.Files {
							opts.Grades[f] = 1 + i%3
						}
					}
					desc := fmt.Sprintf("%s: truth %d, options %d, prepared with %+v", file, g, o, prep)
					want := metrics.Compute(doc, opts)
					got := p.Compute(doc, opts)
					requireSameResult(t, want, got, desc)
					// What was found once is shared: the lists of the
					// results are the prepared ones.
					if again := p.Compute(doc, opts); len(got.Ranked.Surfaced) > 0 {
						require.Same(t, &got.Ranked.Surfaced[0], &again.Ranked.Surfaced[0], desc)
						shared++
					}
					// Options the preparation did not use measure alone.
					opts.FoldCase = true
					requireSameResult(t, metrics.Compute(doc, opts), p.Compute(doc, opts), desc+", case folded")
				}
			}
		}
	}
	require.Greater(t, shared, 100, "results that shared what was prepared")
}

func TestPreparedMeasuresAloneADocumentWhoseEventsDiffer(t *testing.T) {
	t.Parallel()
	prepared := literal([]string{"a.go"}, read("a.go", "b.go"), write("b.go"), search("c.go"))
	p := metrics.Prepare(prepared, metrics.Options{})
	tests := []struct {
		name   string
		change func(d *events.Document)
	}{
		{"an event reads another file", func(d *events.Document) { d.Events[0].FilesRead = []string{"a.go"} }},
		{"an event fewer", func(d *events.Document) { d.Events = d.Events[:2] }},
		{"another agent", func(d *events.Document) { d.Provenance.Agent = "codex" }},
		{"another trace format", func(d *events.Document) { d.Provenance.TraceFormat = "codex" }},
		{"tools listed", func(d *events.Document) { d.Provenance.AvailableTools = []string{"Read", "sg_keyword_search"} }},
		{"no trace", func(d *events.Document) { d.Coverage.TraceSource = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := literal([]string{"b.go"}, read("a.go", "b.go"), write("b.go"), search("c.go"))
			tt.change(doc)
			requireSameResult(t, metrics.Compute(doc, metrics.Options{}), p.Compute(doc, metrics.Options{}), tt.name)
		})
	}
	requireSameResult(t, metrics.Compute(nil, metrics.Options{}), p.Compute(nil, metrics.Options{}), "no document")
	requireSameResult(t, metrics.Compute(prepared, metrics.Options{}), metrics.Prepare(nil, metrics.Options{}).Compute(prepared, metrics.Options{}), "nothing prepared")
}

// A Prepared is read by the goroutines that measure their documents at
// once (run with -race to see it is only read).
func TestPreparedIsComputedFromByGoroutinesAtOnce(t *testing.T) {
	t.Parallel()
	truth := []string{"pkg/auth/token.go", "no/such.go"}
	doc := literal(truth, read("pkg/auth/token.go", "pkg/auth/session.go"), write("pkg/auth/token.go"), search("pkg/x.go"))
	p := metrics.Prepare(doc, metrics.Options{})
	want := metrics.Compute(doc, metrics.Options{})
	done := make(chan *metrics.Result)
	for range 4 {
		go func() { done <- p.Compute(doc, metrics.Options{}) }()
	}
	for range 4 {
		requireSameResult(t, want, <-done, "computed at once")
	}
}

func TestDirectEditsAndKnownSymbolGuessesSayTheirSteps(t *testing.T) {
	t.Parallel()
	doc := literal([]string{"pkg/b.go"},
		events.Event{ToolName: "Grep", ToolClass: events.FileLevel, ToolCategory: events.CodeSearch, Query: "func Validate", TargetFiles: []string{}},
		events.Event{ToolName: "sg_search", ToolClass: events.Semantic, TargetFiles: []string{"pkg/a.go"}},
		// An edit whose written files were not captured: the files it
		// named are what it edited.
		events.Event{ToolName: "Edit", ToolClass: events.Edit, TargetFiles: []string{"pkg/a.go"}},
	)
	for _, res := range []*metrics.Result{metrics.Compute(doc, metrics.Options{Index: metrics.IndexOptions{Symbols: []string{"Validate"}}}),
		metrics.Prepare(doc, metrics.Options{}).Compute(doc, metrics.Options{Index: metrics.IndexOptions{Symbols: []string{"Validate"}}})} {
		var details []string
		for _, p := range res.IndexEffectiveness.Patterns {
			details = append(details, p.Detail)
		}
		require.Equal(t, []string{
			`step 1: Grep searched text for "Validate", a symbol the index knows`,
			"step 2: sg_search, then step 3 edited pkg/a.go",
		}, details)
	}
}
