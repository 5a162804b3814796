package metrics

import (
	"path"
	"slices"

	"github.com/agentretrieval/agentretrieval/events"
)

// A Prepared holds what Compute finds in one document's events that no
// ground truth changes, for documents that differ from it only in their
// ground truth: those events.CallDoneAll's Streams make of one session for
// the scenarios that name its trace, each with a ground truth of its own.
// Compute then finds it once for all of them instead of once a document:
// the ranked lists, the first reads and writes, the files read before
// they were written, and of the index analysis the counts and ratios,
// redundancy, the unused tools, fishing and what the ground truth is then
// applied to (steps to target, backtracking, guessing, direct edits).
//
// The Results of one Prepared share the lists and values they have in
// common, as documents made together share their events' lists: read
// them, do not change them. A Prepared is not changed by Compute, and
// may be used by several goroutines at once.
type Prepared struct {
	doc   *events.Document // the document prepared; nil for none
	opts  Options          // its options, normalized
	facts *eventFacts
	index *indexFacts // nil when the document has no trace
}

// Prepare finds what Compute measures of doc's events that no ground
// truth changes, under opts (of which it reads FoldCase, IncludeWrites and
// Index but for Index.Symbols).
func Prepare(doc *events.Document, opts Options) *Prepared {
	if doc == nil {
		return &Prepared{}
	}
	opts = opts.normalized()
	evs := docEvents(doc)
	p := &Prepared{doc: doc, opts: opts, facts: newEventFacts(doc, evs, opts)}
	// Found now, as each document would find them, and no later: a
	// Prepared is read by goroutines at once.
	surfaced := p.facts.lists[Surfaced].files
	p.facts.dirs = make([]string, len(surfaced))
	for i, f := range surfaced {
		p.facts.dirs[i] = path.Dir(f)
	}
	if doc.Coverage.TraceSource != nil {
		p.index = newIndexFacts(doc, evs, opts.Index)
		p.index.targets = targetPaths(evs)
	}
	return p
}

// Compute returns Compute(doc, opts). When doc's events are those of the
// prepared document but for their ground-truth hits (HitsGroundTruth,
// GroundTruthHits), its provenance names the same tools, agent and trace
// format, and opts differ from Prepare's at most in Ks, Level, Grades,
// LineBudgets and Index.Symbols, it measures only what depends on the
// ground truth; otherwise it measures doc alone.
func (p *Prepared) Compute(doc *events.Document, opts Options) *Result {
	if doc == nil || p == nil || !p.fits(doc, opts) {
		return Compute(doc, opts)
	}
	return computeWith(doc, docEvents(doc), p.facts, p.index, opts)
}

// fits reports whether what p found holds for doc under opts.
func (p *Prepared) fits(doc *events.Document, opts Options) bool {
	d, o := p.doc, p.opts
	if d == nil || opts.FoldCase != o.FoldCase || opts.IncludeWrites != o.IncludeWrites || !sameIndexRules(opts.Index, o.Index) ||
		(doc.Coverage.TraceSource == nil) != (d.Coverage.TraceSource == nil) ||
		doc.Provenance.TraceFormat != d.Provenance.TraceFormat || doc.Provenance.Agent != d.Provenance.Agent ||
		!slices.Equal(doc.Provenance.AvailableTools, d.Provenance.AvailableTools) || len(doc.Events) != len(d.Events) {
		return false
	}
	for i := range doc.Events {
		if !sameButHits(&doc.Events[i], &d.Events[i]) {
			return false
		}
	}
	return true
}

// sameIndexRules reports whether a and b analyze events alike: they differ
// at most in the symbols, which only guessing reads, with the ground
// truth's.
func sameIndexRules(a, b IndexOptions) bool {
	return a.FishingMinRun == b.FishingMinRun && slices.Equal(a.FishingBreak, b.FishingBreak) && slices.Equal(a.FishingExtend, b.FishingExtend) &&
		slices.Equal(a.TextSearchTools, b.TextSearchTools) && a.Grades == b.Grades
}

// sameButHits reports whether a and b are the same event but for their
// ground-truth hits. Events made together share their lists, so that the
// lists' strings compare by their pointers.
func sameButHits(a, b *events.Event) bool {
	return a.StepIndex == b.StepIndex && a.ToolName == b.ToolName && a.ToolCategory == b.ToolCategory && a.IsMCP == b.IsMCP &&
		slices.Equal(a.TargetFiles, b.TargetFiles) && samePointee(a.CumulativeTokens, b.CumulativeTokens) &&
		samePointee(a.ElapsedSeconds, b.ElapsedSeconds) && a.ToolClass == b.ToolClass && a.CallID == b.CallID &&
		a.Unclassified == b.Unclassified && a.IsError == b.IsError && a.IsSubagent == b.IsSubagent && a.ParentCallID == b.ParentCallID &&
		slices.Equal(a.FilesRead, b.FilesRead) && slices.Equal(a.FilesWritten, b.FilesWritten) && slices.Equal(a.LineRanges, b.LineRanges) &&
		slices.Equal(a.Symbols, b.Symbols) && a.Query == b.Query
}

// samePointee reports whether a and b are both nil or point to equal
// values.
func samePointee[T comparable](a, b *T) bool {
	return a == b || a != nil && b != nil && *a == *b
}
