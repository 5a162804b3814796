package trace

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The buffers of released calls' arguments: a few are kept, none larger
// than the bound, the largest when more come back than are kept, and a
// call's arguments go into the first that holds them.
func TestClaudeKeepsAFewArgumentBuffersForTheNextCalls(t *testing.T) {
	t.Parallel()
	r := &claudeReader{}
	caps := func() []int {
		var c []int
		for _, b := range r.argBufs {
			c = append(c, cap(b))
		}
		return c
	}
	buf := func(n int) json.RawMessage { return make(json.RawMessage, 1, n) }

	r.freeArgs(nil)
	r.freeArgs(buf(maxArgBufCap + 1))
	assert.Empty(t, r.argBufs, "no buffer, or one past the bound, is kept")
	r.freeArgs(buf(maxArgBufCap))
	assert.Equal(t, []int{maxArgBufCap}, caps(), "one of the bound is")

	r.argBufs = nil
	for n := range maxArgBufs {
		r.freeArgs(buf(10 * (n + 1)))
	}
	assert.Equal(t, []int{10, 20, 30, 40, 50, 60, 70, 80}, caps())
	r.freeArgs(buf(5))
	assert.Equal(t, []int{10, 20, 30, 40, 50, 60, 70, 80}, caps(), "a buffer smaller than every one kept is not kept")
	r.freeArgs(buf(100))
	assert.Equal(t, []int{100, 20, 30, 40, 50, 60, 70, 80}, caps(), "a larger one takes the smallest one's place")
	r.freeArgs(buf(25))
	assert.Equal(t, []int{100, 25, 30, 40, 50, 60, 70, 80}, caps())

	args := r.copyArgs([]byte(`{"a":1}`))
	assert.Equal(t, json.RawMessage(`{"a":1}`), args)
	assert.Equal(t, 100, cap(args), "the first buffer that holds the arguments")
	assert.Equal(t, []int{80, 25, 30, 40, 50, 60, 70}, caps(), "taken out of those kept, the last in its place")
	long := make([]byte, 81)
	args = r.copyArgs(long)
	assert.Equal(t, long, []byte(args))
	assert.Len(t, r.argBufs, 7, "arguments no buffer holds are copied anew")
	args = r.copyArgs(long[:80])
	assert.Equal(t, 80, cap(args), "a buffer exactly as large holds them")
}
