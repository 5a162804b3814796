package groundtruth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestLoadFileForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		want    []File
	}{
		{"a JSON list of paths", "gt.json", `["a.go", "pkg/b.go"]`, []File{{"a.go", 1}, {"pkg/b.go", 1}}},
		{"a JSON mapping with graded files", "gt.json", `{"files": ["a.go", {"path": "b.go", "grade": 2}, {"path": "c.go", "grade": 0}]}`, []File{{"a.go", 1}, {"b.go", 2}, {"c.go", 0}}},
		{"a YAML list", "gt.yaml", "- a.go\n- b.go\n", []File{{"a.go", 1}, {"b.go", 1}}},
		{"a text file with comments", "gt.txt", "# relevant\na.go\n\n  b.go  \n", []File{{"a.go", 1}, {"b.go", 1}}},
		{"duplicates merge keeping the higher grade", "gt.json", `{"files": ["a.go", {"path": "a.go", "grade": 3}]}`, []File{{"a.go", 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			truth, err := LoadFile(write(t, tt.file, tt.content))
			require.NoError(t, err)
			assert.Equal(t, tt.want, truth.Files)
			assert.Equal(t, High, truth.Confidence)
		})
	}
}

func TestPathsExcludeGradeZero(t *testing.T) {
	t.Parallel()
	truth, err := Parse("gt.json", []byte(`{"files": ["a.go", {"path": "b.go", "grade": 0}]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go"}, truth.Paths())
}

func TestFullMappingToEvents(t *testing.T) {
	t.Parallel()
	truth, err := LoadFile(filepath.Join("..", "testdata", "examples", "fix-token-expiry.groundtruth.json"))
	require.NoError(t, err)
	got := truth.Events()
	assert.Equal(t, &events.GroundTruth{
		Files:             []string{"pkg/auth/token.go", "pkg/auth/errors.go"},
		Symbols:           []events.Symbol{{File: "pkg/auth/token.go", Symbol: "ValidateToken"}},
		Chunks:            []events.LineRange{{Path: "pkg/auth/token.go", Start: 41, End: 50}},
		ExpectedEditFiles: []string{"pkg/auth/token.go"},
	}, got)
	var none *Truth
	assert.Nil(t, none.Events())
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string
	}{
		{"an unknown key names its position", "{\"files\": [\"a.go\"],\n \"fils\": []}", `gt.json:2:2: unknown key "fils"`},
		{"a file entry without a path", `{"files": [{"grade": 2}]}`, "gt.json:1:12: file entry has no path"},
		{"a negative grade", `{"files": [{"path": "a.go", "grade": -1}]}`, "grade -1: expected an integer >= 0"},
		{"an empty file", "  \n", "gt.json: empty ground truth"},
		{"a bad chunk", `{"files": ["a.go"], "chunks": [{"path": "a.go", "start": 9, "end": 3}]}`, "chunks[0]: expected {path, start, end} with 1 <= start <= end"},
		{"broken JSON", `{"files": [`, "gt.json:1:"},
		{"a tag on a list's value", "files: !x 5\n", "gt.json:1:8: tag !x: this value cannot be decoded with a tag"},
		{"a tag without a value", "expected_edit_files: !!seq\n", "gt.json:1:22: tag !!seq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("gt.json", []byte(tt.content))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Ground truth is parsed as YAML, JSON included, so the same documents
// that once exhausted the scenario loader reach it; each must be one error
// at its place.
func TestGroundTruthThatWouldExhaustTheParserIsAnErrorAtItsPlace(t *testing.T) {
	t.Parallel()
	var chain strings.Builder
	chain.WriteString("x:\n  l0: &l0 {path: a.go}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&chain, "  l%d: &l%d {<<: [*l%d, *l%d]}\n", i, i, i-1, i-1)
	}
	chain.WriteString("files: [*l40]\n")
	tests := []struct {
		name, file, content, want string
	}{
		{"a merge key naming its own mapping", "gt.yaml", "files:\n  - &a\n    path: a.go\n    <<: *a\n", "gt.yaml:4:9: alias *a is inside its own anchor"},
		{"forty chained merge keys", "gt.yaml", chain.String(), "gt.yaml:18:25: aliases expand to more than 1000000 nodes"},
		{"JSON lists nested thirty thousand deep", "gt.json", strings.Repeat("[", 30000) + strings.Repeat("]", 30000), "gt.json:1:1001: collections nested more than 1000 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.file, []byte(tt.content))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestGradesFollowTheDocumentsSpelling(t *testing.T) {
	t.Parallel()
	truth, err := Parse("gt.json", []byte(`{"files": ["/workspace/pkg/a.go", {"path": "pkg/b.go", "grade": 3}, {"path": "./pkg/b.go", "grade": 2}]}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"pkg/a.go": 1, "pkg/b.go": 3}, truth.Grades(events.PathNormalizer{}))
	var none *Truth
	assert.Empty(t, none.Grades(events.PathNormalizer{}))
}

// Editors on Windows start a file with a byte-order mark; it is not part
// of the first path or key.
func TestAByteOrderMarkIsSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"gt.yaml": "files:\n  - a.go\n",
		"gt.json": `["a.go"]`,
		"gt.txt":  "a.go\n",
		"gl.json": `{"files": [{"path": "a.go"}]}`,
	} {
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, []byte("\ufeff"+content), 0o644))
		truth, err := Load(file)
		require.NoError(t, err, name)
		assert.Equal(t, []File{{Path: "a.go", Grade: 1}}, truth.Files, name)
	}
	_, err := Parse("gt.yaml", []byte("\ufefffils: [a.go]\n"))
	assert.ErrorContains(t, err, `gt.yaml:1:1: unknown key "fils"`)
}

// An apostrophe is a character of a file name ("it's.md"); only a quote
// around a whole path is not.
func TestAPathWithAnApostropheIsAPath(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"gt.yaml": "files:\n  - docs/it's.md\n",
		"gt.json": `["docs/it's.md"]`,
		"gl.json": `{"files": [{"path": "docs/it's.md", "grade": 1}]}`,
	} {
		truth, err := Parse(name, []byte(content))
		require.NoError(t, err, name)
		assert.Equal(t, []string{"docs/it's.md"}, truth.Paths(), name)
	}
	truth, err := parseText("gt.txt", []byte("docs/it's.md\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/it's.md"}, truth.Paths())
}

// A YAML ground truth past the token limit is refused at its place, with
// the way out: a plain list of paths, in YAML or JSON, is read without the
// YAML parser.
func TestAYAMLGroundTruthPastTheTokenLimitNamesThePlainForms(t *testing.T) {
	t.Parallel()
	// "files:" is two tokens, then each "- {path: a.go}" line six: the
	// 100,001st token is the third of item line 16,667.
	doc := "files:\n" + strings.Repeat("- {path: a.go}\n", 50_000)
	_, err := Parse("gt.yaml", []byte(doc))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gt.yaml:16668:4: more than 100000 YAML tokens")
	assert.Contains(t, err.Error(), "plain YAML list")
	assert.Contains(t, err.Error(), "JSON list")
}

// The same number of entries as a plain list is read without the parser,
// so the token limit does not apply to it.
func TestAPlainYAMLListHasNoTokenLimit(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("files:\n")
	for i := range 600_000 {
		fmt.Fprintf(&b, "- pkg/f%d.go\n", i)
	}
	truth, err := Parse("gt.yaml", []byte(b.String()))
	require.NoError(t, err)
	require.Len(t, truth.Files, 600_000)
	assert.Equal(t, "pkg/f599999.go", truth.Files[599_999].Path)
}
