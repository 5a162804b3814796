package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sweAgentFixtures = "testdata/swe-agent"

func sweAgentRead(t *testing.T, name string) *Session {
	t.Helper()
	s, err := ReadFile(filepath.Join(sweAgentFixtures, name), Options{})
	require.NoError(t, err)
	return s
}

func TestSWEAgentToolName(t *testing.T) {
	t.Parallel()
	tests := []struct{ action, want string }{
		{"open \"src/app.py\" 120", "open"},
		{"submit\n", "submit"},
		{"edit 287:295\n    x = 1\nend_of_edit", "edit"},
		{"str_replace_editor view /testbed/a.py  --view_range 1 20", "str_replace_editor"},
		{"find_file\tdiscount.go", "find_file"},
		{"  search_dir foo", "search_dir"},
		{"nl -ba x.py | sed -n '10,40p'", "bash"},
		{"python reproduce.py", "bash"},
		{"opener x", "bash"},
		{"cat open", "bash"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sweAgentToolName(tt.action), tt.action)
	}
}

func TestSWEAgentPreOneTrajectory(t *testing.T) {
	t.Parallel()
	s := sweAgentRead(t, "minimal.traj")
	assert.Equal(t, "swe-agent", s.Format)
	assert.Equal(t, "swe-agent", s.Agent)
	assert.Equal(t, "/shop__shop", s.CWD, "the working_dir of the first step's state, a JSON string before 1.0")
	assert.Empty(t, s.Warnings)
	require.Equal(t, []string{"find_file", "open", "submit"}, callNames(s))
	for _, c := range s.Calls {
		assert.True(t, c.HasResult, c.Name)
		assert.Empty(t, c.ID, "steps have no call id")
		assert.Nil(t, c.CumulativeTokens, "the file has totals only")
		assert.True(t, c.Time.IsZero())
	}
	assert.JSONEq(t, `{"command":"open internal/cart/discount.go 12\n"}`, string(s.Calls[1].Arguments), "the whole action, as recorded")
	assert.Contains(t, s.Calls[1].Result, "12:\t\tc.Items[i].Price")
	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 9100, OutputTokens: 310}, *s.Usage)
	assert.True(t, strings.HasPrefix(s.Answer, "\ndiff --git"), "the submission")
}

func TestSWEAgentFixtures(t *testing.T) {
	t.Parallel()
	t.Run("a shell read is a bash call with the whole command", func(t *testing.T) {
		t.Parallel()
		s := sweAgentRead(t, "shell-read.traj")
		require.Len(t, s.Calls, 1)
		assert.Equal(t, "bash", s.Calls[0].Name)
		assert.Equal(t, "nl -ba internal/cart/discount.go | sed -n '10,40p'\n", s.Calls[0].ArgumentsMap()["command"])
		assert.True(t, strings.HasPrefix(s.Calls[0].Result, "    10\tfunc Apply"))
	})
	t.Run("function-calling steps take the model's tool call", func(t *testing.T) {
		t.Parallel()
		s := sweAgentRead(t, "function-calling.traj")
		assert.Equal(t, "shop__shop-101", s.Task, "replay_config's problem statement id")
		assert.Equal(t, "claude-sonnet-4-20250514", s.Model)
		assert.Equal(t, "1.1.0", s.AgentVersion)
		assert.Equal(t, "/testbed", s.CWD)
		assert.Empty(t, s.Warnings, "the format-error step is skipped quietly")
		require.Equal(t, []string{"str_replace_editor", "bash", "submit"}, callNames(s))
		view := s.Calls[0]
		assert.Equal(t, "call_a1", view.ID)
		assert.JSONEq(t, `{"command":"view","path":"/testbed/internal/cart/discount.go","view_range":[10,20]}`, string(view.Arguments))
		assert.True(t, strings.HasPrefix(view.Result, "Here's the result of running `cat -n`"), "the step's observation")
		assert.JSONEq(t, `{"command":"go test ./internal/cart/"}`, string(s.Calls[1].Arguments))
		assert.JSONEq(t, `{}`, string(s.Calls[2].Arguments))
		require.NotNil(t, s.Usage)
		assert.Equal(t, Usage{InputTokens: 20400, OutputTokens: 610}, *s.Usage)
	})
	t.Run("a demonstration without trajectory is read from its history", func(t *testing.T) {
		t.Parallel()
		s := sweAgentRead(t, "call-without-result.traj")
		require.Equal(t, []string{"search_dir", "open"}, callNames(s))
		assert.Equal(t, "call_d1", s.Calls[0].ID)
		assert.JSONEq(t, `{"search_term":"pct / 100"}`, string(s.Calls[0].Arguments))
		assert.True(t, s.Calls[0].HasResult)
		assert.Contains(t, s.Calls[0].Result, "Found 1 matches")
		assert.False(t, s.Calls[1].HasResult, "no tool message answers the last call")
		assert.Nil(t, s.Usage)
	})
	t.Run("a step of the wrong type is skipped with its line", func(t *testing.T) {
		t.Parallel()
		s := sweAgentRead(t, "malformed-step.traj")
		assert.Equal(t, []string{"find_file", "submit"}, callNames(s))
		require.Len(t, s.Warnings, 1)
		assert.Equal(t, filepath.Join(sweAgentFixtures, "malformed-step.traj")+":11: skipped a trajectory step: field action: expected a string, found number", s.Warnings[0].String())
	})
	t.Run("a file cut short keeps the steps before the cut", func(t *testing.T) {
		t.Parallel()
		s := sweAgentRead(t, "truncated.traj")
		assert.Equal(t, []string{"find_file"}, callNames(s))
		require.Len(t, s.Warnings, 1)
		data, err := os.ReadFile(filepath.Join(sweAgentFixtures, "truncated.traj"))
		require.NoError(t, err)
		assert.Equal(t, strings.Count(string(data), "\n")+1, s.Warnings[0].Line)
		assert.Contains(t, s.Warnings[0].Message, "cut short")
	})
}

func TestSWEAgentMalformedInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		calls     int
		warning   string
		err       string
	}{
		{"a trajectory that is not an array is reported", `{"trajectory":{"action":"ls"},"history":[]}`, 0, `t:1: ignored "trajectory": expected an array, found an object`, ""},
		{"a null trajectory is absent", `{"trajectory":null,"history":[{"role":"assistant","action":"ls","agent":"main"},{"role":"user","content":"a.go","agent":"main"}]}`, 1, "", ""},
		{"an info of the wrong shape is ignored with a warning", `{"trajectory":[{"action":"ls","observation":"a"}],"info":{"model_stats":{"tokens_sent":"many"}}}`, 1, "t:1: ignored info: field info.model_stats.tokens_sent: expected an integer, found string", ""},
		{"a replay_config string that is not JSON says nothing", `{"trajectory":[{"action":"ls","observation":"a"}],"replay_config":"run.yaml"}`, 1, "", ""},
		{"zero token totals are no usage", `{"trajectory":[{"action":"ls","observation":"a"}],"info":{"model_stats":{"tokens_sent":0,"tokens_received":0}}}`, 1, "", ""},
		{"an object without trajectory or history", `{"info":{}}`, 0, "", `t: not a SWE-agent trajectory: the object has neither "trajectory" nor "history"`},
		{"an array is not a trajectory", `[{"action":"ls"}]`, 0, "", "t:1: not a SWE-agent trajectory: expected a JSON object"},
		{"a file broken before its first step", `{"trajectory":[{"action":`, 0, "", "t:1: reading SWE-agent trajectory: nothing could be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Read(strings.NewReader(tt.doc), Options{Format: "swe-agent", Source: "t"})
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, s.Calls, tt.calls)
			assert.Nil(t, s.Usage)
			if tt.warning == "" {
				assert.Empty(t, s.Warnings)
				return
			}
			require.Len(t, s.Warnings, 1)
			assert.Equal(t, tt.warning, s.Warnings[0].String())
		})
	}
}
