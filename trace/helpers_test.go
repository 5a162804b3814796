package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Helpers shared by the tests of several formats.

// samplesDir holds real traces of public agents, one folder a format (see
// its README.md); tests that use it skip when it is absent.
const samplesDir = "../../shared/samples"

// sampleFiles returns the samples matching pattern below samplesDir,
// skipping the test when there are no samples; it fails when none
// matches.
func sampleFiles(t *testing.T, pattern string) []string {
	t.Helper()
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("no samples at %s", samplesDir)
	}
	files, err := filepath.Glob(filepath.Join(samplesDir, pattern))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no sample matches %s", pattern)
	return files
}

// warningStrings lists a session's warnings as they print.
func warningStrings(s *Session) []string {
	var out []string
	for _, w := range s.Warnings {
		out = append(out, w.String())
	}
	return out
}

// nameCounts is the multiset of the calls' tool names, as a map.
func nameCounts(calls []ToolCall) map[string]int {
	m := map[string]int{}
	for _, c := range calls {
		m[c.Name]++
	}
	return m
}

// jsonUnmarshalString decodes a JSON literal of a test.
func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// mustJSON encodes v compactly.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
