// Package jsonmap decodes a JSON object into the value json.Unmarshal
// gives for a map[string]any, in one pass over the input with jsonscan.
// Tool-call arguments are decoded this way for every call of a trace.
//
// A caller that never reads some top-level members can have their values
// left out: they are checked as they would be decoded, but read as nil.
// The events package leaves out the text a write or an edit puts in a
// file and a todo list, the largest arguments of a session, which
// extraction never reads.
package jsonmap

import (
	"strconv"
	"sync"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// decoders recycles the decoders of Decode: a Scanner carries its nesting
// stack, over a kilobyte, and every tool call of a trace decodes its
// arguments at least once.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

type decoder struct {
	sc  jsonscan.Scanner
	buf []byte
	// checked is set while decoding input checked before (DecodeChecked).
	checked bool
	// keys holds the member names met so far, so that a name that comes
	// back (every call of a tool has the same ones) is not copied again.
	keys map[string]string
}

// maps recycles the top-level maps of Decode given back by Recycle: one
// per tool call, of a few members, is most of what decoding allocates.
var maps = sync.Pool{New: func() any { return map[string]any{} }}

// maxRecycled bounds the members of a map Recycle keeps: clearing a map
// costs in proportion to the most it ever held.
const maxRecycled = 32

// Recycle gives back a map Decode or DecodeChecked returned, for a later
// decoding to fill: the caller reads neither the map nor its values after
// (the strings it took from them are its own, the maps and slices nested
// in it are not reused). A nil map, or one of more than a few members, is
// left to the collector.
func Recycle(m map[string]any) {
	if m == nil || len(m) > maxRecycled {
		return
	}
	clear(m)
	maps.Put(m)
}

// maxKeys bounds a decoder's keys: arguments made of arbitrary names
// stop being kept once that many are.
const maxKeys = 1024

// key returns name as a string, the one kept when it was met before.
func (d *decoder) key(name []byte) string {
	if k, ok := d.keys[string(name)]; ok {
		return k
	}
	k := string(name)
	if d.keys == nil {
		d.keys = map[string]string{}
	}
	if len(d.keys) < maxKeys {
		d.keys[k] = k
	}
	return k
}

// Decode decodes a JSON object as json.Unmarshal into a map[string]any
// does: objects as map[string]any (a repeated key keeps its last value),
// arrays as []any, numbers as float64, strings decoded as encoding/json
// decodes them. It returns ok=false for anything json.Unmarshal would
// refuse (jsonscan accepts exactly the same JSON) and for a number float64
// cannot hold, so that the caller can fall back to a path that reports
// those.
//
// A top-level member whose key skip reports (skip may be nil) maps to nil:
// its value is checked, as decoding would check it (a number float64
// cannot hold still gives ok=false), but not built.
func Decode(raw []byte, skip func(key string) bool) (m map[string]any, ok bool) {
	return decode(raw, skip, false)
}

// DecodeChecked is Decode for input a reader has already checked as JSON,
// the content of its strings included (trace.Session.ArgumentsChecked):
// the strings of the members skip reports are passed over by a byte
// search for their closing quote instead of being checked again
// (jsonscan.Scanner.SkipUnchecked). Everything else is read as Decode
// reads it, numbers float64 cannot hold still giving ok=false, so that on
// such input both return the same.
func DecodeChecked(raw []byte, skip func(key string) bool) (m map[string]any, ok bool) {
	return decode(raw, skip, true)
}

func decode(raw []byte, skip func(key string) bool, checked bool) (m map[string]any, ok bool) {
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	d.checked = checked
	d.sc.Reset(raw)
	m, ok = d.object(skip, true)
	if !ok || !d.sc.End() {
		return nil, false
	}
	if cap(d.buf) > 1<<20 {
		d.buf = nil // do not keep a huge buffer alive in the pool
	}
	return m, true
}

// object decodes an object, leaving out the members skip reports (skip
// is nil below the top level). The top-level object is a map Recycle gave
// back when there is one.
func (d *decoder) object(skip func(key string) bool, top bool) (map[string]any, bool) {
	if !d.sc.Object() {
		return nil, false
	}
	var m map[string]any
	if top {
		m = maps.Get().(map[string]any)
	} else {
		m = map[string]any{}
	}
	for key, ok := d.sc.NextKey(); ok; key, ok = d.sc.NextKey() {
		k := d.key(key)
		if skip != nil && skip(k) {
			if !d.check() {
				return nil, false
			}
			m[k] = nil
			continue
		}
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, d.sc.Err() == nil
}

func (d *decoder) value() (any, bool) {
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
		m, ok := d.object(nil, false)
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

// check consumes a value as value does, failing where it fails, without
// building it.
func (d *decoder) check() bool {
	sc := &d.sc
	switch sc.Peek() {
	case jsonscan.Object:
		sc.Object()
		for _, ok := sc.NextKey(); ok; _, ok = sc.NextKey() {
			if !d.check() {
				return false
			}
		}
	case jsonscan.Array:
		sc.Array()
		for sc.NextElem() {
			if !d.check() {
				return false
			}
		}
	case jsonscan.Number:
		raw := sc.Raw()
		if raw == nil {
			return false
		}
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return false
		}
	case jsonscan.String:
		if d.checked {
			sc.SkipUnchecked()
		} else {
			sc.Skip()
		}
	default:
		sc.Skip()
	}
	return sc.Err() == nil
}
