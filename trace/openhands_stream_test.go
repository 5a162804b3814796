package trace

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ohStreamRead reads data with the reader of format, handing each call to
// a CallDone that records it and the calls read and not dropped so far,
// and releases the calls release says, dropping them.
type ohStreamRead struct {
	all []*Session
	err error
	// order holds the calls handed over, as "session/index" (session is
	// the session's place among those read, "?" for one not returned), in
	// the order they came; seen each call as it was handed over.
	order []string
	seen  map[string]ToolCall
	// live holds, for each call handed over, how many calls of its session
	// were read and not dropped; read how many were read; consumed how
	// many bytes of the input the reader had taken.
	live, read, consumed []int
}

// ohReadAll reads every session of the input in the format named.
func ohReadAll(format string) func(io.Reader, Options) ([]*Session, error) {
	return func(r io.Reader, opts Options) ([]*Session, error) {
		opts.Format = format
		return ReadAll(r, opts)
	}
}

func ohReadStreaming(t *testing.T, readAll func(io.Reader, Options) ([]*Session, error), data []byte, release func(i int) bool) *ohStreamRead {
	t.Helper()
	type handed struct {
		s *Session
		i int
	}
	var order []handed
	var calls []ToolCall
	in := &countingReader{r: bytes.NewReader(data)}
	r := &ohStreamRead{seen: map[string]ToolCall{}}
	r.all, r.err = readAll(in, Options{Source: "in", MaxResultBytes: 64, DropReleased: true,
		CallDone: func(s *Session, i int) bool {
			c := s.Call(i)
			require.NotNil(t, c, "call %d is there when it is handed over", i)
			order = append(order, handed{s, i})
			calls = append(calls, *c)
			r.live = append(r.live, len(s.ledger.live))
			r.read = append(r.read, s.NumCalls())
			r.consumed = append(r.consumed, in.n)
			return release(i)
		}})
	for k, h := range order {
		key := fmt.Sprintf("?/%d", h.i)
		if n := slices.Index(r.all, h.s); n >= 0 {
			key = fmt.Sprintf("%d/%d", n, h.i)
		}
		_, twice := r.seen[key]
		require.False(t, twice, "call %s is handed over once", key)
		r.order = append(r.order, key)
		r.seen[key] = calls[k]
	}
	return r
}

// assertStreamedAsWhole checks that a read handing calls over as they are
// read, dropping those of even index, gives what a read of the whole
// input gives: the same calls handed over, the same sessions, the same
// error.
func assertStreamedAsWhole(t *testing.T, format string, data []byte) *ohStreamRead {
	t.Helper()
	whole, wholeErr := ReadAll(bytes.NewReader(data), Options{Source: "in", Format: format, MaxResultBytes: 64})
	r := ohReadStreaming(t, ohReadAll(format), data, func(i int) bool { return i%2 == 0 })
	if wholeErr != nil {
		require.EqualError(t, r.err, wholeErr.Error())
		return r
	}
	require.NoError(t, r.err)
	require.Len(t, r.all, len(whole))
	n := 0
	for k, w := range whole {
		s := r.all[k]
		require.Equal(t, len(w.Calls), s.NumCalls(), "session %d", k)
		n += len(w.Calls)
		for i, c := range w.Calls {
			key := fmt.Sprintf("%d/%d", k, i)
			assert.Equal(t, c, r.seen[key], "call %s as handed over", key)
			assert.Equal(t, c.CumulativeTokens, s.CallTokens(i), "tokens of call %s", key)
			if i%2 == 0 {
				assert.Nil(t, s.Call(i), "call %s is dropped", key)
			} else if assert.NotNil(t, s.Call(i), "call %s is kept", key) {
				assert.Equal(t, c, *s.Call(i), "call %s is kept whole", key)
			}
		}
		wc, sc := *w, *s
		wc.Calls, sc.Calls = nil, nil
		wc.ledger, sc.ledger, wc.streamed, sc.streamed, wc.checked, sc.checked = nil, nil, false, false, nil, nil
		assert.Equal(t, wc, sc, "session %d but its calls", k)
	}
	assert.Len(t, r.seen, n, "every call is handed over")
	return r
}

// ohEvents joins V0 events into a list.
func ohEvents(events ...string) []byte {
	return []byte("[\n" + strings.Join(events, ",\n") + "\n]\n")
}

func ohRun(id int, callID, cmd string) string {
	return fmt.Sprintf(`{"id": %d, "source": "agent", "action": "run", "args": {"command": %q},
 "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": %q},
 "llm_metrics": {"accumulated_token_usage": {"prompt_tokens": %d, "completion_tokens": 1}}}`, id, cmd, callID, 100*id)
}

// ohRunOutput is the observation of a run action; a cause below zero is
// left out (the observation names its call by tool_call_id only).
func ohRunOutput(id, cause int, callID, out string, exit int) string {
	c := fmt.Sprintf(`"cause": %d, `, cause)
	if cause < 0 {
		c = ""
	}
	return fmt.Sprintf(`{"id": %d, "source": "agent", "observation": "run", %s"content": %q,
 "tool_call_metadata": {"tool_call_id": %q}, "extras": {"metadata": {"exit_code": %d, "working_dir": "/w"}}}`, id, c, out, callID, exit)
}

func TestAnOpenHandsEventListHandsEachCallOverOnceItsObservationIsRead(t *testing.T) {
	t.Parallel()
	data := ohEvents(
		ohRun(1, "c1", "ls"),
		ohRunOutput(2, 1, "c1", "a.go", 0),
		ohRun(3, "c3", "cat a.go"),
		ohRun(4, "c4", "cat b.go"), // answered after the next call
		ohRunOutput(5, 3, "c3", "package a", 0),
		// An observation of an action not read yet answers nothing: its
		// action, read next, stays without a result.
		ohRunOutput(6, 7, "c7", "early", 0),
		ohRun(7, "c7", "cat c.go"),
		ohRunOutput(8, -1, "c4", "package b", 1),
		ohRun(9, "c9", "cat d.go"), // never answered
		ohRun(10, "c10", "cat e.go"),
		ohRunOutput(11, 10, "c10", "package e", 0),
		// A second observation of a call handed over and dropped is
		// ignored, as for a call kept.
		ohRunOutput(12, 4, "c4", "again", 0),
		ohRunOutput(13, 3, "c3", "again", 0),
	)
	r := assertStreamedAsWhole(t, "openhands", data)
	assert.Equal(t, []string{"0/0", "0/1", "0/2", "0/5", "0/3", "0/4"}, r.order,
		"in the order the observations come, then the calls left without one, in order")
	assert.Equal(t, []int{1, 3, 4, 6, 6, 6}, r.read, "each call is handed over once its observation is read")
	assert.Equal(t, []int{1, 2, 3, 4, 4, 4}, r.live, "a call released is dropped at once")
	s := r.all[0]
	require.Len(t, s.Calls, 3)
	assert.Equal(t, 3, s.Calls[1].Index)
	assert.False(t, s.Calls[1].HasResult, "c7, answered before it was made, is kept without a result")
}

func TestAnOpenHandsSubAgentKeepsItsParentWhenTheDelegateCallIsDroppedFirst(t *testing.T) {
	t.Parallel()
	data := ohEvents(
		`{"id": 1, "source": "agent", "action": "delegate", "args": {"agent": "BrowsingAgent"}, "tool_call_metadata": {"function_name": "delegate", "tool_call_id": "d1"}}`,
		ohRun(2, "s2", "ls"),
		// The delegate call is answered by an error while its sub-agent
		// runs on: the call is handed over and dropped, the sub-agent's
		// next calls still name it.
		`{"id": 3, "source": "agent", "observation": "error", "cause": 1, "content": "slow"}`,
		ohRun(4, "s4", "cat a.go"),
		`{"id": 5, "source": "agent", "action": "delegate", "args": {}, "tool_call_metadata": {"function_name": "delegate", "tool_call_id": "d5"}}`,
		ohRun(6, "s6", "cat b.go"),
		ohRunOutput(7, 4, "s4", "package a", 0),
		`{"id": 8, "source": "agent", "observation": "delegate", "cause": 5, "content": "inner done"}`,
		ohRun(9, "s9", "cat c.go"),
		ohRunOutput(10, 2, "s2", "a.go", 0),
		`{"id": 11, "source": "agent", "observation": "delegate", "content": "outer done"}`,
		ohRun(12, "m12", "cat d.go"),
		ohRunOutput(13, 6, "s6", "package b", 0),
	)
	r := assertStreamedAsWhole(t, "openhands", data)
	assert.Equal(t, []string{"0/0", "0/2", "0/3", "0/1", "0/4", "0/5", "0/6"}, r.order)
	seen := func(i int) ToolCall { return r.seen[fmt.Sprintf("0/%d", i)] }
	for i, parent := range map[int]string{1: "d1", 2: "d1", 3: "d1", 4: "d5", 5: "d1"} {
		assert.True(t, seen(i).Subagent, "call %d", i)
		assert.Equal(t, parent, seen(i).ParentID, "call %d", i)
	}
	assert.False(t, seen(6).Subagent, "the main agent's call after the sub-agents end")
	assert.True(t, seen(0).IsError)
}

func TestOpenHandsFixturesAndSamplesReadTheSameHandedOverAsTheyAreRead(t *testing.T) {
	t.Parallel()
	lists, _ := filepath.Glob(filepath.Join(openHandsFixtures, "*.json"))
	evals, _ := filepath.Glob(filepath.Join(openHandsFixtures, "*.jsonl"))
	samples, _ := filepath.Glob("../../shared/samples/openhands/*.json")
	require.NotEmpty(t, lists)
	require.NotEmpty(t, evals)
	read := func(format string, files []string) {
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			if format == "openhands-eval" || (OpenHands{}).Detect(data) {
				t.Run(filepath.Base(f), func(t *testing.T) { assertStreamedAsWhole(t, format, data) })
			}
		}
	}
	read("openhands", append(lists, samples...))
	read("openhands-eval", evals)
}

func TestAnOpenHandsEvaluationOutputHandsEachInstanceOverOnceItsLineIsRead(t *testing.T) {
	t.Parallel()
	line := func(id string, events ...string) string {
		return fmt.Sprintf(`{"instance_id": %q, "history": %s}`, id, strings.Join(strings.Fields(string(ohEvents(events...))), " "))
	}
	data := []byte(strings.Join([]string{
		line("a", ohRun(1, "c1", "ls"), ohRunOutput(2, 1, "c1", "x", 0), ohRun(3, "c3", "cat a.go")),
		// A line found malformed only at its end yields no session: none of
		// its calls is handed over.
		strings.TrimSuffix(line("bad", ohRun(1, "c1", "ls"), ohRunOutput(2, 1, "c1", "x", 0)), "]}"),
		line("b", ohRun(1, "c1", "ls"), ohRunOutput(2, 1, "c1", "x", 0)),
	}, "\n"))
	r := assertStreamedAsWhole(t, "openhands-eval", data)
	require.Len(t, r.all, 2)
	assert.Equal(t, []string{"0/0", "0/1", "1/0"}, r.order)
	assert.Equal(t, []int{2, 2, 1}, r.read, "an instance's calls are handed over once its line is read")
	assert.Len(t, r.all[0].Warnings, 1, "the line skipped")
}

// A long event list is read holding only the calls whose observation has
// not come: each call is dropped once handed over.
func TestALongOpenHandsEventListIsReadHoldingOneCallAtATime(t *testing.T) {
	t.Parallel()
	list := benchJSON(openHandsGenerateEvents(4<<20), true)
	r := ohReadStreaming(t, ohReadAll("openhands"), list, func(int) bool { return true })
	require.NoError(t, r.err)
	s := r.all[0]
	turns := bytes.Count(list, []byte(`"observation": `))
	require.Greater(t, turns, 100)
	assert.Equal(t, turns, s.NumCalls())
	assert.Empty(t, s.Calls, "every call is released and dropped")
	for k, live := range r.live {
		require.Equal(t, k+1, r.read[k], "call %d is handed over before the next is read", k)
		require.Equal(t, 1, live, "call %d is the only one held", k)
	}
	for i := range turns {
		require.EqualValues(t, 20080*(i+1), *s.CallTokens(i), "tokens of call %d", i)
	}

	var eval bytes.Buffer
	for i := range 4 {
		line := map[string]any{"instance_id": fmt.Sprintf("i-%d", i), "history": openHandsGenerateEvents(256 << 10)}
		eval.Write(benchJSON(line, false))
	}
	// Read by the format's own ReadAll, through a small buffer, so that
	// how much of the input was read when a call comes shows.
	r = ohReadStreaming(t, OpenHandsEval{}.ReadAll, eval.Bytes(), func(int) bool { return true })
	require.NoError(t, r.err)
	require.Len(t, r.all, 4)
	perLine := r.all[0].NumCalls()
	require.Len(t, r.live, 4*perLine)
	for k, live := range r.live {
		require.LessOrEqual(t, live, perLine, "handed over %d: no more than one line's calls are held", k)
	}
	assert.Less(t, r.consumed[perLine-1], eval.Len()/2, "the first instance's calls come before the input is read")
	for _, s := range r.all {
		assert.Empty(t, s.Calls)
	}
}
