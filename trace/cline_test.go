package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var clineFixtures = filepath.Join("testdata", "cline")

func TestClineTaskFolderIsReadAsRecorded(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(clineFixtures, "search-list-skip-deny")
	s, err := ReadFile(dir, Options{Source: "task"})
	require.NoError(t, err)
	assert.Equal(t, "cline", s.Format)
	assert.Equal(t, "task", s.Source)
	assert.Equal(t, "/home/dev/shop", s.CWD)
	assert.Equal(t, "Where is the retry limit set?", s.Prompt)
	assert.Equal(t, int64(1767430800000), s.Start.UnixMilli())
	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 155 + 10, OutputTokens: 50, CacheReadTokens: 50, CacheCreationTokens: 5}, *s.Usage)
	assert.Equal(t, "I will read the file, then rewrite it.", s.Answer, "the last text the model wrote besides its calls")
	skip := "Tool [write_to_file] was not executed because a tool has already been used in this message. Only one tool may be used per message. You must assess the first tool's result before proceeding to use the next tool."
	assert.Equal(t, []atifRow{
		{Name: "search_files", Args: `{"file_pattern":"*.go","path":".","regex":"maxRetries"}`, HasResult: true, Cum: -1,
			Result: "Found 2 results.\n\ncart/retry.go\n│----\n│const maxRetries = 3\n│----\n\ncart/retry_test.go\n│----\n│\tif n > maxRetries {\n│----"},
		{Name: "list_files", Args: `{"path":"cart","recursive":"false"}`, HasResult: true, Cum: -1, Result: "retry.go\nretry_test.go\ntestdata/"},
		{Name: "read_file", Args: `{"path":"cart/retry.go"}`, HasResult: true, Cum: -1, Result: "package cart\n\nconst maxRetries = 3\n"},
		{Name: "write_to_file", Args: `{"content":"package cart\n\n// \u003c/content\u003e in a comment\nconst maxRetries = 5","path":"cart/retry.go"}`,
			HasResult: true, IsError: true, Cum: -1, Result: skip},
		{Name: "replace_in_file", Args: `{"diff":"------- SEARCH\nconst maxRetries = 3\n=======\nconst maxRetries = 5\n+++++++ REPLACE","path":"cart/retry.go"}`,
			HasResult: true, IsError: true, Cum: -1, Result: "The user denied this operation."},
		{Name: "execute_command", Args: `{"command":"go test ./cart","requires_approval":"false"}`, HasResult: true, Cum: -1,
			Result: "Command executed.\nOutput:\nok  \tshop/cart\t0.01s"},
		{Name: "use_mcp_tool", Args: `{"arguments":"{\"q\": \"maxRetries\"}","server_name":"github","tool_name":"search_code"}`, HasResult: true, IsError: true, Cum: -1,
			Result: "The tool execution failed with the following error:\n<error>\nMCP server github is not connected\n</error>"},
		{Name: "attempt_completion", Args: `{"result":"The retry limit is maxRetries in cart/retry.go."}`, Cum: -1},
	}, atifRows(t, s))
	assert.Empty(t, s.Warnings)
}

func TestClineNativeToolCallsAreJoinedByID(t *testing.T) {
	t.Parallel()
	s, err := ReadFile(filepath.Join(clineFixtures, "native-tool-calls"), Options{Source: "n"})
	require.NoError(t, err)
	assert.Equal(t, "List the cart package", s.Prompt)
	assert.Nil(t, s.Usage, "no ui_messages.json")
	assert.Equal(t, []atifRow{
		{ID: "toolu_1", Name: "list_files", Args: `{"path":"cart","recursive":"true"}`, HasResult: true, Result: "retry.go\nretry_test.go", Cum: -1},
		{ID: "toolu_2", Name: "read_file", Args: `{"path":"cart/retry.go"}`, HasResult: true, IsError: true, Result: "The user denied this operation.", Cum: -1},
	}, atifRows(t, s))
	assert.Equal(t, []string{
		`n/api_conversation_history.json: message [2]: tool_result for "toolu_x", which no tool_use started, skipped`,
		"n/api_conversation_history.json: message [3] skipped: expected an object with role and content",
	}, warningStrings(s))
}

func TestClineConversationFileIsReadWhenForced(t *testing.T) {
	t.Parallel()
	file := filepath.Join(clineFixtures, "search-list-skip-deny", "api_conversation_history.json")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.False(t, Cline{}.Detect(data), "a bare array of messages is not claimed")
	_, err = ReadFile(file, Options{})
	require.Error(t, err, "not detected from the file alone")
	s, err := ReadFile(file, Options{Format: "cline"})
	require.NoError(t, err)
	assert.Len(t, s.Calls, 8)
	assert.Nil(t, s.Usage)
}

func TestClineAnswersArePairedByPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		history  string
		results  []string
		warnings []string
	}{
		{
			name:    "an answer for a tool the message did not call is a warning",
			history: `[{"role":"assistant","content":"<read_file><path>a</path></read_file>"},{"role":"user","content":[{"type":"text","text":"[list_files for 'a'] Result:"},{"type":"text","text":"x"}]}]`,
			results: []string{""},
			warnings: []string{
				"c: message [1]: the answer for list_files came where read_file was waiting; read_file is left without a result",
				"c: message [1]: an answer for list_files, which no open call of the last assistant message asked for",
			},
		},
		{
			name:    "the output runs over several text blocks until the environment details",
			history: `[{"role":"assistant","content":"<read_file><path>a</path></read_file>"},{"role":"user","content":[{"type":"text","text":"[read_file for 'a'] Result:"},{"type":"text","text":"one"},{"type":"text","text":"two"},{"type":"text","text":"<environment_details>x</environment_details>"}]}]`,
			results: []string{"one\ntwo"},
		},
		{
			name:    "a message as a plain string",
			history: `[{"role":"assistant","content":"<list_files>\n<path>src</path>\n</list_files>"},{"role":"user","content":"[list_files for 'src'] Result:"}]`,
			results: []string{""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Cline{}.Read(strings.NewReader(tt.history), Options{Source: "c"})
			require.NoError(t, err)
			var got []string
			for _, c := range s.Calls {
				got = append(got, c.Result)
			}
			assert.Equal(t, tt.results, got)
			assert.Equal(t, tt.warnings, warningStrings(s))
		})
	}
}

func TestClineRefusesWhatIsNotAConversation(t *testing.T) {
	t.Parallel()
	_, err := Cline{}.Read(strings.NewReader(`{"role":"user"}`), Options{Source: "x"})
	assert.ErrorContains(t, err, "x: expected Cline's conversation, a JSON array of messages")
	_, err = Cline{}.Read(strings.NewReader(`[1, "a"]`), Options{Source: "x"})
	assert.EqualError(t, err, "x: not a Cline conversation: no element is a message with role and content")
	s, err := Cline{}.Read(strings.NewReader(`[]`), Options{Source: "x"})
	require.NoError(t, err, "a task with no message yet")
	assert.Empty(t, s.Calls)

	fsys := fstest.MapFS{clineHistory: {Data: []byte(`[]`)}, clineUIMessages: {Data: []byte(`{`)}}
	assert.True(t, Cline{}.DetectDir(fsys))
	s, err = Cline{}.ReadDir(fsys, Options{Source: "t"})
	require.NoError(t, err)
	assert.Equal(t, []string{"t: t/ui_messages.json skipped: expected a JSON array of messages: unexpected end of JSON input"}, warningStrings(s))
	assert.False(t, Cline{}.DetectDir(fstest.MapFS{"ui_messages.json": {Data: []byte(`[]`)}}))
	assert.False(t, Cline{}.DetectDir(fstest.MapFS{"api_conversation_history.json/x": {Data: []byte(`[]`)}}), "a folder of that name")
}

func TestClineToolUsesAreReadFromXML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []clineToolUse
		rest string
	}{
		{"a call with its parameters", "Look.\n<read_file>\n<path>src/a.ts</path>\n</read_file>", []clineToolUse{{name: "read_file", params: map[string]string{"path": "src/a.ts"}}}, "Look.\n"},
		{"two calls in order", "<list_files><path>a</path></list_files><read_file><path>b</path></read_file>",
			[]clineToolUse{{name: "list_files", params: map[string]string{"path": "a"}}, {name: "read_file", params: map[string]string{"path": "b"}}}, ""},
		{"an unclosed call runs to the end", "<execute_command><command>ls", []clineToolUse{{name: "execute_command", params: map[string]string{"command": "ls"}}}, ""},
		{"other tags are not calls", "<thinking>hm</thinking><b>x</b>", nil, "<b>x</b>"},
		{"an empty call closes at once", "<list_files></list_files><read_file><path></path></read_file>",
			[]clineToolUse{{name: "list_files", params: map[string]string{}}, {name: "read_file", params: map[string]string{"path": ""}}}, ""},
		{"a diff keeps the closing tag it holds", "<replace_in_file><path>a</path><diff>x</diff>y</diff></replace_in_file>",
			[]clineToolUse{{name: "replace_in_file", params: map[string]string{"path": "a", "diff": "x</diff>y"}}}, ""},
		{"file text keeps the closing tag it holds", "<write_to_file><path>a</path><content>x</write_to_file>y</content></write_to_file>",
			[]clineToolUse{{name: "write_to_file", params: map[string]string{"path": "a", "content": "x</write_to_file>y"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := clineToolUses(tt.text)
			for i := range got {
				got[i].start, got[i].end = 0, 0
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.rest, clineStripTools(tt.text))
		})
	}
}

func TestClineMarkers(t *testing.T) {
	t.Parallel()
	name, ok := clineResultHeader("[search_files for 'x' in '*.go'] Result:")
	assert.True(t, ok)
	assert.Equal(t, "search_files", name)
	name, ok = clineResultHeader("[attempt_completion] Result:")
	assert.True(t, ok)
	assert.Equal(t, "attempt_completion", name)
	_, ok = clineResultHeader("[note] not a result")
	assert.False(t, ok)
	_, ok = clineResultHeader("[] Result:")
	assert.False(t, ok)
	name, ok = clineSkipped("Tool [read_file] was not executed because the user rejected a previous tool.")
	assert.True(t, ok)
	assert.Equal(t, "read_file", name)
	_, ok = clineSkipped("Tool [read_file] ran")
	assert.False(t, ok)
	assert.Equal(t, "/w/app", clineWorkingDir("x\n# Current Working Directory (/w/app) Files\na"))
	assert.Equal(t, "/w", clineWorkingDir("# Current Working Directory (/w) Files"), "at the text's start")
	assert.Equal(t, "", clineWorkingDir("# Current Working Directory (/w\n) Files"))
	assert.Equal(t, "", clineWorkingDir("no details"))
	for _, failed := range []string{"The user denied this operation.", "The tool execution failed with the following error:\n<error>x</error>", "Error executing command", "[ERROR] x"} {
		assert.True(t, clineFailed(failed), failed)
	}
	assert.False(t, clineFailed("ok"))
}

func FuzzCline(f *testing.F) {
	fuzzSeeds(f, filepath.Join(clineFixtures, "*", clineHistory), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets},
		`[{"role":"assistant","content":"<read_file><path>a</read_file><write_to_file><content>"},{"role":"user","content":[{"type":"text","text":"Tool [x] was not executed"},{"type":"tool_result"}]}]`)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Cline{}.Read(strings.NewReader(string(data)), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
	})
}

func TestClineUIMessagesWithoutTimesTasksOrTokens(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		clineHistory: {Data: []byte(`[{"role":"user","content":"<task>\nFix it\n</task>"}]`)},
		clineUIMessages: {Data: []byte(`[{"ts":0,"type":"say","say":"task","text":" "},` +
			`{"ts":1767430800000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":0,\"tokensOut\":0}"},` +
			`{"ts":1767430700000,"type":"say","say":"api_req_started","text":"not json"}]`)},
	}
	s, err := Cline{}.ReadDir(fsys, Options{Source: "t"})
	require.NoError(t, err)
	assert.Equal(t, "Fix it", s.Prompt, "an empty task message leaves the task of the conversation")
	assert.Equal(t, int64(1767430700000), s.Start.UnixMilli(), "a time of 0 is no time")
	assert.Nil(t, s.Usage, "requests without tokens give no usage")
}
