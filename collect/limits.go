package collect

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// Decoding a request turns every message in it (a span, an attribute, a
// value) into a Go struct of some 50 to 100 bytes, a pointer in a slice
// that grows by doubling, and a piece of the JSON line written. An empty
// attribute is 2 bytes of protobuf, so a body of nothing else grows about
// a hundredfold. Memory is therefore bounded by counting, before
// decoding: a body may hold at most MaxRequestBytes/BytesPerMessage
// messages, and each request is charged an estimate of its memory against
// Options.MaxMemory, shared by all the requests in flight.
const (
	// BytesPerMessage is the share of Options.MaxRequestBytes that each
	// message of a body may take: a body holds at most
	// MaxRequestBytes/BytesPerMessage messages (262,144 under the
	// default limit; an exporter's batch of 512 spans has some 25,000).
	BytesPerMessage = 64
	// messageCost is the memory charged for one decoded message: its
	// struct, its pointer and slice growth, and its share of the lines.
	messageCost = 256
	// byteCost is the memory charged per byte of the (decompressed)
	// body once decoded: the strings copied out of it and the JSON lines,
	// where escapes and hex ids take more room than protobuf.
	byteCost = 8
	// maxCostFactor bounds a request's charge in units of
	// MaxRequestBytes: the body as sent and decompressed (2), the decoded
	// bytes (byteCost) and the messages (messageCost/BytesPerMessage).
	maxCostFactor = 2 + byteCost + messageCost/BytesPerMessage
	// maxDepth is the nesting protobuf's decoder accepts; deeper bodies
	// fail to decode, so counting stops there.
	maxDepth = 10000
)

// errBusy is a request refused because the memory budget is taken.
var errBusy = errors.New("the receiver's memory budget is taken by the requests in flight")

// budget is the memory that the requests in flight may take, in bytes of
// estimate; a request takes its share or is refused, it never waits.
type budget struct {
	mu   sync.Mutex
	used int64
	max  int64
}

func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// charge is what one request took from the budget.
type charge struct {
	b     *budget
	taken int64
}

func (c *charge) take(n int64) bool {
	if !c.b.take(n) {
		return false
	}
	c.taken += n
	return true
}

func (c *charge) release() {
	c.b.give(c.taken)
	c.taken = 0
}

// chargedReader charges the bytes it reads, as they arrive: a slow
// client holds only what it has sent.
type chargedReader struct {
	r io.Reader
	c *charge
}

func (cr *chargedReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	if n > 0 && !cr.c.take(int64(n)) {
		return n, errBusy
	}
	return n, err
}

// tooManyError is a body with more messages than its limit.
type tooManyError struct{ limit int }

func (e *tooManyError) Error() string {
	return fmt.Sprintf("the body holds more than %d messages (spans, records, attributes, values); send smaller batches", e.limit)
}

// countMessages counts the messages of a protobuf body of message type
// m, up to limit. It stops early at malformed data, which the decoder
// then reports.
func countMessages(b []byte, m *msgInfo, limit int) (int, error) {
	n := 0
	var walk func(b []byte, m *msgInfo, depth int) bool
	walk = func(b []byte, m *msgInfo, depth int) bool {
		for len(b) > 0 {
			num, typ, l := protowire.ConsumeTag(b)
			if l < 0 {
				return true
			}
			b = b[l:]
			if typ != protowire.BytesType {
				l = protowire.ConsumeFieldValue(num, typ, b)
				if l < 0 {
					return true
				}
				b = b[l:]
				continue
			}
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return true
			}
			b = b[l:]
			f := m.field(num)
			if f == nil || f.kind != messageKind {
				continue
			}
			if n++; n > limit {
				return false
			}
			if depth < maxDepth && !walk(v, f.msg, depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(b, m, 0) {
		return n, &tooManyError{limit: limit}
	}
	return n, nil
}

// countJSONObjects counts the objects of a JSON body, up to limit: every
// message of OTLP/JSON is an object.
func countJSONObjects(b []byte, limit int) (int, error) {
	n := 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			if n++; n > limit {
				return n, &tooManyError{limit: limit}
			}
		}
	}
	return n, nil
}
