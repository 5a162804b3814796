package retrievaltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPassesTheProjectScenarios(t *testing.T) {
	t.Parallel()
	ft := newFakeT("TestScenarios")
	run(ft, Options{}, []string{"../scenarios/*.yaml"})
	for _, s := range ft.all() {
		assert.False(t, s.failed, "%s failed: %v", s.name, s.errors)
	}

	names := ft.names()
	assert.Contains(t, names, "TestScenarios/add-coupon-support/index_usage")
	assert.Contains(t, names, "TestScenarios/add-coupon-support/index_usage#2")

	compiles := ft.find("TestScenarios/add-service/compiles")
	require.NotNil(t, compiles)
	assert.True(t, compiles.skipped, "a live-run type is skipped")
	assert.Contains(t, strings.Join(compiles.logs, "\n"), "compiles")

	flaky := ft.find("TestScenarios/fix-discount-rounding/patterns")
	require.NotNil(t, flaky)
	assert.False(t, flaky.failed)
	assert.Contains(t, strings.Join(flaky.logs, "\n"), "flaky, not failing")
}

func TestRunFailsEveryGate(t *testing.T) {
	t.Parallel()
	ft := newFakeT("TestGate")
	run(ft, Options{}, []string{"../testdata/gate"})
	require.True(t, ft.failed)
	assert.Empty(t, ft.errors, "the gate files load")
	require.NotEmpty(t, ft.subtests)
	for _, scenario := range ft.subtests {
		assert.True(t, scenario.failed, "%s passed", scenario.name)
		for _, exp := range scenario.subtests {
			assert.True(t, exp.failed, "%s passed", exp.name)
			require.Len(t, exp.errors, 1)
			assert.Contains(t, exp.errors[0], "measured:")
			assert.Contains(t, exp.errors[0], "threshold:")
			assert.Contains(t, exp.errors[0], "../testdata/gate/")
		}
	}
}

func TestRunReportsEveryLoadErrorAndRunsTheRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace, err := filepath.Abs("../testdata/index/direct-search-then-edit.aura.toolcalls.json")
	require.NoError(t, err)
	files := map[string]string{
		"good.yaml": "name: good\ntrace: " + trace + "\nexpectations:\n  - type: patterns\n    require: [direct]\n",
		"typo.yaml": "name: typo\ntrace: " + trace + "\nexpectations:\n  - type: index_usage\n    min_semantic_raito: 0.6\n",
		"two.yaml":  "name: two\ntrace: " + trace + "\nexpectaions: []\nexpectations:\n  - type: nonsense\n",
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}

	ft := newFakeT("TestScenarios")
	run(ft, Options{}, []string{filepath.Join(dir, "*.yaml")})
	require.True(t, ft.failed)
	require.Len(t, ft.errors, 1, "one failure listing every error")
	msg := ft.errors[0]
	assert.Contains(t, msg, filepath.Join(dir, "typo.yaml")+":5:5:")
	assert.Contains(t, msg, "min_semantic_raito")
	assert.Contains(t, msg, filepath.Join(dir, "two.yaml")+":3:1:")
	assert.Contains(t, msg, "expectaions")
	assert.Contains(t, msg, "nonsense")

	good := ft.find("TestScenarios/good/patterns")
	require.NotNil(t, good, "the file that loaded still runs")
	assert.False(t, good.failed)
}

func TestRunFailsAScenarioWhoseTraceCannotBeRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.json"), []byte("this is not a trace\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.yaml"),
		[]byte("name: unreadable\ntrace: garbage.json\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"), 0o644))

	ft := newFakeT("TestScenarios")
	run(ft, Options{}, []string{filepath.Join(dir, "s.yaml")})
	s := ft.find("TestScenarios/unreadable")
	require.NotNil(t, s)
	assert.True(t, s.failed)
	require.NotEmpty(t, s.errors)
	assert.Contains(t, s.errors[0], "garbage.json")
}

func TestRunFailsWhenNothingMatches(t *testing.T) {
	t.Parallel()
	ft := newFakeT("TestScenarios")
	run(ft, Options{}, []string{"testdata/no-such-folder/*.yaml"})
	assert.True(t, ft.failed)
	require.Len(t, ft.errors, 1)
	assert.Contains(t, ft.errors[0], "matches no scenario file")
}

func TestRunParallelOption(t *testing.T) {
	t.Parallel()
	ft := newFakeT("TestScenarios")
	run(ft, Options{Parallel: true}, []string{"../scenarios/search-then-edit.yaml"})
	require.Len(t, ft.subtests, 1)
	assert.True(t, ft.subtests[0].parallel)
}

// TestRunChild is run by TestRunSelectsOneExpectation in a child process;
// on its own it does nothing.
func TestRunChild(t *testing.T) {
	if os.Getenv("RETRIEVALTEST_CHILD") != "1" {
		t.Skip("runs in the child process of TestRunSelectsOneExpectation")
	}
	Run(t, "../testdata/gate/*.yaml")
}

// TestRunSelectsOneExpectation checks with a real go test run that -run
// selects one scenario's one expectation, and that the failure it reports
// is the gate's.
func TestRunSelectsOneExpectation(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRunChild$/^gate-index-usage$/^index_usage$", "-test.v")
	cmd.Env = append(os.Environ(), "RETRIEVALTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the gate passed:\n%s", out)

	var ran []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "=== RUN   "); ok {
			ran = append(ran, name)
		}
	}
	assert.Equal(t, []string{"TestRunChild", "TestRunChild/gate-index-usage", "TestRunChild/gate-index-usage/index_usage"}, ran)
	assert.True(t, slices.ContainsFunc(strings.Split(string(out), "\n"), func(l string) bool {
		return strings.Contains(l, "--- FAIL: TestRunChild/gate-index-usage/index_usage")
	}), "%s", out)
	assert.Contains(t, string(out), "index-usage.yaml:")
	assert.Contains(t, string(out), "measured:  semantic ratio = 0.00")
}

// A failed expectation is attributed to the caller of Run (the user's test
// file) and starts with the scenario's file:line:col, never with the
// library's run.go.
func TestRunAttributesFailuresToTheCallerAndTheScenarioFile(t *testing.T) {
	t.Parallel()
	ft := newFakeT("TestGate")
	run(ft, Options{}, []string{"../testdata/gate/before.yaml"})
	require.NotEmpty(t, ft.subtests)
	for _, scenario := range ft.subtests {
		for _, exp := range scenario.subtests {
			require.Len(t, exp.where, 1)
			assert.NotEqual(t, "run.go", exp.where[0], "%s", exp.name)
			assert.Regexp(t, `^\.\./testdata/gate/before\.yaml:\d+:\d+: `, exp.errors[0])
		}
	}
}
