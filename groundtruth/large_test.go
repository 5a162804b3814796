package groundtruth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
)

// manyPaths returns n distinct repository paths spread over folders.
func manyPaths(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("pkg/d%d/f%d.go", i%1000, i)
	}
	return out
}

// A ground truth of hundreds of thousands of paths is merged in one pass:
// merging by scanning the files kept so far took minutes at this size.
func TestALargeGroundTruthIsMergedWithItsDuplicates(t *testing.T) {
	t.Parallel()
	paths := manyPaths(250_000)
	// Every path twice, the second time spelt with a workspace prefix.
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(p + "\n/workspace/" + p + "\n")
	}
	name := filepath.Join(t.TempDir(), "truth.txt")
	require.NoError(t, os.WriteFile(name, []byte(b.String()), 0o644))
	truth, err := LoadFile(name)
	require.NoError(t, err)
	require.Len(t, truth.Files, len(paths))
	assert.Equal(t, File{Path: paths[0], Grade: 1}, truth.Files[0])
	assert.Equal(t, File{Path: paths[len(paths)-1], Grade: 1}, truth.Files[len(paths)-1])
	assert.Len(t, truth.Events().Files, len(paths))
	assert.Len(t, truth.Grades(events.PathNormalizer{}), len(paths))
}

func TestDuplicateFilesKeepTheHighestGradeAndTheFirstPlace(t *testing.T) {
	t.Parallel()
	truth, err := Parse("gt.json", []byte(`["b.go", {"path": "a.go", "grade": 3}, {"path": "./b.go", "grade": 2}, "/testbed/a.go", "c.go"]`))
	require.NoError(t, err)
	assert.Equal(t, []File{{"b.go", 2}, {"a.go", 3}, {"c.go", 1}}, truth.Files)
}

// BenchmarkGroundTruth1MPaths loads a million-path ground truth as text
// and as a JSON list and turns it into what metrics take.
func BenchmarkGroundTruth1MPaths(b *testing.B) {
	paths := manyPaths(1_000_000)
	text := []byte(strings.Join(paths, "\n"))
	list, err := json.Marshal(paths)
	require.NoError(b, err)
	dir := b.TempDir()
	b.Run("text", func(b *testing.B) {
		name := filepath.Join(dir, "truth.txt")
		require.NoError(b, os.WriteFile(name, text, 0o644))
		for b.Loop() {
			truth, err := LoadFile(name)
			require.NoError(b, err)
			_ = truth.Events()
			_ = truth.Grades(events.PathNormalizer{})
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			truth, err := Parse("truth.json", list)
			require.NoError(b, err)
			_ = truth.Events()
			_ = truth.Grades(events.PathNormalizer{})
		}
	})
}

func TestTheJSONReaderAgreesWithTheYAMLReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		fast      bool
	}{
		{"a list of paths", `["a.go", "pkg/b.go", "a.go"]`, true},
		{"escapes in paths", `["d\u00e9j\u00e0/a.go", "x\"y.go", "tab\there.go", "s\/l.go"]`, true},
		{"files and expected edits", `{"files": ["a.go"], "expected_edit_files": ["a.go"]}`, true},
		{"files and other expected edits", `{"files": ["a.go"], "expected_edit_files": ["b.go", "c.go"]}`, true},
		{"expected edits first", `{"expected_edit_files": ["b.go"], "files": ["a.go", "c.go"]}`, true},
		{"an empty list", `[]`, true},
		{"a null entry", `["a.go", null]`, false},
		{"a number entry", `["a.go", 7]`, false},
		{"an entry with a grade", `["a.go", {"path": "b.go", "grade": 2}]`, false},
		{"symbols", `{"files": ["a.go"], "symbols": [{"file": "a.go", "symbol": "F"}]}`, false},
		{"a key given twice", `{"files": ["a.go"], "files": ["b.go"]}`, false},
		{"a key in other case", `{"Files": ["a.go"]}`, false},
		{"null files", `{"files": null}`, true},
		{"trailing text", `["a.go"] x`, false},
		{"YAML", "- a.go\n", false},
		{"a vertical tab after the list, white space to YAML only", "[]\v", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tt.doc)
			got, ok := jsonPaths(data)
			require.Equal(t, tt.fast, ok)
			if !ok {
				return
			}
			want, err := decodeYAML("gt.json", data, data)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestASymbolWithoutAFileTakesTheOnlyFileEvenWhenListedTwice(t *testing.T) {
	t.Parallel()
	truth, err := parseBenchTruth("truth.json", []byte(`{"files": ["a.go", "a.go"], "symbols": [{"symbol": "F"}]}`))
	require.NoError(t, err)
	assert.Equal(t, []File{{"a.go", 1}}, truth.Files)
	assert.Equal(t, []events.Symbol{{File: "a.go", Symbol: "F"}}, truth.Symbols)
}
