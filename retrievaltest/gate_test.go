package retrievaltest_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

const gateDir = "../testdata/gate"

// gates are the known-bad scenarios of testdata/gate: each must fail, and
// its message must show the measured value and the threshold.
var gates = []struct {
	name string
	file string
	typ  string
	want []string
}{
	{"a fishing agent fails the semantic ratio", "index-usage.yaml", "index_usage", []string{"0.00", "0.60"}},
	{"the plan's min_aura_tool_ratio spelling is a threshold, not ignored", "index-usage-aura-alias.yaml", "index_usage", []string{"0.45", "0.60"}},
	{"an edit at the sixth call fails at most three steps to target", "index-usage-steps.yaml", "index_usage", []string{"6", "≤ 3"}},
	{"a relevant file never found fails recall@5", "retrieval.yaml", "retrieval", []string{"0.50", "1.00"}},
	{"reading 13 of 15 ground-truth lines fails 95% coverage", "line-coverage.yaml", "line_coverage", []string{"0.87", "0.95"}},
	{"five file-level calls in a row fail a forbidden fishing", "patterns.yaml", "patterns", []string{"fishing"}},
	{"a call to a forbidden tool fails", "tools.yaml", "tools", []string{"Grep"}},
	{"a file written unread fails a full read-before-write ratio", "utilization.yaml", "utilization", []string{"0.50", "1.00"}},
	{"the first relevant file at the sixth call fails a budget of two", "budget.yaml", "budget", []string{"≤ 2"}},
	{"an answer without a required keyword fails", "answer.yaml", "answer", []string{"ErrTokenExpired"}},
	{"one fishing run of two fails a rule that both pass", "runs-rule.yaml", "patterns", []string{"fishing"}},
	{"a grep between the read and the edit fails an exact sequence", "sequence.yaml", "sequence", []string{"step 3 (Grep", "expected call 3 of 4 {class: edit}"}},
	{"an edit before the first test run fails tests-before-edit", "before.yaml", "before", []string{"step 5 (Bash)", "step 4 (Edit"}},
	{"the same failing test run three times in a row fails a retry bound of one", "errors.yaml", "errors", []string{"measured 2", "≤ 1"}},
}

func TestGateScenariosFail(t *testing.T) {
	t.Parallel()
	for _, g := range gates {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(gateDir, g.file)
			results, err := retrievaltest.Check(file)
			require.NoError(t, err)
			require.Len(t, results, 1)

			rec := &recorder{}
			assert.False(t, retrievaltest.AssertScenario(rec, results[0]), "the gate passed")
			require.Len(t, rec.errors, 1, "one expectation, one failure")
			msg := rec.errors[0]
			assert.Contains(t, msg, file+":")
			assert.Contains(t, msg, g.typ+": ")
			for _, w := range g.want {
				assert.Contains(t, msg, w)
			}
			r := results[0].Results[0]
			assert.Contains(t, msg, "measured:  "+r.Measured)
			assert.Contains(t, msg, "threshold: "+r.Threshold)
		})
	}
}

func TestEveryGateIsTestedAndEveryTypeHasAGate(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(gateDir, "*.yaml"))
	require.NoError(t, err)
	var tested, typesWithGate []string
	for _, g := range gates {
		tested = append(tested, filepath.Join(gateDir, g.file))
		typesWithGate = append(typesWithGate, g.typ)
	}
	assert.ElementsMatch(t, files, tested, "every gate file has a row in gates")

	reg := expectations.DefaultRegistry()
	for _, name := range reg.Names() {
		if typ, _ := reg.Lookup(name); typ.Live {
			continue
		}
		assert.True(t, slices.Contains(typesWithGate, name), "expectation type %s has no gate", name)
	}
}
