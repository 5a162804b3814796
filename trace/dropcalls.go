package trace

import (
	"maps"
	"slices"
	"sort"
)

// A callLedger is what a session read with Options.DropReleased keeps of
// its calls: the number read, the calls not dropped, and once the read is
// over the tokens of every call.
type callLedger struct {
	n int
	// live holds, while the session is read, the calls read and not
	// dropped, by index; once it is read Session.Calls holds them.
	live   map[int]*ToolCall
	tokens []*int64 // by index, once the read is over; nil: none has any
}

// dropReleased makes s keep its calls in a ledger: AddCall puts a call
// there, and a call that CallDone releases is dropped from it.
func (s *Session) dropReleased() {
	s.ledger = &callLedger{live: map[int]*ToolCall{}}
}

// NumCalls returns how many tool calls the session has: len(Calls), or,
// for a session read with Options.DropReleased, the number of calls
// read, dropped ones included. Call indexes run from 0 to NumCalls()-1.
func (s *Session) NumCalls() int {
	if s.ledger != nil {
		return s.ledger.n
	}
	return len(s.Calls)
}

// Call returns the call of index i: &Calls[i], or, for a session read
// with Options.DropReleased, the call if it was not dropped and nil if it
// was. It may be called while the session is read (from CallDone).
func (s *Session) Call(i int) *ToolCall {
	l := s.ledger
	switch {
	case l == nil:
		return &s.Calls[i]
	case l.live != nil:
		return l.live[i]
	}
	k := sort.Search(len(s.Calls), func(k int) bool { return s.Calls[k].Index >= i })
	if k < len(s.Calls) && s.Calls[k].Index == i {
		return &s.Calls[k]
	}
	return nil
}

// CallTokens returns the CumulativeTokens of call i, dropped or not, once
// the session is read.
func (s *Session) CallTokens(i int) *int64 {
	if l := s.ledger; l != nil {
		if l.tokens == nil {
			return nil
		}
		return l.tokens[i]
	}
	return s.Calls[i].CumulativeTokens
}

// add puts c in the ledger as the next call and returns its
// index.
func (l *callLedger) add(c ToolCall) int {
	c.Index = l.n
	l.n++
	l.live[c.Index] = &c
	return c.Index
}

// setTokens records the CumulativeTokens of every call, and sets them on
// the calls not dropped: tokens is by index, nil when no call has any.
func (l *callLedger) setTokens(tokens []*int64) {
	l.tokens = tokens
	if tokens == nil {
		return
	}
	for i, c := range l.live {
		c.CumulativeTokens = tokens[i]
	}
}

// finishHandOver ends a read that handed its calls over as their results
// came (Options.CallDone): the calls no result answered are handed over
// too, in order, by handOne; with Options.DropReleased the session's Calls
// become the calls kept, given tokens (the CumulativeTokens of every call
// by index) unless tokens is nil.
func (s *Session) finishHandOver(handOne func(i int), tokens []*int64) {
	for i := range s.NumCalls() {
		if c := s.Call(i); c != nil && !c.HasResult {
			handOne(i)
		}
	}
	s.streamed = true
	if s.ledger != nil {
		if tokens != nil {
			s.ledger.setTokens(tokens)
		}
		s.closeLedger()
	}
}

// closeLedger ends the read of s: its Calls become the calls not dropped, in
// order.
func (s *Session) closeLedger() {
	l := s.ledger
	s.Calls = make([]ToolCall, 0, len(l.live))
	for _, i := range slices.Sorted(maps.Keys(l.live)) {
		s.Calls = append(s.Calls, *l.live[i])
	}
	l.live = nil
}

// dropReleasedAfterRead gives a session that a reader built whole (with
// AddCall) the ledger of a read with Options.DropReleased, before its
// calls are handed over: handOver then drops each call CallDone
// releases, and closeLedger keeps the others, as for a session that
// drops its calls as it is read.
func (s *Session) dropReleasedAfterRead() {
	l := &callLedger{n: len(s.Calls), live: make(map[int]*ToolCall, len(s.Calls))}
	for i := range s.Calls {
		c := &s.Calls[i]
		l.live[i] = c
		if c.CumulativeTokens != nil {
			if l.tokens == nil {
				l.tokens = make([]*int64, len(s.Calls))
			}
			l.tokens[i] = c.CumulativeTokens
		}
	}
	s.ledger = l
}
