package retrievaltest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

// Find, load and evaluate every scenario under a folder, four at a time.
func ExampleEvaluateAll() {
	files, err := retrievaltest.FindScenarios("../testdata/check/mixed")
	if err != nil {
		fmt.Println(err)
		return
	}
	scenarios, errs := retrievaltest.LoadAll(files, retrievaltest.Options{})
	for _, err := range errs {
		fmt.Println(err) // each at its file:line:col
	}
	results, errs := retrievaltest.EvaluateAll(context.Background(), scenarios, retrievaltest.Options{Jobs: 4})
	for _, err := range errs {
		fmt.Println(err)
	}
	for _, r := range results {
		fmt.Printf("%s failed: %t\n", r.Name, r.Failed())
	}
	// Output:
	// bad failed: true
	// good failed: false
}

func TestFindScenariosSkipsFixtureFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.yaml", "sub/b.yml", "testdata/bad.yaml", ".hidden/c.yaml", "notes.txt"} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("trace: t.json\n"), 0o644))
	}
	files, err := retrievaltest.FindScenarios(dir, filepath.Join(dir, "testdata", "bad.yaml"))
	require.NoError(t, err)
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	assert.Equal(t, []string{"a.yaml", "sub/b.yml", "testdata/bad.yaml"}, rel, "a fixture folder is read only when named directly")

	_, err = retrievaltest.FindScenarios(filepath.Join(dir, "nope"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestLoadAllReportsEveryProblemOfEveryFile(t *testing.T) {
	t.Parallel()
	files, err := retrievaltest.FindScenarios("../testdata/check/broken", "../testdata/check/mixed")
	require.NoError(t, err)
	scenarios, errs := retrievaltest.LoadAll(files, retrievaltest.Options{})
	assert.Len(t, scenarios, 2, "the files that load are returned")
	require.NotEmpty(t, errs)
	for _, e := range errs {
		assert.Regexp(t, `typo\.yaml:\d+:\d+: `, e.Error())
	}
}

func TestEvaluateAllKeepsTheOrderAtAnyParallelism(t *testing.T) {
	t.Parallel()
	files, err := retrievaltest.FindScenarios("../scenarios", "../testdata/check/mixed")
	require.NoError(t, err)
	scenarios, errs := retrievaltest.LoadAll(files, retrievaltest.Options{})
	require.Empty(t, errs)

	names := func(jobs int) ([]string, int) {
		progress := 0
		results, errs := retrievaltest.EvaluateAll(context.Background(), scenarios, retrievaltest.Options{
			Jobs:     jobs,
			Progress: func(*expectations.Scenario, *expectations.ScenarioResult, error) { progress++ },
		})
		require.Empty(t, errs)
		var out []string
		for _, r := range results {
			out = append(out, fmt.Sprintf("%s %t", r.Name, r.Failed()))
		}
		return out, progress
	}
	one, n1 := names(1)
	many, n4 := names(4)
	assert.Equal(t, one, many)
	assert.Len(t, one, len(scenarios))
	assert.Equal(t, len(scenarios), n1, "progress is reported once per scenario")
	assert.Equal(t, len(scenarios), n4)
	for i, s := range scenarios {
		assert.Equal(t, s.Name, one[i][:len(s.Name)], "results in the scenarios' order")
	}
}

func TestEvaluateAllStopsWhenCanceled(t *testing.T) {
	t.Parallel()
	scenarios, errs := retrievaltest.LoadAll([]string{"../testdata/check/mixed/good.yaml"}, retrievaltest.Options{})
	require.Empty(t, errs)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	results, errs := retrievaltest.EvaluateAll(ctx, scenarios, retrievaltest.Options{})
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], context.Canceled)
	assert.Contains(t, errs[0].Error(), "good.yaml")
	assert.Nil(t, results[0])
}

// CheckFiles goes on past files that cannot be checked: the others are
// evaluated, and each bad one is an error with its file, its name when it
// loaded and every problem.
func TestCheckFilesGoesOnPastBadFiles(t *testing.T) {
	t.Parallel()
	files, err := retrievaltest.FindScenarios("../testdata/check/badinput")
	require.NoError(t, err)
	selected := 0
	results, bad := retrievaltest.CheckFiles(context.Background(), files, nil, retrievaltest.Options{Jobs: 2, Selected: func(n int) { selected = n }})
	require.Len(t, results, 2)
	assert.Equal(t, []string{"failing", "passing"}, []string{results[0].Name, results[1].Name}, "in file order")
	assert.Equal(t, 3, selected, "the scenarios that loaded")
	require.Len(t, bad, 3)
	assert.Equal(t, "", bad[0].Name, "missing-truth.yaml did not load")
	assert.Len(t, bad[1].Errs, 2, "typo.yaml has two problems")
	assert.Equal(t, "unreadable-trace", bad[2].Name)
	pos, msg := bad[2].Problems()
	assert.Equal(t, []string{"../testdata/check/badinput/unreadable-trace.yaml:4:8"}, pos)
	assert.True(t, strings.HasPrefix(msg[0], "trace ../testdata/check/badinput/not-a-trace.json: not a known trace format"), msg[0])

	results, bad = retrievaltest.CheckFiles(context.Background(), files, func(s *expectations.Scenario) bool { return s.Name == "passing" }, retrievaltest.Options{})
	assert.Len(t, results, 1, "keep selects among the files that loaded")
	assert.Len(t, bad, 2, "a file that does not load is reported whatever keep says")
}

func TestCWDIsTheWorkingDirectoryOfScenariosThatSetNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace, err := filepath.Abs("../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json")
	require.NoError(t, err)
	const exp = "ground_truth: [pkg/auth/token.go]\nexpectations:\n  - type: retrieval\n    recall@1: {min: 1}\n"
	write := func(name, head string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("trace: "+trace+"\n"+head+exp), 0o644))
		return p
	}
	none, own := write("none.yaml", ""), write("own.yaml", "cwd: /srv\n")
	for _, tc := range []struct {
		name, cwd, file string
		failed          bool
	}{
		{name: "without cwd the absolute paths stay absolute", file: none, failed: true},
		{name: "the option makes them relative", cwd: "/root", file: none},
		{name: "the scenario's own cwd wins over the option", cwd: "/root", file: own, failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			results, err := retrievaltest.CheckWith(retrievaltest.Options{CWD: tc.cwd}, tc.file)
			require.NoError(t, err)
			require.Len(t, results, 1)
			assert.Equal(t, tc.failed, results[0].Failed())
		})
	}
}

func TestFindScenariosWalksAFolderNamedThroughALink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "sub", "a.yaml"), []byte("trace: t.json\n"), 0o644))
	link := filepath.Join(dir, "scenarios")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	files, err := retrievaltest.FindScenarios(link)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(link, "sub", "a.yaml")}, files)
}
