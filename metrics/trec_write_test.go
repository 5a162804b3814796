package metrics_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestWriteTRECRunAndQrels(t *testing.T) {
	t.Parallel()
	var run, qrels bytes.Buffer
	require.NoError(t, metrics.WriteTRECRun(&run, "fix-auth", []string{"b.go", "a.go", "c.go"}))
	assert.Equal(t, "fix-auth Q0 b.go 1 3 agentretrieval\nfix-auth Q0 a.go 2 2 agentretrieval\nfix-auth Q0 c.go 3 1 agentretrieval\n", run.String(),
		"scores N - rank + 1 decrease strictly")
	require.NoError(t, metrics.WriteQrels(&qrels, "fix-auth", metrics.Judgments{"c.go": 2, "a.go": 0}))
	assert.Equal(t, "fix-auth 0 a.go 0\nfix-auth 0 c.go 2\n", qrels.String(), "sorted by document")

	tests := []struct {
		name  string
		write func(w *bytes.Buffer) error
		want  string
	}{
		{"a query with white space", func(w *bytes.Buffer) error { return metrics.WriteTRECRun(w, "fix auth", nil) }, `task name "fix auth" contains white space`},
		{"a query that reads as a comment", func(w *bytes.Buffer) error { return metrics.WriteQrels(w, "#1", nil) }, "starts with '#'"},
		{"an empty query", func(w *bytes.Buffer) error { return metrics.WriteTRECRun(w, "", nil) }, "empty task name"},
		{"a path with white space", func(w *bytes.Buffer) error { return metrics.WriteTRECRun(w, "q", []string{"a.go", "my docs/b.go"}) }, `path "my docs/b.go" contains white space`},
		{"a judged path with white space", func(w *bytes.Buffer) error {
			return metrics.WriteQrels(w, "q", metrics.Judgments{"my docs/b.go": 1})
		}, `path "my docs/b.go"`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused and nothing is written", func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			assert.ErrorContains(t, tt.write(&b), tt.want)
			assert.Empty(t, b.String())
		})
	}
}

// trecNames maps Compute's metric names to trec_eval's, for every figure
// the two share, at the cutoffs 1, 3, 5 and 10.
func trecNames() map[string]string {
	m := map[string]string{
		"map": "map", "mrr": "recip_rank", "r_precision": "Rprec", "ndcg": "ndcg",
		"file_recall": "set_recall", "context_efficiency": "set_P",
		"num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
	}
	for _, k := range []int{1, 3, 5, 10} {
		m[fmt.Sprintf("precision@%d", k)] = fmt.Sprintf("P_%d", k)
		m[fmt.Sprintf("recall@%d", k)] = fmt.Sprintf("recall_%d", k)
		m[fmt.Sprintf("ndcg@%d", k)] = fmt.Sprintf("ndcg_cut_%d", k)
		m[fmt.Sprintf("success@%d", k)] = fmt.Sprintf("success_%d", k)
	}
	return m
}

// evaluateExport parses exported files and evaluates them as trec_eval -c
// does, with every measure trecNames names.
func evaluateExport(t *testing.T, qrelsText, runText string, level int) *metrics.TRECResult {
	t.Helper()
	ms, err := metrics.ParseTRECMeasures([]string{
		"P.1,3,5,10", "recall.1,3,5,10", "ndcg_cut.1,3,5,10", "success.1,3,5,10",
		"map", "recip_rank", "Rprec", "ndcg", "set_P", "set_recall", "num_ret", "num_rel", "num_rel_ret",
	})
	require.NoError(t, err)
	qrels, err := metrics.ParseQrels(strings.NewReader(qrelsText), "qrels")
	require.NoError(t, err)
	run, err := metrics.ParseTRECRun(strings.NewReader(runText), "run")
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: level, Complete: true, Measures: ms})
	require.NoError(t, err)
	return res
}

// Compute's figures of random lists, exported with WriteTRECRun and
// WriteQrels, equal trec_eval's figures of the exported files.
func TestWrittenTRECFilesAgreeWithComputeOnRandomLists(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 3))
	src := events.SourceTrajectory
	// One run and one qrels per level, since the level is trec_eval's -l.
	type exported struct {
		r *metrics.Result
		v metrics.View
	}
	type files struct {
		run, qrels bytes.Buffer
		want       map[string]exported
	}
	byLevel := map[int]*files{1: {want: map[string]exported{}}, 2: {want: map[string]exported{}}}
	for q := range 400 {
		// A ground truth of about 3 of 12 files, graded 0-3; 0-8 events
		// that surface two random files and sometimes read one, so files
		// repeat.
		var gt []string
		grades := map[string]int{}
		for i := range 12 {
			if rng.IntN(4) == 0 {
				f := fmt.Sprintf("pkg/f%d.go", i)
				gt = append(gt, f)
				grades[f] = rng.IntN(4)
			}
		}
		var evs []events.Event
		for range rng.IntN(9) {
			f := fmt.Sprintf("pkg/f%d.go", rng.IntN(12))
			ev := events.Event{ToolName: "Grep", TargetFiles: []string{f, fmt.Sprintf("pkg/f%d.go", rng.IntN(12))}}
			if rng.IntN(2) == 0 {
				ev.FilesRead = []string{f}
			}
			evs = append(evs, ev)
		}
		doc := &events.Document{
			Coverage:    events.Coverage{HasGroundTruth: len(gt) > 0, TraceSource: &src},
			GroundTruth: events.GroundTruth{Files: gt},
			Events:      evs,
		}
		level, v := 1+q%2, metrics.Views[(q/2)%2]
		r := metrics.Compute(doc, metrics.Options{Grades: grades, Level: level})
		qid := fmt.Sprintf("q%03d", q)
		f := byLevel[level]
		f.want[qid] = exported{r, v}
		require.NoError(t, metrics.WriteTRECRun(&f.run, qid, r.Ranked.List(v)))
		require.NoError(t, metrics.WriteQrels(&f.qrels, qid, r.Judgments))
	}
	checked := 0
	for level, f := range byLevel {
		res := evaluateExport(t, f.qrels.String(), f.run.String(), level)
		for _, q := range res.Queries {
			e := f.want[q.Query]
			if !e.r.Computable {
				continue // no relevant file: trec_eval prints 0s, we print nothing
			}
			for ours, theirs := range trecNames() {
				want, ok := q.Value(theirs)
				require.True(t, ok, "trec_eval gave no %s", theirs)
				got, ok := e.r.Metric(e.v.Prefix() + ours)
				require.True(t, ok, "%s has no value", ours)
				// Equal, not close: both sides run the same arithmetic.
				assert.Equal(t, want, got, "%s%s vs trec_eval %s; %s at level %d", e.v.Prefix(), ours, theirs, q.Query, level)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 200)
}

func TestTRECExportRefusesAQueryAddedTwice(t *testing.T) {
	t.Parallel()
	src := events.SourceTrajectory
	doc := &events.Document{
		Coverage:    events.Coverage{HasGroundTruth: true, TraceSource: &src},
		GroundTruth: events.GroundTruth{Files: []string{"a.go"}},
		Events:      []events.Event{{ToolName: "Read", TargetFiles: []string{"b.go", "a.go"}, FilesRead: []string{"a.go"}}},
	}
	r := metrics.Compute(doc, metrics.Options{})
	e := metrics.TRECExport{View: metrics.Read}
	require.NoError(t, e.Add("q1", r, "one.json"))
	err := e.Add("q1", r, "two.json")
	require.ErrorIs(t, err, metrics.ErrDuplicateQuery)
	assert.Equal(t, `one.json and two.json have the same task name "q1", which would be one query`, err.Error())
	assert.ErrorContains(t, e.Add("q 2", r, "three.json"), `three.json: task name "q 2" contains white space`)
	assert.Equal(t, "q1 Q0 a.go 1 1 agentretrieval\n", e.Run.String(), "the read view; nothing added by the refused results")
	assert.Equal(t, "q1 0 a.go 1\n", e.Qrels.String())
}
