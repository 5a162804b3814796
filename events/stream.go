package events

import (
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
// working directory is known (or Options.Paths.CWD is set): until then
// the reader keeps the call, and Normalize handles it. A Stream serves one
// read at a time.
type Stream struct {
	opts     Options
	sessions map[*trace.Session]*streamSession
}

// streamSession holds the events made so far for one session, by call
// index.
type streamSession struct {
	tax    *Taxonomy
	paths  PathNormalizer
	gtKeys map[string]string

	events   []Event
	warnings [][]string
	done     []bool
}

func (ss *streamSession) has(i int) bool { return i < len(ss.done) && ss.done[i] }

// NewStream returns a Stream that normalizes with opts, as Normalize does.
func NewStream(opts Options) *Stream {
	return &Stream{opts: opts, sessions: map[*trace.Session]*streamSession{}}
}

// CallDone makes the event of call i of s and reports whether the reader
// may release the call's arguments and result. Its signature is that of
// trace.Options.CallDone.
func (st *Stream) CallDone(s *trace.Session, i int) bool {
	if st.opts.Paths.CWD == "" && s.CWD == "" {
		// Paths are made relative to the session's working directory,
		// which a later line may still name.
		return false
	}
	ss := st.sessions[s]
	if ss == nil {
		ss = &streamSession{}
		ss.tax, ss.paths = sessionRules(s, st.opts)
		ss.gtKeys = groundTruthKeys(normalizeGroundTruth(st.opts.GroundTruth, ss.paths).Files, ss.paths)
		st.sessions[s] = ss
	}
	for len(ss.done) < len(s.Calls) {
		// One call more at a time, mostly: appending grows the slices
		// without a temporary one per call.
		ss.events = append(ss.events, Event{})
		ss.warnings = append(ss.warnings, nil)
		ss.done = append(ss.done, false)
	}
	ss.events[i], ss.warnings[i] = callEvent(&s.Calls[i], ss.tax, ss.paths, ss.gtKeys)
	ss.done[i] = true
	return true
}

// Normalize is Normalize, with the Stream's options, for a session read
// with CallDone: the calls it handed over keep the events made then.
func (st *Stream) Normalize(s *trace.Session) *Document {
	return normalize(s, st.opts, st.take(s))
}

// NormalizeAll is NormalizeAll, with the Stream's options, for sessions
// read with CallDone.
func (st *Stream) NormalizeAll(sessions []*trace.Session, input string) []*Document {
	return normalizeAll(sessions, input, st.opts, func(s *trace.Session, o Options) *Document {
		return normalize(s, o, st.take(s))
	})
}

// take returns what was made for s and forgets it.
func (st *Stream) take(s *trace.Session) *streamSession {
	ss := st.sessions[s]
	delete(st.sessions, s)
	return ss
}
