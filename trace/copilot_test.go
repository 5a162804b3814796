package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var copilotFixtures = filepath.Join("testdata", "copilot-chat")

func TestCopilotChatFixturesAreReadAsRecorded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		cwd      string
		want     []atifRow
		warnings []string
	}{
		{
			name: "the model's calls of each request are joined to their results, rendered as the model read them",
			file: "search-terminal-and-failed-read.json",
			cwd:  "/home/dev/shop",
			want: []atifRow{
				{ID: "call_sem", Name: "semantic_search", Args: `{"query":"cart total computation"}`, HasResult: true, Cum: -1,
					Result: "Here are the code snippets that match the query:\ncart/total.go\nfunc Total(items []Item) int {"},
				{ID: "call_files", Name: "file_search", Args: `{"query":"**/cart/*.go"}`, HasResult: true, Cum: -1,
					Result: "2 total results\n/home/dev/shop/cart/total.go\n/home/dev/shop/cart/total_test.go"},
				{ID: "call_grep", Name: "grep_search", Args: `{"query":"func Total","isRegexp":false}`, HasResult: true, Cum: -1,
					Result: "1 match<match path=\"/home/dev/shop/cart/total.go\" line=7>\nfunc Total(items []Item) int {\n</match>\n"},
				{ID: "call_term", Name: "run_in_terminal", Args: `{"command":"go test ./cart","explanation":"Run the cart tests","isBackground":false}`,
					HasResult: true, Cum: -1, Result: "ok  \tshop/cart\t0.012s\n"},
				{ID: "call_read", Name: "read_file", Args: `{"filePath":"/home/dev/shop/cart/missing.go","startLine":1,"endLine":40}`,
					HasResult: true, IsError: true, Cum: -1,
					Result: "ERROR while calling tool: File not found: /home/dev/shop/cart/missing.go\nPlease check your input and try again."},
				{ID: "u9", Name: "copilot_readFile", Cum: -1},
			},
		},
		{
			name: "an operation log is replayed: sets, appends and deletes; a broken record and a missing path are warnings",
			file: "set-push-delete.jsonl",
			cwd:  "/home/dev/shop",
			want: []atifRow{
				{ID: "call_a", Name: "read_file", Args: `{"filePath":"/home/dev/shop/cart/total.go","startLine":5,"endLine":7}`, HasResult: true, Cum: -1,
					Result: "```go\n// Total sums the items.\nfunc Total(items []Item) int {\n\tsum := 0\n```"},
				{ID: "call_b", Name: "replace_string_in_file", Args: `{"filePath":"/home/dev/shop/cart/total.go","oldString":"sum := 0","newString":"sum := 0 // cents"}`,
					HasResult: true, Cum: -1, Result: "The following files were successfully edited:\n/home/dev/shop/cart/total.go\n"},
			},
			warnings: []string{
				"set-push-delete.jsonl:6: record skipped: expected an object with kind, k and v",
				"set-push-delete.jsonl:7: kind 1 record at requests[5].result skipped: requests[5] does not exist",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := ReadFile(filepath.Join(copilotFixtures, tt.file), Options{Source: tt.file})
			require.NoError(t, err)
			assert.Equal(t, "copilot-chat", s.Format)
			assert.Equal(t, tt.cwd, s.CWD)
			assert.Equal(t, tt.want, atifRows(t, s))
			assert.Equal(t, tt.warnings, warningStrings(s))
		})
	}
}

func TestCopilotChatSessionMetadata(t *testing.T) {
	t.Parallel()
	s, err := ReadFile(filepath.Join(copilotFixtures, "search-terminal-and-failed-read.json"), Options{})
	require.NoError(t, err)
	assert.Equal(t, "5e55-0001", s.ID)
	assert.Equal(t, "copilot/gpt-4.1", s.Model)
	assert.Equal(t, "Find where the cart total is computed and run the tests", s.Prompt)
	assert.Equal(t, "Looking at the code. The total is computed in cart/total.go.", s.Answer)
	assert.Equal(t, int64(1767225590000), s.Start.UnixMilli())
}

func TestCopilotLogOperations(t *testing.T) {
	t.Parallel()
	base := `{"kind":0,"v":{"version":3,"sessionId":"s","requests":[{"message":{"text":"a"}}],"list":[1,2,3],"obj":{"x":1}}}` + "\n"
	tests := []struct {
		name, ops string
		warning   string
	}{
		{"set replaces a member", `{"kind":1,"k":["obj","x"],"v":2}`, ""},
		{"push cuts to i, then appends", `{"kind":2,"k":["list"],"i":1,"v":[9]}`, ""},
		{"push without items only cuts", `{"kind":2,"k":["list"],"i":0}`, ""},
		{"delete drops a member", `{"kind":3,"k":["obj"]}`, ""},
		{"a cut past the end is refused", `{"kind":2,"k":["list"],"i":4,"v":[]}`, "x:2: kind 2 record at list skipped: cut at 4 of an array of 3"},
		{"push onto an object is refused", `{"kind":2,"k":["obj"],"v":[1]}`, "x:2: kind 2 record at obj skipped: the value there is not an array"},
		{"push of a non-array is refused", `{"kind":2,"k":["list"],"v":1}`, "x:2: kind 2 record at list skipped: its value is not an array of items to append"},
		{"set without a path is refused", `{"kind":1,"k":[],"v":1}`, "x:2: kind 1 record at the root skipped: no path"},
		{"an index into an object is refused", `{"kind":1,"k":["obj",0,"y"],"v":1}`, "x:2: kind 1 record at obj[0].y skipped: obj[0]: an index into an object"},
		{"an unknown kind is refused", `{"kind":7,"k":["obj"],"v":1}`, "x:2: kind 7 record at obj skipped: unknown kind"},
		{"deleting an element is refused", `{"kind":3,"k":["list",0]}`, "x:2: kind 3 record at list[0] skipped: only an object member can be deleted"},
		{"setting past an array's end is refused", `{"kind":1,"k":["list",3],"v":1}`, "x:2: kind 1 record at list[3] skipped: index 3 is outside the array"},
		{"a member of a number is refused", `{"kind":1,"k":["list",0,"z"],"v":1}`, "x:2: kind 1 record at list[0].z skipped: the parent is neither an object nor an array"},
		{"a step into a number is refused", `{"kind":1,"k":["list",0,"z","w"],"v":1}`, "x:2: kind 1 record at list[0].z.w skipped: list[0].z: a step into a value that is neither an object nor an array"},
		{"a missing member is refused", `{"kind":1,"k":["nope","w"],"v":1}`, "x:2: kind 1 record at nope.w skipped: nope does not exist"},
		{"a set without a value is refused", `{"kind":1,"k":["obj","x"]}`, "x:2: kind 1 record at obj.x skipped: its value is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := CopilotChat{}.Read(strings.NewReader(base+tt.ops+"\n"), Options{Source: "x"})
			require.NoError(t, err)
			if tt.warning == "" {
				assert.Empty(t, warningStrings(s))
			} else {
				assert.Equal(t, []string{tt.warning}, warningStrings(s))
			}
		})
	}
	t.Run("a replayed log gives the state its operations describe", func(t *testing.T) {
		t.Parallel()
		var state any
		require.NoError(t, func() error {
			v, err := copilotDecode([]byte(`{"list":[1,2,3],"obj":{"x":1}}`))
			state = v
			return err
		}())
		for _, op := range []string{`{"kind":1,"k":["obj","x"],"v":2}`, `{"kind":2,"k":["list"],"i":1,"v":[9,8]}`, `{"kind":3,"k":["obj","x"]}`, `{"kind":1,"k":["list",0],"v":"a"}`} {
			var o copilotOp
			require.NoError(t, jsonUnmarshalString(op, &o))
			require.NoError(t, copilotApply(&state, &o))
		}
		assert.Equal(t, `{"list":["a",9,8],"obj":{}}`, mustJSON(t, state))
	})
}

func TestCopilotChatRefusesWhatIsNotASession(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, data, want string }{
		{"an array", `[1]`, "x:1: expected a Copilot chat session (a JSON object with version and requests), found an array"},
		{"an object without requests", `{"version":3,"sessionId":"s"}`, "x:1: not a Copilot chat session: the object has no requests array"},
		{"a broken first request", `{"version":3,"requests":[{"message":`, "x:1: reading Copilot chat session: no request could be read"},
		{"a log that starts with a change", `{"kind":1,"k":["a"],"v":1}`, "x:1: not a Copilot chat session log: the first record must have kind 0 (the whole session)"},
		{"a log whose state is not an object", `{"kind":0,"v":[1]}`, "x:1: not a Copilot chat session log: the initial record's v is an array, expected an object"},
		{"a log whose first line is broken", `{"kind":0,"v":{`, "x:1: not a Copilot chat session log: expected a record with kind 0"},
		{"a log whose state has no requests", `{"kind":0,"v":{"version":3}}`, "x: not a Copilot chat session: the session has no requests array"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := CopilotChat{}.Read(strings.NewReader(tt.data), Options{Source: "x"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	data, err := os.ReadFile(filepath.Join(ampFixtures, "read-grep-bash-edit.json"))
	require.NoError(t, err)
	_, err = Read(bytes.NewReader(data), Options{Format: "copilot-chat", Source: "a"})
	assert.Error(t, err, "an Amp thread forced through the Copilot reader")
}

func TestCopilotChatDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"a session document", `{"version":3,"requesterUsername":"me","requests":[]}`, true},
		{"a session document cut inside its requests", `{"version":3,"responderUsername":"GitHub Copilot","requests":[{"message":`, true},
		{"a session document with its name after the requests", `{"version":3,"requests":[],"sessionId":"s"}`, true},
		{"a session document cut in its requests before its name", `{"version":3,"requests":[{"a":`, false},
		{"an operation log", `{"kind":0,"v":{"version":3,"creationDate":1,"sessionId":"s","requests":[]}}`, true},
		{"an operation log whose first record is a change", `{"kind":1,"k":["a"],"v":{"version":3,"sessionId":"s","requests":[]}}`, false},
		{"a version that is a string", `{"version":"3","sessionId":"s","requests":[]}`, false},
		{"requests that are not an array", `{"version":3,"sessionId":"s","requests":{}}`, false},
		{"a document without version", `{"sessionId":"s","requests":[]}`, false},
		{"an ATIF-like document", `{"schema_version":"ATIF-v1.5","version":1,"steps":[]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, CopilotChat{}.Detect([]byte(tt.data)))
		})
	}
}

func TestCopilotResultTextRendersPromptElements(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, raw, want, err string }{
		{"a text part is its value", `{"content":[{"value":"a"},{"value":"b"}]}`, "ab", ""},
		{"a line break comes before a piece that asks for one", `{"content":[{"value":{"node":{"type":1,"children":[{"type":2,"text":"a"},{"type":2,"text":"b","lineBreakBefore":true}]}}}]}`, "a\nb", ""},
		{"no second line break after one the text ends with", `{"content":[{"value":{"node":{"type":1,"children":[{"type":2,"text":"a\n"},{"type":2,"text":"b","lineBreakBefore":true}]}}}]}`, "a\nb", ""},
		{"no line break before the first piece", `{"content":[{"value":{"node":{"type":2,"text":"a","lineBreakBefore":true}}}]}`, "a", ""},
		{"other node types hold no text", `{"content":[{"value":{"node":{"type":3,"text":"x"}}}]}`, "", ""},
		{"content that is not a list", `{"content":"x"}`, "", "expected an object with content parts"},
		{"an element that is not one", `{"content":[{"value":{"node":"x"}}]}`, "", "a prompt element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := copilotResultText([]byte(tt.raw))
			assert.Equal(t, tt.want, got)
			if tt.err == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.err)
			}
		})
	}
}

func TestCopilotWorkspaceFolder(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/w/app", copilotWorkspaceFolder("I am working in a workspace with the following folders:\n- /w/app \n- /w/lib\n"))
	assert.Equal(t, "/w/app", copilotWorkspaceFolder("with the following folders:\n- /w/app (the main one)\n"))
	assert.Equal(t, "", copilotWorkspaceFolder("with the following folders:\nnone\n"))
	assert.Equal(t, "", copilotWorkspaceFolder("no workspace"))
}
