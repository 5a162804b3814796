package metrics_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestJudgedOnlyDropsUnjudgedDocumentsBeforeMeasuring(t *testing.T) {
	t.Parallel()
	// Ranking u1 (unjudged) r1 (1) u2 (unjudged) n1 (0) r2 (1); -J leaves
	// r1 n1 r2, so P@1 = 1, AP = (1/1 + 2/3) / 2, num_ret = 3.
	qrels := metrics.Qrels{"q": {"r1": 1, "n1": 0, "r2": 1, "x": -1}}
	run := &metrics.TRECRun{ID: "r", Results: map[string][]metrics.ScoredDoc{"q": {
		{"u1", 5}, {"r1", 4}, {"u2", 3}, {"n1", 2}, {"r2", 1}, {"x", 0},
	}}}
	ms, err := metrics.ParseTRECMeasures([]string{"num_ret", "map", "P.1"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms, JudgedOnly: true})
	require.NoError(t, err)
	for measure, want := range map[string]float64{"num_ret": 3, "map": (1.0 + 2.0/3) / 2, "P_1": 1} {
		v, _ := res.Value(measure)
		assert.InDelta(t, want, v, 1e-12, measure)
	}
	res, err = metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms, JudgedOnly: true, MaxDocs: 2})
	require.NoError(t, err)
	v, _ := res.Value("num_ret")
	assert.Equal(t, 1.0, v, "-M 2 keeps u1 r1, then -J drops u1")
}

func TestZScoresReplaceEachFigureBeforeTheSummary(t *testing.T) {
	t.Parallel()
	qrels := metrics.Qrels{"a": {"d1": 1}, "b": {"d1": 1}}
	run := &metrics.TRECRun{ID: "r", Results: map[string][]metrics.ScoredDoc{
		"a": {{"d1", 2}, {"d2", 1}}, // P@1 = 1, num_ret 2
		"b": {{"d2", 2}, {"d1", 1}}, // P@1 = 0, num_ret 2
	}}
	zs, err := metrics.ParseTRECZScores(strings.NewReader(
		"a P_1 0.5 0.25\na num_ret 2 0\nb P_1 0.5 0.25\nb num_ret 3 0\n"), "z")
	require.NoError(t, err)
	ms, err := metrics.ParseTRECMeasures([]string{"num_ret", "P.1"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms, ZScores: zs})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, res.Print(&out, metrics.TRECPrint{PerQuery: true}))
	// a: P@1 (1 - 0.5) / 0.25 = 2; num_ret equals a mean whose deviation is
	// 0, so 0. b: P@1 (0 - 0.5) / 0.25 = -2; num_ret 2 differs from the mean
	// 3 with deviation 0: missing. Summary: P_1 mean (2 - 2) / 2 = 0,
	// num_ret sum 0 + -1000000.
	assert.Equal(t, "Znum_ret               \ta\t0.0000\nZP_1                   \ta\t2.0000\n"+
		"Znum_ret               \tb\t-1000000.0000\nZP_1                   \tb\t-2.0000\n"+
		"Znum_ret               \tall\t-1000000.0000\nZP_1                   \tall\t0.0000\n", out.String())

	_, err = metrics.ParseTRECZScores(strings.NewReader("a P_1 0.5\n"), "z")
	assert.ErrorContains(t, err, "z:1: malformed line: want 4 fields")
	_, err = metrics.ParseTRECZScores(strings.NewReader("a P_1 0.5 1\na P_1 0.4 1\n"), "z")
	assert.ErrorContains(t, err, `z:2: malformed line: measure "P_1" of query "a" is given twice (first on line 1)`)
	_, err = metrics.ParseTRECZScores(strings.NewReader("a P_1 0,5 1\n"), "z")
	assert.ErrorIs(t, err, metrics.ErrTRECNumber)
}

func TestPrintWithoutSummaryPrintsOnlyQueries(t *testing.T) {
	t.Parallel()
	qrels := metrics.Qrels{"a": {"d1": 1}}
	run := &metrics.TRECRun{ID: "r", Results: map[string][]metrics.ScoredDoc{"a": {{"d1", 1}}}}
	ms, err := metrics.ParseTRECMeasures([]string{"runid", "map"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, res.Print(&out, metrics.TRECPrint{PerQuery: true, NoSummary: true}))
	assert.Equal(t, "map                   \ta\t1.0000\n", out.String())
}

func TestEveryTRECMeasureHasADefinition(t *testing.T) {
	t.Parallel()
	for _, name := range metrics.TRECMeasureNames() {
		d, ok := metrics.TRECMeasureDefinition(name)
		assert.True(t, ok && len(d) > 20, "%s has no definition", name)
	}
	var out bytes.Buffer
	require.NoError(t, metrics.WriteTRECDefinitions(&out, []string{"Rprec"}, 80))
	assert.Equal(t, "Rprec\n    Precision among the first R documents.\n", out.String())
}
