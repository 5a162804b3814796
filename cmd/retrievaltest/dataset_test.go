package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

const datasetExample = "../../testdata/examples/dataset"

// readmeSection returns the section of docs/cli.md under the heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	require.True(t, ok, "docs/cli.md has a %q section", heading)
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// copyExample copies the walk-through's inputs, not its rows, to a fresh
// folder laid out like the repository, and returns that folder.
func copyExample(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dst := filepath.Join(root, "testdata", "examples", "dataset")
	require.NoError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(datasetExample)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(datasetExample, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644))
	}
	return root
}

// The README's walk-through runs as written, from a copy of the
// repository's example: the dataset command writes the checked-in rows,
// they validate, and the scenario that uses them as ground truth passes.
func TestREADMEDatasetWalkThroughRuns(t *testing.T) {
	t.Parallel()
	section := readmeSection(t, "Datasets from traces")
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	file, err := syntax.NewParser().Parse(strings.NewReader(block), "docs/cli.md")
	require.NoError(t, err)
	root := copyExample(t)
	ran := 0
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		args, err := expand.Fields(nil, call.Args...)
		require.NoError(t, err)
		require.Equal(t, "retrievaltest", args[0])
		for i, a := range args {
			if strings.HasPrefix(a, "testdata/") {
				args[i] = filepath.Join(root, a)
			}
		}
		code, stdout, stderr := runCLI(t, nil, args[1:]...)
		assert.Equal(t, exitOK, code, "%s\n%s%s", strings.Join(args, " "), stdout, stderr)
		ran++
		return false
	})
	assert.Equal(t, 3, ran, "dataset, dataset validate, check")

	_, rowExample, ok := strings.Cut(section, "```json\n")
	require.True(t, ok)
	rowExample, _, _ = strings.Cut(rowExample, "```")
	for _, name := range []string{"dataset_a_file_paths.unvalidated.jsonl", "dataset_b_line_ranges.unvalidated.jsonl"} {
		got, err := os.ReadFile(filepath.Join(root, "testdata/examples/dataset/rows", name))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(datasetExample, "rows", name))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "the walk-through writes the checked-in %s", name)
		if strings.HasPrefix(name, "dataset_b") {
			for _, line := range strings.Split(rowExample, "\n") {
				entry := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(line), "]}"), ",")
				if strings.HasPrefix(entry, `{"path"`) {
					assert.Contains(t, string(got), entry, "the README's row shows what the command writes")
				}
			}
		}
	}
}

func TestDatasetValidateExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	complete := filepath.Join(datasetExample, "rows", "dataset_b_line_ranges.unvalidated.jsonl")
	incomplete := filepath.Join(dir, "rows.jsonl")
	require.NoError(t, os.WriteFile(incomplete, []byte(`{"caseId":"c","query":"","baseCommit":"","needsQuery":true,"needsBaseCommit":true,"filePaths":[]}`+"\n"), 0o644))
	export := filepath.Join(dir, "export.jsonl")

	code, stdout, _ := runCLI(t, nil, "dataset", "validate", complete)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "rows: 1, complete: 1\n", stdout)

	code, stdout, _ = runCLI(t, nil, "dataset", "validate", "-export", export, incomplete)
	assert.Equal(t, exitFailed, code, "an incomplete row fails validation")
	assert.Equal(t, incomplete+":1: case \"c\": missing query, baseCommit\nrows: 1, complete: 0\n", stdout)
	data, err := os.ReadFile(export)
	require.NoError(t, err)
	assert.Empty(t, data, "the incomplete row is not exported")

	code, _, stderr := runCLI(t, nil, "dataset", "validate")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "validate takes one dataset file")
}

func TestDatasetBadInputIsExitTwo(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	trace := filepath.Join(datasetExample, "first-run.toolcalls.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no diff", []string{"dataset", "-out", out, trace}, "no diff given"},
		{"no output folder", []string{"dataset", "-diff", filepath.Join(datasetExample, "change.diff"), trace}, "no output folder given"},
		{"a trace that is missing", []string{"dataset", "-diff", filepath.Join(datasetExample, "change.diff"), "-out", out, "missing.jsonl"}, "missing.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}
