package metrics

import (
	"iter"

	"github.com/agentretrieval/agentretrieval/events"
)

// eventList is the events a result is computed from: a document's
// Events, or those of an events.EventSource, decoded again on each pass
// over them instead of held.
type eventList struct {
	all []events.Event     // the document's, when src is nil
	src events.EventSource // else
}

func docEvents(doc *events.Document) eventList { return eventList{all: doc.Events} }

func (l eventList) len() int {
	if l.src != nil {
		return l.src.Len()
	}
	return len(l.all)
}

// each yields every event in order with its index. The event is valid
// until the next: a pass over a source decodes each into the same Event,
// so what is kept of it beyond is copied.
func (l eventList) each() iter.Seq2[int, *events.Event] {
	return func(yield func(int, *events.Event) bool) {
		if l.src == nil {
			for i := range l.all {
				if !yield(i, &l.all[i]) {
					return
				}
			}
			return
		}
		var ev events.Event
		for i := range l.src.Len() {
			l.src.EventInto(i, &ev)
			if !yield(i, &ev) {
				return
			}
		}
	}
}

// at returns event i, decoded into buf when it comes from a source.
func (l eventList) at(i int, buf *events.Event) *events.Event {
	if l.src == nil {
		return &l.all[i]
	}
	l.src.EventInto(i, buf)
	return buf
}
