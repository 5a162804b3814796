package events

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/trace"
)

// Options control how a trace session becomes a Document.
type Options struct {
	// Taxonomy classifies tools; nil means DefaultTaxonomy(). The rules
	// of the profile of the agent that wrote the session (SessionProfile)
	// are tried before other built-in profiles' rules.
	Taxonomy *Taxonomy
	// Paths normalizes paths. An empty CWD means the session's working
	// directory.
	Paths PathNormalizer
	// GroundTruth, when set, is recorded in the document and marks the
	// events that touch it. Its paths are normalized like event paths.
	GroundTruth *GroundTruth
	// Provenance is copied into the document; the trace fields (file,
	// format, session, agent, model) are filled from the session when empty.
	Provenance Provenance
	// TraceSource overrides coverage.trace_source ("merged" for a session
	// built from two sources). Empty means: transcript for Claude Code
	// formats, trajectory for the others.
	TraceSource string
}

// Generator names this package in the provenance of documents it writes.
const Generator = "agentretrieval"

// Normalize turns a session into retrieval events: every tool call becomes
// one event, classified by the taxonomy, with the files, line ranges,
// symbols and query the call revealed, and marked when it touches the
// ground truth. A nil session yields a degraded document with no events.
// A session read with trace.Options.DropReleased lacks the calls it
// dropped: only the Stream that took them normalizes it (Stream.Normalize,
// NormalizeAll or Pending), and Normalize panics on it.
func Normalize(s *trace.Session, opts Options) *Document {
	return normalize(s, opts, nil)
}

// sessionRules returns the taxonomy and path normalizer of a session's
// calls: the taxonomy with the profile of the agent that wrote it first,
// and paths relative to its working directory unless opts names one.
func sessionRules(s *trace.Session, opts Options) (*Taxonomy, PathNormalizer) {
	tax := opts.Taxonomy
	if tax == nil {
		tax = DefaultTaxonomy()
	}
	tax = tax.Prefer(SessionProfile(s.Format, s.Agent))
	paths := opts.Paths
	if paths.CWD == "" {
		paths.CWD = s.CWD
	}
	return tax, paths
}

// groundTruthKeys maps the comparison key of each ground-truth file to the
// file as the document spells it.
func groundTruthKeys(files []string, paths PathNormalizer) map[string]string {
	gtKeys := make(map[string]string, len(files))
	for _, f := range files {
		gtKeys[paths.Key(f)] = f
	}
	return gtKeys
}

// normalize is Normalize taking the events of the calls in done from
// there (a Stream made them as the trace was read).
func normalize(s *trace.Session, opts Options, done *streamSession) *Document {
	if s == nil {
		return Degraded("no usable trace", opts)
	}
	if done != nil && done.shared != nil {
		return normalizeShared(s, opts, done.shared)
	}
	b := beginDocument(s, opts)
	doc := b.doc
	doc.Events = make([]Event, s.NumCalls())
	// The events' lists and elapsed seconds are kept in a few arrays for
	// the document rather than a few for each event.
	var arena listArena
	var secs []float64
	for i := range doc.Events {
		ev := &doc.Events[i]
		var called time.Time
		if done != nil && done.store.has(i) {
			called = done.store.getFrom(i, ev, &arena)
			b.warn(done.store.warnings[i])
		} else {
			// Not handed over, or not taken: the session kept the call.
			c := keptCall(s, i)
			var warnings []string
			*ev, warnings = callEvent(c, s.ArgumentsChecked(i), b.tax, b.paths, b.gtKeys)
			b.warn(warnings)
			called = c.Time
		}
		b.timingInto(i, called, ev, &take(&secs, 1)[0])
	}
	b.endWarnings()
	doc.Summary = summarize(doc.Events, b.paths)
	return doc
}

// A docBuilder is the document of a session in the making: all but its
// events and summary, and the rules its events are made by.
type docBuilder struct {
	s      *trace.Session
	doc    *Document
	tax    *Taxonomy
	paths  PathNormalizer
	gtKeys map[string]string
	// argLog collects the warnings about calls' arguments: warnings of
	// the document, kept and counted like a reader's.
	argLog *trace.Session
}

// beginDocument fills in the document of s up to its events: provenance,
// coverage (but for the warnings about arguments, which the events
// bring) and ground truth.
func beginDocument(s *trace.Session, opts Options) *docBuilder {
	tax, paths := sessionRules(s, opts)
	doc := newDocument(opts, paths)
	doc.Provenance.Taxonomy = firstNonEmpty(doc.Provenance.Taxonomy, tax.Name())
	doc.Provenance.TraceFile = firstNonEmpty(doc.Provenance.TraceFile, s.Source)
	doc.Provenance.TraceFormat = firstNonEmpty(doc.Provenance.TraceFormat, s.Format)
	doc.Provenance.SessionID = firstNonEmpty(doc.Provenance.SessionID, s.ID)
	doc.Provenance.Agent = firstNonEmpty(doc.Provenance.Agent, s.Agent)
	doc.Provenance.Model = firstNonEmpty(doc.Provenance.Model, s.Model)
	if doc.Provenance.AvailableTools == nil {
		doc.Provenance.AvailableTools = s.Tools
	}

	source := opts.TraceSource
	if source == "" {
		source = SourceTrajectory
		if strings.HasPrefix(s.Format, "claude") {
			source = SourceTranscript
		}
	}
	doc.Coverage.TraceSource = &source
	doc.Coverage.HasTranscript = source == SourceTranscript || source == SourceMerged
	doc.Coverage.HasTrajectory = source == SourceTrajectory || source == SourceMerged
	for _, w := range s.Warnings {
		doc.Coverage.Warnings = append(doc.Coverage.Warnings, w.String())
	}
	if more := s.WarningsSummary(); more != "" {
		doc.Coverage.Warnings = append(doc.Coverage.Warnings, more)
	}
	if n := s.WarningCount(); n > 0 {
		reason := fmt.Sprintf("the trace reader skipped input (%d warning(s), first: %s); events may be incomplete", n, s.Warnings[0])
		doc.Coverage.DegradedReason = &reason
	}
	if s.NumCalls() == 0 && doc.Coverage.DegradedReason == nil {
		reason := "the trace has no tool calls"
		doc.Coverage.DegradedReason = &reason
	}
	return &docBuilder{
		s: s, doc: doc, tax: tax, paths: paths,
		gtKeys: groundTruthKeys(doc.GroundTruth.Files, paths),
		argLog: &trace.Session{Source: s.Source},
	}
}

// warn records the warnings about one call's arguments.
func (b *docBuilder) warn(warnings []string) {
	for _, w := range warnings {
		b.argLog.Warn(trace.Warning{Source: b.s.Source, Message: w})
	}
}

// timing sets what the event of call i, made at called, takes from the
// whole session: the tokens up to the call and the time since the
// session began.
func (b *docBuilder) timing(i int, called time.Time, ev *Event) {
	b.timingInto(i, called, ev, nil)
}

// timingInto is timing keeping the elapsed seconds in *sec, or in a new
// variable when sec is nil.
func (b *docBuilder) timingInto(i int, called time.Time, ev *Event, sec *float64) {
	ev.CumulativeTokens = b.s.CallTokens(i)
	ev.ElapsedSeconds = nil
	if !called.IsZero() && !b.s.Start.IsZero() {
		if sec == nil {
			sec = new(float64)
		}
		*sec = called.Sub(b.s.Start).Seconds()
		ev.ElapsedSeconds = sec
	}
}

// endWarnings adds the warnings about arguments to the coverage, once
// every event is made.
func (b *docBuilder) endWarnings() {
	doc, argLog := b.doc, b.argLog
	for _, w := range argLog.Warnings {
		doc.Coverage.Warnings = append(doc.Coverage.Warnings, w.String())
	}
	if more := argLog.WarningsSummary(); more != "" {
		doc.Coverage.Warnings = append(doc.Coverage.Warnings, more)
	}
	if n := argLog.WarningCount(); n > 0 && doc.Coverage.DegradedReason == nil {
		reason := fmt.Sprintf("the arguments of some tool calls could not be used (%d warning(s), first: %s); events may be incomplete", n, argLog.Warnings[0])
		doc.Coverage.DegradedReason = &reason
	}
}

// keptCall returns call i of s, which the session must have kept: a
// call dropped as it was read (trace.Options.DropReleased) is known only
// to the Stream that took it, once.
func keptCall(s *trace.Session, i int) *trace.ToolCall {
	c := s.Call(i)
	if c == nil {
		panic(fmt.Sprintf("events: step %d of %s was dropped as it was read (trace.Options.DropReleased): only the Stream whose CallDone took it can make its event, once", i+1, s.Source))
	}
	return c
}

// callEvent makes the event of one call, all but its CumulativeTokens and
// ElapsedSeconds (which need the whole session), and the warnings about
// its arguments, each naming the call.
func callEvent(c *trace.ToolCall, checked bool, tax *Taxonomy, paths PathNormalizer, gtKeys map[string]string) (Event, []string) {
	ev, warnings := extractEvent(c, checked, tax, paths)
	markHits(&ev, paths, gtKeys)
	return ev, warnings
}

// markHits marks the files of ev that are ground-truth files (gtKeys, by
// comparison key).
func markHits(ev *Event, paths PathNormalizer, gtKeys map[string]string) {
	if len(gtKeys) == 0 {
		return
	}
	for _, f := range ev.TargetFiles {
		if gt, ok := gtKeys[paths.Key(f)]; ok {
			ev.HitsGroundTruth = true
			ev.GroundTruthHits = append(ev.GroundTruthHits, gt)
		}
	}
}

// extractEvent is the event of call c, its ground-truth hits left out.
// checked is the session's ArgumentsChecked of c.
func extractEvent(c *trace.ToolCall, checked bool, tax *Taxonomy, paths PathNormalizer) (Event, []string) {
	rule, known := tax.classifyCall(c, checked)
	col := extract(c, rule, paths, checked)
	// The event's lists are its own (the symbols are the collector's,
	// which does not reuse them): the collector can serve the next call.
	defer col.recycle()
	ex := col.finish()
	var warnings []string
	for _, w := range ex.Warnings {
		warnings = append(warnings, fmt.Sprintf("step %d (%s): %s", c.Index+1, c.Name, w))
	}
	ev := Event{
		StepIndex:    c.Index,
		ToolName:     c.Name,
		ToolCategory: rule.Category,
		ToolClass:    rule.Class,
		IsMCP:        rule.IsMCP(c.Name),
		TargetFiles:  []string{},
		CallID:       c.ID,
		Unclassified: !known,
		IsError:      c.IsError || ex.Failed,
		IsSubagent:   c.Subagent,
		ParentCallID: c.ParentID,
		LineRanges:   ex.Ranges,
		Symbols:      ex.Symbols,
		Query:        ex.Query,
	}
	if ex.Category != "" {
		ev.ToolCategory = ex.Category
	}
	if ex.Class != "" {
		ev.ToolClass = ex.Class
	}
	// The three lists share one array; FilesRead and FilesWritten stay
	// nil when no file was read or written.
	n, read, written := len(ex.Files), 0, 0
	for _, f := range ex.Files {
		read += b2i(f.Read)
		written += b2i(f.Written)
	}
	if n > 0 {
		lists := make([]string, 0, n+read+written)
		ev.TargetFiles = lists[:0:n]
		if read > 0 {
			ev.FilesRead = lists[n : n : n+read]
		}
		if written > 0 {
			ev.FilesWritten = lists[n+read : n+read : n+read+written]
		}
	}
	for _, f := range ex.Files {
		ev.TargetFiles = append(ev.TargetFiles, f.Path)
		if f.Read {
			ev.FilesRead = append(ev.FilesRead, f.Path)
		}
		if f.Written {
			ev.FilesWritten = append(ev.FilesWritten, f.Path)
		}
	}
	return ev, warnings
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Degraded returns a document for a run with no usable trace: no events,
// trace_source null and the reason recorded.
func Degraded(reason string, opts Options) *Document {
	paths := opts.Paths
	doc := newDocument(opts, paths)
	doc.Coverage.DegradedReason = &reason
	doc.Events = []Event{}
	doc.Summary = summarize(nil, paths)
	return doc
}

func newDocument(opts Options, paths PathNormalizer) *Document {
	doc := &Document{SchemaVersion: SchemaVersion, Provenance: opts.Provenance}
	doc.Provenance.Generator = firstNonEmpty(doc.Provenance.Generator, Generator)
	doc.GroundTruth = normalizeGroundTruth(opts.GroundTruth, paths)
	doc.Coverage.HasGroundTruth = len(doc.GroundTruth.Files) > 0
	doc.Coverage.HasChunkGroundTruth = len(doc.GroundTruth.Chunks) > 0
	if len(doc.GroundTruth.ExpectedEditFiles) > 0 {
		doc.SchemaVersion = SchemaVersion11
	}
	return doc
}

// normalizeGroundTruth normalizes and de-duplicates ground-truth paths the
// way event paths are, so that the two compare.
func normalizeGroundTruth(gt *GroundTruth, paths PathNormalizer) GroundTruth {
	out := GroundTruth{Files: []string{}}
	if gt == nil {
		return out
	}
	norm := func(p string) (string, bool) { return paths.File(p, FromArgument) }
	seen := map[string]bool{}
	for _, f := range gt.Files {
		if p, ok := norm(f); ok && !seen[paths.Key(p)] {
			seen[paths.Key(p)] = true
			out.Files = append(out.Files, p)
		}
	}
	for _, s := range gt.Symbols {
		if p, ok := norm(s.File); ok || s.File == "" {
			out.Symbols = append(out.Symbols, Symbol{File: p, Symbol: s.Symbol})
		}
	}
	for _, c := range gt.Chunks {
		if p, ok := norm(c.Path); ok {
			out.Chunks = append(out.Chunks, LineRange{Path: p, Start: c.Start, End: c.End})
		}
	}
	seenEdit := map[string]bool{}
	for _, f := range gt.ExpectedEditFiles {
		if p, ok := norm(f); ok && !seenEdit[paths.Key(p)] {
			seenEdit[paths.Key(p)] = true
			out.ExpectedEditFiles = append(out.ExpectedEditFiles, p)
		}
	}
	return out
}

func summarize(evs []Event, paths PathNormalizer) Summary {
	sum := newSummary(paths)
	for i := range evs {
		sum.add(&evs[i])
	}
	return sum.result()
}

// summary counts events one at a time into a Summary.
type summary struct {
	sum          Summary
	paths        PathNormalizer
	files, gtHit map[string]bool
}

func newSummary(paths PathNormalizer) *summary {
	s := &summary{
		sum: Summary{
			EventsByCategory: make(map[Category]int, len(Categories)),
			EventsByClass:    make(map[Class]int, len(Classes)),
		},
		paths: paths,
		files: map[string]bool{},
		gtHit: map[string]bool{},
	}
	for _, c := range Categories {
		s.sum.EventsByCategory[c] = 0
	}
	for _, c := range Classes {
		s.sum.EventsByClass[c] = 0
	}
	return s
}

// add counts the next event, in step order.
func (s *summary) add(ev *Event) {
	sum := &s.sum
	sum.TotalEvents++
	if ev.IsMCP {
		sum.MCPEvents++
	} else {
		sum.LocalEvents++
	}
	sum.EventsByCategory[ev.ToolCategory]++
	sum.EventsByClass[ev.ToolClass]++
	if ev.IsSubagent {
		sum.SubagentEvents++
	}
	if ev.IsError {
		sum.ErrorEvents++
	}
	if ev.Unclassified {
		if sum.UnclassifiedTools == nil {
			sum.UnclassifiedTools = map[string]int{}
		}
		sum.UnclassifiedTools[ev.ToolName]++
	}
	for _, f := range ev.TargetFiles {
		s.files[s.paths.Key(f)] = true
	}
	countHits(sum, s.gtHit, ev, s.paths)
}

// countHits counts the ground-truth hits of the next event, in step
// order: its files in gtHit, by key, and its step when it is the first
// to hit.
func countHits(sum *Summary, gtHit map[string]bool, ev *Event, paths PathNormalizer) {
	for _, g := range ev.GroundTruthHits {
		gtHit[paths.Key(g)] = true
	}
	if ev.HitsGroundTruth && sum.FirstGroundTruthHitStep == nil {
		step := ev.StepIndex
		sum.FirstGroundTruthHitStep = &step
	}
}

func (s *summary) result() Summary {
	s.sum.UniqueFilesAccessed = len(s.files)
	s.sum.GroundTruthFilesHit = len(s.gtHit)
	return s.sum
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
