package metrics_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/metrics"
)

var trecSeeds = []string{
	"q1 0 a.go 1\nq1 0 b.go 0\n# comment\n\nq2 0 c.go 2\n",
	"q1 Q0 a.go 1 3.5 run\nq1 Q0 b.go 2 1e3 run extra fields\nq2 Q0 c 1 -Inf r\n",
	"q 0 d 1.9\nq 0 e -2\r\nq\t0\td\v2\n",
	"q 0 e 9223372036854775807\nq Q0 d 1 1e400 r\n",
	"q 0 \u00a0d 1\n#q 0 d 1\nq 0 d 2147483647\n",
}

// checkParseError fails unless err is a *ParseError naming the file.
func checkParseError(t *testing.T, err error, name string) {
	t.Helper()
	var pe *metrics.ParseError
	if !errors.As(err, &pe) || pe.File != name || pe.Line < 1 || !strings.HasPrefix(err.Error(), name+":") {
		t.Fatalf("error %v (%T) is not a ParseError naming %s and a line", err, err, name)
	}
	if !errors.Is(err, metrics.ErrMalformedLine) && !errors.Is(err, metrics.ErrDuplicateDocument) {
		t.Fatalf("error %v wraps neither ErrMalformedLine nor ErrDuplicateDocument", err)
	}
}

// FuzzParseQrels checks that ParseQrels never panics, fails only with a
// ParseError, keeps grades within ±MaxInt32, and that what it reads comes
// back unchanged through WriteQrels.
func FuzzParseQrels(f *testing.F) {
	for _, s := range trecSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		qrels, err := metrics.ParseQrels(strings.NewReader(text), "fuzz.qrels")
		if err != nil {
			checkParseError(t, err, "fuzz.qrels")
			return
		}
		var buf bytes.Buffer
		for _, q := range slices.Sorted(func(yield func(string) bool) {
			for q := range qrels {
				if !yield(q) {
					return
				}
			}
		}) {
			for d, g := range qrels[q] {
				if g < -math.MaxInt32 || g > math.MaxInt32 {
					t.Fatalf("grade %d of %q outside ±MaxInt32", g, d)
				}
			}
			// The writer refuses more than the reader accepts (a
			// document id with a Unicode space in it, which trec_eval
			// reads as one field): such a query is not compared.
			if err := metrics.WriteQrels(&buf, q, qrels[q]); err != nil {
				delete(qrels, q)
			}
		}
		again, err := metrics.ParseQrels(&buf, "again.qrels")
		if err != nil {
			t.Fatalf("written qrels do not parse: %v\n%s", err, buf.String())
		}
		if len(again) != len(qrels) {
			t.Fatalf("round trip: %d queries, want %d", len(again), len(qrels))
		}
		for q, rel := range qrels {
			for d, g := range rel {
				if again[q][d] != g {
					t.Fatalf("round trip: %q %q = %d, want %d", q, d, again[q][d], g)
				}
			}
		}
	})
}

// FuzzParseTRECRun checks that ParseTRECRun never panics, fails only with
// a ParseError, never keeps a NaN score or a document twice for a query,
// and that every ranking comes back unchanged through WriteTRECRun.
func FuzzParseTRECRun(f *testing.F) {
	for _, s := range trecSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		run, err := metrics.ParseTRECRun(strings.NewReader(text), "fuzz.run")
		if err != nil {
			checkParseError(t, err, "fuzz.run")
			return
		}
		for q, docs := range run.Results {
			seen := map[string]bool{}
			for _, d := range docs {
				if math.IsNaN(d.Score) || seen[d.Doc] {
					t.Fatalf("query %q keeps %+v", q, d)
				}
				seen[d.Doc] = true
			}
			ranked := run.Ranking(q)
			var buf bytes.Buffer
			if err := metrics.WriteTRECRun(&buf, q, ranked); err != nil {
				continue // as for qrels, the writer refuses more
			}
			again, err := metrics.ParseTRECRun(&buf, "again.run")
			if err != nil {
				t.Fatalf("a written run does not parse: %v\n%s", err, buf.String())
			}
			if got := again.Ranking(q); !slices.Equal(got, ranked) {
				t.Fatalf("round trip: ranking %q, want %q", got, ranked)
			}
		}
	})
}
