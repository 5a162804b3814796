package events

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// An eventStore holds the events a Stream made, by call index, encoded in
// a few dozen bytes each instead of an Event of nearly 300 bytes and its
// slices. Strings that repeat (tool names, categories, classes, paths,
// symbols, parent call ids) are kept once, in a table shared by the
// sessions of a Stream; a query is kept in place; a call id is the
// call's own string. A session of a hundred thousand calls then holds
// its events in a few megabytes until its document is written.
//
// An encoded event is, in order: a byte of flags, the step index, the
// time of the call (when it has one: seconds since 1970 and nanoseconds,
// so that a reader that drops the calls need not keep it), the tool
// name, category and class, the parent call id, the target files, files
// read, files written, line ranges, symbols and ground-truth hits as
// lists, and the query. Numbers are varints; a string of the table is
// its number; a list is its length plus one (zero for a nil list, so that
// nil and empty come back as they went in), then its elements.
type eventStore struct {
	buf []byte
	at  []int    // by call index: the offset of its event in buf, or -1
	ids []string // by call index: the call id
	// warnings holds, by call index, what extraction warned about; few
	// calls have any.
	warnings map[int][]string
	strs     *stringTable
}

// stringTable numbers the strings an eventStore keeps once.
type stringTable struct {
	strs []string
	num  map[string]uint32
	// shared is set on the table the Streams of CallDoneAll share: a
	// store that adds to it afterwards (Pending.WriteJSON, for a call
	// the reader kept) works on a copy of its own, since the other
	// Streams may read it at the same time.
	shared bool
}

// clone returns a copy of t that is not shared.
func (t *stringTable) clone() *stringTable {
	c := &stringTable{strs: slices.Clone(t.strs), num: make(map[string]uint32, len(t.num))}
	maps.Copy(c.num, t.num)
	return c
}

func newStringTable() *stringTable { return &stringTable{num: map[string]uint32{}} }

// number returns the number of s in t, adding a copy of s when t does
// not hold it yet: s may be part of a result or arguments a reader lent
// to a Stream's CallDone (trace.Options.CallDone), overwritten once the
// call is made into its event.
func (t *stringTable) number(s string) uint32 {
	if n, ok := t.num[s]; ok {
		return n
	}
	s = strings.Clone(s)
	n := uint32(len(t.strs))
	t.strs = append(t.strs, s)
	t.num[s] = n
	return n
}

const (
	flagMCP = 1 << iota
	flagHitsGroundTruth
	flagUnclassified
	flagError
	flagSubagent
	flagTime
)

func (st *eventStore) has(i int) bool { return i < len(st.at) && st.at[i] >= 0 }

// put keeps ev as the event of call i, with the warnings its extraction
// gave and the time of the call.
func (st *eventStore) put(i int, ev *Event, warnings []string, called time.Time) {
	if st.strs.shared {
		st.strs = st.strs.clone()
	}
	st.putShared(i, ev, warnings, called)
}

// putShared is put adding to the string table even when it is shared:
// for CallDoneAll, which alone writes to it while the trace is read.
func (st *eventStore) putShared(i int, ev *Event, warnings []string, called time.Time) {
	for len(st.at) <= i {
		// One call more at a time, mostly: appending grows the slices
		// without a temporary one per call.
		st.at = append(st.at, -1)
		st.ids = append(st.ids, "")
	}
	st.at[i] = len(st.buf)
	st.ids[i] = ev.CallID
	if len(warnings) > 0 {
		if st.warnings == nil {
			st.warnings = map[int][]string{}
		}
		// Strings of their own (extractEvent formats them), whatever the
		// call's arguments and result were lent for.
		st.warnings[i] = warnings
	} else {
		delete(st.warnings, i)
	}

	var flags byte
	for _, f := range []struct {
		set  bool
		flag byte
	}{
		{ev.IsMCP, flagMCP}, {ev.HitsGroundTruth, flagHitsGroundTruth}, {ev.Unclassified, flagUnclassified},
		{ev.IsError, flagError}, {ev.IsSubagent, flagSubagent}, {!called.IsZero(), flagTime},
	} {
		if f.set {
			flags |= f.flag
		}
	}
	b := append(st.buf, flags)
	b = binary.AppendUvarint(b, uint64(ev.StepIndex))
	if !called.IsZero() {
		b = binary.AppendVarint(b, called.Unix())
		b = binary.AppendUvarint(b, uint64(called.Nanosecond()))
	}
	b = st.appendString(b, ev.ToolName)
	b = st.appendString(b, string(ev.ToolCategory))
	b = st.appendString(b, string(ev.ToolClass))
	b = st.appendString(b, ev.ParentCallID)
	for _, list := range [][]string{ev.TargetFiles, ev.FilesRead, ev.FilesWritten} {
		b = st.appendList(b, list)
	}
	b = appendLength(b, ev.LineRanges == nil, len(ev.LineRanges))
	for _, r := range ev.LineRanges {
		b = st.appendString(b, r.Path)
		b = binary.AppendVarint(b, int64(r.Start))
		b = binary.AppendVarint(b, int64(r.End))
	}
	b = st.appendList(b, ev.Symbols)
	b = st.appendList(b, ev.GroundTruthHits)
	b = binary.AppendUvarint(b, uint64(len(ev.Query)))
	st.buf = append(b, ev.Query...)
}

func (st *eventStore) appendString(b []byte, s string) []byte {
	return binary.AppendUvarint(b, uint64(st.strs.number(s)))
}

func (st *eventStore) appendList(b []byte, list []string) []byte {
	b = appendLength(b, list == nil, len(list))
	for _, s := range list {
		b = st.appendString(b, s)
	}
	return b
}

func appendLength(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// get decodes the event of call i into ev, which it overwrites whole,
// and returns the time of the call. The strings are those put kept; the
// slices are new.
func (st *eventStore) get(i int, ev *Event) (called time.Time) {
	return st.decode(i, ev, false, nil)
}

// getFrom is get taking the event's lists from arena, for the events of
// one document: a few arrays instead of a few per event.
func (st *eventStore) getFrom(i int, ev *Event, arena *listArena) (called time.Time) {
	return st.decode(i, ev, false, arena)
}

// A listArena hands out the lists of decoded events from shared arrays.
// Each list has the capacity of its length, so that appending to one
// copies it rather than writing over the next.
type listArena struct {
	strs   []string
	ranges []LineRange
}

// An arena's arrays start at firstChunk elements and double up to
// maxChunk, so that a short document wastes little and a long one makes
// few arrays.
const (
	firstChunk = 32
	maxChunk   = 1024
)

// take returns n elements of the array *from, making a new one when it
// has no room.
func take[T any](from *[]T, n int) []T {
	if n == 0 {
		return []T{}
	}
	if cap(*from)-len(*from) < n {
		*from = make([]T, 0, max(n, min(2*cap(*from), maxChunk), firstChunk))
	}
	at := len(*from)
	*from = (*from)[:at+n]
	return (*from)[at : at+n : at+n]
}

// getReusing is get writing the event's lists into the arrays of the
// lists ev holds, for a caller that is done with the event ev held: one
// that decodes every event in turn to write it.
func (st *eventStore) getReusing(i int, ev *Event) (called time.Time) {
	return st.decode(i, ev, true, nil)
}

func (st *eventStore) decode(i int, ev *Event, reuse bool, arena *listArena) (called time.Time) {
	var old Event
	if reuse {
		old = *ev
	}
	d := storeDecoder{st: st, b: st.buf[st.at[i]:], arena: arena}
	flags := d.byte()
	*ev = Event{
		IsMCP:           flags&flagMCP != 0,
		HitsGroundTruth: flags&flagHitsGroundTruth != 0,
		Unclassified:    flags&flagUnclassified != 0,
		IsError:         flags&flagError != 0,
		IsSubagent:      flags&flagSubagent != 0,
		StepIndex:       int(d.uvarint()),
		CallID:          st.ids[i],
	}
	if flags&flagTime != 0 {
		sec := d.varint()
		called = time.Unix(sec, int64(d.uvarint()))
	}
	ev.ToolName = d.string()
	ev.ToolCategory = Category(d.string())
	ev.ToolClass = Class(d.string())
	ev.ParentCallID = d.string()
	ev.TargetFiles = d.list(old.TargetFiles)
	ev.FilesRead = d.list(old.FilesRead)
	ev.FilesWritten = d.list(old.FilesWritten)
	if n, ok := d.length(); ok {
		if arena != nil {
			ev.LineRanges = take(&arena.ranges, n)
		} else {
			ev.LineRanges = reuseSlice(old.LineRanges, n)
		}
		for k := range ev.LineRanges {
			r := &ev.LineRanges[k]
			r.Path = d.string()
			r.Start = int(d.varint())
			r.End = int(d.varint())
		}
	}
	ev.Symbols = d.list(old.Symbols)
	ev.GroundTruthHits = d.list(old.GroundTruthHits)
	n := int(d.uvarint())
	if reuse && string(d.b[:n]) == old.Query {
		ev.Query = old.Query
	} else {
		ev.Query = string(d.b[:n])
	}
	return called
}

// reuseSlice returns a slice of n elements, in the array of s when it is
// large enough; never nil.
func reuseSlice[T any](s []T, n int) []T {
	if s != nil && cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// storeDecoder reads an event put encoded. The bytes are the store's own,
// so a failure to decode them is a bug, and panics.
type storeDecoder struct {
	st    *eventStore
	b     []byte
	arena *listArena // nil: each list is an array of its own
}

func (d *storeDecoder) byte() byte {
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *storeDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		panic(fmt.Sprintf("events: corrupt event store (uvarint at %d)", len(d.st.buf)-len(d.b)))
	}
	d.b = d.b[n:]
	return v
}

func (d *storeDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		panic(fmt.Sprintf("events: corrupt event store (varint at %d)", len(d.st.buf)-len(d.b)))
	}
	d.b = d.b[n:]
	return v
}

func (d *storeDecoder) string() string { return d.st.strs.strs[d.uvarint()] }

// length reads a list's length; ok is false for a nil list.
func (d *storeDecoder) length() (n int, ok bool) {
	v := d.uvarint()
	return int(v) - 1, v > 0
}

// list reads a list, into the array of reuse when it is large enough.
func (d *storeDecoder) list(reuse []string) []string {
	n, ok := d.length()
	if !ok {
		return nil
	}
	var list []string
	if d.arena != nil {
		list = take(&d.arena.strs, n)
	} else {
		list = reuseSlice(reuse, n)
	}
	for k := range list {
		list[k] = d.string()
	}
	return list
}
