package metrics_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// Relevance grades are read as trec_eval's atol reads them, or refused
// when atol would read something other than what the text says.
func TestGradesAreReadAsAtolReadsThemOrRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		grade string
		want  int    // when err is empty
		err   string // part of the error
	}{
		{name: "a plain integer is the grade", grade: "3", want: 3},
		{name: "a leading plus sign is read, as atol reads it", grade: "+2", want: 2},
		{name: "a negative grade is kept", grade: "-1", want: -1},
		{name: "a decimal keeps its integer part, as atol stops at the point", grade: "2.9", want: 2},
		{name: "a decimal with no integer part is 0, as atol reads no digit", grade: ".5", want: 0},
		{name: "an exponent is refused: atol reads 1e1 as 1, not 10", grade: "1e1", err: `relevance "1e1": number that trec_eval would read differently; trec_eval's atol would read it as 1`},
		{name: "a digit separator is refused: atol reads 1_000 as 1", grade: "1_000", err: `trec_eval's atol would read it as 1,`},
		{name: "trailing text is refused: atol reads 3abc as 3", grade: "3abc", err: `trec_eval's atol would read it as 3,`},
		{name: "hexadecimal is refused: atol reads 0x10 as 0", grade: "0x10", err: `trec_eval's atol would read it as 0,`},
		{name: "a word is not an integer", grade: "high", err: `relevance "high" is not an integer`},
		{name: "a grade beyond ±2^31-1 is refused", grade: "2147483648", err: "outside ±2147483647"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := metrics.ParseQrels(strings.NewReader("q1 0 d1 "+tt.grade+"\n"), "g.qrels")
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "g.qrels:1: ")
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, q["q1"]["d1"])
		})
	}
}

// Scores are read as trec_eval's atof reads them, or refused when atof
// would read only part of the text or Go would read it otherwise.
func TestScoresAreReadAsAtofReadsThemOrRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		score string
		want  float64
		err   string
	}{
		{name: "a decimal is the score", score: "97.25", want: 97.25},
		{name: "a leading plus sign is read", score: "+5", want: 5},
		{name: "an exponent is read as atof reads it", score: "1e1", want: 10},
		{name: "a point with no digits after it is read", score: "5.", want: 5},
		{name: "inf is read, as atof reads it", score: "-inf", want: math.Inf(-1)},
		{name: "a digit separator is refused: atof reads 1_000 as 1, Go as 1000", score: "1_000", err: `trec_eval's atof would read only "1" and ignore the rest`},
		{name: "a decimal comma is refused: atof reads 1,5 as 1", score: "1,5", err: `would read only "1"`},
		{name: "trailing text is refused", score: "3abc", err: `would read only "3"`},
		{name: "an exponent without digits is trailing text", score: "2e", err: `would read only "2"`},
		{name: "hexadecimal is refused: atof reads 0x10 as 16, Go refuses it", score: "0x10", err: "hexadecimal is not read"},
		{name: "nan is not a number", score: "nan", err: `score "nan" is not a number`},
		{name: "an overflow is refused, which atof turns into inf", score: "1e400", err: "beyond the range of a float64"},
		{name: "a word is not a number", score: "high", err: `score "high" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := metrics.ParseTRECRun(strings.NewReader("q1 Q0 d1 1 "+tt.score+" run\n"), "s.run")
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "s.run:1: ")
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Results["q1"][0].Score)
		})
	}
}

// Option values (-l, -M) are plain decimal integers: atol and Go's flag
// package disagree on everything else ("010" is 10 to atol, 8 to Go).
func TestTRECOptionIntegersArePlainDecimals(t *testing.T) {
	t.Parallel()
	for _, ok := range []struct {
		in   string
		want int
	}{{"2", 2}, {"+2", 2}, {"010", 10}, {"-1", -1}} {
		n, err := metrics.ParseTRECInt(ok.in)
		require.NoError(t, err, ok.in)
		assert.Equal(t, ok.want, n, ok.in)
	}
	for _, bad := range []struct{ in, err string }{
		{"2.5", `"2.5": number that trec_eval would read differently; trec_eval's atol would read it as 2`},
		{"1e3", "atol would read it as 1,"},
		{"0x2", "atol would read it as 0,"},
		{"1_0", "atol would read it as 1,"},
		{"x", `"x" is not an integer`},
		{"99999999999999999999", "out of range"},
	} {
		_, err := metrics.ParseTRECInt(bad.in)
		require.Error(t, err, bad.in)
		assert.Contains(t, err.Error(), bad.err)
		if strings.Contains(bad.err, "would read") {
			assert.ErrorIs(t, err, metrics.ErrTRECNumber)
		}
	}
}
