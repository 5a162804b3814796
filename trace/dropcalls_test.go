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

// readDropping reads data with DropReleased and a CallDone that releases
// the calls release says, recording what it saw of each call.
func readDropping(t *testing.T, data []byte, release func(i int) bool) (all []*Session, seen map[int]ToolCall) {
	t.Helper()
	seen = map[int]ToolCall{}
	all, err := ReadAll(bytes.NewReader(data), Options{Source: "in", DropReleased: true, CallDone: func(s *Session, i int) bool {
		c := s.Call(i)
		require.NotNil(t, c, "call %d is there when it is handed over", i)
		// Lent for the call only (Options.CallDone): what is kept is copied.
		kept := *c
		kept.Arguments, kept.Result = bytes.Clone(c.Arguments), strings.Clone(c.Result)
		seen[i] = kept
		return release(i)
	}})
	require.NoError(t, err)
	return all, seen
}

func TestAClaudeReadThatDropsReleasedCallsKeepsTheOthersAndEveryCallsTokens(t *testing.T) {
	data := []byte(strings.Join([]string{
		`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.go"}}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}`,
		`{"type":"assistant","sessionId":"s","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"x"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":20,"output_tokens":7}}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"a.go:1:x"}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"again"}]}}`,
	}, "\n"))
	whole, err := Read(bytes.NewReader(data), Options{Source: "in"})
	require.NoError(t, err)
	require.Len(t, whole.Calls, 3)

	all, seen := readDropping(t, data, func(i int) bool { return i != 1 })
	require.Len(t, all, 1)
	s := all[0]

	assert.Equal(t, 3, s.NumCalls(), "dropped calls are counted")
	require.Len(t, s.Calls, 1, "only the call CallDone kept")
	assert.Equal(t, whole.Calls[1], s.Calls[0], "kept whole, result, arguments and tokens")
	assert.Same(t, &s.Calls[0], s.Call(1))
	assert.Nil(t, s.Call(0))
	assert.Nil(t, s.Call(2))
	for i := range 3 {
		assert.Equal(t, *whole.Calls[i].CumulativeTokens, *s.CallTokens(i), "tokens of call %d", i)
		want := whole.Calls[i]
		want.CumulativeTokens = nil // known once the session is read
		got := seen[i]
		got.CumulativeTokens = nil
		assert.Equal(t, want, got, "call %d as handed over", i)
	}
	assert.Equal(t, int64(15), *s.CallTokens(0))
	assert.Equal(t, int64(42), *s.CallTokens(2))
	assert.Equal(t, whole.Warnings, s.Warnings, "a second result for a dropped call is reported as for a kept one")
	assert.Equal(t, whole.Usage, s.Usage)
}

func TestAReadThatDropsReleasedCallsDropsThemAfterTheReadInOtherFormats(t *testing.T) {
	assertDroppingKeepsTheOthers(t, "../testdata/traces/toolcalls/aura-semantic-then-edit.toolcalls.json")
}

// The Codex rollout reader hands each call over at the next call once its
// output is read, and drops it then.
func TestACodexReadThatDropsReleasedCallsKeepsTheOthersAndEveryCallsTokens(t *testing.T) {
	files, _ := filepath.Glob("testdata/codex/*.rollout.jsonl")
	samples, _ := filepath.Glob("../../shared/samples/codex/*.jsonl")
	require.NotEmpty(t, files)
	for _, f := range append(files, samples...) {
		t.Run(filepath.Base(f), func(t *testing.T) { assertDroppingKeepsTheOthers(t, f) })
	}
}

// assertDroppingKeepsTheOthers reads a file whole, then dropping the
// calls of even index as they are handed over, and compares.
func assertDroppingKeepsTheOthers(t *testing.T, name string) {
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	whole, err := ReadAll(bytes.NewReader(data), Options{Source: "in"})
	require.NoError(t, err)
	require.Len(t, whole, 1)
	if len(whole[0].Calls) == 0 {
		t.Skipf("%s has no call", name)
	}

	all, seen := readDropping(t, data, func(i int) bool { return i%2 == 0 })
	require.Len(t, all, 1)
	s, w := all[0], whole[0]
	assert.Equal(t, len(w.Calls), s.NumCalls())
	assert.Len(t, seen, len(w.Calls), "every call is handed over")
	assert.Equal(t, w.Warnings, s.Warnings)
	for i := range w.Calls {
		assert.Equal(t, w.Calls[i].CumulativeTokens, s.CallTokens(i), "tokens of call %d", i)
		want, got := w.Calls[i], seen[i]
		want.CumulativeTokens, got.CumulativeTokens = nil, nil
		assert.Equal(t, want, got, "call %d as handed over", i)
		if i%2 == 0 {
			assert.Nil(t, s.Call(i), "call %d is dropped", i)
			continue
		}
		require.NotNil(t, s.Call(i), "call %d is kept", i)
		assert.Equal(t, w.Calls[i], *s.Call(i))
	}
	for k, c := range s.Calls {
		assert.Equal(t, 2*k+1, c.Index, "Calls holds the calls kept, in order")
	}
}

func TestWithoutDropReleasedEveryCallStaysInItsPlace(t *testing.T) {
	data, err := os.ReadFile("../testdata/traces/toolcalls/aura-semantic-then-edit.toolcalls.json")
	require.NoError(t, err)
	all, err := ReadAll(bytes.NewReader(data), Options{CallDone: func(*Session, int) bool { return true }})
	require.NoError(t, err)
	s := all[0]
	assert.Equal(t, len(s.Calls), s.NumCalls())
	for i := range s.Calls {
		assert.Same(t, &s.Calls[i], s.Call(i))
		assert.Empty(t, s.Calls[i].Result, "released: the result goes")
		assert.Equal(t, s.Calls[i].CumulativeTokens, s.CallTokens(i))
	}
}
