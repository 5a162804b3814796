package events

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/agentretrieval/agentretrieval/trace"
	"github.com/stretchr/testify/assert"
)

// A batch copies each call's arguments and result into its buffer while
// they fit, and into a new one, twice as large or as large as the call
// needs, when they do not: the calls before keep the old one's copies.
func TestABatchCopiesItsCallsIntoOneBufferWhileTheyFit(t *testing.T) {
	t.Parallel()
	b := &jobBatch{buf: make([]byte, 0, 32)}
	first := &b.buf[:1][0]
	call := func(args, result string) *trace.ToolCall {
		return &trace.ToolCall{Arguments: json.RawMessage(args), Result: result}
	}
	b.add(nil, 0, call(`{"a":"0123456"}`, "rrrrr"), false) // 15 + 5 bytes
	b.add(nil, 1, call(`{"b":1}`, "sssss"), false)         // 7 + 5: 32, a fit
	assert.Same(t, first, &b.buf[0], "calls that fit share the buffer")
	assert.Equal(t, 32, len(b.buf))
	b.add(nil, 2, call(`{}`, "t"), false)
	assert.NotSame(t, first, &b.buf[0], "a call that does not fit goes into a new buffer")
	assert.Equal(t, 64, cap(b.buf), "twice as large")
	assert.Equal(t, 3, len(b.buf), "holding that call alone")
	b.add(nil, 3, call(`{"c":"`+string(make([]byte, 200))+`"}`, ""), false)
	assert.Equal(t, 208, cap(b.buf), "or as large as the call needs")
	b.add(nil, 4, &trace.ToolCall{}, false)
	assert.Equal(t, 208, cap(b.buf), "an empty call needs nothing")

	// Arguments and result together are what must fit, and what a new
	// buffer must hold.
	small := &jobBatch{buf: make([]byte, 0, 16)}
	small.add(nil, 0, call("aaaa", "bbbb"), false)
	small.add(nil, 1, call("cccccc", "dddd"), false) // 10 bytes, 8 free
	assert.Equal(t, "ccccccdddd", string(small.buf), "a new buffer holds the call alone")
	small.add(nil, 2, call(string(make([]byte, 40)), string(make([]byte, 30))), false)
	assert.Equal(t, 70, cap(small.buf), "as large as arguments and result together")
	assert.Equal(t, 70, len(small.buf))

	want := []struct {
		args   json.RawMessage
		result string
	}{
		{json.RawMessage(`{"a":"0123456"}`), "rrrrr"}, {json.RawMessage(`{"b":1}`), "sssss"}, {json.RawMessage(`{}`), "t"},
		{json.RawMessage(`{"c":"` + string(make([]byte, 200)) + `"}`), ""}, {nil, ""},
	}
	for i, w := range want {
		j := b.jobs[i]
		assert.Equal(t, i, j.i)
		assert.Equal(t, w.args, j.call.Arguments, "call %d", i)
		assert.Equal(t, w.result, j.call.Result, "call %d", i)
		assert.Equal(t, len(w.args), cap(j.call.Arguments), "call %d: its arguments end where they end", i)
	}
	assert.Same(t, first, &b.jobs[0].call.Arguments[0], "the first calls' copies stay in the first buffer")
	args := b.jobs[0].call.Arguments
	assert.Equal(t, unsafe.Add(unsafe.Pointer(&args[0]), len(args)), unsafe.Pointer(unsafe.StringData(b.jobs[0].call.Result)), "a result right after its arguments")
}
