package trace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claudeFuzzSeeds adds every fixture of the given suffix and a few broken
// lines to the corpus.
func claudeFuzzSeeds(f *testing.F, suffix string) {
	fuzzSeeds(f, filepath.Join(claudeFixtures, "*"+suffix), nil,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/a"}}]}}`+"\n"+`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}}`,
		`{"type":"assistant","isSidechain":true,"parentUuid":null,"uuid":"u","message":{"id":"m","usage":{"input_tokens":1,"output_tokens":2}}}`,
		`{"type":"system","subtype":"init","tools":["Read",1]}`,
		`{"type":"user","message":{"content":"\ud83d`,
		`{"type":"result","result":"done","usage":{"output_tokens":1.5}}`,
		"[]\n{}\nnull\n\"x\"\n{\"type\":1}",
		"\xef\xbb\xbf{\"sessionId\":\"s\",\"type\":\"summary\"}\r\n",
	)
}

// claudeFuzzCheck reads data with the format and checks what must hold for
// any input: no panic, an error only when no line is a JSON object, and a
// consistent session otherwise.
func claudeFuzzCheck(t *testing.T, format Format, data []byte) {
	lines, anyObject := fuzzLines(data)

	s, err := format.Read(bytes.NewReader(data), Options{Source: "fuzz"})
	if err != nil {
		require.False(t, anyObject, "error although a line is a JSON object: %v", err)
		assert.Nil(t, s)
		assert.True(t, strings.HasPrefix(err.Error(), "fuzz: not a "+format.Name()+" trace"), err.Error())
		return
	}
	require.True(t, anyObject, "no error although no line is a JSON object")
	require.NotNil(t, s)
	assert.Equal(t, format.Name(), s.Format)

	for _, w := range s.Warnings {
		assert.Equal(t, "fuzz", w.Source)
		assert.True(t, 1 <= w.Line && w.Line <= len(lines), "warning line %d of %d", w.Line, len(lines))
	}
	withTokens := 0
	for i, c := range s.Calls {
		require.Equal(t, i, c.Index)
		if c.ParentID != "" {
			assert.True(t, c.Subagent, "call %d has a parent but is no subagent call", i)
		}
		if !c.HasResult {
			assert.Empty(t, c.Result)
			assert.False(t, c.IsError)
		}
		assert.True(t, utf8.ValidString(c.Result), "call %d result is not UTF-8", i)
		if c.Arguments != nil {
			assert.True(t, json.Valid(c.Arguments), "call %d arguments are not JSON", i)
		}
		// Cumulative tokens need not grow from call to call: a call counts
		// the messages up to its own, and the lines of one message can be
		// interleaved with another's.
		if c.CumulativeTokens != nil {
			withTokens++
			require.NotNil(t, s.Usage)
			assert.GreaterOrEqual(t, *c.CumulativeTokens, int64(0))
			assert.LessOrEqual(t, *c.CumulativeTokens, s.Usage.Total())
		}
	}
	assert.True(t, withTokens == 0 || withTokens == len(s.Calls), "only %d of %d calls have tokens", withTokens, len(s.Calls))
	// The session is JSON-encodable (Arguments must be valid JSON for that).
	_, err = json.Marshal(s)
	require.NoError(t, err)

	fuzzCheckResultLimit(t, format, data, s)
	claudeFuzzCheckDropReleased(t, format, data, s)
}

// claudeFuzzCheckDropReleased reads data again dropping every other call
// as it is handed over (DropReleased), and requires each call handed over
// once, the others kept whole, and the count, tokens, warnings and usage
// of the whole read.
func claudeFuzzCheckDropReleased(t *testing.T, format Format, data []byte, whole *Session) {
	t.Helper()
	handed := map[int]int{}
	s, err := format.Read(bytes.NewReader(data), Options{Source: "fuzz", DropReleased: true, CallDone: func(s *Session, i int) bool {
		require.NotNil(t, s.Call(i), "call %d is there when it is handed over", i)
		handed[i]++
		return i%2 == 0
	}})
	require.NoError(t, err)
	require.Equal(t, len(whole.Calls), s.NumCalls())
	for i, want := range whole.Calls {
		assert.Equal(t, 1, handed[i], "call %d is handed over once", i)
		assert.Equal(t, want.CumulativeTokens, s.CallTokens(i), "call %d's tokens", i)
		if i%2 == 0 {
			assert.Nil(t, s.Call(i), "call %d is dropped", i)
		} else if assert.NotNil(t, s.Call(i), "call %d is kept", i) {
			assert.Equal(t, want, *s.Call(i), "call %d is kept whole", i)
		}
	}
	assert.Len(t, s.Calls, len(whole.Calls)/2)
	assert.Equal(t, whole.Warnings, s.Warnings)
	assert.Equal(t, whole.Usage, s.Usage)
	assert.Equal(t, whole.Answer, s.Answer)
}

func FuzzClaudeCode(f *testing.F) {
	claudeFuzzSeeds(f, ".claude.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { claudeFuzzCheck(t, ClaudeCode{}, data) })
}

func FuzzClaudeStreamJSON(f *testing.F) {
	claudeFuzzSeeds(f, ".stream.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { claudeFuzzCheck(t, ClaudeStreamJSON{}, data) })
}
