package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real OpenHands event lists read with the calls, names and results
// that a plain decoding of the file finds: actions with tool_call_metadata
// are calls, and an observation whose cause is a call's id is its result.
func TestOpenHandsSamples(t *testing.T) {
	t.Parallel()
	files := sampleFiles(t, "openhands/*.json")
	// Pinned from reading the files by eye; the decoding below checks the
	// same figures another way.
	want := map[string]struct {
		names   []string
		results int
	}{
		"harbor-rfc-openhands_trajectory.json":             {[]string{"execute_bash", "finish"}, 1},
		"openhands-runtime-trajs-basic.json":               {[]string{"str_replace_editor", "finish"}, 1},
		"openhands-runtime-trajs-basic_gui_mode.json":      {[]string{"execute_bash", "str_replace_editor", "str_replace_editor", "execute_bash"}, 4},
		"openhands-runtime-trajs-basic_interactions.json":  {[]string{"finish"}, 0},
		"openhands-runtime-trajs-wrong_initial_state.json": {[]string{"str_replace_editor", "execute_bash", "str_replace_editor", "finish"}, 3},
	}
	require.Len(t, files, len(want), "a new OpenHands sample needs its figures here")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var events []struct {
				ID          int    `json:"id"`
				Action      string `json:"action"`
				Observation string `json:"observation"`
				Cause       *int   `json:"cause"`
				Meta        *struct {
					FunctionName string `json:"function_name"`
				} `json:"tool_call_metadata"`
			}
			require.NoError(t, json.Unmarshal(data, &events))
			var names []string
			calls := map[int]bool{}
			results := 0
			for _, e := range events {
				if e.Action != "" && e.Meta != nil {
					names = append(names, e.Meta.FunctionName)
					calls[e.ID] = true
				}
				if e.Observation != "" && e.Cause != nil && calls[*e.Cause] {
					results++
				}
			}
			w := want[filepath.Base(file)]
			assert.Equal(t, w.names, names, "decoded independently")
			assert.Equal(t, w.results, results, "decoded independently")

			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "openhands", s.Format)
			assert.Empty(t, s.Warnings)
			assert.Equal(t, w.names, callNames(s))
			got := 0
			for _, c := range s.Calls {
				if c.HasResult {
					got++
				}
				assert.NotEmpty(t, c.ID, "every call has a tool_call_id")
				assert.NotEmpty(t, c.Arguments, "every call has arguments")
			}
			assert.Equal(t, w.results, got)
			assert.NotEmpty(t, s.Model)
		})
	}
}
