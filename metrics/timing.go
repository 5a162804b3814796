package metrics

import (
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
)

// TimeToRelevance holds how long the agent took to reach relevant files,
// per view: TTFR (time to the first relevant file) and TTAR (time to all
// relevant files).
type TimeToRelevance struct {
	Surfaced RelevanceTimes `json:"surfaced"`
	Read     RelevanceTimes `json:"read"`
}

// View returns the times of view v.
func (t *TimeToRelevance) View(v View) *RelevanceTimes {
	if v == Read {
		return &t.Read
	}
	return &t.Surfaced
}

// RelevanceTimes are the two milestones of one view.
type RelevanceTimes struct {
	First Milestone `json:"first_relevant"`
	All   Milestone `json:"all_relevant"`
}

// A Milestone is the event at which the agent reached a relevant file (the
// first one) or the last of the relevant files (all of them), in one view:
// the event that put the file in that view's ranked list.
//
// Steps is the 1-based position of that event among the document's events
// (every event counts: searches, reads, edits, subagent calls), so steps 3
// means two events came before it. Seconds is the event's ElapsedSeconds,
// time from the start of the run; Tokens its CumulativeTokens, the tokens
// used up to and including the turn that issued it. A figure is null, not
// 0, when the milestone was never reached or when the trace does not record
// it, and Reason then says which.
type Milestone struct {
	Reached bool `json:"reached"`
	// File is the relevant file reached (for all: the last one reached).
	File string `json:"file,omitempty"`
	// StepIndex is the event's StepIndex (0-based over all tool calls).
	StepIndex *int     `json:"step_index"`
	Steps     *int     `json:"steps"`
	Seconds   *float64 `json:"seconds"`
	Tokens    *int64   `json:"tokens"`
	Reason    string   `json:"reason,omitempty"`
}

func computeTime(doc *events.Document, in *input) *TimeToRelevance {
	hasTime, hasTokens := in.hasTime, in.hasTokens
	milestone := func(file string, event int) Milestone {
		ev := in.evs.at(event, new(events.Event))
		m := Milestone{Reached: true, File: file, StepIndex: ptr(ev.StepIndex), Steps: ptr(event + 1)}
		var why []string
		switch {
		case ev.ElapsedSeconds != nil:
			m.Seconds = ptr(*ev.ElapsedSeconds)
		case !hasTime:
			why = append(why, "seconds: the trace has no timestamps")
		default:
			why = append(why, fmt.Sprintf("seconds: the event at step %d has no timestamp", event+1))
		}
		switch {
		case ev.CumulativeTokens != nil:
			m.Tokens = ptr(*ev.CumulativeTokens)
		case !hasTokens:
			why = append(why, "tokens: the trace has no token counts")
		default:
			why = append(why, fmt.Sprintf("tokens: the event at step %d has no token count", event+1))
		}
		m.Reason = strings.Join(why, "; ")
		return m
	}

	t := &TimeToRelevance{}
	for _, v := range Views {
		l := in.lists[v]
		// The list is in order of first event, so the first relevant file in
		// it is the first reached and the last one the last reached.
		var reached []string
		for _, f := range l.files {
			if in.isRel[f] {
				reached = append(reached, f)
			}
		}
		rt := t.View(v)
		verb := "surfaced"
		if v == Read {
			verb = "read"
		}
		if len(reached) == 0 {
			rt.First = Milestone{Reason: "never reached: no relevant file was " + verb}
			rt.All = rt.First
			continue
		}
		rt.First = milestone(reached[0], l.at[reached[0]])
		if missing := len(in.relevant) - len(reached); missing > 0 {
			rt.All = Milestone{Reason: fmt.Sprintf("never reached: %d of %d relevant files were never %s", missing, len(in.relevant), verb)}
		} else {
			last := reached[len(reached)-1]
			rt.All = milestone(last, l.at[last])
		}
	}
	return t
}
