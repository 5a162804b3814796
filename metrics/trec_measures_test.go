package metrics_test

import (
	"testing"

	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One query, worked by hand. Judgments: a=2, b=0, c=1, e=1 (not
// retrieved), d=-1 (pooled, unjudged). The run ranks a, x (not in the
// qrels), b, d, c, so the grades by rank are 2, none, 0, unjudged, 1:
// R = 3 (a, c, e), 2 relevant retrieved (ranks 1 and 5), 5 retrieved.
func handQuery(t *testing.T, measures ...metrics.TRECMeasure) *metrics.TRECResult {
	t.Helper()
	qrels := metrics.Qrels{"q": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 1}}
	run := &metrics.TRECRun{ID: "r", Results: map[string][]metrics.ScoredDoc{"q": {
		{"a", 5}, {"x", 4}, {"b", 3}, {"d", 2}, {"c", 1},
	}}}
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: measures})
	require.NoError(t, err)
	return res
}

func TestEvaluateTRECComputesTrecEvalMeasuresByHand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		measure metrics.TRECMeasure
		figure  string
		want    float64
	}{
		// AP = (1/1 + 2/5) / 3; one query, so the geometric mean is AP.
		{"gm_map of one query is its AP", metrics.TRECMeasure{Name: "gm_map"}, "gm_map", 1.4 / 3},
		// One judged non-relevant (b): a is above it (1), c below it
		// (1 - min(1,3)/min(1,3) = 0); (1 + 0) / 3.
		{"bpref skips documents without a judgment", metrics.TRECMeasure{Name: "bpref"}, "bpref", 1.0 / 3},
		// a at rank 1 adds 1; c at index j=4 with 1 relevant, 1 judged
		// non-relevant and 1 unjudged above: 1/5 + 4/5 · 3/4 ·
		// (1+ε)/(2+2ε) = 0.5; (1 + 0.5) / 3.
		{"infAP", metrics.TRECMeasure{Name: "infAP"}, "infAP", 0.5},
		// Share 0 → 0 relevant: best precision anywhere, 1.
		{"iprec_at_recall at 0", metrics.TRECMeasure{Name: "iprec_at_recall"}, "iprec_at_recall_0.00", 1},
		// Share 0.5 → round(1.5) = 2 relevant, reached at rank 5: 2/5.
		{"iprec_at_recall at 0.5", metrics.TRECMeasure{Name: "iprec_at_recall"}, "iprec_at_recall_0.50", 0.4},
		// Share 1 → 3 relevant, never reached: 0.
		{"iprec_at_recall at 1", metrics.TRECMeasure{Name: "iprec_at_recall"}, "iprec_at_recall_1.00", 0},
		// 0.2·3 + 0.9 → rank 1: P@1 = 1.
		{"Rprec_mult at 0.2", metrics.TRECMeasure{Name: "Rprec_mult"}, "Rprec_mult_0.20", 1},
		// 1·3 + 0.9 → rank 3: P@3 = 1/3.
		{"Rprec_mult at 1", metrics.TRECMeasure{Name: "Rprec_mult"}, "Rprec_mult_1.00", 1.0 / 3},
		// 2·3 + 0.9 → rank 6, beyond the 5 retrieved: 2/6.
		{"Rprec_mult past the ranking", metrics.TRECMeasure{Name: "Rprec_mult"}, "Rprec_mult_2.00", 2.0 / 6},
		// 1·2 − 1·3 + 0·1 + 0 = −1.
		{"utility at its default coefficients", metrics.TRECMeasure{Name: "utility"}, "utility", -1},
		// 2·2 − 1·3 = 1.
		{"utility with coefficients", metrics.TRECMeasure{Name: "utility", Params: "2,-1,0,0"}, "utility_2,-1,0,0", 1},
		// Interpolated precision at shares 0, 0.5, 1: (1 + 0.4 + 0) / 3.
		{"11pt_avg over given shares", metrics.TRECMeasure{Name: "11pt_avg", Params: "0,.5,1"}, "11pt_avg_0,.5,1", 1.4 / 3},
		// 1/log2(2+0) + 1/log2(2+3 non-relevant above c) = 1 + 0.430677; / 3.
		{"binG", metrics.TRECMeasure{Name: "binG"}, "binG", 1.430677 / 3},
		// Gains 2,0,0,0,1 with costs 2,1,1,1,1 (ideal 2,1,1 then the
		// floor 1): 2/log2(2+2−2) + 1/log2(2+6−3) = 2.430677 over the
		// ideal total 2+1+1 = 4.
		{"G", metrics.TRECMeasure{Name: "G"}, "G", 2.430677 / 4},
		// 2/log2(2) + 1/log2(6) = 2.386853.
		{"dcg", metrics.TRECMeasure{Name: "dcg"}, "dcg", 2.386853},
		// Ideal 2, 1, 1: 2 + 1/log2(3) + 1/log2(4) = 3.130930.
		{"ideal_dcg", metrics.TRECMeasure{Name: "ideal_dcg"}, "ideal_dcg", 3.130930},
		// Grade 1 gains 3: dcg 2 + 3/log2(6) = 3.160558; ideal 3, 3, 2:
		// 3 + 3/log2(3) + 2/2 = 5.892789.
		{"ndcg with a gain parameter", metrics.TRECMeasure{Name: "ndcg", Params: "1=3"}, "ndcg_1=3", 3.160558 / 5.892789},
		// nDCG at the relevant ranks 1 (2/2) and 5 (2.386853/3.130930),
		// and at the end for the one missed (same): (1 + 2·0.762343) / 3.
		{"ndcg_rel", metrics.TRECMeasure{Name: "ndcg_rel"}, "ndcg_rel", (1 + 2*2.386853/3.130930) / 3},
		// The ideal gain changes after rank 1 (nDCG 2/2) and rank 3 (2 over
		// 3.130930), plus the end of the ranking (2.386853/3.130930).
		{"Rndcg", metrics.TRECMeasure{Name: "Rndcg"}, "Rndcg", (1 + 2/3.130930 + 2.386853/3.130930) / 3},
		// First 2 ranks: a at 1 adds 1/1; / R.
		{"map_cut at 2", metrics.TRECMeasure{Name: "map_cut", Cutoffs: []int{2}}, "map_cut_2", 1.0 / 3},
		// 1 relevant in the top 2 over min(2, 3).
		{"relative_P at 2", metrics.TRECMeasure{Name: "relative_P", Cutoffs: []int{2}}, "relative_P_2", 0.5},
		// 2 relevant in the top 5 over min(5, 3).
		{"relative_P at 5", metrics.TRECMeasure{Name: "relative_P", Cutoffs: []int{5}}, "relative_P_5", 2.0 / 3},
		// 2 / min(5, 3).
		{"set_relative_P", metrics.TRECMeasure{Name: "set_relative_P"}, "set_relative_P", 2.0 / 3},
		// 2² / (5 · 3).
		{"set_map", metrics.TRECMeasure{Name: "set_map"}, "set_map", 4.0 / 15},
		// P = 0.4, R = 2/3: 2·P·R / (P + R) = 0.5.
		{"set_F", metrics.TRECMeasure{Name: "set_F"}, "set_F", 0.5},
		// 5 retrieved − 1 not pooled − 1 unjudged − 2 relevant.
		{"num_nonrel_judged_ret", metrics.TRECMeasure{Name: "num_nonrel_judged_ret"}, "num_nonrel_judged_ret", 1},
		// Gains 0..2 rescaled to 0..1: grade 2 → 1 at rank 1, grade 1 →
		// 0.5 at rank 5: 0.1 · (1 + 0.5 · 0.9⁴).
		{"rbp", metrics.TRECMeasure{Name: "rbp"}, "rbp", 0.1 * (1 + 0.5*0.6561)},
		// Unjudged at ranks 2 and 4: 0.9⁵ + 0.1 · (0.9 + 0.9³).
		{"rbp_resid", metrics.TRECMeasure{Name: "rbp_resid"}, "rbp_resid", 0.59049 + 0.1*(0.9+0.729)},
		// x in the top 2; x and d in the top 5; 2 of 10 past the end.
		{"unj at 2", metrics.TRECMeasure{Name: "unj", Cutoffs: []int{2, 5, 10}}, "unj_2", 0.5},
		{"unj at 5", metrics.TRECMeasure{Name: "unj", Cutoffs: []int{2, 5, 10}}, "unj_5", 0.4},
		{"unj past the ranking", metrics.TRECMeasure{Name: "unj", Cutoffs: []int{2, 5, 10}}, "unj_10", 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := handQuery(t, tt.measure)
			got, ok := res.Value(tt.figure)
			require.True(t, ok, "no figure %s in %v", tt.figure, res.Summary)
			assert.InDelta(t, tt.want, got, 5e-6)
		})
	}
}

func TestRelstringShowsGradesByRank(t *testing.T) {
	t.Parallel()
	res := handQuery(t, metrics.TRECMeasure{Name: "relstring"}, metrics.TRECMeasure{Name: "map"})
	var b, all []string
	for _, s := range res.Queries[0].Scores {
		b = append(b, s.Line("q"))
	}
	for _, s := range res.Summary {
		all = append(all, s.Measure)
	}
	assert.Contains(t, b, "relstring             \tq\t'2-0.1'\n")
	assert.Equal(t, []string{"map"}, all, "relstring has no summary line")
}

func TestMaxDocsCutsEachRanking(t *testing.T) {
	t.Parallel()
	qrels := metrics.Qrels{"q": {"a": 1, "c": 1}}
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{"q": {{"a", 3}, {"b", 2}, {"c", 1}}}}
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, MaxDocs: 2,
		Measures: []metrics.TRECMeasure{{Name: "num_ret"}, {Name: "num_rel_ret"}}})
	require.NoError(t, err)
	n, _ := res.Value("num_ret")
	rr, _ := res.Value("num_rel_ret")
	assert.Equal(t, []float64{2, 1}, []float64{n, rr}, "only a and b count")
}

// utility with -N: short ranks a(1) c(0) b(1) against R = 3 (z not
// retrieved) in a collection of 50: relevant retrieved 2, non-relevant
// retrieved 1, relevant missed 1, non-relevant not retrieved 50 + 2 − 3 −
// 3 = 46.
func TestUtilityCountsTheCollectionSize(t *testing.T) {
	t.Parallel()
	qrels := metrics.Qrels{"short": {"a": 1, "b": 1, "c": 0, "z": 1}}
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{"short": {{"a", 3}, {"c", 2}, {"b", 1}}}}
	ms, err := metrics.ParseTRECMeasures([]string{"utility.1,-1,0.5,0.25"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms, NumDocs: 50})
	require.NoError(t, err)
	v, ok := res.Value("utility_1,-1,0.5,0.25")
	require.True(t, ok)
	assert.InDelta(t, 1*2-1*1+0.5*1+0.25*46, v, 1e-12)
}
