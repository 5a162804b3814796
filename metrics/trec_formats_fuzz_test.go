package metrics_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// FuzzTRECNumbers checks that a relevance or score the parsers accept is
// the number both C's atol/atof and Go's strconv read from it: a grade
// equals the integer part of the text, a score equals strconv's reading.
func FuzzTRECNumbers(f *testing.F) {
	for _, s := range []string{"1", "+2", "-3", "2.7", ".5", "1e1", "1_000", "0x10", "inf", "nan", "3abc", "1,5", "5.", "-0", "1e400", "1e-400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, " \t\n\v\f\r#") || s == "" {
			return // not one field
		}
		qrels, err := metrics.ParseQrels(strings.NewReader("q 0 d "+s+"\n"), "n")
		if err == nil {
			whole, _, _ := strings.Cut(s, ".")
			want := 0
			if strings.Trim(whole, "+-") != "" {
				n, err := strconv.Atoi(whole)
				if err != nil {
					t.Fatalf("grade %q accepted, but its integer part %q is not an integer", s, whole)
				}
				want = n
			}
			if qrels["q"]["d"] != want {
				t.Fatalf("grade %q read as %d, want %d", s, qrels["q"]["d"], want)
			}
		} else if !errors.Is(err, metrics.ErrMalformedLine) {
			t.Fatalf("grade %q: error %v is not a malformed line", s, err)
		}
		run, err := metrics.ParseTRECRun(strings.NewReader("q Q0 d 1 "+s+" r\n"), "n")
		if err != nil {
			return
		}
		want, perr := strconv.ParseFloat(s, 64)
		if perr != nil && !math.IsInf(want, 0) && want != 0 {
			t.Fatalf("score %q accepted, but strconv refuses it: %v", s, perr)
		}
		if got := run.Results["q"][0].Score; got != want || strings.Contains(s, "_") {
			t.Fatalf("score %q read as %v, strconv reads %v", s, got, want)
		}
	})
}

// FuzzParsePrefs checks that preferences never make a parser or
// EvaluateTREC panic, and that every preference ratio lies in [0, 1].
func FuzzParsePrefs(f *testing.F) {
	f.Add("q u s a 2\nq u s b 1\nq u t b 1\nq u t c 0\n", "q Q0 c 1 3 r\nq Q0 a 2 2 r\n")
	f.Add("q u s a 1\nq u s b 0\nq u s c 0\nq v s a 0\n", "q Q0 b 1 1 r\nq Q0 a 2 1 r\n")
	f.Add("q u s a 2\nq u s b 1\nq u t b 2\nq u t a 1\n", "q Q0 a 1 1 r\n")
	f.Fuzz(func(t *testing.T, prefsText, runText string) {
		run, err := metrics.ParseTRECRun(strings.NewReader(runText), "fuzz.run")
		if err != nil {
			return
		}
		ms, _ := metrics.ParseTRECMeasures([]string{"all_prefs"})
		for _, parse := range []func() (metrics.Prefs, error){
			func() (metrics.Prefs, error) { return metrics.ParsePrefs(strings.NewReader(prefsText), "fuzz.prefs") },
			func() (metrics.Prefs, error) {
				return metrics.ParseQrelsPrefs(strings.NewReader(prefsText), "fuzz.prefs")
			},
		} {
			prefs, err := parse()
			if err != nil {
				checkParseError(t, err, "fuzz.prefs")
				continue
			}
			if len(prefs) == 0 {
				continue
			}
			res, err := metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Complete: true, Measures: ms, Prefs: prefs})
			if err != nil {
				if !errors.Is(err, metrics.ErrInconsistentPrefs) {
					t.Fatalf("EvaluateTREC: %v", err)
				}
				continue
			}
			for _, q := range res.Queries {
				for _, s := range q.Scores {
					if !strings.Contains(s.Measure, "num_prefs") && (s.Value < 0 || s.Value > 1 || math.IsNaN(s.Value)) {
						t.Fatalf("%s of %s is %v", s.Measure, q.Query, s.Value)
					}
				}
			}
		}
	})
}

// FuzzParseQrelsJG checks that judgment groups never make the parser or
// EvaluateTREC panic, and that the group measures lie in [0, 1].
func FuzzParseQrelsJG(f *testing.F) {
	f.Add("q j1 a 1\nq j2 a 0\nq j2 b 2\n", "q Q0 a 1 2 r\nq Q0 b 2 1 r\n")
	f.Fuzz(func(t *testing.T, qrelsText, runText string) {
		run, err := metrics.ParseTRECRun(strings.NewReader(runText), "fuzz.run")
		if err != nil {
			return
		}
		groups, err := metrics.ParseQrelsJG(strings.NewReader(qrelsText), "fuzz.qrels")
		if err != nil {
			checkParseError(t, err, "fuzz.qrels")
			return
		}
		if len(groups) == 0 {
			return
		}
		ms, _ := metrics.ParseTRECMeasures([]string{"qrels_jg"})
		res, err := metrics.EvaluateTREC(nil, run, metrics.TRECOptions{Level: 1, Complete: true, Measures: ms, Groups: groups})
		if err != nil {
			t.Fatalf("EvaluateTREC: %v", err)
		}
		for _, q := range res.Queries {
			for _, s := range q.Scores {
				if s.Value < 0 || s.Value > 1 || math.IsNaN(s.Value) {
					t.Fatalf("%s of %s is %v", s.Measure, q.Query, s.Value)
				}
			}
		}
	})
}

// FuzzParseTRECZScores checks that the z-score reader never panics and
// fails only with a ParseError.
func FuzzParseTRECZScores(f *testing.F) {
	f.Add("q map 0.2 0.1\nq P_5 1e-3 0\n# c\n")
	f.Fuzz(func(t *testing.T, text string) {
		zs, err := metrics.ParseTRECZScores(strings.NewReader(text), "fuzz.z")
		if err != nil {
			checkParseError(t, err, "fuzz.z")
			return
		}
		for q, ms := range zs {
			for m, z := range ms {
				if math.IsNaN(z.Mean) || math.IsNaN(z.StdDev) {
					t.Fatalf("%s %s keeps NaN", q, m)
				}
			}
		}
	})
}
