package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ampFixtures = filepath.Join("testdata", "amp")

func TestAmpFixturesAreReadAsRecorded(t *testing.T) {
	t.Parallel()
	const first, second = "2026-01-01T00:00:05Z", "2026-01-01T00:00:09Z"
	tests := []struct {
		name     string
		file     string
		want     []atifRow
		warnings []string
	}{
		{
			name: "each tool_use is joined to the tool_result naming its id, with the text the model reads",
			file: "read-grep-bash-edit.json",
			want: []atifRow{
				{ID: "toolu_grep", Name: "Grep", Args: `{"pattern":"func Checkout","path":"/home/dev/shop"}`,
					Result: "cart/checkout.go:11:func Checkout(c *Cart) error {", HasResult: true, Time: first, Cum: 1130},
				{ID: "toolu_read", Name: "Read", Args: `{"path":"/home/dev/shop/cart/checkout.go","read_range":[10,12]}`,
					Result: "10: // Checkout charges the cart.\n11: func Checkout(c *Cart) error {\n12: \treturn charge(c.Items[0])", HasResult: true, Time: first, Cum: 1130},
				{ID: "toolu_test", Name: "Bash", Args: `{"cmd":"go test ./cart","cwd":"/home/dev/shop"}`,
					Result: "--- FAIL: TestCheckoutEmpty\nFAIL\tshop/cart", HasResult: true, IsError: true, Time: second, Cum: 1130 + 1235},
				{ID: "toolu_edit", Name: "edit_file", Args: `{"path":"/home/dev/shop/cart/checkout.go","old_str":"\treturn charge(c.Items[0])","new_str":"\tif len(c.Items) == 0 {\n\t\treturn ErrEmpty\n\t}\n\treturn charge(c.Items[0])"}`,
					Result:    "```diff\nIndex: /home/dev/shop/cart/checkout.go\n===================================================================\n--- /home/dev/shop/cart/checkout.go\toriginal\n+++ /home/dev/shop/cart/checkout.go\tmodified\n@@ -11,2 +11,5 @@\n func Checkout(c *Cart) error {\n+\tif len(c.Items) == 0 {\n+\t\treturn ErrEmpty\n+\t}\n \treturn charge(c.Items[0])\n```",
					HasResult: true, Time: second, Cum: 1130 + 1235},
				{ID: "toolu_web", Name: "read_web_page", Args: `{"url":"https://go.dev/doc"}`, HasResult: true, IsError: true, Time: second, Cum: 1130 + 1235},
			},
		},
		{
			name: "a malformed message and a result for an unknown call are skipped with warnings; an error run is a failure",
			file: "malformed-message-and-orphan-result.json",
			want: []atifRow{{ID: "toolu_a", Name: "glob", Args: `{"filePattern":"**/*.go"}`, Result: "invalid glob", HasResult: true, IsError: true, Cum: -1}},
			warnings: []string{
				"malformed-message-and-orphan-result.json:3: message skipped: expected an object with role and content",
				`malformed-message-and-orphan-result.json:4: tool_result for "toolu_nobody", which no earlier tool_use started, skipped`,
			},
		},
		{
			name:     "a thread cut short keeps the calls read before the cut",
			file:     "cut-short.json",
			want:     []atifRow{{ID: "toolu_a", Name: "Read", Args: `{"path":"/w/a.go"}`, Cum: -1}},
			warnings: []string{"cut-short.json:3: thread is cut short or malformed (invalid character '\\n' at offset 63 (expected no control character in string literal)); kept the 1 messages read before it"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := ReadFile(filepath.Join(ampFixtures, tt.file), Options{Source: tt.file})
			require.NoError(t, err)
			assert.Equal(t, "amp", s.Format)
			assert.Equal(t, tt.want, atifRows(t, s))
			got := warningStrings(s)
			require.Len(t, got, len(tt.warnings), "warnings: %q", got)
			for i, w := range tt.warnings {
				assert.True(t, strings.HasPrefix(got[i], w), "warning %d: got %q, want prefix %q", i, got[i], w)
			}
		})
	}
}

func TestAmpThreadMetadata(t *testing.T) {
	t.Parallel()
	s, err := ReadFile(filepath.Join(ampFixtures, "read-grep-bash-edit.json"), Options{})
	require.NoError(t, err)
	assert.Equal(t, "T-0000aaaa-1111-2222-3333-444455556666", s.ID)
	assert.Equal(t, "/home/dev/shop", s.CWD, "the first tree of the environment")
	assert.Equal(t, "claude-sonnet-4-5", s.Model)
	assert.Equal(t, "2026-01-01T00:00:00Z", s.Start.UTC().Format("2006-01-02T15:04:05Z07:00"), "the earliest of created, sentAt and usage times")
	assert.Equal(t, "Why does checkout fail for empty carts?", s.Prompt)
	assert.Equal(t, "Checkout now returns ErrEmpty for an empty cart.", s.Answer)
	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 10 + 100 + 1000 + 5 + 1200, OutputTokens: 50, CacheReadTokens: 2200, CacheCreationTokens: 100}, *s.Usage)
}

func TestAmpResultTextPicksWhatTheModelReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
		failed          bool
	}{
		{"a string is the text", `"found 2 files"`, "found 2 files", false},
		{"an array of strings is one a line", `["a.go","b.go"]`, "a.go\nb.go", false},
		{"a read's content", `{"absolutePath":"/w/a","content":"1: x"}`, "1: x", false},
		{"a folder's listing stays JSON", `{"content":"a.go","isDirectory":true,"directoryEntries":["a.go"]}`, `{"content":"a.go","isDirectory":true,"directoryEntries":["a.go"]}`, false},
		{"an edit's diff", `{"diff":"d","lineRange":[1,2]}`, "d", false},
		{"a command's output, failed by its exit code", `{"output":"boom","exitCode":2}`, "boom", true},
		{"a command that exited 0", `{"output":"ok","exitCode":0}`, "ok", false},
		{"an error member is a failure", `{"error":"no such file"}`, "no such file", true},
		{"a message member", `{"message":"done"}`, "done", false},
		{"an object of other members stays JSON", `{"files":2}`, `{"files":2}`, false},
		{"null is no text", `null`, "", false},
		{"a number stays as written", `42`, "42", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, failed := ampResultText([]byte(tt.raw))
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.failed, failed)
		})
	}
}

func TestAmpDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"a thread", `{"v":1,"id":"T-1","messages":[]}`, true},
		{"a thread cut before its messages", `{"v":1,"id":"T-1","created":1`, true},
		{"an id that is not a thread id", `{"v":1,"id":"S-1","messages":[]}`, false},
		{"a version that is not a number", `{"v":"1","id":"T-1","messages":[]}`, false},
		{"messages that are not an array", `{"v":1,"id":"T-1","messages":{}}`, false},
		{"no version", `{"id":"T-1","messages":[]}`, false},
		{"T- inside a value only", `{"title":"T-shirt","messages":[]}`, false},
		{"an array", `[{"v":1,"id":"T-1"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Amp{}.Detect([]byte(tt.data)))
		})
	}
}

func TestAmpRefusesWhatIsNotAThread(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, data, want string }{
		{"an array", `[1]`, "x:1: expected an Amp thread (a JSON object with id and messages), found an array"},
		{"an object without messages", `{"v":1,"id":"T-1"}`, "x:1: not an Amp thread: the object has no messages array"},
		{"a broken first message", `{"messages":[{"role":`, "x:1: reading Amp thread: no message could be read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Amp{}.Read(strings.NewReader(tt.data), Options{Source: "x"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// Another format's document, forced.
	data, err := os.ReadFile(filepath.Join(geminiFixtures, "minimal.session.jsonl"))
	require.NoError(t, err)
	_, err = Read(bytes.NewReader(data), Options{Format: "amp", Source: "g"})
	assert.Error(t, err)
}

func TestAmpMaxResultBytesCutsResults(t *testing.T) {
	t.Parallel()
	s, err := ReadFile(filepath.Join(ampFixtures, "read-grep-bash-edit.json"), Options{MaxResultBytes: 5})
	require.NoError(t, err)
	assert.Equal(t, "10: /", s.Calls[1].Result)
	assert.True(t, s.Calls[2].IsError, "failure is read before the cut")
}

func TestAmpThreadEdgeCases(t *testing.T) {
	t.Parallel()
	read := func(t *testing.T, doc string) *Session {
		t.Helper()
		s, err := Amp{}.Read(strings.NewReader(doc), Options{Source: "x"})
		require.NoError(t, err)
		return s
	}
	t.Run("messages that are not an array are a warning, and a later messages array is read", func(t *testing.T) {
		t.Parallel()
		s := read(t, `{"v":1,"id":"T-1","messages":{},"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"glob"}]}]}`)
		assert.Equal(t, []string{"x:1: messages: expected an array, found an object; no messages read"}, warningStrings(s))
		assert.Len(t, s.Calls, 1)
	})
	t.Run("a creation time of 0 is no time", func(t *testing.T) {
		t.Parallel()
		s := read(t, `{"v":1,"id":"T-1","created":0,"messages":[{"role":"assistant","usage":{"timestamp":"2026-01-01T00:00:05Z"},"content":[]}]}`)
		assert.Equal(t, "2026-01-01T00:00:05Z", s.Start.UTC().Format(time.RFC3339))
	})
	t.Run("an environment without trees has no working directory", func(t *testing.T) {
		t.Parallel()
		s := read(t, `{"v":1,"id":"T-1","env":{"initial":{"trees":[]}},"messages":[]}`)
		assert.Empty(t, s.CWD)
	})
	t.Run("a tool_use without a name is skipped", func(t *testing.T) {
		t.Parallel()
		s := read(t, `{"v":1,"id":"T-1","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a"}]}]}`)
		assert.Empty(t, s.Calls)
		assert.Equal(t, []string{`x:1: tool_use "a" skipped: it has no name`}, warningStrings(s))
	})
}

func TestAmpFileURIPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"file:///home/dev/a%20b": "/home/dev/a b",
		"file:///c%3A/work":      "c:/work",
		"file:///c:":             "c:",
		"file:///%zz":            "/%zz",
		"/plain/path":            "/plain/path",
		"file:///a":              "/a",
	} {
		assert.Equal(t, want, fileURIPath(in), in)
	}
}

func TestAmpModelTimeAndEmptyResults(t *testing.T) {
	t.Parallel()
	doc := `{"v":1,"id":"T-1","env":{"initial":{"tags":["other","model:first","model:second"]}},"messages":[
	 {"role":"user","meta":{"sentAt":1767225500000},"content":[{"type":"text","text":"go"}]},
	 {"role":"user","meta":{"sentAt":0},"content":[]},
	 {"role":"assistant","usage":{"model":"from-usage","timestamp":"2026-01-01T00:00:05Z"},"content":[{"type":"tool_use","id":"a","name":"Read","input":{"path":"/w/a"}}]},
	 {"role":"user","content":[{"type":"tool_result","toolUseID":"a","run":{"status":"done","result":""}}]}]}`
	s, err := Amp{}.Read(strings.NewReader(doc), Options{Source: "x"})
	require.NoError(t, err)
	assert.Equal(t, "first", s.Model, "the environment's first model tag, before any usage")
	assert.Equal(t, int64(1767225500000), s.Start.UnixMilli(), "the message's sentAt")
	require.Len(t, s.Calls, 1)
	assert.True(t, s.Calls[0].HasResult)
	assert.False(t, s.Calls[0].IsError, "an empty result without an error is no failure")

	s, err = Amp{}.Read(strings.NewReader(`{"v":1,"id":"T-1","messages":[{"role":"assistant","usage":{"model":"m1"},"content":[]},{"role":"assistant","usage":{"model":"m2"},"content":[]}]}`), Options{Source: "x"})
	require.NoError(t, err)
	assert.Equal(t, "m1", s.Model, "the first usage's model")
}
