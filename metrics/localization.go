package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
)

// The localization and context measures judge an agent the way
// localization benchmarks judge a ranked prediction (LocAgent, SWE-bench
// style: did the top k hold everything to change?) and by what its reading
// cost: how fast coverage grew, per call and per token, how much of what it
// read was relevant, and how much relevant evidence it read and then left
// out of its edit.

// DefaultLineBudgets are the budgets N of line_recall@N when
// Options.LineBudgets is empty.
var DefaultLineBudgets = []int{100, 200, 500, 1000}

// AccuracyAt returns localization accuracy at k (Acc@k, as LocAgent and
// SWE-bench localization report it): 1 when every document relevant at
// level is among the first k of ranked, else 0. Unlike SuccessAt, which
// asks for one relevant document, it asks for all of them. With no
// relevant document it returns 0, as the measures that divide by R do; a
// caller should treat such a query as non-computable.
func AccuracyAt(ranked []string, rel Judgments, k, level int) float64 {
	return accuracyAt(relevance(ranked, rel, level), k, NumRelevant(rel, level))
}

func accuracyAt(flags []bool, k, numRel int) float64 {
	if k < 1 || numRel == 0 || relevantInTop(flags, k) < numRel {
		return 0
	}
	return 1
}

// CoverageOverTime is file coverage as the run went on: after each call,
// the share of the relevant files (at Options.Level) that the call and the
// ones before it had put in each view's ranked list.
//
// coverage_auc is the mean of that share over all the calls of the
// session: every tool call, subagent calls included, whatever its class,
// so edits, test runs and other calls after the last find count as much as
// searches and reads. An agent that finds everything at its first call
// scores 1, one that finds it at its last call of N scores 1/N, and one
// that never does 0. It is the area under the coverage curve with the call
// axis scaled to [0, 1]. Because every call counts, work after the last
// find raises it: an agent that finds everything at its second call scores
// 3/4 over 4 calls, and 13/14 if it then makes ten more edits.
//
// coverage_auc_retrieval is the same mean over the retrieval calls only,
// the calls of class semantic or file_level (searches, navigation, reads,
// listings; see events.Class), not edits or other calls: it averages over
// retrieval steps, as ContextBench-style process measures do. The coverage
// at a retrieval call is still that of every call up to it. In the example
// above, with two retrieval calls, it is 1/2 however many edits follow.
// It is null when the session has no retrieval call.
//
// coverage_auc_tokens weighs each call by the tokens spent on it instead
// of by 1: the sum over calls of (coverage after the call) × (the call's
// cumulative tokens − the previous call's), divided by the last call's
// cumulative tokens; the first call's tokens count from 0, so the prompt is
// part of the cost. Calls issued in one turn share its tokens: the turn's
// tokens are weighed with the coverage after its last call. When every
// call costs the same, the two areas are equal. It is null when a call has
// no token count, or no token was counted.
type CoverageOverTime struct {
	// Curve holds one point per call, in order.
	Curve []CoveragePoint `json:"curve"`
	// AUC and ReadAUC are coverage_auc of the surfaced and read views, the
	// mean over all calls; null when the trace has no call.
	AUC     *float64 `json:"coverage_auc"`
	ReadAUC *float64 `json:"read.coverage_auc"`
	// RetrievalAUC and ReadRetrievalAUC are coverage_auc_retrieval of both
	// views, the mean over the retrieval calls; null when there is none.
	RetrievalAUC     *float64 `json:"coverage_auc_retrieval"`
	ReadRetrievalAUC *float64 `json:"read.coverage_auc_retrieval"`
	// TokensAUC and ReadTokensAUC are coverage_auc_tokens of both views.
	TokensAUC     *float64 `json:"coverage_auc_tokens"`
	ReadTokensAUC *float64 `json:"read.coverage_auc_tokens"`
	// Reason says why areas are null: the token areas, and the retrieval
	// areas when the session has no retrieval call.
	Reason string `json:"reason,omitempty"`
}

// A CoveragePoint is the coverage of both views after one call.
type CoveragePoint struct {
	// Step is the call's 1-based position among the document's events.
	Step int `json:"step"`
	// Tokens is the call's CumulativeTokens; null without usage.
	Tokens   *int64  `json:"tokens"`
	Surfaced float64 `json:"surfaced"`
	Read     float64 `json:"read"`
}

func computeCoverage(doc *events.Document, in *input) *CoverageOverTime {
	n := in.evs.len()
	c := &CoverageOverTime{Curve: make([]CoveragePoint, 0, n)}
	// found[v][i] counts the relevant files that view v (Views[v]) ranked
	// at event i.
	var found [2][]int
	for v, view := range Views {
		found[v] = make([]int, n)
		for _, f := range in.relevant {
			if at, ok := in.lists[view].at[f]; ok {
				found[v][at]++
			}
		}
	}
	r := float64(len(in.relevant))
	var seen [2]int
	var sum, readSum, retrievalSum, readRetrievalSum float64
	retrieval := 0
	for i, ev := range in.evs.each() {
		for v := range Views {
			seen[v] += found[v][i]
		}
		p := CoveragePoint{Step: i + 1, Tokens: ev.CumulativeTokens,
			Surfaced: float64(seen[0]) / r, Read: float64(seen[1]) / r}
		c.Curve = append(c.Curve, p)
		sum += p.Surfaced
		readSum += p.Read
		if isRetrieval(ev.ToolClass) {
			retrieval++
			retrievalSum += p.Surfaced
			readRetrievalSum += p.Read
		}
	}
	if n == 0 {
		c.Reason = "the trace has no tool calls: coverage over time is undefined"
		return c
	}
	c.AUC, c.ReadAUC = ptr(sum/float64(n)), ptr(readSum/float64(n))
	var why []string
	if retrieval > 0 {
		c.RetrievalAUC = ptr(retrievalSum / float64(retrieval))
		c.ReadRetrievalAUC = ptr(readRetrievalSum / float64(retrieval))
	} else {
		why = append(why, "no call is a retrieval call (semantic or file_level): coverage_auc_retrieval is undefined")
	}
	var reason string
	if c.TokensAUC, c.ReadTokensAUC, reason = coverageTokens(c.Curve); reason != "" {
		why = append(why, reason)
	}
	c.Reason = strings.Join(why, "; ")
	return c
}

// isRetrieval reports whether a call of class k retrieves: searches the
// index or the files, navigates, reads or lists (semantic and file_level),
// as opposed to an edit or any other call.
func isRetrieval(k events.Class) bool {
	return k == events.Semantic || k == events.FileLevel
}

// coverageTokens returns coverage_auc_tokens of both views of curve, or
// nil and the reason.
func coverageTokens(curve []CoveragePoint) (auc, readAUC *float64, reason string) {
	n := len(curve)
	for _, p := range curve {
		if p.Tokens == nil {
			return nil, nil, fmt.Sprintf("call %d has no token count: coverage_auc_tokens is undefined", p.Step)
		}
	}
	var prev, last int64 // tokens before the current turn, and the most seen
	var area, readArea float64
	for i, p := range curve {
		t := max(*p.Tokens, last) // a count that goes back adds no width
		if i+1 < n && max(*curve[i+1].Tokens, t) == t {
			continue // the next call is of the same turn: weigh the turn after it
		}
		area += p.Surfaced * float64(t-prev)
		readArea += p.Read * float64(t-prev)
		prev, last = t, t
	}
	if last <= 0 {
		return nil, nil, "no token was counted: coverage_auc_tokens is undefined"
	}
	return ptr(area / float64(last)), ptr(readArea / float64(last)), ""
}

// lineBudget adds line_context_efficiency and line_recall@N to ll: the
// figures that count lines in the order they were read, re-reads
// included, because every line read took room in the agent's context.
//
// With G the ground-truth lines and the reads the events' LineRanges in
// order (each range once per event that showed it):
//
//	line_context_efficiency  Σ |range ∩ G| / Σ |range|   over every range read
//	line_recall@N            |G ∩ (distinct lines among the first N lines read)| / |G|
//
// line_context_efficiency differs from line_precision, which counts each
// line once: reading the same relevant function five times is five times
// the context for the same evidence, and an agent that re-reads scores
// lower. line_recall@N compares explorers at a fixed reading budget: a
// range that crosses the budget counts up to it.
func lineBudget(ll *LineLevel, doc *events.Document, in *input, gt map[string]spanSet, budgets []int) {
	type read struct {
		path string
		s    span
	}
	var reads []read
	total, inGT := 0, 0
	for i, ev := range in.evs.each() {
		for _, r := range ev.LineRanges {
			k := in.key(r.Path)
			if !in.includeWrites && in.writeOnly[i][k] {
				continue
			}
			s := span{max(r.Start, 1), r.End}
			if s.end < s.start {
				continue
			}
			reads = append(reads, read{k, s})
			total += s.end - s.start + 1
			inGT += gt[k].intersect(spanSet{s})
		}
	}
	ll.LinesReadWithRereads = total
	if total > 0 {
		ll.ContextEfficiency = ptr(float64(inGT) / float64(total))
	}
	ll.RecallAt = map[string]float64{}
	for _, n := range budgets {
		left := n
		got := map[string][]span{}
		for _, r := range reads {
			if left == 0 {
				break
			}
			s := r.s
			if size := s.end - s.start + 1; size > left {
				s.end = s.start + left - 1
			}
			left -= s.end - s.start + 1
			got[r.path] = append(got[r.path], s)
		}
		hit := 0
		for path, ss := range got {
			hit += gt[path].intersect(unionSpans(ss))
		}
		ll.RecallAt[fmt.Sprintf("line_recall@%d", n)] = float64(hit) / float64(ll.GroundTruthLines)
	}
}

// symbolLookups ranks what the agent looked up by symbol: each distinct
// entry of the events' Symbols and each distinct non-empty Query, in the
// order of the first event that named it (the Symbols of an event before
// its Query). It returns, for each ground-truth symbol, the 1-based rank
// of the first lookup that finds it by the rule of SymbolLevel, or 0.
func symbolLookups(doc *events.Document, evs eventList) (lookups int, rankOf []int) {
	var order []string
	seen := map[string]bool{}
	for _, ev := range evs.each() {
		texts := slices.Clone(ev.Symbols)
		if ev.Query != "" {
			texts = append(texts, ev.Query)
		}
		for _, t := range texts {
			if !seen[t] {
				seen[t] = true
				order = append(order, t)
			}
		}
	}
	rankOf = make([]int, len(doc.GroundTruth.Symbols))
	for rank, text := range order {
		for _, c := range identifierTokens(text) {
			for j, s := range doc.GroundTruth.Symbols {
				if rankOf[j] == 0 && (c == s.Symbol || c == lastComponent(s.Symbol) || lastComponent(c) == s.Symbol) {
					rankOf[j] = rank + 1
				}
			}
		}
	}
	return len(order), rankOf
}

// symbolAccuracy fills the symbol-level Acc@k of sl at each k of ks: 1
// when every ground-truth symbol is found by one of the first k lookups
// (see symbolLookups), else 0.
func symbolAccuracy(sl *SymbolLevel, doc *events.Document, evs eventList, ks []int) {
	lookups, rankOf := symbolLookups(doc, evs)
	sl.Lookups = lookups
	all := 0
	for _, r := range rankOf {
		if r == 0 {
			all = 0
			break
		}
		all = max(all, r)
	}
	if all > 0 {
		sl.AllFoundAtLookup = ptr(all)
	}
	sl.AccAt = map[string]float64{}
	for _, k := range ks {
		v := 0.0
		if all > 0 && all <= k {
			v = 1
		}
		sl.AccAt[fmt.Sprintf("symbol_acc@%d", k)] = v
	}
}
