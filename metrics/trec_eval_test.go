package metrics_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// conformanceDir holds trec_eval 10.0's own output on a generated qrels/run
// pair. It lives in the shared folder beside the repository, which CI clones
// may lack.
const conformanceDir = "../../shared/conformance/trec"

// readmeMeasures returns the -m arguments of the trec_eval command in the
// conformance README, so the test follows the command that made the files.
func readmeMeasures(t *testing.T, dir string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	var specs []string
	for _, m := range regexp.MustCompile(`-m (\S+)`).FindAllStringSubmatch(string(readme), -1) {
		specs = append(specs, m[1])
	}
	require.NotEmpty(t, specs, "no -m arguments found in %s/README.md", dir)
	require.Contains(t, string(readme), "trec_eval -c -q", "the README's command changed; update this test")
	return specs
}

type lineKey struct{ measure, query string }

// parseTrecEvalOutput splits trec_eval output into (measure, query) → value
// text, failing on any line that is not in trec_eval's format.
func parseTrecEvalOutput(t *testing.T, name string, out []byte) (map[lineKey]string, []string) {
	t.Helper()
	values := map[lineKey]string{}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		fields := strings.Split(line, "\t")
		require.Len(t, fields, 3, "%s: line %q does not have three tab-separated fields", name, line)
		measure := strings.TrimRight(fields[0], " ")
		require.Equal(t, fmt.Sprintf("%-22s", measure), fields[0], "%s: measure name not padded to 22 columns in %q", name, line)
		key := lineKey{measure, fields[1]}
		require.NotContains(t, values, key, "%s: %v printed twice", name, key)
		values[key] = fields[2]
	}
	require.NoError(t, sc.Err())
	return values, lines
}

var (
	countValue = regexp.MustCompile(`^[0-9]+$`)
	floatValue = regexp.MustCompile(`^[0-9]\.[0-9]{4}$`)
)

func TestEvaluateTRECAgreesWithTrecEvalConformanceFiles(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("trec_eval reference files not available (%v)", err)
	}
	specs := readmeMeasures(t, conformanceDir)
	measures, err := metrics.ParseTRECMeasures(specs)
	require.NoError(t, err)

	qrelsFile, err := os.Open(filepath.Join(conformanceDir, "qrels"))
	require.NoError(t, err)
	defer qrelsFile.Close()
	qrels, err := metrics.ParseQrels(qrelsFile, "qrels")
	require.NoError(t, err)
	runFile, err := os.Open(filepath.Join(conformanceDir, "run"))
	require.NoError(t, err)
	defer runFile.Close()
	run, err := metrics.ParseTRECRun(runFile, "run")
	require.NoError(t, err)

	tests := []struct {
		name     string
		level    int
		expected string
	}{
		{"trec_eval -c -q at the default level", metrics.DefaultLevel, "expected.trec_eval"},
		{"trec_eval -c -q -l 2", 2, "expected.l2.trec_eval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(conformanceDir, tt.expected))
			require.NoError(t, err)
			res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: tt.level, Complete: true, Measures: measures})
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, res.Format(&got, true))

			wantValues, _ := parseTrecEvalOutput(t, tt.expected, want)
			gotValues, gotLines := parseTrecEvalOutput(t, "our output", got.Bytes())

			// As sets of (measure, query) with values to 4 decimals.
			for key, w := range wantValues {
				g, ok := gotValues[key]
				if assert.True(t, ok, "missing line for %v", key) {
					assert.Equal(t, w, g, "%s for query %s", key.measure, key.query)
				}
			}
			for key := range gotValues {
				assert.Contains(t, wantValues, key, "line %v is not in trec_eval's output", key)
			}
			// Byte format of each line: counts as integers, the rest %6.4f.
			for _, line := range gotLines {
				fields := strings.Split(line, "\t")
				if strings.HasPrefix(fields[0], "num_") {
					assert.Regexp(t, countValue, fields[2], "count line %q", line)
				} else {
					assert.Regexp(t, floatValue, fields[2], "float line %q", line)
				}
			}
			// And the whole output, order included, byte for byte.
			assert.Equal(t, string(want), got.String())
			t.Logf("compared %d lines of %s", len(wantValues), tt.expected)
		})
	}
}

// evaluateCases evaluates testdata/trec/cases.* with every measure.
// Without complete (-c) it reads cases-in-run.qrels, which lacks the query
// "missing": trec_eval 10.0 stops at a qrels query the run lacks.
func evaluateCases(t *testing.T, level int, complete bool) *metrics.TRECResult {
	t.Helper()
	name := "cases.qrels"
	if !complete {
		name = "cases-in-run.qrels"
	}
	qrels, err := metrics.ParseQrels(openTestdata(t, name), name)
	require.NoError(t, err)
	run, err := metrics.ParseTRECRun(openTestdata(t, "cases.run"), "cases.run")
	require.NoError(t, err)
	measures, err := metrics.ParseTRECMeasures([]string{
		"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank",
		"P.1,3,5,10", "recall.1,3,5,10", "ndcg", "ndcg_cut.1,3,5,10", "success", "set_P", "set_recall",
	})
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: level, Complete: complete, Measures: measures})
	require.NoError(t, err)
	return res
}

func queryValue(t *testing.T, res *metrics.TRECResult, query, measure string) float64 {
	t.Helper()
	if query == "all" {
		v, ok := res.Value(measure)
		require.True(t, ok, "no summary figure %s", measure)
		return v
	}
	for _, q := range res.Queries {
		if q.Query == query {
			v, ok := q.Value(measure)
			require.True(t, ok, "no figure %s for %s", measure, query)
			return v
		}
	}
	require.Failf(t, "query not evaluated", "%s", query)
	return 0
}

// Per-query figures of cases.*, worked out by hand.
var (
	// graded at level 1: ranking g3(1) g4(0) g1(3) g2(2); R = 4 (g5 unretrieved).
	gradedAP1 = (1.0/1 + 2.0/3 + 3.0/4) / 4
	// graded at level 2: relevant g1 g2 g5, R = 3; relevant at ranks 3 and 4.
	gradedAP2 = (1.0/3 + 2.0/4) / 3
	// DCG = 1/log2(2) + 0/log2(3) + 3/log2(4) + 2/log2(5); IDCG from grades 3 2 2 1.
	gradedNDCG = (1/log2(2) + 3/log2(4) + 2/log2(5)) / (3/log2(2) + 2/log2(3) + 2/log2(4) + 1/log2(5))
	// short: ranking a(1) c(0) b(1); R = 3 (z unretrieved).
	shortAP   = (1.0/1 + 2.0/3) / 3
	shortNDCG = (1/log2(2) + 1/log2(4)) / (1/log2(2) + 1/log2(3) + 1/log2(4))
	// ties: equal scores rank d3 d2 d1, so the one relevant d1 is at rank 3.
	tiesAP   = (1.0 / 3) / 1
	tiesNDCG = (1 / log2(4)) / 1
)

func TestEvaluateTRECMatchesHandComputedCases(t *testing.T) {
	t.Parallel()
	plain := evaluateCases(t, 1, false)
	complete := evaluateCases(t, 1, true)
	level2 := evaluateCases(t, 2, true)

	tests := []struct {
		name    string
		res     *metrics.TRECResult
		query   string
		measure string
		want    float64
	}{
		{"P@5 of a 3-document list divides by 5", plain, "short", "P_5", 2.0 / 5},
		{"P@10 of a 3-document list divides by 10", plain, "short", "P_10", 2.0 / 10},
		{"recall@10 of a short list is relevant retrieved over R", plain, "short", "recall_10", 2.0 / 3},
		{"AP of short counts the unretrieved z in R", plain, "short", "map", shortAP},
		{"Rprec of short looks at the first R = 3", plain, "short", "Rprec", 2.0 / 3},
		{"nDCG@10 of a short list", plain, "short", "ndcg_cut_10", shortNDCG},
		{"num_ret counts the retrieved documents", plain, "short", "num_ret", 3},

		{"no relevant retrieved gives AP 0", plain, "none", "map", 0},
		{"no relevant retrieved gives RR 0", plain, "none", "recip_rank", 0},
		{"no relevant retrieved gives nDCG 0", plain, "none", "ndcg", 0},
		{"no relevant retrieved still has R = 1", plain, "none", "num_rel", 1},
		{"set P over an unjudged and a non-relevant document is 0", plain, "none", "set_P", 0},

		{"tied scores rank by id descending, so RR is 1/3", plain, "ties", "recip_rank", 1.0 / 3},
		{"tied scores put the relevant d1 last, so P@1 is 0", plain, "ties", "P_1", 0},
		{"tied scores put the relevant d1 last, so success@1 is 0", plain, "ties", "success_1", 0},
		{"success@5 of ties finds d1 at rank 3", plain, "ties", "success_5", 1},
		{"AP of ties is P@3 over R = 1", plain, "ties", "map", tiesAP},
		{"nDCG of ties discounts d1 by log2(4)", plain, "ties", "ndcg", tiesNDCG},

		{"graded nDCG uses grades as linear gains", plain, "graded", "ndcg", gradedNDCG},
		{"graded nDCG@1 is grade 1 over ideal grade 3", plain, "graded", "ndcg_cut_1", 1.0 / 3},
		{"graded nDCG@3", plain, "graded", "ndcg_cut_3", (1/log2(2) + 3/log2(4)) / (3/log2(2) + 2/log2(3) + 2/log2(4))},
		{"graded AP at level 1", plain, "graded", "map", gradedAP1},
		{"graded P@3 at level 1", plain, "graded", "P_3", 2.0 / 3},
		{"graded recall@5 at level 1 is 3 of 4", plain, "graded", "recall_5", 3.0 / 4},

		{"-l 2 leaves graded with R = 3", level2, "graded", "num_rel", 3},
		{"-l 2 leaves g1 and g2 as the relevant retrieved", level2, "graded", "num_rel_ret", 2},
		{"-l 2 changes AP", level2, "graded", "map", gradedAP2},
		{"-l 2 changes RR to the rank of g1", level2, "graded", "recip_rank", 1.0 / 3},
		{"-l 2 changes P@3", level2, "graded", "P_3", 1.0 / 3},
		{"-l 2 changes success@1", level2, "graded", "success_1", 0},
		{"-l 2 does not change nDCG", level2, "graded", "ndcg", gradedNDCG},
		{"-l 2 does not change nDCG@3", level2, "graded", "ndcg_cut_3", (1/log2(2) + 3/log2(4)) / (3/log2(2) + 2/log2(3) + 2/log2(4))},
		{"-l 2 leaves short with nothing relevant", level2, "short", "num_rel", 0},
		{"-l 2 gives 0 when nothing is relevant", level2, "short", "map", 0},

		{"without -c, num_q counts queries in both files", plain, "all", "num_q", 4},
		{"without -c, num_ret sums 4 + 2 + 3 + 3", plain, "all", "num_ret", 12},
		{"without -c, num_rel sums 4 + 1 + 3 + 1", plain, "all", "num_rel", 9},
		{"without -c, num_rel_ret sums 3 + 0 + 2 + 1", plain, "all", "num_rel_ret", 6},
		{"without -c, map averages over 4 queries", plain, "all", "map", (gradedAP1 + 0 + shortAP + tiesAP) / 4},
		{"without -c, P@5 averages (3/5 + 0 + 2/5 + 1/5) / 4", plain, "all", "P_5", (3.0/5 + 0 + 2.0/5 + 1.0/5) / 4},
		{"without -c, nDCG averages over 4 queries", plain, "all", "ndcg", (gradedNDCG + 0 + shortNDCG + tiesNDCG) / 4},

		{"with -c, the missing query is evaluated with nothing retrieved", complete, "missing", "num_ret", 0},
		{"with -c, the missing query keeps its R", complete, "missing", "num_rel", 2},
		{"with -c, the missing query scores 0", complete, "missing", "map", 0},
		{"with -c, num_q counts every qrels query", complete, "all", "num_q", 5},
		{"with -c, map averages over 5 queries", complete, "all", "map", (gradedAP1 + 0 + 0 + shortAP + tiesAP) / 5},
		{"with -c, P@5 averages over 5 queries", complete, "all", "P_5", (3.0/5 + 0 + 0 + 2.0/5 + 1.0/5) / 5},
		{"with -c, num_rel counts grades above 0 in the qrels: 4 + 2 + 1 + 3 + 1", complete, "all", "num_rel", 11},

		{"with -c -l 2, map averages graded's AP over 5 queries", level2, "all", "map", gradedAP2 / 5},
		{"with -c -l 2, nDCG is the level-1 average", level2, "all", "ndcg", (gradedNDCG + 0 + 0 + shortNDCG + tiesNDCG) / 5},
		// Per query: graded 3 + missing 1 (m2) = 4, but trec_eval recounts
		// grades above 0 under -c whatever the level.
		{"with -c -l 2, num_rel for all ignores the level, as trec_eval does", level2, "all", "num_rel", 11},
		{"with -c -l 2, num_rel_ret for all is the sum", level2, "all", "num_rel_ret", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, queryValue(t, tt.res, tt.query, tt.measure), 1e-12)
		})
	}
}

func TestEvaluateTRECChoosesQueriesLikeTrecEval(t *testing.T) {
	t.Parallel()
	queries := func(res *metrics.TRECResult) []string {
		var qs []string
		for _, q := range res.Queries {
			qs = append(qs, q.Query)
		}
		return qs
	}
	assert.Equal(t, []string{"graded", "none", "short", "ties"}, queries(evaluateCases(t, 1, false)),
		"without -c: the qrels queries, sorted; extra (run only) left out")
	assert.Equal(t, []string{"graded", "missing", "none", "short", "ties"}, queries(evaluateCases(t, 1, true)),
		"with -c: every qrels query, sorted; extra still left out")
}

func TestEvaluateTRECStopsAtAQrelsQueryTheRunLacksLikeTrecEval10(t *testing.T) {
	t.Parallel()
	qrels := metrics.Qrels{"q1": {"d1": 1}, "q0": {"d1": 1}}
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{"q0": {{"d1", 1}}, "q2": {{"d1", 1}}}}
	_, err := metrics.EvaluateTREC(qrels, run, metrics.DefaultTRECOptions())
	require.ErrorIs(t, err, metrics.ErrQueryNotInRun)
	assert.Contains(t, err.Error(), `query "q1": the run has no results for a query of the qrels`)

	_, err = metrics.EvaluateTREC(metrics.Qrels{}, run, metrics.DefaultTRECOptions())
	assert.ErrorIs(t, err, metrics.ErrNoQueries, "empty qrels evaluate no query")

	opts := metrics.DefaultTRECOptions()
	opts.Complete = true
	res, err := metrics.EvaluateTREC(qrels, run, opts)
	require.NoError(t, err, "with -c the qrels query is evaluated even though the run lacks it")
	assert.Len(t, res.Queries, 2)
}

func TestEvaluateTRECChecksMeasuresGivenInCode(t *testing.T) {
	t.Parallel()
	qrels := metrics.Qrels{"q1": {"d1": 1}}
	run := &metrics.TRECRun{Results: map[string][]metrics.ScoredDoc{"q1": {{"d1", 1}}}}
	tests := []struct {
		name     string
		measures []metrics.TRECMeasure
		wantErr  string
	}{
		{"an unknown name is refused", []metrics.TRECMeasure{{Name: "bogus"}}, `unknown measure "bogus"`},
		{"gain parameters on a measure without them are refused", []metrics.TRECMeasure{{Name: "map", Params: "1=2"}}, "takes no parameters"},
		{"cutoffs on map are refused", []metrics.TRECMeasure{{Name: "map", Cutoffs: []int{5}}}, "takes no cutoffs"},
		{"a zero cutoff is refused", []metrics.TRECMeasure{{Name: "P", Cutoffs: []int{0}}}, "not positive"},
		{"a repeated cutoff is refused", []metrics.TRECMeasure{{Name: "P", Cutoffs: []int{5, 5}}}, "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: tt.measures})
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}

	t.Run("unsorted cutoffs are sorted and missing ones get defaults", func(t *testing.T) {
		t.Parallel()
		res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: 1, Measures: []metrics.TRECMeasure{
			{Name: "success"}, {Name: "P", Cutoffs: []int{3, 1}},
		}})
		require.NoError(t, err)
		var names []string
		for _, s := range res.Summary {
			names = append(names, s.Measure)
		}
		assert.Equal(t, []string{"P_1", "P_3", "success_1", "success_5", "success_10"}, names)
	})
}

func TestParseTRECMeasuresFollowsTrecEvalRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		specs []string
		want  []metrics.TRECMeasure
	}{
		{"no -m gives trec_eval's official set", nil, []metrics.TRECMeasure{
			{Name: "runid"}, {Name: "num_q"}, {Name: "num_ret"}, {Name: "num_rel"}, {Name: "num_rel_ret"},
			{Name: "map"}, {Name: "gm_map"}, {Name: "Rprec"}, {Name: "bpref"}, {Name: "recip_rank"},
			{Name: "iprec_at_recall"}, {Name: "P", Cutoffs: []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}},
		}},
		{"set names trec_eval's set measures", []string{"set"}, []metrics.TRECMeasure{
			{Name: "runid"}, {Name: "num_q"}, {Name: "num_ret"}, {Name: "num_rel"}, {Name: "num_rel_ret"},
			{Name: "utility"}, {Name: "set_P"}, {Name: "set_relative_P"}, {Name: "set_recall"}, {Name: "set_map"}, {Name: "set_F"},
		}},
		{"a cutoff is read as atol reads it", []string{"ndcg_cut.23.4"}, []metrics.TRECMeasure{{Name: "ndcg_cut", Cutoffs: []int{23}}}},
		{"number and gain parameters are kept as written", []string{"utility.2,-1,0,0", "ndcg.1=3,2=9"}, []metrics.TRECMeasure{
			{Name: "utility", Params: "2,-1,0,0"}, {Name: "ndcg", Params: "1=3,2=9"},
		}},
		{"official names the same set", []string{"official"}, metrics.DefaultTRECMeasures()},
		{"measures come back in trec_eval's order, cutoffs sorted", []string{"success.10,1", "map", "num_q"}, []metrics.TRECMeasure{
			{Name: "num_q"}, {Name: "map"}, {Name: "success", Cutoffs: []int{1, 10}},
		}},
		{"a measure named twice appears once", []string{"map", "map"}, []metrics.TRECMeasure{{Name: "map"}}},
		{"the first cutoff list wins, as in trec_eval", []string{"P.5", "P.10"}, []metrics.TRECMeasure{{Name: "P", Cutoffs: []int{5}}}},
		{"a bare name does not hide a later cutoff list", []string{"P", "P.5"}, []metrics.TRECMeasure{{Name: "P", Cutoffs: []int{5}}}},
		{"success defaults to 1, 5, 10", []string{"success"}, []metrics.TRECMeasure{{Name: "success", Cutoffs: []int{1, 5, 10}}}},
		{"ndcg_cut defaults to P's cutoffs", []string{"ndcg_cut"}, []metrics.TRECMeasure{{Name: "ndcg_cut", Cutoffs: []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}}}},
		{"set measures and ndcg take no cutoffs", []string{"set_recall", "ndcg", "set_P"}, []metrics.TRECMeasure{{Name: "ndcg"}, {Name: "set_P"}, {Name: "set_recall"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := metrics.ParseTRECMeasures(tt.specs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseTRECMeasuresRejectsBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spec    string
		wantErr string
	}{
		{"an unknown measure", "bogus", `unknown measure "bogus"`},
		{"a misspelt preference measure", "prefs_simple", `unknown measure "prefs_simple"`},
		{"utility with three coefficients", "utility.1,2,3", "utility takes 4 coefficients"},
		{"a gain that is not a pair", "ndcg.1,2", "not of the form name=number"},
		{"a recall share that is not a number", "iprec_at_recall.x", `parameter "x" is not a number`},
		{"cutoffs on a measure without cutoffs", "map.5", "map takes no parameters"},
		{"an empty parameter list", "P.", "empty parameter list"},
		{"a zero cutoff", "P.0,5", "cutoff 0 is not positive"},
		{"a negative cutoff", "recall.-3", "not positive"},
		{"a repeated cutoff", "P.5,10,5", "cutoff 5 given twice"},
		{"a cutoff that is not a number", "P.five", `cutoff "five" is not an integer`},
		{"parameters on the official nickname", "official.5", "takes no parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := metrics.ParseTRECMeasures([]string{tt.spec})
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestTRECScoreLineUsesTrecEvalFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		score metrics.TRECScore
		query string
		want  string
	}{
		{"a float has four decimals", metrics.TRECScore{Measure: "map", Value: 0.43741}, "q001", "map                   \tq001\t0.4374\n"},
		{"a quarter prints with trailing zeros", metrics.TRECScore{Measure: "P_5", Value: 0.25}, "all", "P_5                   \tall\t0.2500\n"},
		{"one is 1.0000", metrics.TRECScore{Measure: "recip_rank", Value: 1}, "q2", "recip_rank            \tq2\t1.0000\n"},
		{"a count is an integer", metrics.TRECScore{Measure: "num_rel_ret", Value: 94}, "all", "num_rel_ret           \tall\t94\n"},
		{"num_q is an integer", metrics.TRECScore{Measure: "num_q", Value: 25}, "all", "num_q                 \tall\t25\n"},
		{"runid prints the run id", metrics.TRECScore{Measure: "runid", Text: "randrun"}, "all", "runid                 \tall\trandrun\n"},
		{"a name longer than 22 columns is not cut", metrics.TRECScore{Measure: "ndcg_cut_100000000000000", Value: 0}, "q", "ndcg_cut_100000000000000\tq\t0.0000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.score.Line(tt.query))
		})
	}
}

func TestFormatPrintsQueriesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	res := evaluateCases(t, 1, false)
	var summary, full bytes.Buffer
	require.NoError(t, res.Format(&summary, false))
	require.NoError(t, res.Format(&full, true))
	assert.NotContains(t, summary.String(), "\tshort\t")
	assert.True(t, strings.HasPrefix(summary.String(), "runid                 \tall\thand\nnum_q                 \tall\t4\n"), summary.String())
	assert.True(t, strings.HasPrefix(full.String(), "num_ret               \tgraded\t4\n"), full.String())
	assert.True(t, strings.HasSuffix(full.String(), summary.String()), "the summary follows the per-query lines")
	assert.NotContains(t, full.String(), "num_q                 \tgraded", "num_q has no per-query line")
}

func ExampleEvaluateTREC() {
	qrels, _ := metrics.ParseQrels(strings.NewReader(`
q1 0 main.go 2
q1 0 util.go 1
q1 0 readme.md 0
q2 0 api.go 1
`), "qrels")
	run, _ := metrics.ParseTRECRun(strings.NewReader(`
q1 Q0 readme.md 1 9.0 agent
q1 Q0 main.go   2 8.0 agent
q2 Q0 api.go    1 1.0 agent
`), "run")

	opts := metrics.DefaultTRECOptions()
	opts.Measures, _ = metrics.ParseTRECMeasures([]string{"num_q", "map", "P.1,2", "ndcg_cut.2"})
	res, err := metrics.EvaluateTREC(qrels, run, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Format(os.Stdout, true)
	// Output:
	// map                   	q1	0.2500
	// P_1                   	q1	0.0000
	// P_2                   	q1	0.5000
	// ndcg_cut_2            	q1	0.4796
	// map                   	q2	1.0000
	// P_1                   	q2	1.0000
	// P_2                   	q2	0.5000
	// ndcg_cut_2            	q2	1.0000
	// num_q                 	all	2
	// map                   	all	0.6250
	// P_1                   	all	0.5000
	// P_2                   	all	0.5000
	// ndcg_cut_2            	all	0.7398
}
