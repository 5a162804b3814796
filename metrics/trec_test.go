package metrics_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

const trecTestdata = "../testdata/trec"

func openTestdata(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(trecTestdata, name))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestParseQrelsReadsJudgments(t *testing.T) {
	t.Parallel()
	qrels, err := metrics.ParseQrels(openTestdata(t, "cases.qrels"), "cases.qrels")
	require.NoError(t, err)
	assert.Len(t, qrels, 5)
	assert.Equal(t, metrics.Judgments{"g1": 3, "g2": 2, "g3": 1, "g4": 0, "g5": 2}, qrels["graded"])
	assert.Equal(t, metrics.Judgments{"x": 1, "y": 0}, qrels["none"])
}

func TestParseRunReadsResultsInFileOrder(t *testing.T) {
	t.Parallel()
	run, err := metrics.ParseTRECRun(openTestdata(t, "cases.run"), "cases.run")
	require.NoError(t, err)
	assert.Equal(t, "hand", run.ID)
	assert.Len(t, run.Results, 5)
	assert.Equal(t, []metrics.ScoredDoc{{"a", 3}, {"c", 2}, {"b", 1}}, run.Results["short"])
	assert.Nil(t, run.Ranking("absent"))
}

func TestParseAcceptsWhatTrecEvalAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		qrels string
		run   string
		check func(t *testing.T, q metrics.Qrels, r *metrics.TRECRun)
	}{
		{
			name:  "blank lines, comment lines, tabs and CRLF are skipped or split",
			qrels: "# judged by hand\n\nq1\t0\td1\t1\r\n   \nq1 0 d2 0",
			run:   "\n# comment\nq1 Q0 d1 1 0.5 r1\r\n",
			check: func(t *testing.T, q metrics.Qrels, r *metrics.TRECRun) {
				assert.Equal(t, metrics.Qrels{"q1": {"d1": 1, "d2": 0}}, q)
				assert.Equal(t, []metrics.ScoredDoc{{"d1", 0.5}}, r.Results["q1"])
			},
		},
		{
			name:  "fields after the run id are ignored",
			qrels: "q1 0 d1 1\n",
			run:   "q1 Q0 d1 1 0.5 r1 extra columns here\n",
			check: func(t *testing.T, q metrics.Qrels, r *metrics.TRECRun) {
				assert.Equal(t, "r1", r.ID)
			},
		},
		{
			name:  "the run id of the last line wins, as trec_eval keeps it",
			qrels: "q1 0 d1 1\n",
			run:   "q1 Q0 d1 1 0.5 first\nq1 Q0 d2 2 0.4 last\n",
			check: func(t *testing.T, q metrics.Qrels, r *metrics.TRECRun) {
				assert.Equal(t, "last", r.ID)
			},
		},
		{
			name:  "decimal grades are truncated toward zero like atol",
			qrels: "q1 0 d1 1.0\nq1 0 d2 2.7\nq1 0 d3 -1\nq1 0 d4 -0.5\n",
			run:   "q1 Q0 d1 1 1e2 r\n",
			check: func(t *testing.T, q metrics.Qrels, r *metrics.TRECRun) {
				assert.Equal(t, metrics.Judgments{"d1": 1, "d2": 2, "d3": -1, "d4": 0}, q["q1"])
				assert.Equal(t, 100.0, r.Results["q1"][0].Score)
			},
		},
		{
			name:  "the same document may appear under different queries",
			qrels: "q1 0 d1 1\nq2 0 d1 0\n",
			run:   "q1 Q0 d1 1 1 r\nq2 Q0 d1 1 1 r\n",
			check: func(t *testing.T, q metrics.Qrels, r *metrics.TRECRun) {
				assert.Len(t, q, 2)
				assert.Len(t, r.Results, 2)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := metrics.ParseQrels(strings.NewReader(tt.qrels), "q")
			require.NoError(t, err)
			r, err := metrics.ParseTRECRun(strings.NewReader(tt.run), "r")
			require.NoError(t, err)
			tt.check(t, q, r)
		})
	}
}

func TestParseRejectsBadLinesNamingFileAndLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		parse   func(t *testing.T) error
		target  error
		message string
	}{
		{
			name: "a qrels line with three fields",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(openTestdata(t, "malformed.qrels"), "malformed.qrels")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "malformed.qrels:2: malformed line: want 4 fields (query iteration document relevance), got 3",
		},
		{
			name: "a qrels line with five fields",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(strings.NewReader("q 0 d 1 x\n"), "five.qrels")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "five.qrels:1: malformed line: want 4 fields",
		},
		{
			name: "a relevance that is not a number",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(strings.NewReader("q 0 d 1\nq 0 e high\n"), "words.qrels")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: `words.qrels:2: malformed line: relevance "high" is not an integer`,
		},
		{
			name: "a relevance written as an integer beyond the range of a grade",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(strings.NewReader("q 0 d 1\nq 0 e 9223372036854775807\n"), "huge.qrels")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "huge.qrels:2: malformed line: relevance 9223372036854775807 is outside ±2147483647",
		},
		{
			name: "a negative relevance beyond the range of a grade",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(strings.NewReader("q 0 e -3000000000\n"), "negative.qrels")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "negative.qrels:1: malformed line: relevance -3000000000 is outside ±2147483647",
		},
		{
			name: "a relevance too large for any integer",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(strings.NewReader("q 0 e 99999999999999999999999\n"), "overflow.qrels")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "overflow.qrels:1: malformed line: relevance 99999999999999999999999 is outside ±2147483647",
		},
		{
			name: "a document judged twice for one query",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseQrels(strings.NewReader("q 0 d 1\nq 0 e 0\nq 1 d 2\n"), "twice.qrels")
				return err
			},
			target:  metrics.ErrDuplicateDocument,
			message: `twice.qrels:3: duplicate document "d" for query "q" (first judged on line 1)`,
		},
		{
			name: "a run score that is not a number",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseTRECRun(openTestdata(t, "malformed.run"), "malformed.run")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: `malformed.run:2: malformed line: score "high" is not a number`,
		},
		{
			name: "a NaN score, which cannot be ranked",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseTRECRun(strings.NewReader("q Q0 d 1 NaN r\n"), "nan.run")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: `nan.run:1: malformed line: score "NaN" is not a number`,
		},
		{
			name: "a run score beyond the range of a float64",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseTRECRun(strings.NewReader("q Q0 d 1 -1e400 r\n"), "huge.run")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "huge.run:1: malformed line: score -1e400 is beyond the range of a float64",
		},
		{
			name: "a run line with five fields",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseTRECRun(strings.NewReader("q Q0 d 1 0.5\n"), "short.run")
				return err
			},
			target:  metrics.ErrMalformedLine,
			message: "short.run:1: malformed line: want 6 fields",
		},
		{
			name: "a document listed twice for one query of a run",
			parse: func(t *testing.T) error {
				_, err := metrics.ParseTRECRun(openTestdata(t, "duplicate.run"), "duplicate.run")
				return err
			},
			target:  metrics.ErrDuplicateDocument,
			message: `duplicate.run:3: duplicate document "d1" for query "q1" (first listed on line 1)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse(t)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.target)
			var pe *metrics.ParseError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

func TestParseTRECRunFindsARepeatWhereverItsQueryComesBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, run, message string
	}{
		{"in the query's first stretch of lines", "q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\nq1 Q0 a 3 1 r\n",
			`r.run:3: duplicate document "a" for query "q1" (first listed on line 1)`},
		{"after other queries' lines", "q1 Q0 a 1 1 r\nq2 Q0 a 1 1 r\nq2 Q0 b 2 1 r\nq1 Q0 c 2 1 r\nq2 Q0 c 3 1 r\nq1 Q0 a 3 1 r\n",
			`r.run:6: duplicate document "a" for query "q1" (first listed on line 1)`},
		{"in a later stretch, of a document of that stretch", "q1 Q0 a 1 1 r\nq2 Q0 x 1 1 r\nq1 Q0 b 2 1 r\n# a comment\nq1 Q0 b 3 1 r\n",
			`r.run:5: duplicate document "b" for query "q1" (first listed on line 3)`},
		{"before a malformed line", "q1 Q0 a 1 1 r\nq1 Q0 a 2 1 r\nq1 Q0 b 3\n",
			`r.run:2: duplicate document "a" for query "q1" (first listed on line 1)`},
		{"not before a malformed line", "q1 Q0 a 1 1 r\nq1 Q0 b 3\nq1 Q0 a 2 1 r\n",
			`r.run:2: malformed line: want 6 fields`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := metrics.ParseTRECRun(strings.NewReader(tt.run), "r.run")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

func TestParseTRECRunKeepsEachQuerysDocumentsInFileOrder(t *testing.T) {
	t.Parallel()
	run, err := metrics.ParseTRECRun(strings.NewReader("q1 Q0 a 1 3 r1\nq2 Q0 a 1 2 r1\n\n\tq1  Q0\vb 2 1.5 r2 extra\nq2 Q0 c 2 -inf r3\n"), "r.run")
	require.NoError(t, err)
	assert.Equal(t, map[string][]metrics.ScoredDoc{
		"q1": {{Doc: "a", Score: 3}, {Doc: "b", Score: 1.5}},
		"q2": {{Doc: "a", Score: 2}, {Doc: "c", Score: math.Inf(-1)}},
	}, run.Results)
	assert.Equal(t, "r3", run.ID, "the last line's run id")
}

func TestParseReportsReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	_, err := metrics.ParseQrels(iotest.ErrReader(boom), "q")
	assert.ErrorIs(t, err, boom)
	_, err = metrics.ParseTRECRun(iotest.ErrReader(boom), "r")
	assert.ErrorIs(t, err, boom)
}

func TestParseReadsVeryLongLines(t *testing.T) {
	t.Parallel()
	doc := strings.Repeat("x", 1<<20)
	run, err := metrics.ParseTRECRun(strings.NewReader("q Q0 "+doc+" 1 1 r\n"), "long.run")
	require.NoError(t, err)
	assert.Equal(t, doc, run.Results["q"][0].Doc)
}

func TestRankByScoreFollowsTrecEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		docs []metrics.ScoredDoc
		want []string
	}{
		{"higher scores rank first", []metrics.ScoredDoc{{"a", 1}, {"b", 3}, {"c", 2}}, []string{"b", "c", "a"}},
		{"equal scores rank by document id descending", []metrics.ScoredDoc{{"d1", 2.5}, {"d2", 2.5}, {"d3", 2.5}}, []string{"d3", "d2", "d1"}},
		{"ids compare byte-wise, so upper case sorts below lower case", []metrics.ScoredDoc{{"B", 1}, {"a", 1}, {"b10", 1}, {"b9", 1}}, []string{"b9", "b10", "a", "B"}},
		{"ties break within their score only", []metrics.ScoredDoc{{"a", 2}, {"z", 1}, {"b", 2}}, []string{"b", "a", "z"}},
		{"negative scores rank below zero", []metrics.ScoredDoc{{"n", -1}, {"z", 0}}, []string{"z", "n"}},
		{"nothing retrieved gives no ranking", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, metrics.RankByScore(tt.docs))
		})
	}
}

func TestRankingIgnoresTheRankColumn(t *testing.T) {
	t.Parallel()
	run, err := metrics.ParseTRECRun(openTestdata(t, "cases.run"), "cases.run")
	require.NoError(t, err)
	// ties lists d1 d2 d3 with ranks 1 2 3, all scored 2.5.
	assert.Equal(t, []string{"d3", "d2", "d1"}, run.Ranking("ties"))
}
