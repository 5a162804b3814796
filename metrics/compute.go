package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/events"
)

// ResultSchemaVersion is the version of the per-task retrieval-metrics
// document (the retrieval-eval framework's {task}.retrieval_metrics.json)
// that Result serializes to. Minor versions add optional fields.
const ResultSchemaVersion = "1.0"

// DefaultKs are the cutoffs of P@k, Recall@k and the other cutoff measures
// when Options.Ks is empty: the retrieval-eval framework's K = 1, 3, 5, 10.
var DefaultKs = []int{1, 3, 5, 10}

// Options control Compute. The zero value asks for the defaults.
type Options struct {
	// Ks are the cutoffs k of the @k measures. Values below 1 are dropped,
	// the rest sorted and de-duplicated; empty means DefaultKs.
	Ks []int `json:"ks"`
	// Level is the lowest grade that counts as relevant (trec_eval's -l).
	// It changes every measure that asks "is this file relevant" (P, recall,
	// F1, success, RR, AP, R-precision, file recall, context efficiency,
	// time to relevance, utilization, taxonomy) and never nDCG, which uses
	// the grades themselves. 0 or less means DefaultLevel (1): grade 0
	// means "judged not relevant" in a ground truth, so a level of 0 would
	// make such files relevant, which is never what a caller of Compute
	// means. (The trec command still takes -l 0, as trec_eval does.)
	Level int `json:"level"`
	// IncludeWrites puts files that the agent only wrote into both ranked
	// lists, at the event that wrote them. By default a write is not
	// retrieval: an agent that creates a file has not found it.
	IncludeWrites bool `json:"include_writes"`
	// Grades gives relevance grades, file to grade, with paths spelled as
	// in the document. A ground-truth file absent from Grades has grade 1.
	// A file in Grades that is not among the document's ground-truth files
	// is judged too (grade 0: judged not relevant).
	Grades map[string]int `json:"grades,omitempty"`
	// FoldCase compares paths case-insensitively. Set it when the document
	// was normalized with events.PathNormalizer.FoldCase, which keeps the
	// spelling of each path but matches them without case. Ranked lists
	// and file lists of the result then hold lowercase paths.
	FoldCase bool `json:"fold_case,omitempty"`
	// LineBudgets are the budgets N, in lines read, of line_recall@N.
	// Values below 1 are dropped, the rest sorted and de-duplicated; empty
	// means DefaultLineBudgets.
	LineBudgets []int `json:"line_budgets"`
	// Index configures the index-effectiveness analysis.
	Index IndexOptions `json:"index"`
}

// positiveSet returns the numbers of list that are 1 or more, sorted and
// without repeats, or those of def when there are none.
func positiveSet(list, def []int) []int {
	var out []int
	for _, n := range list {
		if n >= 1 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = slices.Clone(def)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// normalized returns the options with defaults filled in.
func (o Options) normalized() Options {
	o.Ks = positiveSet(o.Ks, DefaultKs)
	o.LineBudgets = positiveSet(o.LineBudgets, DefaultLineBudgets)
	if o.Level < 1 {
		o.Level = DefaultLevel
	}
	return o
}

// View names one of the two ranked lists built from the same events.
type View string

const (
	// Surfaced ranks every file an event named, in arguments or results (a
	// listing, a search hit, a read), by the first event that named it.
	// Metric names without a prefix use it.
	Surfaced View = "surfaced"
	// Read ranks the files whose content the agent saw (Event.FilesRead)
	// by the first event that showed it. Metric names with the prefix
	// "read." use it.
	Read View = "read"
)

// Views lists both views, surfaced first.
var Views = []View{Surfaced, Read}

// Prefix returns the metric-name prefix of the view: "" or "read.".
func (v View) Prefix() string {
	if v == Read {
		return "read."
	}
	return ""
}

// Result is the retrieval metrics of one document (one task run), as
// Compute returns them and as the per-task {task}.retrieval_metrics.json
// artifact holds them. Every section is plain data; figures that could not
// be computed are null in JSON (nil pointers here) with a reason, never 0.
// Maps are written with sorted keys, so the JSON is deterministic.
//
// Metric looks up any figure by name; Values returns them all.
type Result struct {
	SchemaVersion string            `json:"schema_version"`
	Provenance    events.Provenance `json:"provenance"`
	Coverage      events.Coverage   `json:"coverage"`
	// Computable is false when the document has no ground-truth file (or
	// none at Options.Level) or no usable trace. Then FileLevel, Time and
	// Taxonomy are nil and every figure that needs ground truth is null:
	// a task without ground truth is not scored 0 or 1.
	Computable bool `json:"computable"`
	// NonComputableReason says why Computable is false; nil otherwise.
	NonComputableReason *string `json:"non_computable_reason"`
	// Options are the options used, defaults filled in (grades are in
	// Judgments).
	Options Options `json:"options"`
	// Judgments are the judged files and their grades.
	Judgments Judgments `json:"judgments"`
	// Relevant are the files judged relevant at Options.Level, in
	// ground-truth order; R = len(Relevant).
	Relevant []string `json:"relevant_files"`
	// Ranked holds the two ranked lists. They are facts about the trace
	// and are filled even when the result is not computable.
	Ranked RankedLists `json:"ranked_lists"`
	// FileLevel maps the names of the file-level measures ("precision@5",
	// "read.recall@5", "map", …; see Definitions) to their values; nil when
	// not computable.
	FileLevel map[string]float64 `json:"file_level"`
	// Lines holds line-range and chunk figures (never nil).
	Lines *LineLevel `json:"line_level"`
	// Symbols holds symbol recall (never nil).
	Symbols *SymbolLevel `json:"symbol_level"`
	// Time holds steps, seconds and tokens to the first and to all
	// relevant files, per view; nil when not computable.
	Time *TimeToRelevance `json:"time_to_relevance"`
	// Coverage holds file coverage after each call and the areas under
	// that curve, per call and per token; nil when not computable.
	CoverageOverTime *CoverageOverTime `json:"coverage_over_time"`
	// Utilization holds the utilization probes (never nil; see
	// Utilization.ProbeAvailable).
	Utilization *Utilization `json:"utilization"`
	// Taxonomy holds the five error-taxonomy labels; nil when not
	// computable.
	Taxonomy *ErrorTaxonomy `json:"error_taxonomy"`
	// Slices are the calibration slices the task falls in (always filled:
	// they need no ground truth).
	Slices Slices `json:"calibration_slices"`
	// IndexEffectiveness is how the agent used the semantic index (see
	// AnalyzeIndex). It needs no ground truth, so it is present whenever the
	// document has a trace, computable or not; nil for a degraded document.
	IndexEffectiveness *IndexEffectiveness `json:"index_effectiveness"`
}

// RankedLists holds the ranked files of both views, rank 1 first.
type RankedLists struct {
	Surfaced []string `json:"surfaced"`
	Read     []string `json:"read"`
}

// List returns the ranked list of view v.
func (l RankedLists) List(v View) []string {
	if v == Read {
		return l.Read
	}
	return l.Surfaced
}

// WriteJSON writes the result as indented JSON followed by a newline.
func (r *Result) WriteJSON(w io.Writer) error {
	e := resultEncoders.Get().(*resultEncoder)
	defer e.put()
	if err := e.enc.Encode(r); err != nil {
		return err
	}
	// One write, as a json.Encoder on w makes.
	_, err := w.Write(e.buf.Bytes())
	return err
}

// A resultEncoder is a json.Encoder writing into its own buffer, kept for
// the next result: an encoder keeps its indentation buffer between calls,
// and run-dir writes one result per trial.
type resultEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var resultEncoders = sync.Pool{New: func() any {
	e := &resultEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetIndent("", "  ")
	e.enc.SetEscapeHTML(false)
	return e
}}

// put empties e and keeps it for the next result, unless a huge result
// made it too large to keep.
func (e *resultEncoder) put() {
	if e.buf.Cap() > 1<<20 {
		return
	}
	e.buf.Reset()
	resultEncoders.Put(e)
}

// Compute measures the retrieval of one document: the ranked file measures
// of both views, line-range and chunk coverage, symbol recall, time to
// relevance, the utilization probes, the error taxonomy and the calibration
// slices. It is pure: it reads doc and opts and returns a new Result.
//
// # Ranked lists
//
// Both lists are built from the events in order; subagent events count,
// because what a subagent found is part of the run's retrieval.
//
//   - surfaced: each event's TargetFiles, then its FilesRead, each file at
//     the first event that names it, no duplicates.
//   - read: each event's FilesRead, each file at the first event that shows
//     its content.
//
// A file an event wrote without reading it (in FilesWritten, not in
// FilesRead) is left out of that event's contribution, so a file the agent
// only created or edited is in neither list; a file it also found by
// another event enters at that event. With Options.IncludeWrites, written
// files enter both lists at the event that wrote them.
//
// # File-level measures
//
// Each is computed on both lists, at every k of Options.Ks, with the
// judgments of the ground truth (grade from Options.Grades, default 1) and
// the relevance level Options.Level, by the trec_eval-exact functions of
// this package; Definitions states each one. R is the number of files
// relevant at the level.
//
// # Non-computable documents
//
// With no ground-truth file (coverage.has_ground_truth false or
// ground_truth.files empty), no file relevant at Options.Level, or no usable
// trace (coverage.trace_source null), the result has Computable false and a
// reason, and no figure that depends on the ground truth: such a task is
// never scored 0 or 1. The ranked lists and the calibration slices are
// still filled. A trace that was read but has no tool calls is computable:
// the agent retrieved nothing, and scores 0.
func Compute(doc *events.Document, opts Options) *Result {
	if doc == nil {
		return compute(nil, eventList{}, opts)
	}
	return compute(doc, docEvents(doc), opts)
}

// ComputeEvents is Compute for a document whose events are read from src
// instead of doc.Events (which it does not read), one at a time, as
// events.Pending.Events gives them: the result is Compute's for the
// document with those events, without the document ever holding them all
// as Events. Each pass over the events decodes them again.
func ComputeEvents(doc *events.Document, src events.EventSource, opts Options) *Result {
	if doc == nil {
		return compute(nil, eventList{}, opts)
	}
	return compute(doc, eventList{src: src}, opts)
}

func compute(doc *events.Document, evs eventList, opts Options) *Result {
	return computeWith(doc, evs, nil, nil, opts)
}

// computeWith is compute with what Prepare found of the events
// beforehand: facts, and index for the index analysis. Either is found
// here when nil (index only when the document has a trace).
func computeWith(doc *events.Document, evs eventList, facts *eventFacts, index *indexFacts, opts Options) *Result {
	opts = opts.normalized()
	res := &Result{
		SchemaVersion: ResultSchemaVersion,
		Computable:    true,
		Options:       opts,
		Judgments:     Judgments{},
		Relevant:      []string{},
	}
	if doc == nil {
		doc = &events.Document{}
		res.Computable = false
		res.NonComputableReason = ptr("no retrieval-events document")
	}
	res.Provenance = doc.Provenance
	res.Coverage = doc.Coverage
	res.Options.Grades = nil

	if facts == nil {
		facts = newEventFacts(doc, evs, opts)
	}
	in := newInput(doc, evs, facts, opts)
	res.Judgments = in.rel
	res.Relevant = in.relevant
	res.Ranked = RankedLists{Surfaced: in.lists[Surfaced].files, Read: in.lists[Read].files}
	res.Slices = computeSlices(in)
	if doc.Coverage.TraceSource != nil {
		if index == nil {
			index = newIndexFacts(doc, evs, opts.Index)
		}
		res.IndexEffectiveness = index.analyze(doc, evs, opts.Index)
	}

	if res.Computable {
		if reason := nonComputable(doc, in, opts.Level); reason != "" {
			res.Computable = false
			res.NonComputableReason = &reason
		}
	}
	if !res.Computable {
		reason := "non-computable: " + *res.NonComputableReason
		res.Lines = &LineLevel{Resolution: FileLevelOnly, Validity: ValidityUnsupported, Reason: reason}
		res.Symbols = &SymbolLevel{Found: []events.Symbol{}, Missed: []events.Symbol{}, Reason: reason}
		res.Utilization = &Utilization{FilesWritten: in.written, ReadBeforeWrite: []string{}, EvidenceDropped: []string{}, Reason: reason}
		return res
	}

	// Seven measures at each cutoff and nine others, for each view.
	res.FileLevel = make(map[string]float64, len(Views)*(7*len(opts.Ks)+9))
	for _, v := range Views {
		fileMeasures(res.FileLevel, v.Prefix(), in.lists[v].files, in.rel, opts)
	}
	res.Lines = computeLines(doc, in)
	res.Symbols = computeSymbols(doc, evs, opts.Ks)
	res.Time = computeTime(doc, in)
	res.CoverageOverTime = computeCoverage(doc, in)
	res.Utilization = computeUtilization(doc, in)
	res.Taxonomy = computeTaxonomy(in)
	return res
}

// nonComputable returns why IR measures cannot be computed, or "".
func nonComputable(doc *events.Document, in *input, level int) string {
	switch {
	case doc.Coverage.TraceSource == nil:
		reason := "no usable trace"
		if doc.Coverage.DegradedReason != nil && *doc.Coverage.DegradedReason != "" {
			reason += ": " + *doc.Coverage.DegradedReason
		}
		return reason
	case !doc.Coverage.HasGroundTruth || len(doc.GroundTruth.Files) == 0:
		return "the task has no ground-truth files"
	case len(in.relevant) == 0:
		return fmt.Sprintf("no ground-truth file has a grade of at least %d (the relevance level)", level)
	}
	return ""
}

// fileMeasures adds the file-level measures of one ranked list to m, each
// name prefixed with prefix.
func fileMeasures(m map[string]float64, prefix string, ranked []string, rel Judgments, opts Options) {
	level := opts.Level
	// R and the ideal gains depend on the judgments only: counted once
	// here, the measures stay linear in the size of the ground truth.
	numRel, ideal := NumRelevant(rel, level), idealGains(rel)
	// The ranking is judged once: every measure reads its flags. It holds
	// each file once (a rankedList adds a file once).
	docs := ranked
	flags := judge(docs, rel, level)
	for _, k := range opts.Ks {
		at := "@" + strconv.Itoa(k)
		p := precisionAt(flags, k)
		r := recallAt(flags, k, numRel)
		m[prefix+"precision"+at] = p
		m[prefix+"recall"+at] = r
		m[prefix+"f1"+at] = F1(p, r)
		m[prefix+"success"+at] = successAt(flags, k)
		m[prefix+"rr"+at] = reciprocalRankAt(flags, k)
		m[prefix+"acc"+at] = accuracyAt(flags, k, numRel)
		ndcgAt := 0.0
		if k >= 1 {
			ndcgAt = ndcg(docs, rel, k, ideal)
		}
		m[prefix+"ndcg"+at] = ndcgAt
	}
	m[prefix+"mrr"] = reciprocalRankAt(flags, math.MaxInt)
	m[prefix+"map"] = averagePrecision(flags, numRel)
	m[prefix+"r_precision"] = rPrecision(flags, numRel)
	m[prefix+"ndcg"] = ndcg(docs, rel, math.MaxInt, ideal)
	m[prefix+"file_recall"] = setRecall(flags, numRel)
	m[prefix+"context_efficiency"] = setPrecision(flags)
	m[prefix+"num_ret"] = float64(len(ranked))
	m[prefix+"num_rel"] = float64(numRel)
	m[prefix+"num_rel_ret"] = float64(relevantInTop(flags, len(flags)))
}

// F1 returns the harmonic mean of precision p and recall r, 2pr/(p+r), and 0
// when both are 0.
func F1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// input is what every stage reads: the facts of the document's events
// that no ground truth changes (shared by the documents of a Prepared),
// and the judgments.
type input struct {
	*eventFacts
	evs      eventList // the document's events, with its ground-truth hits
	rel      Judgments
	level    int
	relevant []string        // relevant at level, ground-truth order
	isRel    map[string]bool // relevant at level
	// lineBudgets is Options.LineBudgets.
	lineBudgets []int
}

// eventFacts are what the measures read of a document's events that
// depends on the options of the ranked lists (FoldCase, IncludeWrites) and
// on no ground truth: the ranked lists, the first reads and writes, and
// what is derived from them alone.
type eventFacts struct {
	key func(string) string
	// includeWrites is Options.IncludeWrites.
	includeWrites bool
	lists         map[View]*rankedList
	// firstRead and firstWrite map a file to the position (index in
	// doc.Events) of the first event that read or wrote it, whatever
	// IncludeWrites says: the utilization probes are about real reads and
	// writes.
	firstRead, firstWrite map[string]int
	written               []string // in order of first write
	// writeOnly[i] holds the files event i wrote without reading; they are
	// left out of that event's contribution unless IncludeWrites.
	writeOnly []map[string]bool
	// readBeforeWrite are the written files an earlier event read, in
	// order of first write.
	readBeforeWrite []string
	// hasTime and hasTokens say whether some event has a time, a token
	// count.
	hasTime, hasTokens bool
	mcpEvents          int
	// dirs[i] is the folder of the i-th surfaced file, for the near misses
	// of the error taxonomy, found by Prepare; nil otherwise, and
	// surfacedDir then finds each as it is asked for.
	dirs []string
}

// rankedList is one view's list with the event position of each entry.
type rankedList struct {
	files []string
	at    map[string]int // file → index in doc.Events of the event that ranked it
}

func (l *rankedList) add(f string, event int) {
	if _, ok := l.at[f]; ok {
		return
	}
	l.at[f] = event
	l.files = append(l.files, f)
}

func newInput(doc *events.Document, evs eventList, facts *eventFacts, opts Options) *input {
	key := facts.key
	judged := len(doc.GroundTruth.Files) + len(opts.Grades)
	in := &input{
		eventFacts:  facts,
		evs:         evs,
		rel:         make(Judgments, judged),
		level:       opts.Level,
		lineBudgets: opts.LineBudgets,
		relevant:    []string{},
		isRel:       make(map[string]bool, judged),
	}
	grades := opts.Grades
	if opts.FoldCase {
		grades = make(map[string]int, len(opts.Grades))
		for f, g := range opts.Grades {
			grades[key(f)] = g
		}
	}
	var order []string
	for _, f := range doc.GroundTruth.Files {
		k := key(f)
		if _, dup := in.rel[k]; dup {
			continue
		}
		g, ok := grades[k]
		if !ok {
			g = 1
		}
		in.rel[k] = g
		order = append(order, k)
	}
	var extra []string
	for k, g := range grades {
		if _, ok := in.rel[k]; !ok {
			in.rel[k] = g
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range append(order, extra...) {
		if in.rel.Relevant(k, opts.Level) {
			in.relevant = append(in.relevant, k)
			in.isRel[k] = true
		}
	}
	return in
}

// newEventFacts finds the facts of a document's events under opts.
func newEventFacts(doc *events.Document, evs eventList, opts Options) *eventFacts {
	key := func(p string) string { return p }
	if opts.FoldCase {
		key = strings.ToLower
	}
	f := &eventFacts{
		key:           key,
		includeWrites: opts.IncludeWrites,
		lists:         map[View]*rankedList{},
		firstRead:     map[string]int{},
		firstWrite:    map[string]int{},
		written:       []string{},
	}
	// A list holds at most the files the document names: its maps are
	// made for them, as its summary counts them (a document read from
	// JSON may say anything: no more than its events name).
	named := 0
	for _, ev := range evs.each() {
		named += len(ev.TargetFiles)
	}
	files := max(0, min(doc.Summary.UniqueFilesAccessed, named))
	surfaced := &rankedList{files: []string{}, at: make(map[string]int, files)}
	read := &rankedList{files: []string{}, at: make(map[string]int, files)}
	f.lists[Surfaced], f.lists[Read] = surfaced, read
	f.writeOnly = make([]map[string]bool, evs.len())
	for i, ev := range evs.each() {
		f.hasTime = f.hasTime || ev.ElapsedSeconds != nil
		f.hasTokens = f.hasTokens || ev.CumulativeTokens != nil
		if ev.IsMCP {
			f.mcpEvents++
		}
		var readHere map[string]bool
		if len(ev.FilesWritten) > 0 {
			readHere = make(map[string]bool, len(ev.FilesRead))
			for _, p := range ev.FilesRead {
				readHere[key(p)] = true
			}
		}
		// Nil for the many events that write nothing: reading a nil map
		// gives false.
		var wo map[string]bool
		for _, p := range ev.FilesWritten {
			k := key(p)
			if !readHere[k] {
				if wo == nil {
					wo = map[string]bool{}
				}
				wo[k] = true
			}
			if _, ok := f.firstWrite[k]; !ok {
				f.firstWrite[k] = i
				f.written = append(f.written, k)
			}
		}
		f.writeOnly[i] = wo
		for _, p := range ev.FilesRead {
			if _, ok := f.firstRead[key(p)]; !ok {
				f.firstRead[key(p)] = i
			}
		}
		for _, list := range [2][]string{ev.TargetFiles, ev.FilesRead} {
			for _, p := range list {
				if k := key(p); opts.IncludeWrites || !wo[k] {
					surfaced.add(k, i)
				}
			}
		}
		for _, p := range ev.FilesRead {
			read.add(key(p), i)
		}
		if opts.IncludeWrites {
			for _, p := range ev.FilesWritten {
				surfaced.add(key(p), i)
				read.add(key(p), i)
			}
		}
	}
	f.readBeforeWrite = []string{}
	for _, p := range f.written {
		if at, ok := f.firstRead[p]; ok && at < f.firstWrite[p] {
			f.readBeforeWrite = append(f.readBeforeWrite, p)
		}
	}
	return f
}

// surfacedDir returns the folder of the i-th surfaced file.
func (f *eventFacts) surfacedDir(i int) string {
	if f.dirs != nil {
		return f.dirs[i]
	}
	return path.Dir(f.lists[Surfaced].files[i])
}

func ptr[T any](v T) *T { return &v }
