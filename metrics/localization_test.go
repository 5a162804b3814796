package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestAccuracyAtAsksForEveryRelevantFile(t *testing.T) {
	t.Parallel()
	rel := metrics.Judgments{"a": 1, "b": 2, "n": 0}
	ranked := []string{"a", "x", "b", "n"}
	tests := []struct {
		name  string
		k     int
		level int
		want  float64
	}{
		{"Acc@1 is 0 with one of two relevant files in the top 1", 1, 1, 0},
		{"Acc@2 is 0 with b at rank 3", 2, 1, 0},
		{"Acc@3 is 1 once both are in", 3, 1, 1},
		{"Acc@10 stays 1 past the end of the list", 10, 1, 1},
		{"at level 2 only b counts, so Acc@2 is still 0", 2, 2, 0},
		{"at level 2 Acc@3 is 1", 3, 2, 1},
		{"with nothing relevant at level 3 it is 0, not 1", 3, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, metrics.AccuracyAt(ranked, rel, tt.k, tt.level))
		})
	}
	assert.Equal(t, 1.0, metrics.SuccessAt(ranked, rel, 1, 1), "success@1 asks for one relevant file; acc@1 for all")
}

func TestLocalizationFiguresOnLiteralDocuments(t *testing.T) {
	t.Parallel()
	tokens := func(ev events.Event, n int64) events.Event {
		ev.CumulativeTokens = &n
		return ev
	}
	symbols := func(names ...string) events.Event {
		return events.Event{ToolName: "LSP", ToolCategory: events.SymbolNavigation, Symbols: names}
	}
	query := func(q string) events.Event {
		return events.Event{ToolName: "Grep", ToolCategory: events.CodeSearch, Query: q}
	}
	// classed gives a call the taxonomy class that events.Normalize would.
	classed := func(k events.Class, ev events.Event) events.Event {
		ev.ToolClass = k
		return ev
	}
	runTests := events.Event{ToolName: "Bash", ToolCategory: events.OtherCategory, Query: "go test ./..."}
	withSymbols := func(d *events.Document, syms ...string) *events.Document {
		for _, s := range syms {
			d.GroundTruth.Symbols = append(d.GroundTruth.Symbols, events.Symbol{File: "a", Symbol: s})
		}
		return d
	}
	tests := []struct {
		name string
		doc  *events.Document
		opts metrics.Options
		want map[string]float64
		null []string
	}{
		{
			// surfaced a x b: a at rank 1, b at rank 3; read: b only.
			name: "acc@k needs every relevant file in the first k, in each view",
			doc:  literal([]string{"a", "b"}, search("a", "x"), read("b")),
			want: map[string]float64{"acc@1": 0, "acc@3": 1, "acc@5": 1, "read.acc@1": 0, "read.acc@10": 0, "success@1": 1},
		},
		{
			// Lookups: "Baz" (1), "func Foo" (2) finds pkg.Foo by its last
			// component, "x.Bar" (3) finds Bar by its own last component.
			name: "symbol_acc@k is 1 from the lookup that finds the last symbol",
			doc:  withSymbols(literal([]string{"a"}, symbols("Baz"), query("func Foo"), symbols("x.Bar"), symbols("Baz")), "pkg.Foo", "Bar"),
			want: map[string]float64{"symbol_acc@1": 0, "symbol_acc@3": 1, "symbol_acc@5": 1, "symbol_recall": 1},
		},
		{
			name: "symbol_acc@k is 0 at every k while a symbol is never looked up",
			doc:  withSymbols(literal([]string{"a"}, query("Foo")), "Foo", "Never"),
			want: map[string]float64{"symbol_acc@1": 0, "symbol_acc@10": 0, "symbol_recall": 0.5},
		},
		{
			name: "symbol_acc@k is null when the ground truth has no symbols",
			doc:  literal([]string{"a"}, query("Foo")),
			null: []string{"symbol_acc@1", "symbol_acc@5"},
		},
		{
			// Coverage after each call: 0, 1/2, 1/2, 1. By calls: (0 + .5 +
			// .5 + 1) / 4. By tokens: calls 1 and 2 share the turn of 100
			// tokens, weighed with the coverage after call 2: (.5 × 100 + .5
			// × 200 + 1 × 100) / 400.
			name: "coverage_auc averages coverage over calls, coverage_auc_tokens over tokens",
			doc: literal([]string{"a", "b"},
				tokens(search("x"), 100), tokens(read("a"), 100), tokens(search("y"), 300), tokens(read("b"), 400)),
			want: map[string]float64{
				"coverage_auc": 0.5, "coverage_auc_tokens": 250.0 / 400,
				"read.coverage_auc": 0.5, "read.coverage_auc_tokens": 250.0 / 400,
			},
		},
		{
			// surfaced: a at call 1 (by the search), b at call 3; read: a at
			// call 2, b at call 3.
			name: "the views differ when a search surfaces a file before a read",
			doc: literal([]string{"a", "b"},
				tokens(search("a"), 1000), tokens(read("a"), 2000), tokens(read("b"), 4000)),
			want: map[string]float64{
				"coverage_auc": (0.5 + 0.5 + 1) / 3, "coverage_auc_tokens": (0.5*1000 + 0.5*1000 + 1*2000) / 4000,
				"read.coverage_auc": (0 + 0.5 + 1) / 3, "read.coverage_auc_tokens": (0*1000 + 0.5*1000 + 1*2000) / 4000,
			},
		},
		{
			name: "coverage_auc_tokens is null when a call has no token count",
			doc:  literal([]string{"a"}, tokens(search("x"), 100), read("a")),
			want: map[string]float64{"coverage_auc": 0.5},
			null: []string{"coverage_auc_tokens", "read.coverage_auc_tokens"},
		},
		{
			// Calls: read a (file_level), edit c, run the tests (other),
			// read b (file_level). Coverage after each: 1/2, 1/2, 1/2, 1 in
			// both views. Over all calls (0.5 + 0.5 + 0.5 + 1) / 4 = 0.625;
			// over the retrieval calls 1 and 4, (0.5 + 1) / 2 = 0.75.
			name: "coverage_auc averages over all calls, coverage_auc_retrieval over the retrieval calls",
			doc: literal([]string{"a", "b"},
				classed(events.FileLevel, read("a")), classed(events.Edit, write("c")),
				classed(events.OtherClass, runTests), classed(events.FileLevel, read("b"))),
			want: map[string]float64{
				"coverage_auc": 0.625, "read.coverage_auc": 0.625,
				"coverage_auc_retrieval": 0.75, "read.coverage_auc_retrieval": 0.75,
			},
		},
		{
			// Calls: a semantic search that surfaces a, an edit of a, a read
			// of a (file_level). Surfaced coverage 1, 1, 1; read 0, 0, 1.
			// Retrieval calls 1 and 3: read (0 + 1) / 2, all calls 1/3.
			name: "a semantic call is a retrieval call, an edit is not",
			doc: literal([]string{"a"},
				classed(events.Semantic, search("a")), classed(events.Edit, write("a")), classed(events.FileLevel, read("a"))),
			want: map[string]float64{
				"coverage_auc": 1, "coverage_auc_retrieval": 1,
				"read.coverage_auc": 1.0 / 3, "read.coverage_auc_retrieval": 0.5,
			},
		},
		{
			name: "coverage_auc_retrieval is null when no call retrieves",
			doc:  literal([]string{"a"}, classed(events.Edit, write("a")), classed(events.OtherClass, runTests)),
			want: map[string]float64{"coverage_auc": 0, "read.coverage_auc": 0},
			null: []string{"coverage_auc_retrieval", "read.coverage_auc_retrieval"},
		},
		{
			name: "coverage_auc_tokens is null when no token was counted",
			doc:  literal([]string{"a"}, tokens(search("x"), 0), tokens(read("a"), 0)),
			want: map[string]float64{"coverage_auc": 0.5},
			null: []string{"coverage_auc_tokens", "read.coverage_auc_tokens"},
		},
		{
			name: "an agent that never finds the file has coverage_auc 0",
			doc:  literal([]string{"a"}, search("x"), read("y")),
			want: map[string]float64{"coverage_auc": 0, "read.coverage_auc": 0},
		},
		{
			name: "evidence_drop counts relevant files read and not written",
			doc:  literal([]string{"a", "b", "c"}, read("a"), read("b"), write("a")),
			want: map[string]float64{"evidence_drop": 1}, // b; c was never read
		},
		{
			name: "evidence_drop is null when nothing was written",
			doc:  literal([]string{"a", "b"}, read("a"), read("b")),
			null: []string{"evidence_drop"},
		},
		{
			// Chunk a 21-30. Reads: a 1-10, a 1-10 again, a 21-30: 30 lines
			// read, 10 of them relevant; 20 distinct lines, 10 relevant. The
			// first 20 lines read are the two reads of 1-10; the first 25
			// add 21-25.
			name: "line_context_efficiency and line_recall@N count re-reads",
			doc: withChunks(literal([]string{"a"}, readLines("a", [2]int{1, 10}), readLines("a", [2]int{1, 10}), readLines("a", [2]int{21, 30})),
				events.LineRange{Path: "a", Start: 21, End: 30}),
			opts: metrics.Options{LineBudgets: []int{20, 25, 1000}},
			want: map[string]float64{
				"line_context_efficiency": 10.0 / 30, "line_precision": 10.0 / 20,
				"line_recall@20": 0, "line_recall@25": 5.0 / 10, "line_recall@1000": 1,
			},
		},
		{
			name: "line figures are null without line ranges in the ground truth",
			doc:  literal([]string{"a"}, readLines("a", [2]int{1, 10})),
			null: []string{"line_context_efficiency", "line_recall@100"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := metrics.Compute(tt.doc, tt.opts)
			require.True(t, res.Computable, "reason: %v", res.NonComputableReason)
			for name, want := range tt.want {
				assert.InDelta(t, want, metric(t, res, name), 1e-12, name)
			}
			for _, name := range tt.null {
				_, ok := res.Metric(name)
				assert.False(t, ok, "%s should be null", name)
			}
		})
	}
}

func TestCoverageCurveHasOnePointPerCall(t *testing.T) {
	t.Parallel()
	res := metrics.Compute(literal([]string{"a", "b"}, search("a"), read("x"), read("b")), metrics.Options{})
	require.NotNil(t, res.CoverageOverTime)
	assert.Equal(t, []metrics.CoveragePoint{
		{Step: 1, Surfaced: 0.5, Read: 0},
		{Step: 2, Surfaced: 0.5, Read: 0},
		{Step: 3, Surfaced: 1, Read: 0.5},
	}, res.CoverageOverTime.Curve)
	// The calls of literal documents have no taxonomy class, so none is
	// a retrieval call.
	assert.Equal(t, "no call is a retrieval call (semantic or file_level): coverage_auc_retrieval is undefined; "+
		"call 1 has no token count: coverage_auc_tokens is undefined", res.CoverageOverTime.Reason)
}

func TestCoverageAUCRetrievalSaysWhyItIsNull(t *testing.T) {
	t.Parallel()
	edit := write("a")
	edit.ToolClass = events.Edit
	res := metrics.Compute(literal([]string{"a"}, edit), metrics.Options{})
	require.NotNil(t, res.CoverageOverTime)
	assert.Nil(t, res.CoverageOverTime.RetrievalAUC)
	assert.Nil(t, res.CoverageOverTime.ReadRetrievalAUC)
	assert.Equal(t, "no call is a retrieval call (semantic or file_level): coverage_auc_retrieval is undefined; "+
		"call 1 has no token count: coverage_auc_tokens is undefined", res.CoverageOverTime.Reason)
	assert.NotNil(t, res.CoverageOverTime.AUC, "coverage_auc is over all calls, and there is one")
	agg := metrics.AggregateResults([]*metrics.Result{res})
	assert.NotContains(t, agg, "coverage_auc_retrieval", "a null figure is left out, not counted as 0")
	assert.Contains(t, agg, "coverage_auc")
}
