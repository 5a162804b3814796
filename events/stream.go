package events

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/trace"
)

// A Stream normalizes tool calls while a trace is read, so that neither
// their results nor their arguments need to be kept: give its CallDone to
// trace.Options.CallDone, read, then call Normalize (or NormalizeAll) on
// the sessions read. The documents are the ones Normalize makes from a
// session read with every result kept; memory holds one result at a time
// instead of all of them.
//
// A call is normalized when the reader hands it over, once the session's
// working directory is known, or known to be unrecorded
// (trace.Session.CWDSettled), or Options.Paths.CWD is set: until then
// the reader keeps the call, and Normalize handles it. A Stream serves one
// read at a time.
type Stream struct {
	opts     Options
	sessions map[*trace.Session]*streamSession
	strs     *stringTable // the strings of the events of the read under way
	pipe     *streamPipe  // nil: calls are normalized inside CallDone
}

// streamSession holds the events made so far for one session, by call
// index.
type streamSession struct {
	tax    *Taxonomy
	paths  PathNormalizer
	gtKeys map[string]string
	store  eventStore
	// shared, when set, holds the session's events in place of store:
	// made once for the Streams of CallDoneAll with the same rules.
	shared  *sharedEvents
	grouped bool // CallDoneAll has set shared
}

// make makes the event of call c, number i of its session; checked is
// the session's ArgumentsChecked(i), taken when the call was handed over.
func (ss *streamSession) make(c *trace.ToolCall, i int, checked bool) {
	ev, warnings := callEvent(c, checked, ss.tax, ss.paths, ss.gtKeys)
	ss.store.put(i, &ev, warnings, c.Time)
}

// NewStream returns a Stream that normalizes with opts, as Normalize does.
func NewStream(opts Options) *Stream {
	return &Stream{opts: opts, sessions: map[*trace.Session]*streamSession{}}
}

// NewConcurrentStream returns a Stream that, when more than one CPU may
// run Go code (runtime.GOMAXPROCS), normalizes the calls on a goroutine of
// its own while the reader reads on. Calls are normalized one after the
// other, in the order they are handed over, so the documents are those of
// NewStream. Call Wait once the read is over, whether it failed or not:
// it ends the goroutine and reports a call whose extraction failed (a
// bug; on one goroutine, the reader would report it as its own failure).
// With one CPU it is NewStream.
func NewConcurrentStream(opts Options) *Stream {
	st := NewStream(opts)
	if runtime.GOMAXPROCS(0) > 1 {
		st.pipe = &streamPipe{}
	}
	return st
}

// CallDone makes the event of call i of s and reports whether the reader
// may release the call's arguments and result. Its signature is that of
// trace.Options.CallDone.
func (st *Stream) CallDone(s *trace.Session, i int) bool {
	ss := st.session(s, nil)
	if ss == nil {
		return false
	}
	if st.pipe != nil {
		// The worker gets its own copy of the call, arguments and result
		// included: the reader lent them for this call only
		// (trace.Options.CallDone).
		st.pipe.send(ss, i, s.Call(i), s.ArgumentsChecked(i))
		return true
	}
	ss.make(s.Call(i), i, s.ArgumentsChecked(i))
	return true
}

// session returns what st holds for session s, or nil while the working
// directory its paths are made relative to is unknown (a later line may
// still name it; a format that records none settles it as empty). With
// table set, a new read takes the string table *table when there is one,
// and makes it *table otherwise: the Streams of CallDoneAll keep each
// string once between them.
func (st *Stream) session(s *trace.Session, table **stringTable) *streamSession {
	if st.opts.Paths.CWD == "" && !s.CWDSettled() {
		return nil
	}
	ss := st.sessions[s]
	if ss == nil {
		if len(st.sessions) == 0 || st.strs == nil {
			// A new read: its strings go to a table of their own, so that
			// a Stream that serves many reads holds only the last one's.
			switch {
			case table == nil:
				st.strs = newStringTable()
			case *table == nil:
				st.strs = newStringTable()
				*table = st.strs
			default:
				st.strs = *table
				st.strs.shared = true
			}
		}
		ss = &streamSession{store: eventStore{strs: st.strs}}
		ss.tax, ss.paths = sessionRules(s, st.opts)
		ss.gtKeys = groundTruthKeys(normalizeGroundTruth(st.opts.GroundTruth, ss.paths).Files, ss.paths)
		st.sessions[s] = ss
	}
	return ss
}

// CallDoneAll is CallDone of each of streams, for several Streams that
// read one trace together (one reader, whose CallDone calls this): the
// Streams made by NewStream whose Options have the same Taxonomy (the
// same pointer) and Paths extract each call once, and differ only in
// the ground truth the events are marked with. It reports whether every
// Stream took the call; they all do or none does, since they wait alike
// for the session's working directory.
//
// Two or more such Streams keep each call's event once between them,
// without ground-truth hits, and make the events of a session's documents
// once too: the documents whose ground truth no event hits share one
// []Event, and those with hits have events of their own, marked, that
// share their lists (TargetFiles, FilesRead, LineRanges and the others)
// and their CumulativeTokens and ElapsedSeconds with the other documents
// of the session: treat the documents as read-only.
func CallDoneAll(streams []*Stream, s *trace.Session, i int) bool {
	var table *stringTable   // the strings of a new read, shared
	var made []*sharedEvents // the groups of Streams that took call i already
	took := len(streams) > 0
	for k, st := range streams {
		if st.pipe != nil {
			took = st.CallDone(s, i) && took
			continue
		}
		ss := st.session(s, &table)
		if ss == nil {
			took = false
			continue
		}
		if !ss.grouped {
			ss.grouped = true
			ss.shared = sharedGroup(streams, k, s, ss)
		}
		c := s.Call(i)
		if sh := ss.shared; sh != nil {
			if !slices.Contains(made, sh) {
				ev, warnings := extractEvent(c, s.ArgumentsChecked(i), ss.tax, ss.paths)
				// One goroutine runs CallDoneAll: the Streams' shared
				// table is written by one at a time.
				sh.store.putShared(i, &ev, warnings, c.Time)
				made = append(made, sh)
			}
			continue
		}
		ev, warnings := callEvent(c, s.ArgumentsChecked(i), ss.tax, ss.paths, ss.gtKeys)
		ss.store.putShared(i, &ev, warnings, c.Time)
	}
	return took
}

// sameRules reports whether a and b classify and extract alike: the same
// taxonomy and path rules.
func sameRules(a, b Options) bool {
	return a.Taxonomy == b.Taxonomy && a.Paths.CWD == b.Paths.CWD && a.Paths.FoldCase == b.Paths.FoldCase &&
		(a.Paths.Prefixes == nil) == (b.Paths.Prefixes == nil) && slices.Equal(a.Paths.Prefixes, b.Paths.Prefixes)
}

// Wait returns once every call handed over is normalized. The error says
// which call's extraction panicked on the Stream's goroutine, if one did;
// the documents of that read cannot be made then.
func (st *Stream) Wait() error {
	if st.pipe == nil {
		return nil
	}
	st.pipe.wait()
	if f := st.pipe.failed; f != nil {
		return fmt.Errorf("extracting step %d (%s) failed: %v", f.call.Index+1, f.call.Name, f.panic)
	}
	return nil
}

// mustWait waits for the calls handed over, and panics, as extracting the
// call did, when one failed.
func (st *Stream) mustWait() {
	if st.pipe != nil {
		st.pipe.wait()
		if f := st.pipe.failed; f != nil {
			panic(f.panic)
		}
	}
}

// Normalize is Normalize, with the Stream's options, for a session read
// with CallDone: the calls it handed over keep the events made then. The
// Stream lets go of those events: a session read with
// trace.Options.DropReleased is normalized once (Pending keeps them for
// more).
func (st *Stream) Normalize(s *trace.Session) *Document {
	st.mustWait()
	return normalize(s, st.opts, st.take(s))
}

// NormalizeAll is NormalizeAll, with the Stream's options, for sessions
// read with CallDone.
func (st *Stream) NormalizeAll(sessions []*trace.Session, input string) []*Document {
	st.mustWait()
	return normalizeAll(sessions, input, st.opts, func(s *trace.Session, o Options) *Document {
		return normalize(s, o, st.take(s))
	})
}

// KeepResults is for a reader whose sessions keep their calls' arguments
// and, of each result, what keep returns of it (nothing when keep is
// nil), a report's share of it, say. callDone, for trace.Options.CallDone,
// gives each call to st as CallDone does and then keeps that share; rest,
// called on each session once its document is made, does the same to the
// calls st could not take as they were read (their session's working
// directory came later). keep sees each result once.
func (st *Stream) KeepResults(keep func(result string) string) (callDone func(*trace.Session, int) bool, rest func(*trace.Session)) {
	kept := map[*trace.Session][]bool{} // by session and call: its result is kept
	// lent says the result is the one the reader lent to CallDone
	// (trace.Options.CallDone): keep, which may keep what it is given, is
	// then given a copy.
	keepResult := func(s *trace.Session, i int, lent bool) {
		c := s.Call(i)
		if keep == nil {
			c.Result = ""
			return
		}
		done := kept[s]
		for len(done) <= i {
			done = append(done, false)
		}
		if !done[i] {
			result := c.Result
			if lent {
				result = strings.Clone(result)
			}
			c.Result, done[i] = keep(result), true
		}
		kept[s] = done
	}
	callDone = func(s *trace.Session, i int) bool {
		if st.CallDone(s, i) {
			keepResult(s, i, true)
		}
		return false // the arguments stay
	}
	rest = func(s *trace.Session) {
		for k := range s.Calls {
			keepResult(s, s.Calls[k].Index, false)
		}
		delete(kept, s)
	}
	return callDone, rest
}

// Pending returns the documents of sessions read with CallDone, one per
// session in order, named as NormalizeAll names them (input is the
// trace's name), to be made or written one at a time.
//
// A Pending's WriteJSON writes its document from the events as the
// Stream holds them, a few dozen bytes each, without making them the
// []Event of a Document: for a session of a hundred thousand calls that
// is tens of megabytes less. Use it when the document is only written.
func (st *Stream) Pending(sessions []*trace.Session, input string) []*Pending {
	st.mustWait()
	out := make([]*Pending, len(sessions))
	for i, s := range sessions {
		out[i] = &Pending{s: s, opts: taskOptions(st.opts, s, input, i, len(sessions)), done: st.take(s)}
	}
	return out
}

// A Pending is the document of one session read through a Stream, not
// made yet. Its methods may be called any number of times, in any order,
// and give the same document; it holds the session's events until it is
// dropped. The Pendings of one read share a table of strings: use them
// from one goroutine at a time.
type Pending struct {
	s    *trace.Session
	opts Options
	done *streamSession
}

// Document makes the document: Normalize's, for the session as read.
func (p *Pending) Document() *Document { return normalize(p.s, p.opts, p.done) }

// WriteJSON writes the document as Document().WriteJSON would, byte for
// byte, decoding one event at a time.
func (p *Pending) WriteJSON(w io.Writer) error {
	if p.made() {
		return p.Document().WriteJSON(w)
	}
	// Two passes over the events: the warnings and the summary they bring
	// are written before them, and decoding one again costs less than
	// holding it.
	b, st := p.begin()
	// Each event is written before the next is decoded into the same
	// Event, its lists and its elapsed seconds.
	var ev Event
	var sec float64
	return b.doc.writeJSON(w, false, st.len, func(i int) *Event {
		b.timingInto(i, st.store.getReusing(i, &ev), &ev, &sec)
		return &ev
	})
}

// Events returns the document with its Events nil, and the events, to be
// decoded one at a time (EventSource.EventInto) instead of held as a
// []Event: what Document returns, in two parts. For a session of a
// hundred thousand calls, a reader that goes over the events in turn
// (metrics.ComputeEvents) needs tens of megabytes less.
func (p *Pending) Events() (*Document, EventSource) {
	if p.made() {
		doc := p.Document()
		return doc, docSource(doc.Events)
	}
	b, st := p.begin()
	return b.doc, st
}

// made reports whether the document is made whole rather than from the
// store one event at a time: for no session, and for events the Streams
// of CallDoneAll share (their store holds no ground-truth hits, and their
// documents are made together).
func (p *Pending) made() bool {
	return p.s == nil || p.done != nil && p.done.shared != nil
}

// begin makes the document but for its events, and the store of every
// event, in one pass over them: the calls the Stream did not take are
// made into events and stored, and the warnings and the summary of all
// of them set.
func (p *Pending) begin() (*docBuilder, *pendingSource) {
	if p.done == nil {
		// The Stream made none of its events (it never knew the working
		// directory): they are made here, and kept as the Stream keeps
		// them.
		p.done = &streamSession{store: eventStore{strs: newStringTable()}}
	}
	b := beginDocument(p.s, p.opts)
	st := &p.done.store
	sum := newSummary(b.paths)
	var ev Event
	n := p.s.NumCalls()
	for i := range n {
		if !st.has(i) {
			// Not handed over, or not taken: the session kept the call.
			c := keptCall(p.s, i)
			made, warnings := callEvent(c, p.s.ArgumentsChecked(i), b.tax, b.paths, b.gtKeys)
			st.put(i, &made, warnings, c.Time)
		}
		b.warn(st.warnings[i])
		// The summary reads neither the tokens nor the time: no timing.
		st.getReusing(i, &ev)
		sum.add(&ev)
	}
	b.endWarnings()
	b.doc.Summary = sum.result()
	return b, &pendingSource{b: b, store: st, len: n}
}

// An EventSource holds the events of a document, to be decoded one at a
// time: Pending.Events returns one.
type EventSource interface {
	// Len returns the number of events.
	Len() int
	// EventInto sets *ev to event i (0 <= i < Len()). The lists and the
	// elapsed seconds it sets may be stored where those of the event *ev
	// held before, overwriting them: what a caller keeps of an event
	// beyond the next EventInto into the same Event, it copies.
	EventInto(i int, ev *Event)
}

// pendingSource is the EventSource of a Pending: its store, decoded.
type pendingSource struct {
	b     *docBuilder
	store *eventStore
	len   int
}

func (s *pendingSource) Len() int { return s.len }

func (s *pendingSource) EventInto(i int, ev *Event) {
	// The elapsed seconds go where the previous event's went (timingInto
	// makes a place when there was none), read before ev is overwritten.
	sec := ev.ElapsedSeconds
	s.b.timingInto(i, s.store.getReusing(i, ev), ev, sec)
}

// docSource is the EventSource of a made document's events.
type docSource []Event

func (s docSource) Len() int { return len(s) }

func (s docSource) EventInto(i int, ev *Event) { *ev = s[i] }

// take returns what was made for s and forgets it.
func (st *Stream) take(s *trace.Session) *streamSession {
	ss := st.sessions[s]
	delete(st.sessions, s)
	return ss
}
