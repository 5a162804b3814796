package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// The Claude Code reader lends a call's arguments and result to CallDone
// (Options.CallDone): a released call's arguments buffer holds a later
// call's arguments, and the result is decoded over by the next line. A
// call CallDone keeps, or what it copies, stays as read.
func TestClaudeLendsArgumentsAndResultsOnlyDuringCallDone(t *testing.T) {
	var lines []string
	for i := range 6 {
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m%d","content":[{"type":"tool_use","id":"t%d","name":"Read","input":{"file_path":"/w/f%d.go"}}]}}`, i, i, i),
			fmt.Sprintf(`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t%d","content":"result %d\\tof call %d"}]}}`, i, i, i))
	}
	data := []byte(strings.Join(lines, "\n"))
	whole, err := Read(bytes.NewReader(data), Options{Source: "in"})
	require.NoError(t, err)

	for _, drop := range []bool{false, true} {
		var lent [][]byte // the arguments of each call as CallDone saw them, not copied
		var copied []ToolCall
		var shown []string // what CallDone kept of the results of the calls it keeps
		s, err := Read(bytes.NewReader(data), Options{Source: "in", DropReleased: drop, CallDone: func(s *Session, i int) bool {
			c := s.Call(i)
			lent = append(lent, c.Arguments)
			kept := *c
			kept.Arguments, kept.Result = bytes.Clone(c.Arguments), strings.Clone(c.Result)
			copied = append(copied, kept)
			if i%2 == 1 {
				// Kept: what is left in Result, a part of what was lent,
				// becomes the call's own.
				c.Result = c.Result[:8]
				// Kept elsewhere too: a copy, as for a released call.
				shown = append(shown, strings.Clone(c.Result))
				return false
			}
			return true
		}})
		require.NoError(t, err)
		for i := range whole.Calls {
			want := whole.Calls[i]
			assert.Equal(t, want.Arguments, copied[i].Arguments, "drop %v: call %d's arguments, copied in CallDone", drop, i)
			assert.Equal(t, want.Result, copied[i].Result, "drop %v: call %d's result, copied in CallDone", drop, i)
		}
		assert.Equal(t, []string{"result 1", "result 3", "result 5"}, shown, "drop %v: the parts of results kept", drop)
		for _, i := range []int{1, 3, 5} {
			c := s.Call(i)
			require.NotNil(t, c)
			assert.Equal(t, whole.Calls[i].Arguments, c.Arguments, "drop %v: a kept call's arguments", drop)
			assert.Equal(t, whole.Calls[i].Result[:8], c.Result, "drop %v: a kept call's result, what CallDone left there", drop)
			assert.True(t, s.ArgumentsChecked(i), "drop %v: a kept call's arguments are still the ones checked", drop)
		}
		// Each released call's buffer takes the next call's arguments: call
		// 0's call 1's, call 2's call 3's. Calls 1 and 3 are kept, with
		// their buffers: calls 2 and 4 have new ones.
		assert.Same(t, &lent[0][0], &lent[1][0], "drop %v: a released call's buffer holds a later call's arguments", drop)
		assert.Same(t, &lent[2][0], &lent[3][0], "drop %v: and again", drop)
		assert.NotSame(t, &lent[1][0], &lent[2][0], "drop %v: a kept call's buffer is its own", drop)
		assert.Equal(t, whole.Calls[1].Arguments, json.RawMessage(lent[0]), "drop %v: call 0's arguments, not copied, now read as call 1's", drop)
	}
}
