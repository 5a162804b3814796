package events

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/agentretrieval/agentretrieval/trace"
)

// sharedEvents are the events of one session for the Streams of
// CallDoneAll that classify and extract alike (sameRules): kept once,
// without ground-truth hits, instead of once a Stream, and made into a
// []Event once, by the first of their documents. A document whose ground
// truth some event hits copies that []Event and marks its hits; the
// others have it as it is: ten scenarios naming one trace decode and
// summarize its events once instead of ten times.
type sharedEvents struct {
	store eventStore // the calls the Streams took, without hits

	once     sync.Once
	events   []Event  // every call's event, without hits, with its timing
	warnings []string // about the calls' arguments, in step order
	summary  Summary  // of events
}

// sharedGroup returns the sharedEvents of session s for streams[k], whose
// session ss is new: those of an earlier Stream with the same rules, or
// new ones when there is none; nil when no other Stream has its rules
// (a Stream of its own keeps its events as Stream.CallDone does).
func sharedGroup(streams []*Stream, k int, s *trace.Session, ss *streamSession) *sharedEvents {
	st := streams[k]
	alike := 0
	for _, o := range streams {
		if o.pipe == nil && sameRules(o.opts, st.opts) {
			alike++
		}
	}
	if alike < 2 {
		return nil
	}
	for _, o := range streams[:k] {
		if o.pipe != nil || !sameRules(o.opts, st.opts) {
			continue
		}
		if os := o.sessions[s]; os != nil && os.shared != nil {
			return os.shared
		}
	}
	return &sharedEvents{store: eventStore{strs: ss.store.strs}}
}

// make makes the events of b's session, without hits: those the Streams
// took from the store, the others from the calls the session kept.
func (sh *sharedEvents) make(b *docBuilder) {
	s := b.s
	sh.events = make([]Event, s.NumCalls())
	var arena listArena
	var secs []float64
	for i := range sh.events {
		ev := &sh.events[i]
		var called time.Time
		var warnings []string
		if sh.store.has(i) {
			called = sh.store.getFrom(i, ev, &arena)
			warnings = sh.store.warnings[i]
		} else {
			// Not handed over, or not taken: the session kept the call.
			c := keptCall(s, i)
			*ev, warnings = extractEvent(c, s.ArgumentsChecked(i), b.tax, b.paths)
			called = c.Time
		}
		sh.warnings = append(sh.warnings, warnings...)
		b.timingInto(i, called, ev, &take(&secs, 1)[0])
	}
	sh.summary = summarize(sh.events, b.paths)
	// What the document needs is in events now.
	sh.store = eventStore{}
}

// normalizeShared is normalize for a Stream whose events are shared: the
// shared events, made on the first call, copied and marked with the
// ground truth of opts.
func normalizeShared(s *trace.Session, opts Options, sh *sharedEvents) *Document {
	b := beginDocument(s, opts)
	sh.once.Do(func() { sh.make(b) })
	b.warn(sh.warnings)
	b.endWarnings()
	doc := b.doc
	// A document whose ground truth no event hits has the shared events
	// themselves; one with hits a copy, marked.
	doc.Events = sh.events
	copied := false
	for i := range sh.events {
		ev := sh.events[i]
		markHits(&ev, b.paths, b.gtKeys)
		if !ev.HitsGroundTruth {
			continue
		}
		if !copied {
			doc.Events, copied = slices.Clone(sh.events), true
		}
		doc.Events[i] = ev
	}
	doc.Summary = withHits(sh.summary, doc.Events, b.paths)
	return doc
}

// withHits returns the summary of evs, given base, the summary of the
// same events without their ground-truth hits: base's counts, in maps of
// their own, and the hits of evs.
func withHits(base Summary, evs []Event, paths PathNormalizer) Summary {
	sum := base
	sum.EventsByCategory = maps.Clone(base.EventsByCategory)
	sum.EventsByClass = maps.Clone(base.EventsByClass)
	sum.UnclassifiedTools = maps.Clone(base.UnclassifiedTools)
	gtHit := map[string]bool{}
	for i := range evs {
		countHits(&sum, gtHit, &evs[i], paths)
	}
	sum.GroundTruthFilesHit = len(gtHit)
	return sum
}
