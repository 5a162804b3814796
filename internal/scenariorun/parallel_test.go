package scenariorun

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
)

// A suite of good and bad scenario files, and YAML files that are not
// scenarios, in folders: loaded at any number of jobs, the scenarios, the
// errors and the skipped files come back in file order, the same as one
// at a time.
func TestLoadingInParallelKeepsFileOrder(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../testdata/examples/fix-token-expiry.claude.jsonl")
	require.NoError(t, err)
	dir := t.TempDir()
	var files []string
	for i := range 40 {
		sub := filepath.Join(dir, fmt.Sprint("d", i%3))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		name := fmt.Sprintf("s%02d", i)
		switch i % 7 {
		case 3:
			files = append(files, writeScenario(t, sub, name, "trace: "+root+"\nexpectations:\n  - type: no_such_type\n"))
		case 5:
			require.NoError(t, os.WriteFile(filepath.Join(sub, name+".yaml"), []byte("services: {db: {image: postgres}}\n"), 0o644))
		default:
			files = append(files, writeScenario(t, sub, name, "trace: "+root+"\nexpectations:\n  - type: tools\n    max_calls: "+fmt.Sprint(i)+"\n"))
		}
	}
	one, err := FindJobs(1, dir)
	require.NoError(t, err)
	assert.Len(t, one.Files, len(files))
	assert.Len(t, one.Skipped, 40-len(files))
	s1, e1 := LoadAll(one.Files, Options{Jobs: 1})
	r1, b1 := CheckFiles(context.Background(), one.Files, nil, Options{Jobs: 1})
	require.NotEmpty(t, e1)
	require.NotEmpty(t, b1)
	for _, jobs := range []int{2, 8, 0} {
		found, err := FindJobs(jobs, dir)
		require.NoError(t, err)
		assert.Equal(t, one, found, "jobs %d", jobs)
		s, e := LoadAll(found.Files, Options{Jobs: jobs})
		require.Len(t, s, len(s1))
		for i := range s {
			assert.Equal(t, s1[i].File, s[i].File, "jobs %d", jobs)
		}
		assert.Equal(t, fmt.Sprint(e1), fmt.Sprint(e), "jobs %d", jobs)
		r, b := CheckFiles(context.Background(), found.Files, nil, Options{Jobs: jobs})
		require.Len(t, r, len(r1))
		for i := range r {
			assert.Equal(t, r1[i].Name, r[i].Name, "jobs %d", jobs)
			assert.Equal(t, r1[i].Failed(), r[i].Failed(), "jobs %d", jobs)
		}
		require.Len(t, b, len(b1))
		for i := range b {
			assert.Equal(t, b1[i].Error(), b[i].Error(), "jobs %d", jobs)
		}
	}
}

// A scenario found in a folder is loaded from the parse Find made to tell
// it is one: what CheckFound judges is the file as Find read it. Files
// named directly are read when they are loaded, and a parse larger than
// the check's limit is not used: the file is read again, within the limit
// or refused.
func TestCheckFoundLoadsWhatFindParsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(trace, []byte(`{"type":"assistant","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"a.go"}}]}}`+"\n"), 0o644))
	// A comment makes the scenario larger than its trace, so that a limit
	// can refuse the one and not the other.
	scenario := func(name string) string {
		return "# " + strings.Repeat("x", 400) + "\nname: " + name + "\ntrace: t.jsonl\nexpectations:\n  - type: tools\n    max_calls: 5\n"
	}
	file := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(file, []byte(scenario("first")), 0o644))
	found, err := Find(dir)
	require.NoError(t, err)
	require.Equal(t, []string{file}, found.Files)
	require.NoError(t, os.WriteFile(file, []byte(scenario("2nd")), 0o644))

	name := func(opts Options, check func(context.Context, Found, func(*expectations.Scenario) bool, Options) ([]*expectations.ScenarioResult, []*expectations.ScenarioError)) string {
		results, bad := check(context.Background(), found, nil, opts)
		require.Empty(t, bad)
		require.Len(t, results, 1)
		return results[0].Name
	}
	byFiles := func(ctx context.Context, f Found, keep func(*expectations.Scenario) bool, opts Options) ([]*expectations.ScenarioResult, []*expectations.ScenarioError) {
		return CheckFiles(ctx, f.Files, keep, opts)
	}
	assert.Equal(t, "first", name(Options{Jobs: 1}, CheckFound), "as Find read it")
	assert.Equal(t, "first", name(Options{Jobs: 2, MaxInputSize: int64(len(scenario("first"))) + 1}, CheckFound), "within the limit")
	assert.Equal(t, "2nd", name(Options{Jobs: 1}, byFiles), "read again when named")
	assert.Equal(t, "2nd", name(Options{Jobs: 1, MaxInputSize: int64(len(scenario("2nd")))}, CheckFound), "read again: the parse is past the limit")
	_, bad := CheckFound(context.Background(), found, nil, Options{Jobs: 1, MaxInputSize: int64(len(scenario("2nd"))) - 1})
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0].Error(), fmt.Sprintf("scenario: %s: larger than the input size limit of %d bytes", file, len(scenario("2nd"))-1))
}
