package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Gemini CLI recording's first line has a sessionId key, as Claude Code
// lines do; the Claude detector must leave it alone.
func TestClaudeDoesNotClaimAGeminiRecording(t *testing.T) {
	t.Parallel()
	line := `{"sessionId":"s","projectHash":"p","startTime":"2026-02-01T09:00:00Z","kind":"main"}` + "\n"
	assert.False(t, ClaudeCode{}.Detect([]byte(line)))
	assert.False(t, ClaudeStreamJSON{}.Detect([]byte(line)))
	f, ok := DefaultRegistry().Detect([]byte(line))
	require.True(t, ok)
	assert.Equal(t, "gemini-cli", f.Name())
}

func TestGeminiAndMiniSWEAgentDescribeThemselves(t *testing.T) {
	t.Parallel()
	for _, info := range DefaultRegistry().Infos() {
		if info.Name != "gemini-cli" && info.Name != "mini-swe-agent" {
			continue
		}
		assert.NotEmpty(t, info.Writer, info.Name)
		assert.NotEmpty(t, info.Detection, info.Name)
		assert.True(t, strings.Contains(info.Example, ".json"), info.Name)
		assert.False(t, info.Multi || info.Folder, info.Name)
	}
}

// A forced reader that finds no record of its format fails, naming the
// file; it never returns an empty session.
func TestForcedGeminiAndMiniSWEAgentRejectOtherFormats(t *testing.T) {
	t.Parallel()
	others := []string{
		filepath.Join("..", "testdata", "traces", "atif", "positional-results.trajectory.json"),
		filepath.Join("..", "testdata", "traces", "claude", "read-through-bash.claude.jsonl"),
		filepath.Join("..", "testdata", "traces", "toolcalls", "bare-array.toolcalls.json"),
	}
	for _, format := range []string{"gemini-cli", "mini-swe-agent"} {
		for _, file := range append(others, filepath.Join(geminiFixtures, "minimal.session.jsonl"), filepath.Join(miniFixtures, "minimal.traj.json")) {
			if strings.Contains(file, format) {
				continue
			}
			t.Run(format+" on "+filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				_, err := ReadFile(file, Options{Format: format})
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), file+":"), err.Error())
			})
		}
	}
}

// A byte order mark before a recording or a trajectory is ignored.
func TestGeminiAndMiniSWEAgentIgnoreAByteOrderMark(t *testing.T) {
	t.Parallel()
	for file, format := range map[string]string{
		filepath.Join(geminiFixtures, "minimal.session.jsonl"): "gemini-cli",
		filepath.Join(geminiFixtures, "document.session.json"): "gemini-cli",
		filepath.Join(miniFixtures, "tool-calling.traj.json"):  "mini-swe-agent",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			plain, err := Read(strings.NewReader(string(data)), Options{Source: "x"})
			require.NoError(t, err)
			s, err := Read(strings.NewReader("\xef\xbb\xbf"+string(data)), Options{Source: "x"})
			require.NoError(t, err)
			assert.Equal(t, format, s.Format)
			assert.Empty(t, s.Warnings)
			assert.Equal(t, plain.Calls, s.Calls)
		})
	}
}
