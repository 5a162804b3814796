package metrics_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// testdata/trec/cases.prefs and cases-prefs.run, worked out by hand
// (trec_eval prints the same, testdata/trec/trec_eval/prefs.q). Docid
// ranks number the judged documents retrieved first, in ranking order,
// then those not retrieved.
//
// q1, one subgroup (equivalence classes): ranking a b c x, levels a 0, b
// 2, c 1, d 1 (d not retrieved). Ranks a0 b1 c2 d3. b>c fulfilled
// (retrieved), b>d fulfilled (implied), b>a, c>a not fulfilled, d>a not
// fulfilled (implied): fulRet 1, fulImp 1, possRet 3, possImp 2.
// R = 3 (b c d), N = 1 (a), R ≥ N: Rnonrel adds the R − N = 2 missing
// non-relevant documents: (2 + 2·2) / (5 + 3·2); _ret: (1 + 2·1) / (3 + 3·1).
//
// q2, two subgroups (a preference array): a>b and b>c imply a>c. Ranking
// c a b: a>b fulfilled, b>c and a>c not: 1 of 3, where 1 of 2 would show
// the implied preference was dropped. Rnonrel: R 2, N 1: (1 + 2·1) / (3 + 2·1).
//
// q3, N > R: a 1; b, c, d 0; ranking a b c. All 3 preferences hold, but
// Rnonrel counts again with the first R = 1 non-relevant document (b):
// a>b fulfilled, and, as trec_eval does, the non-relevant class against b
// too (b, c, d: 3 failures): 1 / 4; _ret over retrieved b, c: 1 / 3.
func TestPreferenceMeasuresMatchHandCounts(t *testing.T) {
	t.Parallel()
	prefs, err := metrics.ParsePrefs(openTestdata(t, "cases.prefs"), "cases.prefs")
	require.NoError(t, err)
	run, err := metrics.ParseTRECRun(openTestdata(t, "cases-prefs.run"), "cases-prefs.run")
	require.NoError(t, err)
	ms, err := metrics.ParseTRECMeasures([]string{"all_prefs"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Measures: ms, Prefs: prefs})
	require.NoError(t, err)

	want := map[string]map[string]float64{
		"q1": {
			"prefs_num_prefs_poss": 5, "prefs_num_prefs_ful": 2, "prefs_num_prefs_ful_ret": 1,
			"prefs_simp": 2.0 / 5, "prefs_simp_ret": 1.0 / 3, "prefs_simp_imp": 2.0 / 5,
			// Pairs {a,b} 0, {a,c} 0, {b,c} 1, {a,d} 0, {b,d} 1.
			"prefs_pair": 2.0 / 5, "prefs_pair_ret": 1.0 / 3, "prefs_pair_imp": 2.0 / 5,
			"prefs_avgjg": 2.0 / 5, "prefs_avgjg_ret": 1.0 / 3, "prefs_avgjg_imp": 2.0 / 5,
			"prefs_avgjg_Rnonrel": 6.0 / 11, "prefs_avgjg_Rnonrel_ret": 3.0 / 6,
		},
		"q2":  {"prefs_num_prefs_poss": 3, "prefs_num_prefs_ful": 1, "prefs_simp": 1.0 / 3, "prefs_avgjg_Rnonrel": 3.0 / 5},
		"q3":  {"prefs_simp": 1, "prefs_avgjg_Rnonrel": 1.0 / 4, "prefs_avgjg_Rnonrel_ret": 1.0 / 3},
		"all": {"num_q": 3, "prefs_num_prefs_poss": 11, "prefs_simp": (2.0/5 + 1.0/3 + 1) / 3},
	}
	for query, figures := range want {
		for measure, w := range figures {
			assert.InDelta(t, w, queryValue(t, res, query, measure), 1e-12, "%s %s", query, measure)
		}
	}
}

func TestQrelsReadAsPreferences(t *testing.T) {
	t.Parallel()
	// One group (the iteration field), one subgroup: grade 2 > 1 > 0.
	prefs, err := metrics.ParseQrelsPrefs(strings.NewReader("q 0 a 2\nq 0 b 1\nq 0 c 0\n"), "q")
	require.NoError(t, err)
	assert.Equal(t, metrics.Prefs{"q": {{Group: "0", Subgroup: "0", Doc: "a", Level: 2}, {Group: "0", Subgroup: "0", Doc: "b", Level: 1}, {Group: "0", Subgroup: "0", Doc: "c", Level: 0}}}, prefs)
	// Equal scores: trec_eval's preference code ranks them by id
	// ascending, a b c, so a>b, a>c and b>c all hold. (RankByScore, the
	// order of every other measure, would give c b a, and none.)
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{"q": {{"b", 1}, {"a", 1}, {"c", 1}}}}
	ms, err := metrics.ParseTRECMeasures([]string{"prefs_simp", "prefs_num_prefs_poss"})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Measures: ms, Prefs: prefs})
	require.NoError(t, err)
	assert.Equal(t, 1.0, queryValue(t, res, "q", "prefs_simp"))
	assert.Equal(t, 3.0, queryValue(t, res, "q", "prefs_num_prefs_poss"))
}

func TestPreferencesAreCheckedForConsistency(t *testing.T) {
	t.Parallel()
	ms, err := metrics.ParseTRECMeasures([]string{"prefs"})
	require.NoError(t, err)
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{"q": {{"a", 2}, {"b", 1}}}}
	for _, tt := range []struct{ prefs, err string }{
		{"q u s1 a 2\nq u s1 b 1\nq u s2 b 2\nq u s2 a 1\n", `query "q": inconsistent preferences: judgment group "u" prefers two documents to each other`},
		{"q u s1 a 1\nq u s1 b 0\nq u s2 a 0\nq u s2 b 1\n", `judgment group "u" gives document "b" both level 0 and a level above 0`},
		{"q u s1 a 1\nq u s1 a 2\n", `judgment group "u" gives one document two levels in one subgroup`},
	} {
		prefs, err := metrics.ParsePrefs(strings.NewReader(tt.prefs), "p")
		require.NoError(t, err)
		_, err = metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Measures: ms, Prefs: prefs})
		assert.ErrorIs(t, err, metrics.ErrInconsistentPrefs)
		assert.ErrorContains(t, err, tt.err)
	}
	_, err = metrics.ParsePrefs(strings.NewReader("q u a 1\n"), "p")
	assert.ErrorContains(t, err, "p:1: malformed line: want 5 fields (query group subgroup document level), got 4")
	_, err = metrics.ParsePrefs(strings.NewReader("q u s a 1_0\n"), "p")
	assert.ErrorIs(t, err, metrics.ErrTRECNumber)
	qrels := metrics.Qrels{"q": {"a": 1}}
	_, err = metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: ms})
	assert.ErrorContains(t, err, `measure "prefs_num_prefs_poss" needs preference judgments (trec_eval -R prefs or -R qrels_prefs)`)
}

func TestParseTRECRelevanceReadsEachFormatOfR(t *testing.T) {
	t.Parallel()
	rel, err := metrics.ParseTRECRelevance(strings.NewReader("q1 0 d1 1\n"), "q.qrels", "qrels")
	require.NoError(t, err)
	assert.Equal(t, 1, rel.Qrels["q1"]["d1"])
	rel, err = metrics.ParseTRECRelevance(strings.NewReader("q1 judge d1 1\n"), "q.jg", "qrels_jg")
	require.NoError(t, err)
	assert.Len(t, rel.Groups["q1"], 1)
	assert.Nil(t, rel.Qrels)
	_, err = metrics.ParseTRECRelevance(strings.NewReader(""), "q", "trec")
	assert.ErrorContains(t, err, `unknown relevance format "trec"; want qrels, qrels_jg, prefs, qrels_prefs`)
}
