package trace

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var miniFixtures = filepath.Join("testdata", "mini-swe-agent")

// miniReadFixture reads a fixture through trace.ReadFile, so detection is
// exercised too.
func miniReadFixture(t *testing.T, name string) *Session {
	t.Helper()
	s, err := ReadFile(filepath.Join(miniFixtures, name), Options{})
	require.NoError(t, err)
	require.Equal(t, "mini-swe-agent", s.Format, "detected format")
	return s
}

// miniUnix formats Unix seconds the way atifRow holds times.
func miniUnix(sec float64) string {
	s := int64(sec)
	return time.Unix(s, int64((sec-float64(s))*1e9)).UTC().Format(time.RFC3339Nano)
}

func TestMiniSWEAgentFixturesAreReadAsRecorded(t *testing.T) {
	t.Parallel()
	// Results are the command output the observations show.
	obs := func(_, out string) string { return out }
	tests := []struct {
		name     string
		file     string
		want     []atifRow
		warnings []string
	}{
		{
			name: "a text-mode run's bash blocks are calls and the next user messages their results",
			file: "minimal.traj.json",
			want: []atifRow{
				{Name: "bash", Args: `{"command":"cat hello.py"}`, Result: obs("0", "print('helo')\n"), HasResult: true, Time: miniUnix(1760000000), Cum: 740},
				// The 1.x submission message answers the call that submitted.
				{Name: "bash", Args: `{"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}`, HasResult: true, Time: miniUnix(1760000010), Cum: 740 + 830},
			},
		},
		{
			name: "a non-zero return code is an error, and a response with two blocks makes no call",
			file: "error-result.traj.json",
			want: []atifRow{
				{Name: "bash", Args: `{"command":"python -m pytest tests/test_hello.py"}`, Result: obs("1", "E   AssertionError: 'helo' != 'hello'\n"),
					HasResult: true, IsError: true, Time: miniUnix(1760000200), Cum: 740},
				{Name: "bash", Args: `{"command":"sed -i 's/helo/hello/' hello.py"}`, Result: obs("0", ""), HasResult: true,
					Time: miniUnix(1760000220), Cum: 740 + 810 + 865},
			},
		},
		{
			name: "tool calls are joined to tool replies by id; the submitting call has none",
			file: "tool-calling.traj.json",
			want: []atifRow{
				{ID: "call_1", Name: "bash", Args: `{"command":"grep -rn helo --include=*.py ."}`, Result: obs("0", "./hello.py:1:print('helo')\n"),
					HasResult: true, Time: miniUnix(1775700000.25), Cum: 1580},
				{ID: "call_2", Name: "bash", Args: `{"command":"cat hello.py"}`, Result: obs("0", "print('helo')\n"),
					HasResult: true, Time: miniUnix(1775700000.25), Cum: 1580},
				{ID: "call_3", Name: "bash", Args: `{"command":"sleep 999"}`,
					Result:    obs("-1", ""),
					HasResult: true, IsError: true, Time: miniUnix(1775700010), Cum: 1580 + 1740},
				{ID: "call_4", Name: "bash", Args: `{"command":"sed -i 's/helo/hello/' hello.py && echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"}`,
					Time: miniUnix(1775700080), Cum: 1580 + 1740 + 1960},
			},
		},
		{
			name: "2.x text mode takes the recorded actions, counts a rejected response's tokens and leaves a call the environment failed on without result",
			file: "call-without-result.traj.json",
			want: []atifRow{
				{Name: "bash", Args: `{"command":"grep -n helo hello.py"}`, Result: obs("0", "1:print('helo')\n"), HasResult: true,
					Time: miniUnix(1775700100.5), Cum: 1030},
				{Name: "bash", Args: `{"command":"python fix.py"}`, Time: miniUnix(1775700120.5), Cum: 1030 + 1110 + 1225},
			},
		},
		{
			name: "a trajectory cut short keeps the messages before the cut",
			file: "truncated.traj.json",
			want: []atifRow{
				{Name: "bash", Args: `{"command":"ls -la"}`, Result: obs("0", "hello.py\n"), HasResult: true, Time: miniUnix(1760000300), Cum: 740},
			},
			warnings: []string{"truncated.traj.json:81: trajectory is cut short or malformed (unexpected end of input); kept the 4 messages read before it"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := miniReadFixture(t, tt.file)
			assert.Equal(t, tt.want, atifRows(t, s))
			var want []string
			for _, w := range tt.warnings {
				want = append(want, filepath.Join(miniFixtures, w))
			}
			assert.Equal(t, want, warningStrings(s))
		})
	}
}

func TestMiniSWEAgentShellReadIsUnwrappedToTheCommandOutput(t *testing.T) {
	t.Parallel()
	s := miniReadFixture(t, "shell-read.traj.json")
	require.Len(t, s.Calls, 1)
	c := s.Calls[0]
	assert.Equal(t, "bash", c.Name)
	assert.Equal(t, `{"command":"nl -ba x.py | sed -n '10,40p'"}`, string(c.Arguments))
	assert.True(t, strings.HasPrefix(c.Result, "    10\t"), c.Result)
	assert.True(t, strings.HasSuffix(c.Result, "    40\t    total += item.price * 40\n"), c.Result)
	assert.False(t, c.IsError)
	assert.Equal(t, "acme__shop-17", s.Task)
}

func TestMiniSWEAgentSessionFields(t *testing.T) {
	t.Parallel()
	s := miniReadFixture(t, "tool-calling.traj.json")
	assert.Equal(t, "mini-swe-agent", s.Agent)
	assert.Equal(t, "2.2.7", s.AgentVersion)
	assert.Equal(t, "deepseek/deepseek-chat", s.Model)
	assert.Equal(t, "acme__hello-1", s.Task)
	assert.Equal(t, "/testbed", s.CWD)
	assert.Equal(t, "diff --git a/hello.py b/hello.py\n-print('helo')\n+print('hello')\n", s.Answer)
	assert.Equal(t, miniUnix(1775700000), s.Start.UTC().Format(time.RFC3339Nano))
	// prompt_tokens include the cached ones, which are not added again.
	assert.Equal(t, &Usage{InputTokens: 1500 + 1700 + 1900, OutputTokens: 80 + 40 + 60, CacheReadTokens: 300 + 1400 + 1600}, s.Usage)
	assert.Empty(t, s.Warnings)

	v1 := miniReadFixture(t, "minimal.traj.json")
	assert.Equal(t, "1.13.4", v1.AgentVersion)
	assert.Equal(t, "anthropic/claude-sonnet-4-5", v1.Model)
	assert.Empty(t, v1.Task)
}

// miniDoc builds a one-line trajectory around the given messages and
// model config.
func miniDoc(model, messages string) string {
	return `{"info":{"mini_version":"1.16.0","config":{"model":` + model + `}},"messages":[` + messages + `],"trajectory_format":"mini-swe-agent-1"}`
}

func miniRead(t *testing.T, doc string) *Session {
	t.Helper()
	s, err := MiniSWEAgent{}.Read(strings.NewReader(doc), Options{Source: "t.traj.json"})
	require.NoError(t, err)
	return s
}

func TestMiniSWEAgentActions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		doc      string
		commands []string
		warnings []string
	}{
		{"the recorded action_regex finds the action",
			miniDoc(`{"action_regex":"<cmd>(.*?)</cmd>"}`, `{"role":"assistant","content":"run <cmd>ls\n-la</cmd>"}`),
			[]string{"ls\n-la"}, nil},
		{"a regex Go cannot run falls back to the bash block, with a warning",
			miniDoc(`{"action_regex":"(?<=x)y"}`, `{"role":"assistant","content":"`+"```bash\\npwd\\n```"+`"}`),
			[]string{"pwd"}, []string{`t.traj.json:1: info.config: action_regex "(?<=x)y" is not a regular expression Go can run`}},
		{"white space around the block's text is trimmed, as the agent does",
			miniDoc(`{}`, `{"role":"assistant","content":"`+"```bash\\n  cat a.py  \\n```"+`"}`),
			[]string{"cat a.py"}, nil},
		{"a message without a block makes no call",
			miniDoc(`{}`, `{"role":"assistant","content":"I am done."}`),
			nil, nil},
		{"a tool reply to no known call is ignored with a warning",
			miniDoc(`{}`, `{"role":"tool","tool_call_id":"x","content":"<returncode>0</returncode>"}`),
			nil, []string{`t.traj.json:1: messages[0]: tool reply for tool_call_id "x" matches no call awaiting a result; ignored`}},
		{"a message of the wrong shape is skipped and the rest read",
			miniDoc(`{}`, `{"role":"assistant","tool_calls":"no"},[],{"role":"assistant","content":"`+"```bash\\nls\\n```"+`"}`),
			[]string{"ls"}, []string{
				"t.traj.json:1: messages[0] skipped: field tool_calls: expected an array, found a string",
				"t.traj.json:1: messages[1]: expected a message object, found an array; skipped",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := miniRead(t, tt.doc)
			var cmds []string
			for _, c := range s.Calls {
				assert.Equal(t, "bash", c.Name)
				cmds = append(cmds, c.ArgumentsMap()["command"].(string))
			}
			assert.Equal(t, tt.commands, cmds)
			var got []string
			for _, w := range warningStrings(s) {
				got = append(got, w)
			}
			require.Len(t, got, len(tt.warnings), "%q", got)
			for i, w := range tt.warnings {
				assert.True(t, strings.HasPrefix(got[i], w), "warning %q, want %q", got[i], w)
			}
		})
	}
}

func TestMiniSWEAgentReturnCodes(t *testing.T) {
	t.Parallel()
	call := `{"role":"assistant","content":"` + "```bash\\nmake\\n```" + `"},`
	tests := []struct {
		name    string
		reply   string
		isError bool
	}{
		{"return code 0 in the tag is a success", `{"role":"user","content":"<returncode>0</returncode>\n<output>\nok\n</output>"}`, false},
		{"a non-zero return code in the tag is an error", `{"role":"user","content":"<returncode>2</returncode>\n<output>\n</output>"}`, true},
		{"extra.returncode wins over the text", `{"role":"user","content":"<returncode>0</returncode>","extra":{"returncode":127}}`, true},
		{"an exception is an error", `{"role":"user","content":"<output></output>","extra":{"returncode":0,"exception_info":"boom"}}`, true},
		{"a timeout message without a return code is no error", `{"role":"user","content":"The last command <command>make</command> timed out and has been killed."}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := miniRead(t, miniDoc(`{}`, call+tt.reply))
			require.Len(t, s.Calls, 1)
			assert.True(t, s.Calls[0].HasResult)
			assert.Equal(t, tt.isError, s.Calls[0].IsError)
		})
	}
}

func TestMiniSWEAgentRejectsOtherDocuments(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"an ATIF trajectory", `{"schema_version":"ATIF-v1.5","steps":[]}`, "t:1: not a mini-swe-agent trajectory"},
		{"a SWE-agent trajectory", "{\n  \"trajectory\": [],\n  \"info\": {\"swe_agent_version\": \"1.0\"}\n}", "t:1: not a mini-swe-agent trajectory"},
		{"an array", `[{"role":"user"}]`, "t:1: expected a mini-swe-agent trajectory (a JSON object with info and messages), found an array"},
		{"a document broken before any message", "{\n  \"info\": {\"mini_version\": \"1.0\"},\n  \"messages\": [\n    {\"role\": ", "t:4: reading mini-swe-agent trajectory: no message could be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.doc), Options{Format: "mini-swe-agent", Source: "t"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestMiniSWEAgentDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prefix string
		want   bool
	}{
		{"info with mini_version first", "{\n  \"info\": {\n    \"exit_status\": \"Submitted\",\n    \"mini_version\": \"1.13.4\"", true},
		{"trajectory_format first", `{"trajectory_format":"mini-swe-agent-1.1","messages":[]}`, true},
		{"trajectory_format after the messages", `{"messages":[],"trajectory_format":"mini-swe-agent-1"}`, true},
		{"another trajectory_format", `{"messages":[],"trajectory_format":"swe-agent"}`, false},
		{"mini_version nested deeper than info", `{"info":{"config":{"mini_version":"1"}}}`, false},
		{"a SWE-agent trajectory", `{"environment":"x","trajectory":[],"info":{"swe_agent_version":"1.0"}}`, false},
		{"the name in a message only", `{"messages":[{"content":"mini-swe-agent mini_version"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, MiniSWEAgent{}.Detect([]byte(tt.prefix)))
		})
	}
}
