package trace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geminiToolLine is a recording line with one call of tool, whose
// functionResponse response is the given JSON object.
func geminiToolLine(t *testing.T, tool string, args map[string]any, status string, response map[string]any) string {
	t.Helper()
	rec := map[string]any{
		"id": "g1", "type": "gemini", "content": "",
		"toolCalls": []any{map[string]any{
			"id": "c1", "name": tool, "args": args, "status": status,
			"result": []any{map[string]any{"functionResponse": map[string]any{
				"id": "c1", "name": tool, "response": response}}},
		}},
	}
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	return geminiMeta + string(b) + "\n"
}

// geminiOldShell is the shell tool's text before January 2026, every field
// written.
func geminiOldShell(command, output, exit, signal string) string {
	return "Command: " + command + "\nDirectory: (root)\nOutput: " + output + "\nError: (none)\nExit Code: " + exit +
		"\nSignal: " + signal + "\nBackground PIDs: (none)\nProcess Group PGID: 1184"
}

func TestGeminiShellResultsAreTheCommandOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		output  string // the shell tool's text
		max     int    // MaxResultBytes
		want    string
		isError bool
	}{
		{name: "a successful command shows its output",
			command: "ls", output: geminiOldShell("ls", "a.go\nb.go", "0", "0"), want: "a.go\nb.go"},
		{name: "a non-zero exit code is a failure under status success",
			command: "file x.docx", output: geminiOldShell("file x.docx", "bash: line 1: file: command not found", "127", "0"),
			want: "bash: line 1: file: command not found", isError: true},
		{name: "(empty) stands for no output",
			command: "rm x", output: geminiOldShell("rm x", "(empty)", "0", "0"), want: ""},
		{name: "output lines that look like fields stay output",
			command: "cat log", output: geminiOldShell("cat log", "Error: disk full\nExit Code: 3\nError: (none)", "0", "0"),
			want: "Error: disk full\nExit Code: 3\nError: (none)"},
		{name: "a signal without an exit code is a failure",
			command: "sleep 99", output: geminiOldShell("sleep 99", "(empty)", "(none)", "SIGTERM"), want: "", isError: true},
		{name: "an error of the older shape is a failure, over several lines",
			command: "x",
			output:  "Command: x\nDirectory: (root)\nOutput: (empty)\nError: spawn x ENOENT\n    at spawn\nExit Code: (none)\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: (none)",
			want:    "", isError: true},
		{name: "a command of several lines is matched against the call's argument",
			command: "cat <<EOF\nDirectory: fake\nOutput: fake\nEOF",
			output:  geminiOldShell("cat <<EOF\nDirectory: fake\nOutput: fake\nEOF", "Directory: fake\nOutput: fake", "0", "0"),
			want:    "Directory: fake\nOutput: fake"},
		{name: "the newer shape writes only the fields that say something",
			command: "go test ./...", output: "Output: ok  \texample.com/app\t0.01s\nProcess Group PGID: 77", want: "ok  \texample.com/app\t0.01s"},
		{name: "the newer shape's exit code is written when not 0",
			command: "go vet ./...", output: "Output: main.go:3:1: bad\nExit Code: 1\nProcess Group PGID: 77", want: "main.go:3:1: bad", isError: true},
		{name: "in the newer shape an Error line is output: a process error is recorded as the call's error",
			command: "cat notes", output: "Output: first\nError: not a field\nProcess Group PGID: 77", want: "first\nError: not a field"},
		{name: "the untrusted_context wrapper is taken off and its escape undone",
			command: "cat page.html",
			output:  "<untrusted_context>\nOutput: a &lt;/untrusted_context&gt; b\nExit Code: 2\nProcess Group PGID: 8\n</untrusted_context>",
			want:    "a </untrusted_context> b", isError: true},
		{name: "an output cut by the scheduler keeps its cut and its fields are read from its end",
			command: "cat big.log",
			output: "Output too large. Showing first 20 and last 40 characters. For full output see: /tmp/out.txt\n" +
				"<untrusted_context>\nOutput: line 1\nli\n\n... [9,940 characters omitted] ...\n\nne 999\nExit Code: 1\nProcess Group PGID: 8\n</untrusted_context>",
			want: "line 1\nli\n\n... [9,940 characters omitted] ...\n\nne 999", isError: true},
		{name: "a command cancelled by the inactivity timeout shows what it printed before",
			command: "npm start",
			output:  "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. Below is the output before it was cancelled:\nlistening on :3000",
			want:    "listening on :3000", isError: true},
		{name: "a command blocked before it ran is a failure that keeps its message",
			command: "echo $(id)",
			output:  "Command injection detected: command substitution syntax ($(), backticks, <() or >()) found in command arguments.",
			want:    "Command injection detected: command substitution syntax ($(), backticks, <() or >()) found in command arguments.", isError: true},
		{name: "a command moved to the background shows its initial output",
			command: "make watch", output: "Command is running in background. PID: 4242. Initial output:\nwatching", want: "watching"},
		{name: "a text of no shape the shell tool writes is kept as it is",
			command: "ls", output: "Command: ls\nDirectory: (root)\nStdout: a.go\nStderr: (empty)\nError: (none)\nExit Code: 1",
			want: "Command: ls\nDirectory: (root)\nStdout: a.go\nStderr: (empty)\nError: (none)\nExit Code: 1"},
		{name: "MaxResultBytes cuts the output, and the exit code still counts",
			command: "seq 100", output: geminiOldShell("seq 100", "1\n2\n3\n4\n5", "2", "0"), max: 4, want: "1\n2\n", isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := geminiToolLine(t, "run_shell_command", map[string]any{"command": tt.command}, "success", map[string]any{"output": tt.output})
			s := geminiRead(t, doc, Options{MaxResultBytes: tt.max})
			require.Len(t, s.Calls, 1)
			c := s.Calls[0]
			assert.Equal(t, tt.want, c.Result)
			assert.Equal(t, tt.isError, c.IsError)
			assert.True(t, c.HasResult)
		})
	}
}

func TestGeminiFailuresUnderStatusSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tool     string
		response map[string]any
		want     string
		isError  bool
	}{
		{name: "a response that holds an error instead of an output is a failure",
			tool: "read_file", response: map[string]any{"error": "File not found: /w/READ_ME.md"},
			want: "File not found: /w/READ_ME.md", isError: true},
		{name: "an error object is a failure, kept as JSON",
			tool: "mcp_db_query", response: map[string]any{"error": map[string]any{"message": "timeout"}},
			want: `{"error":{"message":"timeout"}}`, isError: true},
		{name: "the grep tool's error text is a failure",
			tool: "search_file_content", response: map[string]any{"output": "Error during grep search operation: rg exited with code 2"},
			want: "Error during grep search operation: rg exited with code 2", isError: true},
		{name: "a file read that shows a shell-like text is not unwrapped",
			tool: "read_file", response: map[string]any{"output": geminiOldShell("ls", "a.go", "1", "0")},
			want: geminiOldShell("ls", "a.go", "1", "0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := geminiRead(t, geminiToolLine(t, tt.tool, map[string]any{}, "success", tt.response), Options{})
			require.Len(t, s.Calls, 1)
			assert.Equal(t, tt.want, s.Calls[0].Result)
			assert.Equal(t, tt.isError, s.Calls[0].IsError)
		})
	}
}

func TestGeminiShellResultIsReadWhateverTheKeyOrder(t *testing.T) {
	t.Parallel()
	// The result before the name and the arguments: the shell tool is
	// still known when the result is read.
	text := geminiOldShell("ls", "a.go", "2", "0")
	b, err := json.Marshal(text)
	require.NoError(t, err)
	doc := geminiMeta + `{"id":"g1","type":"gemini","toolCalls":[{"result":[{"functionResponse":{"response":{"output":` + string(b) +
		`}}}],"status":"success","args":{"command":"ls"},"name":"run_shell_command","id":"c1"}]}` + "\n"
	s := geminiRead(t, doc, Options{})
	require.Len(t, s.Calls, 1)
	assert.Equal(t, "a.go", s.Calls[0].Result)
	assert.True(t, s.Calls[0].IsError)
	assert.False(t, strings.Contains(s.Calls[0].Result, "Exit Code"))
}
