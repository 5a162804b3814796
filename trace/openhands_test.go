package trace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const openHandsFixtures = "testdata/openhands"

// openHandsRead reads a fixture of testdata/openhands (a file or a folder)
// through trace.ReadFile, so that detection is part of every test.
func openHandsRead(t *testing.T, name string) *Session {
	t.Helper()
	s, err := ReadFile(filepath.Join(openHandsFixtures, name), Options{})
	require.NoError(t, err)
	return s
}

func callNames(s *Session) []string {
	names := make([]string, len(s.Calls))
	for i, c := range s.Calls {
		names[i] = c.Name
	}
	return names
}

func TestOpenHandsMinimalEventList(t *testing.T) {
	t.Parallel()
	s := openHandsRead(t, "minimal.json")
	assert.Equal(t, "openhands", s.Format)
	assert.Equal(t, "openhands", s.Agent)
	assert.Equal(t, "claude-sonnet-4-20250514", s.Model, "the model of the recorded model response")
	assert.Equal(t, "/workspace/shop", s.CWD, "the working directory of the first command")
	assert.Equal(t, "2025-03-01T10:00:00Z", s.Start.Format("2006-01-02T15:04:05Z07:00"))
	assert.Empty(t, s.Warnings)
	require.Equal(t, []string{"execute_bash", "finish"}, callNames(s))

	run := s.Calls[0]
	assert.Equal(t, "toolu_01", run.ID)
	assert.JSONEq(t, `{"command":"ls"}`, string(run.Arguments), "the model's arguments, not the event's args")
	assert.True(t, run.HasResult)
	assert.Equal(t, "README.md\ncmd\ngo.mod\ninternal", run.Result)
	assert.False(t, run.IsError)
	require.NotNil(t, run.CumulativeTokens)
	assert.EqualValues(t, 1200+40, *run.CumulativeTokens, "prompt + completion of the running total, cache reads not added again")

	fin := s.Calls[1]
	assert.False(t, fin.HasResult, "finish has no observation")
	require.NotNil(t, fin.CumulativeTokens)
	assert.EqualValues(t, 2600+75, *fin.CumulativeTokens)

	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 2600, OutputTokens: 75, CacheReadTokens: 1900, CacheCreationTokens: 100}, *s.Usage)
	assert.Equal(t, "The repository holds a Go service.", s.Answer)
}

func TestOpenHandsFixtures(t *testing.T) {
	t.Parallel()
	t.Run("a shell read through execute_bash keeps the command as written", func(t *testing.T) {
		t.Parallel()
		s := openHandsRead(t, "shell-read.json")
		require.Len(t, s.Calls, 1)
		c := s.Calls[0]
		assert.Equal(t, "execute_bash", c.Name)
		assert.JSONEq(t, `{"command":"nl -ba internal/cart/discount.go | sed -n '10,40p'"}`, string(c.Arguments))
		assert.True(t, strings.HasPrefix(c.Result, "    10\tfunc Apply"), c.Result)
		assert.Nil(t, c.CumulativeTokens, "no llm_metrics in the file")
		assert.Nil(t, s.Usage)
	})
	t.Run("a call whose observation never came has no result", func(t *testing.T) {
		t.Parallel()
		s := openHandsRead(t, "call-without-result.json")
		require.Equal(t, []string{"read", "execute_bash"}, callNames(s))
		read := s.Calls[0]
		assert.Equal(t, "1", read.ID, "the event id names a call without tool_call_id")
		assert.JSONEq(t, `{"path":"/workspace/shop/go.mod","start":0,"end":-1,"thought":"","impl_source":"default"}`, string(read.Arguments), "without a model response the event's args are the arguments")
		assert.True(t, read.HasResult)
		assert.False(t, s.Calls[1].HasResult)
		assert.Empty(t, s.Calls[1].Result)
	})
	t.Run("a failing command and an error observation are errors", func(t *testing.T) {
		t.Parallel()
		s := openHandsRead(t, "error-result.json")
		require.Equal(t, []string{"execute_bash", "str_replace_editor"}, callNames(s))
		for _, c := range s.Calls {
			assert.True(t, c.HasResult, c.Name)
			assert.True(t, c.IsError, c.Name)
		}
		assert.Contains(t, s.Calls[1].Result, "No replacement was performed")
		assert.JSONEq(t, `{"command":"str_replace","path":"/workspace/shop/cart.go","old_str":"pct / 100","new_str":"(pct + 50) / 100"}`, string(s.Calls[1].Arguments))
	})
	t.Run("a delegate's calls are the sub-agent's until the delegate observation", func(t *testing.T) {
		t.Parallel()
		s := openHandsRead(t, "delegate.json")
		require.Equal(t, []string{"delegate_to_browsing_agent", "browse_interactive", "execute_bash"}, callNames(s))
		parent, sub, after := s.Calls[0], s.Calls[1], s.Calls[2]
		assert.False(t, parent.Subagent)
		assert.True(t, parent.HasResult, "the delegate observation answers the delegate call by tool_call_id")
		assert.Contains(t, parent.Result, "BrowsingAgent finishes task")
		assert.True(t, sub.Subagent)
		assert.Equal(t, "toolu_41", sub.ParentID)
		assert.True(t, sub.HasResult)
		assert.Contains(t, sub.Result, "per-iteration")
		assert.False(t, after.Subagent, "the main agent resumes after the delegate observation")
		assert.Empty(t, after.ParentID)
		assert.Empty(t, s.Answer, "the delegate's finish is not the session's answer")
	})
	t.Run("a list cut short keeps the events before the cut", func(t *testing.T) {
		t.Parallel()
		s := openHandsRead(t, "truncated.json")
		require.Equal(t, []string{"execute_bash"}, callNames(s))
		assert.False(t, s.Calls[0].HasResult, "the observation was cut")
		require.Len(t, s.Warnings, 1)
		w := s.Warnings[0]
		assert.Contains(t, w.Message, "cut short")
		data, err := os.ReadFile(filepath.Join(openHandsFixtures, "truncated.json"))
		require.NoError(t, err)
		assert.Equal(t, strings.Count(string(data), "\n")+1, w.Line, "the warning names the last line")
	})
}

func TestOpenHandsMalformedInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		calls     int
		warning   string // "" for none
		err       string // "" when the read succeeds
	}{
		{"an event of the wrong type is skipped with its line",
			"[\n{\"id\":1,\"source\":\"agent\",\"action\":\"run\",\"args\":{\"command\":\"ls\"}},\n{\"id\":\"two\",\"source\":\"agent\",\"action\":\"run\"}\n]", 1,
			"t:3: skipped an OpenHands event: field id: expected an integer, found string", ""},
		{"an event that is both action and observation is skipped",
			`[{"id":1,"source":"agent","action":"run","observation":"run"},{"id":2,"source":"agent","action":"read","args":{"path":"a"}}]`, 1,
			`t:1: skipped an OpenHands event: the event has both "action" and "observation"`, ""},
		{"a timestamp that is not ISO 8601 is reported",
			`[{"id":1,"timestamp":"yesterday","source":"agent","action":"run","args":{"command":"ls"}}]`, 1,
			`t:1: event 1: timestamp "yesterday" is not ISO 8601; the event has no time`, ""},
		{"data after the list is reported",
			"[{\"id\":1,\"source\":\"agent\",\"action\":\"run\",\"args\":{\"command\":\"ls\"}}]\n[]", 1,
			"t:2: ignored data after the end of the document", ""},
		{"a user's command is not the agent's call",
			`[{"id":1,"source":"user","action":"run","args":{"command":"ls"}}]`, 0, "", ""},
		{"an object is not an event list", `{"events":[]}`, 0, "", "t:1: not an OpenHands event list: expected a JSON array of events"},
		{"an empty list holds no event", `[]`, 0, "", "t: not an OpenHands event list: the array holds no event"},
		{"a list broken before its first event", `[{"id":1,`, 0, "", "t:1: reading OpenHands event list: no event could be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Read(strings.NewReader(tt.doc), Options{Format: "openhands", Source: "t"})
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, s.Calls, tt.calls)
			if tt.warning == "" {
				assert.Empty(t, s.Warnings)
				return
			}
			require.Len(t, s.Warnings, 1)
			assert.Equal(t, tt.warning, s.Warnings[0].String())
		})
	}
}

func TestOpenHandsMaxResultBytesClipsResults(t *testing.T) {
	t.Parallel()
	s, err := ReadFile(filepath.Join(openHandsFixtures, "minimal.json"), Options{MaxResultBytes: 6})
	require.NoError(t, err)
	assert.Equal(t, "README", s.Calls[0].Result)
}

func TestOpenHandsV1Conversation(t *testing.T) {
	t.Parallel()
	s := openHandsRead(t, "v1-conversation")
	assert.Equal(t, "openhands-v1", s.Format)
	assert.Equal(t, "00000064-0000-4000-8000-000000000064", s.ID)
	assert.Equal(t, "anthropic/claude-sonnet-4-5", s.Model)
	assert.Equal(t, "/workspace/shop", s.CWD)
	assert.Equal(t, []string{"terminal", "file_editor", "delegate"}, s.Tools)
	assert.Empty(t, s.Warnings)
	require.Equal(t, []string{"terminal", "file_editor", "terminal", "grep", "finish"}, callNames(s))

	read := s.Calls[0]
	assert.Equal(t, "toolu_v1", read.ID)
	assert.Equal(t, "nl -ba internal/cart/discount.go | sed -n '10,40p'", read.ArgumentsMap()["command"])
	assert.True(t, strings.HasPrefix(read.Result, "    10\tfunc Apply"))
	assert.False(t, read.IsError)
	require.NotNil(t, read.CumulativeTokens)
	assert.EqualValues(t, 5200+120, *read.CumulativeTokens, "the stats update before the call")

	edit := s.Calls[1]
	assert.Equal(t, "str_replace", edit.ArgumentsMap()["command"])
	assert.True(t, edit.HasResult)
	assert.EqualValues(t, 10900+260, *edit.CumulativeTokens)

	assert.True(t, s.Calls[2].IsError, "exit code 1")
	bad := s.Calls[3]
	assert.True(t, bad.HasResult, "an AgentErrorEvent answers the call")
	assert.True(t, bad.IsError)
	assert.Contains(t, bad.Result, "'pattern' is a required property")
	assert.False(t, s.Calls[4].HasResult, "finish has no observation")

	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 24100, OutputTokens: 450, CacheReadTokens: 14000}, *s.Usage, "base_state.json's totals")
	assert.Equal(t, "The discount now rounds correctly; the build error remains.", s.Answer)
}

func TestOpenHandsV1SubAgentCallsFollowTheDelegateCall(t *testing.T) {
	t.Parallel()
	s := openHandsRead(t, "v1-delegate")
	require.Equal(t, []string{"delegate", "delegate", "grep", "terminal"}, callNames(s))
	for i, c := range s.Calls {
		assert.Equal(t, i, c.Index)
	}
	sub := s.Calls[2]
	assert.True(t, sub.Subagent)
	assert.Equal(t, "toolu_d2", sub.ParentID, "the delegate call issued before the sub-conversation began")
	assert.Equal(t, "/workspace/shop/internal/cart/discount.go", sub.Result)
	assert.Nil(t, sub.CumulativeTokens)
	assert.False(t, s.Calls[3].Subagent)
}

func TestOpenHandsV1EventLines(t *testing.T) {
	t.Parallel()
	s := openHandsRead(t, "v1-events.jsonl")
	assert.Equal(t, "openhands-v1", s.Format)
	require.Equal(t, []string{"terminal"}, callNames(s))
	assert.True(t, s.Calls[0].HasResult)
	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 10900, OutputTokens: 260, CacheReadTokens: 5000}, *s.Usage, "the last stats update")
}

func TestOpenHandsV1FolderOrderAndBrokenFiles(t *testing.T) {
	t.Parallel()
	action := func(id string) string {
		return `{"kind":"ActionEvent","id":"` + id + `","source":"agent","tool_name":"terminal","tool_call_id":"` + id + `","action":{"kind":"TerminalAction","command":"echo ` + id + `"}}`
	}
	fsys := fstest.MapFS{
		"events/event-00002-cccccccc.json":  {Data: []byte(action("c"))},
		"events/event-100000-dddddddd.json": {Data: []byte(action("d"))},
		"events/event-00000-aaaaaaaa.json":  {Data: []byte(action("a"))},
		"events/event-99999-bbbbbbbb.json":  {Data: []byte(action("b"))},
		"events/event-100001-eeeeeeee.json": {Data: []byte(`{"kind":"ActionEvent","id":"e","tool_name":"termi`)},
		"events/.eventlog.lock":             {Data: nil},
	}
	require.True(t, OpenHandsV1{}.DetectDir(fsys))
	s, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "conv"})
	require.NoError(t, err)
	var ids []string
	for _, c := range s.Calls {
		ids = append(ids, c.ID)
		assert.Equal(t, map[string]any{"command": "echo " + c.ID}, c.ArgumentsMap(), "the action without its kind")
	}
	assert.Equal(t, []string{"a", "c", "b", "d"}, ids, "numeric order of the file index, not name order")
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, "conv/events/event-100001-eeeeeeee.json", s.Warnings[0].Source, "the half-written event file is named")
	assert.Contains(t, s.Warnings[0].Message, "skipped an OpenHands event")

	assert.False(t, OpenHandsV1{}.DetectDir(fstest.MapFS{"notes.txt": {}}))
	_, err = ReadFile(t.TempDir(), Options{})
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	assert.True(t, fe.Folder)
	assert.Contains(t, fe.Tried, "openhands-v1")
}

func TestOpenHandsEvalOutputHoldsOneSessionPerInstance(t *testing.T) {
	t.Parallel()
	file := filepath.Join(openHandsFixtures, "output.jsonl")
	all, err := ReadFileAll(file, Options{})
	require.NoError(t, err)
	require.Len(t, all, 2)
	a, b := all[0], all[1]
	assert.Equal(t, "openhands-eval", a.Format)
	assert.Equal(t, "shop__shop-101", a.Task)
	assert.Equal(t, "shop__shop-102", b.Task)
	assert.Equal(t, "anthropic/claude-sonnet-4-20250514", a.Model, "metadata.llm_config.model")
	require.Equal(t, []string{"execute_bash", "finish"}, callNames(a))
	assert.Equal(t, "nl -ba internal/cart/discount.go | sed -n '10,40p'", a.Calls[0].ArgumentsMap()["command"])
	assert.Equal(t, "Rounded the discount.", a.Answer)
	require.NotNil(t, a.Usage)
	assert.Equal(t, Usage{InputTokens: 5400, OutputTokens: 230}, *a.Usage, "metrics.accumulated_token_usage")
	require.Equal(t, []string{"execute_bash"}, callNames(b))
	assert.True(t, b.Calls[0].IsError)

	one, err := ReadFile(file, Options{SessionID: "shop__shop-102"})
	require.NoError(t, err)
	assert.Equal(t, "shop__shop-102", one.Task)

	_, err = ReadFile(file, Options{})
	var me *MultiSessionError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []string{"shop__shop-101", "shop__shop-102"}, me.IDs)

	_, err = ReadFile(file, Options{SessionID: "shop__shop-999"})
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "shop__shop-999", me.Want)
}

func TestOpenHandsEvalMalformedLines(t *testing.T) {
	t.Parallel()
	line := func(id string) string {
		return `{"instance_id":"` + id + `","test_result":{},"history":[{"id":1,"source":"agent","action":"run","args":{"command":"ls"}}]}`
	}
	doc := line("a") + "\n" + `{"instance_id":"b","history":[` + "\n\n" + line("c") + "\n" + `{"instance_id":"d","history":[{"id":1,"sou`
	all, err := ReadAll(strings.NewReader(doc), Options{Source: "out.jsonl"})
	require.NoError(t, err)
	require.Len(t, all, 2)
	for _, s := range all {
		require.Len(t, s.Calls, 1)
		var lines []int
		for _, w := range s.Warnings {
			lines = append(lines, w.Line)
			assert.Contains(t, w.Message, "skipped a line")
		}
		assert.Equal(t, []int{2, 5}, lines, "every session carries the file's skipped lines")
	}

	_, err = Read(strings.NewReader(`{"instance_id":"x","test_result":{}`), Options{Format: "openhands-eval", Source: "out.jsonl"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "out.jsonl:1: skipped a line")
	_, err = Read(strings.NewReader(`{"test_result":{}}`), Options{Format: "openhands-eval", Source: "out.jsonl"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the object has no "instance_id"`)
}

func TestOpenHandsEvalReadsV1History(t *testing.T) {
	t.Parallel()
	doc := `{"instance_id":"x","test_result":{},"history":[` +
		`{"kind":"ActionEvent","id":"a","source":"agent","tool_name":"terminal","tool_call_id":"c1","tool_call":{"id":"c1","name":"terminal","arguments":"{\"command\":\"ls\"}"}},` +
		`{"kind":"ObservationEvent","id":"b","source":"environment","tool_name":"terminal","tool_call_id":"c1","observation":{"kind":"TerminalObservation","content":[{"type":"text","text":"a.go"}],"exit_code":0}}]}`
	s, err := Read(strings.NewReader(doc), Options{Source: "out.jsonl"})
	require.NoError(t, err)
	assert.Equal(t, "openhands-eval", s.Format)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, "terminal", s.Calls[0].Name)
	assert.Equal(t, "a.go", s.Calls[0].Result)
}

func TestOpenHandsForcedOnForeignInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ format, doc, want string }{
		{"openhands-v1", `{"type":"user","sessionId":"s"}`, `not OpenHands V1 events`},
		{"openhands-eval", `{"type":"user","sessionId":"s"}`, `the object has no "instance_id"`},
		{"openhands", `{"schema_version":"ATIF-v1.5","steps":[]}`, "not an OpenHands event list"},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.doc), Options{Format: tt.format, Source: "t"})
		require.Error(t, err, tt.format)
		assert.Contains(t, err.Error(), tt.want, tt.format)
	}
	_, err := ReadFile(filepath.Join(openHandsFixtures, "v1-conversation"), Options{Format: "openhands"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a folder, and the openhands format is read from a file")
	assert.False(t, errors.Is(err, ErrEmpty))
}
