package metrics_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestEveryValueHasADefinitionAndEveryDefinitionAValue(t *testing.T) {
	t.Parallel()
	// The search-read-edit trace has every kind of figure: chunks, symbols,
	// timestamps, tokens, writes and expected edit files.
	res := metrics.Compute(normalize(t, "search-read-edit.toolcalls.json", searchReadEditGT()), metrics.Options{})
	values := res.Values()
	for name := range values {
		_, ok := metrics.Define(name)
		assert.True(t, ok, "%s is not in the definitions table", name)
	}
	for _, d := range metrics.Definitions() {
		names := []string{d.Name}
		if d.Views {
			names = append(names, "read."+d.Name)
		}
		for _, n := range names {
			k := "@5"
			if strings.HasPrefix(n, "line_recall") {
				k = "@100" // a budget in lines, of metrics.DefaultLineBudgets
			}
			n = strings.Replace(n, "@k", k, 1)
			_, ok := values[n]
			assert.True(t, ok, "the definition %s has no value on a full trace", n)
		}
	}
}

func TestDefineResolvesConcreteNames(t *testing.T) {
	t.Parallel()
	d, ok := metrics.Define("recall@5")
	require.True(t, ok)
	assert.Equal(t, "Recall@5 (TREC)", d.Label)
	assert.Equal(t, "relevant files among the first 5 / R, R = files relevant at the level (trec_eval recall_5)", d.Definition)
	assert.True(t, d.Bounded)

	d, ok = metrics.Define("read.ndcg@10")
	require.True(t, ok)
	assert.Equal(t, "read.ndcg@10", d.Name)
	assert.Equal(t, "nDCG@10 (TREC), read", d.Label)
	assert.Contains(t, d.Definition, "discount log2(rank+1)", "only the word k is replaced")

	d, ok = metrics.Define("read.mrr")
	require.True(t, ok)
	assert.Equal(t, "MRR (TREC RR), read", d.Label)

	for _, bad := range []string{"recall", "recall@0", "recall@05", "recall@x", "read.line_coverage", "read.read.mrr", "bogus", "mrr@5"} {
		_, ok := metrics.Define(bad)
		assert.False(t, ok, bad)
	}
}

func TestMetricReportsUnknownNames(t *testing.T) {
	t.Parallel()
	res := metrics.Compute(literal([]string{"a.go"}, read("a.go")), metrics.Options{})
	_, ok := res.Metric("recal@5")
	assert.False(t, ok)
	var nilResult *metrics.Result
	_, ok = nilResult.Metric("recall@5")
	assert.False(t, ok)
}
