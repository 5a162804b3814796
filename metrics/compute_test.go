package metrics_test

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// normalize reads a trace of testdata/metrics and turns it into a document
// with the given ground truth.
func normalize(t *testing.T, name string, gt *events.GroundTruth) *events.Document {
	t.Helper()
	sess, err := trace.ReadFile("../testdata/metrics/"+name, trace.Options{})
	require.NoError(t, err)
	require.Empty(t, sess.Warnings)
	return events.Normalize(sess, events.Options{GroundTruth: gt})
}

// searchReadEditGT is the ground truth of search-read-edit.toolcalls.json
// (also in search-read-edit.groundtruth.yaml, with token.go at grade 2).
func searchReadEditGT() *events.GroundTruth {
	return &events.GroundTruth{
		Files: []string{"pkg/auth/token.go", "pkg/auth/errors.go"},
		Symbols: []events.Symbol{
			{File: "pkg/auth/token.go", Symbol: "ValidateToken"},
			{File: "pkg/auth/errors.go", Symbol: "auth.ErrExpired"},
		},
		ExpectedEditFiles: []string{"pkg/auth/token.go"},
		Chunks: []events.LineRange{
			{Path: "pkg/auth/token.go", Start: 41, End: 50},
			{Path: "pkg/auth/errors.go", Start: 10, End: 14},
		},
	}
}

var searchReadEditGrades = map[string]int{"pkg/auth/token.go": 2}

// The trace, event by event (step: what it does → files):
//
//	1 Grep ValidateToken        surfaces token.go, session.go (no content)
//	2 Read session.go           reads session.go lines 1-5
//	3 sed -n 40,60p token.go    reads token.go lines 40-60
//	4 Edit token.go             writes token.go
//	5 Write token_test.go       writes token_test.go (never read)
//	6 Read errors.go 8+5        reads errors.go lines 8-12
//
// Ground truth: token.go (grade 2), errors.go (grade 1); R = 2.
// surfaced = token.go session.go errors.go; read = session.go token.go errors.go.
func TestComputeOnTheSearchReadEditTrace(t *testing.T) {
	t.Parallel()
	doc := normalize(t, "search-read-edit.toolcalls.json", searchReadEditGT())
	res := metrics.Compute(doc, metrics.Options{Grades: searchReadEditGrades})
	require.True(t, res.Computable, "reason: %v", res.NonComputableReason)
	assert.Equal(t, []string{"pkg/auth/token.go", "pkg/auth/session.go", "pkg/auth/errors.go"}, res.Ranked.Surfaced)
	assert.Equal(t, []string{"pkg/auth/session.go", "pkg/auth/token.go", "pkg/auth/errors.go"}, res.Ranked.Read)
	assert.Equal(t, []string{"pkg/auth/token.go", "pkg/auth/errors.go"}, res.Relevant)

	// IDCG = 2/log2(2) + 1/log2(3), the ideal list token.go errors.go.
	idcg := 2/log2(2) + 1/log2(3)
	want := map[string]float64{
		// surfaced: relevant at ranks 1 and 3.
		"precision@1": 1, "precision@3": 2.0 / 3, "precision@5": 2.0 / 5, "precision@10": 2.0 / 10,
		"recall@1": 1.0 / 2, "recall@3": 1, "recall@5": 1, "recall@10": 1,
		"f1@1":      2 * 1 * 0.5 / 1.5,             // 2/3
		"f1@3":      2 * (2.0 / 3) * 1 / (5.0 / 3), // 0.8
		"f1@5":      2 * 0.4 * 1 / 1.4,             // 4/7
		"f1@10":     2 * 0.2 * 1 / 1.2,             // 1/3
		"success@1": 1, "success@3": 1, "success@5": 1, "success@10": 1,
		"mrr": 1, "rr@1": 1, "rr@3": 1, "rr@5": 1, "rr@10": 1,
		"map":         (1.0/1 + 2.0/3) / 2, // 5/6
		"r_precision": 1.0 / 2,             // token.go session.go
		"ndcg@1":      (2 / log2(2)) / (2 / log2(2)),
		"ndcg@3":      (2/log2(2) + 1/log2(4)) / idcg, // 2.5 / 2.6309 = 0.9502
		"ndcg@10":     (2/log2(2) + 1/log2(4)) / idcg,
		"ndcg":        (2/log2(2) + 1/log2(4)) / idcg,
		"file_recall": 1, "context_efficiency": 2.0 / 3,
		"num_ret": 3, "num_rel": 2, "num_rel_ret": 2,

		// read: relevant at ranks 2 and 3.
		"read.precision@1": 0, "read.precision@3": 2.0 / 3,
		"read.recall@1": 0, "read.recall@3": 1,
		"read.f1@1":      0, // P and R both 0
		"read.success@1": 0, "read.success@3": 1,
		"read.mrr": 1.0 / 2, "read.rr@1": 0, "read.rr@3": 1.0 / 2,
		"read.map":         (1.0/2 + 2.0/3) / 2, // 7/12
		"read.r_precision": 1.0 / 2,
		"read.ndcg@1":      0,
		"read.ndcg":        (2/log2(3) + 1/log2(4)) / idcg, // 1.7619 / 2.6309 = 0.6697

		// Lines: G = token 41-50 (10) + errors 10-14 (5) = 15; L = session
		// 1-5 (5) + token 40-60 (21) + errors 8-12 (5) = 31; overlap = token
		// 41-50 (10) + errors 10-12 (3) = 13.
		"line_coverage":  13.0 / 15,
		"line_precision": 13.0 / 31,
		"line_f1":        2 * 13.0 / (31 + 15), // 2PC/(P+C) = 2|∩|/(|L|+|G|)
		"line_iou":       13.0 / (15 + 31 - 13),
		"chunk_recall":   1, "read.chunk_recall": 1,

		// ValidateToken is the Grep query; auth.ErrExpired is named nowhere.
		"symbol_recall": 1.0 / 2,

		// token.go is surfaced by step 1 (t=0s, 1200 tokens) and read by
		// step 3 (t=10s, 3900); errors.go, the last, by step 6 (t=30s, 7400).
		"ttfr_steps": 1, "ttfr_seconds": 0, "ttfr_tokens": 1200,
		"ttar_steps": 6, "ttar_seconds": 30, "ttar_tokens": 7400,
		"read.ttfr_steps": 3, "read.ttfr_seconds": 10, "read.ttfr_tokens": 3900,
		"read.ttar_steps": 6, "read.ttar_seconds": 30, "read.ttar_tokens": 7400,

		// Read {session, token, errors}; written {token (step 4), token_test
		// (step 5)}; token.go was read at step 3, before its write.
		"util_read_overlap_with_relevant_files":        2.0 / 2,
		"util_write_overlap_with_relevant_files_proxy": 1.0 / 2,
		"util_write_overlap_with_expected_edit_files":  1.0 / 1,
		"util_read_before_write_ratio":                 1.0 / 2,

		// errors.go was read (step 6) and never written.
		"evidence_drop": 1,

		// Localization: surfaced token.go session.go errors.go holds both
		// relevant files from k = 3; read session.go token.go errors.go too.
		"acc@1": 0, "acc@3": 1, "acc@10": 1, "read.acc@1": 0, "read.acc@3": 1,
		// auth.ErrExpired is never looked up.
		"symbol_acc@10": 0,
		// Coverage after each call, surfaced: 1/2 1/2 1/2 1/2 1/2 1; read:
		// 0 0 1/2 1/2 1/2 1. Tokens 1200 2500 3900 5100 6000 7400 give the
		// calls widths 1200 1300 1400 1200 900 1400.
		"coverage_auc":      (0.5*5 + 1) / 6,
		"read.coverage_auc": (0.5*3 + 1) / 6,
		// The retrieval calls are 1, 2, 3 and 6 (Grep, Read, sed, Read);
		// 4 and 5 are edits.
		"coverage_auc_retrieval":      (0.5*3 + 1) / 4,
		"read.coverage_auc_retrieval": (0 + 0 + 0.5 + 1) / 4,
		"coverage_auc_tokens":         (0.5*(1200+1300+1400+1200+900) + 1400) / 7400,
		"read.coverage_auc_tokens":    (0.5*(1400+1200+900) + 1400) / 7400,
		// No line was read twice: efficiency is line precision; all 31 lines
		// read fit in the smallest budget, 100.
		"line_context_efficiency": 13.0 / 31,
		"line_recall@100":         13.0 / 15,

		"irrelevant_retrieval":     1, // session.go
		"missed_key_evidence":      0,
		"wrong_evidence_used":      1, // token_test.go
		"unused_correct_retrieval": 1, // errors.go, never written
		"ambiguity_near_miss":      1, // session.go, beside token.go
	}
	for name, w := range want {
		got, ok := res.Metric(name)
		if assert.True(t, ok, "%s has no value", name) {
			assert.InDelta(t, w, got, 1e-12, name)
		}
	}
	assert.Equal(t, metrics.Slices{CandidateSetSize: 3, CandidateSet: "small", EvidenceType: "local"}, res.Slices)
}

// ev builds events for literal documents.
func search(files ...string) events.Event {
	return events.Event{ToolName: "Grep", ToolCategory: events.CodeSearch, TargetFiles: files}
}

func read(files ...string) events.Event {
	return events.Event{ToolName: "Read", ToolCategory: events.FileRead, TargetFiles: files, FilesRead: files}
}

func write(files ...string) events.Event {
	return events.Event{ToolName: "Edit", ToolCategory: events.FileWrite, TargetFiles: files, FilesWritten: files}
}

// literal returns a document with a trace, the given ground-truth files and
// events, step indices filled in.
func literal(gt []string, evs ...events.Event) *events.Document {
	src := events.SourceTrajectory
	for i := range evs {
		evs[i].StepIndex = i
	}
	if gt == nil {
		gt = []string{}
	}
	return &events.Document{
		SchemaVersion: events.SchemaVersion,
		Coverage:      events.Coverage{HasTrajectory: true, HasGroundTruth: len(gt) > 0, TraceSource: &src},
		GroundTruth:   events.GroundTruth{Files: gt},
		Events:        evs,
	}
}

func metric(t *testing.T, res *metrics.Result, name string) float64 {
	t.Helper()
	v, ok := res.Metric(name)
	require.True(t, ok, "%s has no value", name)
	return v
}

func TestFileMeasuresOnLiteralDocuments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  *events.Document
		opts metrics.Options
		want map[string]float64
	}{
		{
			name: "a list shorter than k is padded, not shortened",
			// surfaced = a.go b.go; R = 1 (a.go).
			doc: literal([]string{"a.go"}, search("a.go", "b.go")),
			want: map[string]float64{
				"precision@5": 1.0 / 5, "precision@10": 1.0 / 10, "recall@5": 1,
				"f1@5":        2 * 0.2 * 1 / 1.2, // 1/3
				"r_precision": 1, "context_efficiency": 1.0 / 2, "num_ret": 2,
			},
		},
		{
			name: "no relevant file retrieved scores 0 everywhere",
			doc:  literal([]string{"a.go", "b.go"}, search("x.go", "y.go"), read("x.go")),
			want: map[string]float64{
				"precision@1": 0, "recall@10": 0, "f1@3": 0, "success@10": 0, "mrr": 0, "rr@10": 0,
				"map": 0, "r_precision": 0, "ndcg": 0, "ndcg@10": 0, "file_recall": 0,
				"context_efficiency": 0, "num_rel_ret": 0, "num_rel": 2,
			},
		},
		{
			name: "a file named again keeps its first rank",
			// Events name b a b c a → surfaced = b a c; relevant a (rank 2), c (rank 3).
			doc: literal([]string{"a.go", "c.go"}, search("b.go", "a.go", "b.go"), read("c.go", "a.go")),
			want: map[string]float64{
				"num_ret": 3, "precision@3": 2.0 / 3, "recall@1": 0, "mrr": 1.0 / 2,
				"map": (1.0/2 + 2.0/3) / 2, // 7/12
				// read = c a: relevant at ranks 1 and 2.
				"read.num_ret": 2, "read.map": 1, "read.mrr": 1,
			},
		},
		{
			name: "an empty trace retrieves nothing and scores 0, not null",
			doc:  literal([]string{"a.go"}),
			want: map[string]float64{"recall@5": 0, "precision@1": 0, "mrr": 0, "map": 0, "ndcg": 0, "context_efficiency": 0, "num_ret": 0},
		},
		{
			name: "nDCG uses the grades and ignores the level",
			// surfaced = c(1) x a(3) b(2); ideal 3 2 1.
			doc:  literal([]string{"a.go", "b.go", "c.go"}, search("c.go", "x.go", "a.go", "b.go")),
			opts: metrics.Options{Grades: map[string]int{"a.go": 3, "b.go": 2}, Level: 2},
			want: map[string]float64{
				"ndcg": (1/log2(2) + 3/log2(4) + 2/log2(5)) / (3/log2(2) + 2/log2(3) + 1/log2(4)),
				// ndcg@3 stops before b: DCG@3 = 1/log2 2 + 0 + 3/log2 4.
				"ndcg@3": (1/log2(2) + 3/log2(4)) / (3/log2(2) + 2/log2(3) + 1/log2(4)),
				// At level 2 only a and b are relevant: R = 2, first at rank 3.
				"num_rel": 2, "mrr": 1.0 / 3, "recall@3": 1.0 / 2, "success@1": 0,
				"map":         (1.0/3 + 2.0/4) / 2,
				"r_precision": 0, // ranks 1-2 hold c and x
			},
		},
		{
			name: "a grade given for a file outside the ground truth judges it",
			// surfaced = a z; z is judged 0 (not relevant) at level 1.
			doc:  literal([]string{"a.go"}, search("a.go", "z.go")),
			opts: metrics.Options{Grades: map[string]int{"z.go": 0}},
			want: map[string]float64{"num_rel": 1, "precision@3": 1.0 / 3},
		},
		{
			name: "subagent events count as the run's retrieval",
			doc: literal([]string{"a.go"},
				events.Event{ToolName: "Grep", IsSubagent: true, ParentCallID: "t1", TargetFiles: []string{"a.go"}}),
			want: map[string]float64{"recall@1": 1, "ttfr_steps": 1},
		},
		{
			name: "fold case matches paths spelled differently",
			doc:  literal([]string{"Pkg/A.go"}, read("pkg/a.go")),
			opts: metrics.Options{FoldCase: true},
			want: map[string]float64{"recall@1": 1, "read.recall@1": 1},
		},
		{
			name: "without fold case paths differing in case do not match",
			doc:  literal([]string{"Pkg/A.go"}, read("pkg/a.go")),
			want: map[string]float64{"recall@1": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := metrics.Compute(tt.doc, tt.opts)
			require.True(t, res.Computable, "reason: %v", res.NonComputableReason)
			for name, w := range tt.want {
				assert.InDelta(t, w, metric(t, res, name), 1e-12, name)
			}
		})
	}
}

func TestReadAndSurfacedViewsDiffer(t *testing.T) {
	t.Parallel()
	// A search surfaces a.go then b.go without content; the agent reads only
	// b.go. surfaced = a b, read = b.
	doc := literal([]string{"a.go"}, search("a.go", "b.go"), read("b.go"))
	res := metrics.Compute(doc, metrics.Options{})
	assert.Equal(t, []string{"a.go", "b.go"}, res.Ranked.Surfaced)
	assert.Equal(t, []string{"b.go"}, res.Ranked.Read)
	assert.Equal(t, 1.0, metric(t, res, "recall@1"))
	assert.Equal(t, 0.0, metric(t, res, "read.recall@10"))
	assert.Equal(t, 1.0, metric(t, res, "ttfr_steps"))
	_, ok := res.Metric("read.ttfr_steps")
	assert.False(t, ok, "a.go was never read: read TTFR is null")
	assert.Equal(t, "never reached: no relevant file was read", res.Time.Read.First.Reason)
}

func TestWritesEnterTheListsOnlyWhenIncluded(t *testing.T) {
	t.Parallel()
	// new.go is only written; a.go is written, then found by a search.
	doc := literal([]string{"new.go", "a.go"}, write("new.go"), write("a.go"), search("b.go", "a.go"))

	res := metrics.Compute(doc, metrics.Options{})
	assert.Equal(t, []string{"b.go", "a.go"}, res.Ranked.Surfaced, "a.go enters at the search, new.go never")
	assert.Empty(t, res.Ranked.Read)
	assert.Equal(t, 1.0/2, metric(t, res, "recall@10"))
	assert.Equal(t, 3.0, metric(t, res, "ttfr_steps"), "the write at step 2 is not retrieval")

	res = metrics.Compute(doc, metrics.Options{IncludeWrites: true})
	assert.Equal(t, []string{"new.go", "a.go", "b.go"}, res.Ranked.Surfaced)
	assert.Equal(t, []string{"new.go", "a.go"}, res.Ranked.Read)
	assert.Equal(t, 1.0, metric(t, res, "recall@3"))
	assert.Equal(t, 1.0, metric(t, res, "ttfr_steps"))

	// An event that writes a file it also shows (FilesRead) retrieves it.
	shown := events.Event{ToolName: "Edit", TargetFiles: []string{"a.go"}, FilesRead: []string{"a.go"}, FilesWritten: []string{"a.go"}}
	res = metrics.Compute(literal([]string{"a.go"}, shown), metrics.Options{})
	assert.Equal(t, []string{"a.go"}, res.Ranked.Read)
}

func TestWritesOnTheTrace(t *testing.T) {
	t.Parallel()
	doc := normalize(t, "search-read-edit.toolcalls.json", searchReadEditGT())
	res := metrics.Compute(doc, metrics.Options{IncludeWrites: true})
	// token_test.go, written at step 5, enters before errors.go (step 6).
	assert.Equal(t, []string{"pkg/auth/token.go", "pkg/auth/session.go", "pkg/auth/token_test.go", "pkg/auth/errors.go"}, res.Ranked.Surfaced)
	assert.InDelta(t, (1.0/1+2.0/4)/2, metric(t, res, "map"), 1e-12) // relevant at ranks 1 and 4
}

func TestSubagentMCPTrace(t *testing.T) {
	t.Parallel()
	gt := &events.GroundTruth{
		Files:   []string{"src/Orders/Pricing/PriceCalculator.cs", "src/Orders/Pricing/Coupon.cs"},
		Symbols: []events.Symbol{{File: "src/Orders/Pricing/PriceCalculator.cs", Symbol: "Total"}},
	}
	res := metrics.Compute(normalize(t, "subagent-mcp.toolcalls.json", gt), metrics.Options{})
	require.True(t, res.Computable)
	// The subagent's keyword search (step 2) surfaces and shows
	// PriceCalculator.cs and IPriceCalculator.cs; the main agent then reads
	// OrderService.cs. Coupon.cs is never found. R = 2.
	assert.Equal(t, []string{"src/Orders/Pricing/PriceCalculator.cs", "src/Orders/Pricing/IPriceCalculator.cs", "src/Orders/OrderService.cs"}, res.Ranked.Surfaced)
	want := map[string]float64{
		"precision@1": 1, "recall@1": 1.0 / 2, "recall@10": 1.0 / 2, "map": (1.0 / 1) / 2,
		"context_efficiency": 1.0 / 3, "read.recall@1": 1.0 / 2,
		"ttfr_steps":                            2,
		"symbol_recall":                         1, // the query PriceCalculator.Total ends in Total
		"util_read_overlap_with_relevant_files": 1.0 / 2,
		"irrelevant_retrieval":                  2, "ambiguity_near_miss": 1, "missed_key_evidence": 1,
		"wrong_evidence_used": 0, "unused_correct_retrieval": 1,
	}
	for name, w := range want {
		assert.InDelta(t, w, metric(t, res, name), 1e-12, name)
	}
	assert.Equal(t, []string{"src/Orders/Pricing/IPriceCalculator.cs"}, res.Taxonomy.AmbiguityNearMiss.Files)
	assert.Equal(t, metrics.Slices{CandidateSetSize: 3, CandidateSet: "small", EvidenceType: "mcp", MCPEvents: 2}, res.Slices)
	for _, name := range []string{"ttfr_seconds", "ttfr_tokens", "ttar_steps", "util_read_before_write_ratio", "util_write_overlap_with_relevant_files_proxy", "util_write_overlap_with_expected_edit_files", "line_coverage", "chunk_recall"} {
		_, ok := res.Metric(name)
		assert.False(t, ok, "%s must be null on this trace", name)
	}
}

func TestNonComputableDocumentsAreNeverScored(t *testing.T) {
	t.Parallel()
	noTrace := events.Degraded("no trajectory or transcript found", events.Options{GroundTruth: &events.GroundTruth{Files: []string{"a.go"}}})
	tests := []struct {
		name   string
		doc    *events.Document
		opts   metrics.Options
		reason string
	}{
		{"a task with no ground truth", normalize(t, "search-read-edit.toolcalls.json", nil), metrics.Options{}, "the task has no ground-truth files"},
		{"a task whose coverage says no ground truth", func() *events.Document {
			d := literal([]string{"a.go"}, read("a.go"))
			d.Coverage.HasGroundTruth = false
			return d
		}(), metrics.Options{}, "the task has no ground-truth files"},
		{"a document with no usable trace", noTrace, metrics.Options{}, "no usable trace: no trajectory or transcript found"},
		{"a level above every grade", literal([]string{"a.go"}, read("a.go")), metrics.Options{Level: 2}, "no ground-truth file has a grade of at least 2 (the relevance level)"},
		{"a nil document", nil, metrics.Options{}, "no retrieval-events document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := metrics.Compute(tt.doc, tt.opts)
			assert.False(t, res.Computable)
			require.NotNil(t, res.NonComputableReason)
			assert.Equal(t, tt.reason, *res.NonComputableReason)
			// The earlier system's fault: recall 1.0 for a task without
			// ground truth. No figure that needs ground truth may come out;
			// index effectiveness, which needs none, may.
			assert.Empty(t, withoutIndexFigures(res.Values()))
			for _, name := range []string{"recall@5", "read.recall@5", "file_recall", "mrr", "map", "ndcg", "precision@1", "util_read_overlap_with_relevant_files", "symbol_recall", "line_coverage"} {
				_, ok := res.Metric(name)
				assert.False(t, ok, name)
			}
			assert.Nil(t, res.FileLevel)
			assert.Nil(t, res.Time)
			assert.Nil(t, res.Taxonomy)
			assert.False(t, res.Utilization.ProbeAvailable)
			assert.Equal(t, metrics.FileLevelOnly, res.Lines.Resolution)

			var buf bytes.Buffer
			require.NoError(t, res.WriteJSON(&buf))
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(buf.Bytes(), &raw))
			assert.Equal(t, "false", string(raw["computable"]))
			assert.Equal(t, "null", string(raw["file_level"]))
			assert.Empty(t, metrics.AggregateResults([]*metrics.Result{res}))
		})
	}
	// The lists are still reported: they are facts about the trace.
	res := metrics.Compute(normalize(t, "search-read-edit.toolcalls.json", nil), metrics.Options{})
	assert.Len(t, res.Ranked.Surfaced, 3)
	assert.Equal(t, "small", res.Slices.CandidateSet)
}

func TestOptionsDefaultsAreFilledIn(t *testing.T) {
	t.Parallel()
	res := metrics.Compute(literal([]string{"a.go"}, read("a.go")), metrics.Options{Ks: []int{10, 0, 2, 2, -1}})
	assert.Equal(t, []int{2, 10}, res.Options.Ks)
	assert.Equal(t, 1, res.Options.Level)
	_, ok := res.Metric("recall@2")
	assert.True(t, ok)
	_, ok = res.Metric("recall@5")
	assert.False(t, ok, "5 was not asked for")

	res = metrics.Compute(literal([]string{"a.go"}, read("a.go")), metrics.Options{})
	assert.Equal(t, []int{1, 3, 5, 10}, res.Options.Ks)
}

func TestResultRoundTripsThroughJSON(t *testing.T) {
	t.Parallel()
	doc := normalize(t, "search-read-edit.toolcalls.json", searchReadEditGT())
	res := metrics.Compute(doc, metrics.Options{Grades: searchReadEditGrades})
	var buf bytes.Buffer
	require.NoError(t, res.WriteJSON(&buf))
	var back metrics.Result
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.Equal(t, res.Values(), back.Values(), "every value survives JSON exactly")

	// Deterministic: the same result encodes to the same bytes.
	var again bytes.Buffer
	require.NoError(t, metrics.Compute(doc, metrics.Options{Grades: searchReadEditGrades}).WriteJSON(&again))
	assert.Equal(t, buf.String(), again.String())
}

// withoutIndexFigures drops the index-effectiveness figures, which need no
// ground truth, from a result's values.
func withoutIndexFigures(values map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for name, v := range values {
		if !slices.Contains(metrics.IndexFigures, name) {
			out[name] = v
		}
	}
	return out
}

func TestWriteJSONWritesWhatAJSONEncoderWritesResultAfterResult(t *testing.T) {
	t.Parallel()
	results := []*metrics.Result{
		metrics.Compute(normalize(t, "search-read-edit.toolcalls.json", searchReadEditGT()), metrics.Options{Grades: searchReadEditGrades}),
		metrics.Compute(normalize(t, "search-read-edit.toolcalls.json", nil), metrics.Options{}),
		metrics.Compute(literal([]string{"a.go"}, read("a.go")), metrics.Options{}),
	}
	// Twice over, so that a reused encoder meets a larger result and then
	// a smaller one.
	for range 2 {
		for i, res := range results {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(res))
			var got bytes.Buffer
			require.NoError(t, res.WriteJSON(&got))
			assert.Equal(t, want.String(), got.String(), "result %d", i)
		}
	}
}

func TestASummaryThatMiscountsTheFilesChangesNoFigure(t *testing.T) {
	t.Parallel()
	doc := normalize(t, "search-read-edit.toolcalls.json", searchReadEditGT())
	want := metrics.Compute(doc, metrics.Options{})
	require.True(t, want.Computable)
	for _, files := range []int{-1, 0, 1, math.MaxInt} {
		miscounted := *doc
		miscounted.Summary.UniqueFilesAccessed = files
		got := metrics.Compute(&miscounted, metrics.Options{})
		assert.Equal(t, want.FileLevel, got.FileLevel, "unique_files_accessed %d", files)
		assert.Equal(t, want.Ranked, got.Ranked, "unique_files_accessed %d", files)
	}
}
