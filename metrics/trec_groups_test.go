package metrics_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// testdata/trec/cases.qrels_jg has two judgment groups: j1 judges as
// cases.qrels does, j2 flips the grade of g1 (to 0) and d1 (to 0).
func TestJudgmentGroupMeasuresAverageOverGroups(t *testing.T) {
	t.Parallel()
	groups, err := metrics.ParseQrelsJG(openTestdata(t, "cases.qrels_jg"), "cases.qrels_jg")
	require.NoError(t, err)
	run, err := metrics.ParseTRECRun(openTestdata(t, "cases.run"), "cases.run")
	require.NoError(t, err)
	ms, err := metrics.ParseTRECMeasures([]string{"qrels_jg"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Complete: true, Measures: ms, Groups: groups})
	require.NoError(t, err)

	tests := []struct {
		name, query, measure string
		want                 float64
	}{
		// ties ranks d3 d2 d1; j1 has d1 relevant (AP 1/3), j2 nothing (0).
		{"map_avgjg of ties averages 1/3 and 0", "ties", "map_avgjg", (1.0/3 + 0) / 2},
		{"P_avgjg_5 of ties averages 1/5 and 0", "ties", "P_avgjg_5", (1.0/5 + 0) / 2},
		// graded ranks g3 g4 g1 g2. j1: R = 4, AP (1 + 2/3 + 3/4) / 4;
		// j2: g1 is 0, R = 3, relevant at ranks 1 and 4: (1 + 2/4) / 3.
		{"map_avgjg of graded averages the two groups' AP", "graded", "map_avgjg", (gradedAP1 + 0.5) / 2},
		// At 1.0 × R: j1 P@4 = 3/4, j2 P@3 = 1/3.
		{"Rprec_mult_avgjg_1.00 of graded takes each group's R", "graded", "Rprec_mult_avgjg_1.00", (3.0/4 + 1.0/3) / 2},
		// missing has one group, j1: nothing retrieved.
		{"a query with one group is not divided", "missing", "P_avgjg_5", 0},
		{"num_q counts the queries of the groups under -c", "all", "num_q", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, queryValue(t, res, tt.query, tt.measure), 1e-12)
		})
	}

	_, err = metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Complete: true, Groups: groups})
	assert.ErrorContains(t, err, "with judgment groups (-R qrels_jg) only runid, num_q, map_avgjg, P_avgjg and Rprec_mult_avgjg are computed")
	qrels, err := metrics.ParseQrels(openTestdata(t, "cases.qrels"), "cases.qrels")
	require.NoError(t, err)
	_, err = metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Complete: true, Measures: ms})
	assert.ErrorContains(t, err, `measure "map_avgjg" averages over judgment groups: it needs qrels with groups (trec_eval -R qrels_jg)`)

	_, err = metrics.ParseQrelsJG(strings.NewReader("q j1 d 1\nq j2 d 0\nq j1 d 2\n"), "dup")
	assert.ErrorContains(t, err, `dup:3: duplicate document "d" for query "q" in judgment group "j1" (first judged on line 1)`)
}

func TestYaapIsRobertsonsSmoothedAP(t *testing.T) {
	t.Parallel()
	ms, err := metrics.ParseTRECMeasures([]string{"yaap"})
	require.NoError(t, err)
	qrels := metrics.Qrels{"ties": {"d1": 1, "d2": 0, "d3": 0}, "none": {"x": 1}}
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{
		"ties": {{"d1", 1}, {"d2", 1}, {"d3", 1}}, // d3 d2 d1: S = 1/3, R = 1
		"none": {{"w", 1}},                        // S = 0, R = 1
	}}
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms})
	require.NoError(t, err)
	assert.InDelta(t, math.Log((1+1.0/3)/(1+1-1.0/3)), queryValue(t, res, "ties", "yaap"), 1e-12)
	assert.InDelta(t, math.Log(1.0/2), queryValue(t, res, "none", "yaap"), 1e-12)
}
