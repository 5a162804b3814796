package dataset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/dataset"
)

// rowsFile writes lines as a dataset file and returns its name.
func rowsFile(t *testing.T, lines ...string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "rows.jsonl")
	require.NoError(t, os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return name
}

const completeRow = `{"workspaceId":"ws-1","caseId":"ok","caseIndex":0,"query":"q","baseCommit":"abc","needsQuery":false,"needsBaseCommit":false,"lineRanges":[{"path":"a.go","startLine":1,"endLine":2,"sources":["golden_diff"]}]}`

func TestValidateReportsEachIncompleteRowWithWhatItMisses(t *testing.T) {
	t.Parallel()
	name := rowsFile(t,
		completeRow,
		`{"caseId":"no-query","caseIndex":1,"query":"","baseCommit":"abc","needsQuery":true,"filePaths":[]}`,
		``,
		`{"caseId":"no-base","caseIndex":2,"query":"q","baseCommit":"  ","needsBaseCommit":true,"filePaths":[{"path":"","sources":[]}]}`,
		`{"caseId":"bad-range","query":"q","baseCommit":"abc","lineRanges":[{"path":"a.go","startLine":9,"endLine":3}]}`,
		`{"query":"q","baseCommit":"abc"}`,
		`not json`,
		`{"caseId":"marked-but-filled","query":"q","baseCommit":"abc","needsQuery":true,"filePaths":[]}`,
	)
	rep, err := dataset.Validate(name)
	require.NoError(t, err)
	var got []string
	for _, p := range rep.Problems {
		got = append(got, strings.TrimPrefix(p.String(), name))
	}
	assert.Equal(t, []string{
		`:2: case "no-query": missing query`,
		`:4: case "no-base": missing baseCommit, a path in filePaths[0]`,
		`:5: case "bad-range": missing 1 <= startLine <= endLine in lineRanges[0] (9-3)`,
		`:6: missing caseId, filePaths or lineRanges`,
		`:7: missing a JSON object (the line is not one)`,
	}, got, "a needsQuery marker on a filled row is not a problem: the fields are checked")
	assert.Equal(t, 7, rep.Rows, "blank lines are not rows")
	assert.Equal(t, 2, rep.Complete())
}

func TestExportWritesOnlyCompleteRowsWithoutTheMarkers(t *testing.T) {
	t.Parallel()
	name := rowsFile(t, completeRow, `{"caseId":"no-query","query":"","baseCommit":"abc","needsQuery":true,"filePaths":[]}`)
	out := filepath.Join(t.TempDir(), "export.jsonl")
	rep, err := dataset.Export(name, out)
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, 2, rep.Problems[0].Line)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, `{"workspaceId":"ws-1","caseId":"ok","caseIndex":0,"query":"q","baseCommit":"abc","lineRanges":[{"path":"a.go","startLine":1,"endLine":2,"sources":["golden_diff"]}]}`+"\n", string(data),
		"keys kept in order, unknown ones included, markers dropped")
}

func TestCheckValidatesOrExports(t *testing.T) {
	t.Parallel()
	name := rowsFile(t, completeRow)
	out := filepath.Join(t.TempDir(), "export.jsonl")
	rep, err := dataset.Check(name, "")
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Complete())
	assert.NoFileExists(t, out)
	_, err = dataset.Check(name, out)
	require.NoError(t, err)
	assert.FileExists(t, out)
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	assert.Equal(t, "rows: 1, complete: 1\n", b.String())
}
