package trace

import (
	"strconv"
	"sync"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// argScanners recycles the scanners of decodeArgumentsFast: a Scanner
// carries its nesting stack, over a kilobyte, and every tool call of a
// trace decodes its arguments at least once.
var argScanners = sync.Pool{New: func() any { return new(argDecoder) }}

type argDecoder struct {
	sc  jsonscan.Scanner
	buf []byte
}

// decodeArgumentsFast decodes a JSON object in one pass with jsonscan,
// giving the value json.Unmarshal into a map[string]any gives: objects as
// map[string]any (a repeated key keeps its last value), arrays as []any,
// numbers as float64, strings decoded as encoding/json decodes them. It
// returns ok=false for anything json.Unmarshal would refuse (jsonscan
// accepts exactly the same JSON) and for a number float64 cannot hold, so
// that the caller falls back to the path that reports those.
func decodeArgumentsFast(raw []byte) (map[string]any, bool) {
	d := argScanners.Get().(*argDecoder)
	defer argScanners.Put(d)
	d.sc.Reset(raw)
	m, ok := d.object()
	if !ok || !d.sc.End() {
		return nil, false
	}
	if cap(d.buf) > 1<<20 {
		d.buf = nil // do not keep a huge buffer alive in the pool
	}
	return m, true
}

func (d *argDecoder) object() (map[string]any, bool) {
	if !d.sc.Object() {
		return nil, false
	}
	m := map[string]any{}
	for key, ok := d.sc.NextKey(); ok; key, ok = d.sc.NextKey() {
		k := string(key)
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, d.sc.Err() == nil
}

func (d *argDecoder) value() (any, bool) {
	sc := &d.sc
	switch sc.Peek() {
	case jsonscan.String:
		var ok bool
		d.buf, ok = sc.AppendString(d.buf[:0], -1)
		return string(d.buf), ok
	case jsonscan.Number:
		raw := sc.Raw()
		if raw == nil {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		return f, err == nil
	case jsonscan.Object:
		m, ok := d.object()
		return m, ok
	case jsonscan.Array:
		sc.Array()
		a := []any{}
		for sc.NextElem() {
			v, ok := d.value()
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		return a, sc.Err() == nil
	case jsonscan.Bool:
		return sc.Bool()
	case jsonscan.Null:
		return nil, sc.Null()
	}
	sc.Skip() // records the syntax error
	return nil, false
}
