package metrics

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
)

// Index-effectiveness analysis measures whether an agent used the semantic
// index (search, navigation, inspection) or fell back to reading and
// grepping files one by one. It works on the tool classes of the taxonomy:
// semantic, file_level, edit and other.
//
// Definitions (each stated again on its field):
//
//   - semantic ratio = semantic / (semantic + file-level) calls; also
//     reported over all calls. Non-computable (nil) when the denominator is 0.
//   - steps to target = 1-based index of the first call that touches a
//     ground-truth file, by argument or result; without ground truth, of the
//     first edit. The rule used is reported.
//   - backtracking = files read and then abandoned: never written and not in
//     the ground truth.
//   - redundancy = lines re-read / lines read, counting every line of every
//     read range, a line being re-read when an earlier call already showed it.
//   - fishing = a run of at least FishingMinRun consecutive file-level calls
//     with no semantic call between them.
//   - guessing = a text search of file contents for an identifier the
//     index knows; with no symbol list, a text search made before the first
//     semantic call. A search of file names (a Glob, find -name, a listing)
//     looks for files, not identifiers, and is never a guess.
//   - direct = a semantic call immediately followed by an edit of a file that
//     call returned (of a ground-truth file when the call returned no files).
//
// Fishing and guessing say the agent did not use the index it had. When the
// trace lists the agent's tools and none of them is semantic, the agent had
// no index to use: the occurrences are still reported, marked Information,
// and the analysis says SemanticToolOffered false.
//
// Occurrences keep the 0-based step_index of their events in Steps; their
// Detail, like every message a user reads, numbers steps from 1 (see
// StepsText): step N is the call with step_index N-1, and steps to target
// N names that same step.

// Pattern names.
const (
	PatternFishing  = "fishing"
	PatternGuessing = "guessing"
	PatternDirect   = "direct"
)

// PatternNames lists the patterns the analyzer detects.
var PatternNames = []string{PatternDirect, PatternFishing, PatternGuessing}

// Rules reported with steps to target, guessing and direct.
const (
	RuleGroundTruth    = "ground_truth"    // steps to target: first call touching a ground-truth file
	RuleFirstEdit      = "first_edit"      // steps to target: first edit, for a task without ground truth
	RuleKnownSymbol    = "known_symbol"    // guessing: searched for a symbol the index knows
	RuleBeforeSemantic = "before_semantic" // guessing: text search before any semantic call
	RuleReturnedFile   = "returned_file"   // direct: edited a file the semantic call returned
)

// IndexOptions configure the analysis. The zero value uses the defaults.
type IndexOptions struct {
	// FishingMinRun is the shortest run of file-level calls that counts as
	// fishing. Default 5.
	FishingMinRun int `json:"fishing_min_run,omitempty"`
	// FishingBreak lists the classes whose calls end a fishing run.
	// Default: semantic.
	FishingBreak []events.Class `json:"fishing_break,omitempty"`
	// FishingExtend lists the classes whose calls lengthen a run. Default:
	// file_level. Calls of any other class neither extend nor break a run.
	FishingExtend []events.Class `json:"fishing_extend,omitempty"`
	// Symbols are identifiers the index knows (from an index symbol file,
	// see LoadSymbols). The ground truth's symbols are always added. With
	// none at all, guessing falls back to RuleBeforeSemantic.
	Symbols []string `json:"symbols,omitempty"`
	// TextSearchTools are tool names or globs (path.Match) whose calls are
	// text searches. Default: any file-level call of category code_search
	// that has a query (Grep, grep_search, search_file_content, shell grep
	// and rg). File-name searches (category file_search: Glob, find, ls)
	// are not text searches.
	TextSearchTools []string `json:"text_search_tools,omitempty"`
	// Grades are the thresholds of the index-usage grade.
	Grades GradeThresholds `json:"grades"`
}

// GradeThresholds are the lowest semantic ratios of each grade; below Fair
// is poor. Zero fields take the defaults 0.70, 0.60 and 0.40.
type GradeThresholds struct {
	Excellent float64 `json:"excellent"`
	Good      float64 `json:"good"`
	Fair      float64 `json:"fair"`
}

// DefaultGradeThresholds are the default grades:
// excellent at 70% or more, good 60–69%, fair 40–59%, poor below 40%.
var DefaultGradeThresholds = GradeThresholds{Excellent: 0.70, Good: 0.60, Fair: 0.40}

// Grade returns the grade of a semantic ratio.
func (g GradeThresholds) Grade(ratio float64) string {
	g = g.withDefaults()
	switch {
	case ratio >= g.Excellent:
		return "excellent"
	case ratio >= g.Good:
		return "good"
	case ratio >= g.Fair:
		return "fair"
	}
	return "poor"
}

// GradeRank orders grades from poor (0) to excellent (3); -1 for an
// unknown grade.
func GradeRank(grade string) int {
	return slices.Index([]string{"poor", "fair", "good", "excellent"}, grade)
}

func (g GradeThresholds) withDefaults() GradeThresholds {
	if g.Excellent == 0 {
		g.Excellent = DefaultGradeThresholds.Excellent
	}
	if g.Good == 0 {
		g.Good = DefaultGradeThresholds.Good
	}
	if g.Fair == 0 {
		g.Fair = DefaultGradeThresholds.Fair
	}
	return g
}

// IndexEffectiveness is the result of the analysis of one trace.
type IndexEffectiveness struct {
	TotalCalls     int `json:"total_calls"`
	SemanticCalls  int `json:"semantic_calls"`
	FileLevelCalls int `json:"file_level_calls"`
	EditCalls      int `json:"edit_calls"`
	OtherCalls     int `json:"other_calls"`

	// SemanticRatio is semantic / (semantic + file-level) calls; nil when
	// the trace has neither.
	SemanticRatio *float64 `json:"semantic_ratio"`
	// SemanticRatioAllCalls is semantic / all calls; nil for no calls.
	SemanticRatioAllCalls *float64 `json:"semantic_ratio_all_calls"`
	// Grade is excellent, good, fair or poor from SemanticRatio; empty when
	// the ratio is nil.
	Grade string `json:"grade,omitempty"`

	// StepsToTarget is the 1-based index of the first call that touches a
	// ground-truth file (RuleGroundTruth) or, for a task without ground
	// truth, of the first edit (RuleFirstEdit). Nil when never reached;
	// StepsToTargetReason then says why.
	StepsToTarget       *int   `json:"steps_to_target"`
	StepsToTargetRule   string `json:"steps_to_target_rule"`
	StepsToTargetReason string `json:"steps_to_target_reason,omitempty"`

	// Backtracking lists the files read and then abandoned: never written
	// and not in the ground truth, in order of first read.
	Backtracking      []string `json:"backtracking_files"`
	BacktrackingCount int      `json:"backtracking_events"`

	// Redundancy is LinesReread / LinesRead; nil when no line ranges were
	// read.
	Redundancy   *float64  `json:"redundancy"`
	LinesRead    int       `json:"lines_read"`
	LinesReread  int       `json:"lines_reread"`
	FailedCalls  int       `json:"failed_calls"`
	FailedSteps  []int     `json:"failed_steps,omitempty"`
	UnusedTools  []string  `json:"unused_tools,omitempty"`
	ToolsKnown   bool      `json:"available_tools_known"`
	Patterns     []Pattern `json:"patterns"`
	GuessingRule string    `json:"guessing_rule"`
	// SemanticToolOffered says whether the agent's tool list had a semantic
	// tool; nil when the trace does not list the tools (see ToolsKnown).
	SemanticToolOffered *bool `json:"semantic_tool_offered,omitempty"`
}

// A Pattern is one occurrence of a behaviour pattern with its evidence.
type Pattern struct {
	Name string `json:"name"`
	// Rule says which definition matched (guessing and direct).
	Rule string `json:"rule,omitempty"`
	// Steps are the step indices of the calls that are the evidence.
	Steps []int `json:"steps"`
	// Symbol is the known identifier a guessing search looked for.
	Symbol string `json:"symbol,omitempty"`
	// Files are the files a direct edit changed.
	Files []string `json:"files,omitempty"`
	// Detail says in words what was seen.
	Detail string `json:"detail"`
	// Information is set on fishing and guessing by an agent that was
	// offered no semantic tool: it could not have done otherwise, so the
	// occurrence is worth knowing but is not a problem (a scenario can
	// still forbid it).
	Information bool `json:"information,omitempty"`
}

// IndexFigures lists the metric names AnalyzeIndex contributes to a
// Result's values. They need no ground truth.
var IndexFigures = []string{
	"semantic_ratio", "semantic_ratio_all_calls", "redundancy", "steps_to_target",
	"total_calls", "semantic_calls", "file_level_calls", "edit_calls", "other_calls",
	"backtracking_events", "failed_calls", "fishing_runs", "guessing_searches", "direct_edits",
}

// addValues adds the figures of the analysis to a Result's values.
func (ie *IndexEffectiveness) addValues(out map[string]float64) {
	put := func(name string, v *float64) {
		if v != nil {
			out[name] = *v
		}
	}
	put("semantic_ratio", ie.SemanticRatio)
	put("semantic_ratio_all_calls", ie.SemanticRatioAllCalls)
	put("redundancy", ie.Redundancy)
	if ie.StepsToTarget != nil {
		out["steps_to_target"] = float64(*ie.StepsToTarget)
	}
	out["total_calls"] = float64(ie.TotalCalls)
	out["semantic_calls"] = float64(ie.SemanticCalls)
	out["file_level_calls"] = float64(ie.FileLevelCalls)
	out["edit_calls"] = float64(ie.EditCalls)
	out["other_calls"] = float64(ie.OtherCalls)
	out["backtracking_events"] = float64(ie.BacktrackingCount)
	out["failed_calls"] = float64(ie.FailedCalls)
	out["fishing_runs"] = float64(len(ie.Occurrences(PatternFishing)))
	out["guessing_searches"] = float64(len(ie.Occurrences(PatternGuessing)))
	out["direct_edits"] = float64(len(ie.Occurrences(PatternDirect)))
}

// Has reports whether the pattern occurred at least once.
func (ie *IndexEffectiveness) Has(name string) bool {
	return slices.ContainsFunc(ie.Patterns, func(p Pattern) bool { return p.Name == name })
}

// Occurrences returns the occurrences of one pattern.
func (ie *IndexEffectiveness) Occurrences(name string) []Pattern {
	var out []Pattern
	for _, p := range ie.Patterns {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// DetectedPatterns lists the names of the patterns that occurred, sorted.
func (ie *IndexEffectiveness) DetectedPatterns() []string {
	var out []string
	for _, p := range ie.Patterns {
		if !slices.Contains(out, p.Name) {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// AnalyzeIndex measures how the agent of one trace used the semantic index.
func AnalyzeIndex(doc *events.Document, opts IndexOptions) *IndexEffectiveness {
	evs := docEvents(doc)
	return newIndexFacts(doc, evs, opts).analyze(doc, evs, opts)
}

// indexFacts are what the analysis finds in a document's events that no
// ground truth changes: the counts and ratios, redundancy, the unused
// tools and fishing whole, and of the rest what the ground truth is
// applied to.
type indexFacts struct {
	// base holds the figures that need no ground truth; its Backtracking
	// and Patterns are left to analyze.
	base    IndexEffectiveness
	fishing []Pattern
	// firstEdit is steps to target without ground truth; nil with no edit.
	firstEdit *int
	// readOnly are the files read and never written, in order of first
	// read: backtracking is those the ground truth does not hold.
	readOnly []string
	// searches are the text searches (isTextSearch), in order, and
	// guesses the occurrences of guessing by RuleBeforeSemantic, for a
	// document without symbols.
	searches []textSearch
	guesses  []Pattern
	direct   []directEdit
	// targets are the files the events name, each once, at the first
	// event that names it, for nearMiss; nil until targetPaths finds them.
	targets []namedPath
}

// A textSearch is one text search of the events.
type textSearch struct {
	step        int
	tool, query string
}

// A directEdit is a semantic call followed by an edit. With the files the
// call returned, whether the edit hit one needs no ground truth: pattern
// is the occurrence, and edits that hit none are not kept. A call that
// returned no file is judged by the ground truth (pattern nil).
type directEdit struct {
	pattern         *Pattern
	semStep, edStep int
	semTool         string
	edited          []string
}

// A namedPath is a file an event names, and the event's step index.
type namedPath struct {
	step       int
	path, base string
}

func newIndexFacts(doc *events.Document, evs eventList, opts IndexOptions) *indexFacts {
	f := &indexFacts{}
	ie := &f.base
	ie.TotalCalls = evs.len()
	written := map[string]bool{}
	semanticSeen := false
	for _, ev := range evs.each() {
		switch ev.ToolClass {
		case events.Semantic:
			ie.SemanticCalls++
		case events.FileLevel:
			ie.FileLevelCalls++
		case events.Edit:
			ie.EditCalls++
			if f.firstEdit == nil {
				f.firstEdit = ptr(ev.StepIndex + 1)
			}
		default:
			ie.OtherCalls++
		}
		if ev.IsError {
			ie.FailedCalls++
			ie.FailedSteps = append(ie.FailedSteps, ev.StepIndex)
		}
		for _, p := range ev.FilesWritten {
			written[p] = true
		}
		if ev.ToolClass == events.Semantic {
			semanticSeen = true
		}
		if !isTextSearch(ev, opts.TextSearchTools) {
			continue
		}
		f.searches = append(f.searches, textSearch{step: ev.StepIndex, tool: ev.ToolName, query: ev.Query})
		if !semanticSeen {
			f.guesses = append(f.guesses, Pattern{
				Name:   PatternGuessing,
				Rule:   RuleBeforeSemantic,
				Steps:  []int{ev.StepIndex},
				Detail: fmt.Sprintf("step %d: %s searched text for %q before any semantic call", ev.StepIndex+1, ev.ToolName, ev.Query),
			})
		}
	}
	if d := ie.SemanticCalls + ie.FileLevelCalls; d > 0 {
		r := float64(ie.SemanticCalls) / float64(d)
		ie.SemanticRatio = &r
		ie.Grade = opts.Grades.Grade(r)
	}
	if ie.TotalCalls > 0 {
		r := float64(ie.SemanticCalls) / float64(ie.TotalCalls)
		ie.SemanticRatioAllCalls = &r
	}
	seen := map[string]bool{}
	f.readOnly = []string{}
	for _, ev := range evs.each() {
		for _, p := range ev.FilesRead {
			if seen[p] {
				continue
			}
			seen[p] = true
			if !written[p] {
				f.readOnly = append(f.readOnly, p)
			}
		}
	}
	ie.redundancy(evs)
	ie.unusedTools(doc, evs)
	f.fishing = fishing(evs, opts)
	f.findDirect(evs)
	return f
}

// analyze completes the analysis with the ground truth of doc, whose
// events evs are those f was found in but for their ground-truth hits.
func (f *indexFacts) analyze(doc *events.Document, evs eventList, opts IndexOptions) *IndexEffectiveness {
	ie := new(IndexEffectiveness)
	*ie = f.base
	ie.stepsToTarget(doc, evs, f)
	ie.Backtracking = backtracking(f.readOnly, doc.GroundTruth.Files)
	ie.BacktrackingCount = len(ie.Backtracking)
	ie.Patterns = append(make([]Pattern, 0, len(f.fishing)+len(f.guesses)+len(f.direct)), f.fishing...)
	ie.guessing(doc, f, opts)
	ie.direct(doc, f)
	if ie.SemanticToolOffered != nil && !*ie.SemanticToolOffered {
		for i := range ie.Patterns {
			if ie.Patterns[i].Name != PatternDirect {
				ie.Patterns[i].Information = true
			}
		}
	}
	slices.SortStableFunc(ie.Patterns, func(a, b Pattern) int { return a.Steps[0] - b.Steps[0] })
	return ie
}

func (ie *IndexEffectiveness) stepsToTarget(doc *events.Document, evs eventList, f *indexFacts) {
	if len(doc.GroundTruth.Files) > 0 {
		ie.StepsToTargetRule = RuleGroundTruth
		for _, ev := range evs.each() {
			if ev.HitsGroundTruth {
				n := ev.StepIndex + 1
				ie.StepsToTarget = &n
				return
			}
		}
		targets := f.targets
		if targets == nil {
			targets = targetPaths(evs)
		}
		ie.StepsToTargetReason = "no call touched a ground-truth file" + nearMiss(targets, doc.GroundTruth.Files)
		return
	}
	// Without ground truth the first edit is the best sign that the agent
	// found what it was looking for.
	ie.StepsToTargetRule = RuleFirstEdit
	if f.firstEdit != nil {
		ie.StepsToTarget = ptr(*f.firstEdit)
		return
	}
	ie.StepsToTargetReason = "the task has no ground truth and the agent made no edit"
}

// targetPaths returns the files the events name (TargetFiles), each once,
// at the first event that names it.
func targetPaths(evs eventList) []namedPath {
	out := []namedPath{}
	seen := map[string]bool{}
	for _, ev := range evs.each() {
		for _, p := range ev.TargetFiles {
			if !seen[p] {
				seen[p] = true
				out = append(out, namedPath{step: ev.StepIndex, path: p, base: path.Base(p)})
			}
		}
	}
	return out
}

// nearMiss explains, when it can, why no call touched a ground-truth file
// that the trace does name under another spelling: most often the
// ground truth is relative to a working directory the trace does not
// record, and its paths stay absolute. It returns "" when no path named
// in the trace ends with a ground-truth path or shares its base name.
// targets are the paths the trace names (targetPaths): a path named again
// later says nothing its first mention did not.
func nearMiss(targets []namedPath, truth []string) string {
	suffixes, bases := make([]string, len(truth)), make([]string, len(truth))
	for j, g := range truth {
		suffixes[j], bases[j] = "/"+g, path.Base(g)
	}
	var base string
	for _, t := range targets {
		for j, g := range truth {
			if p := t.path; strings.HasSuffix(p, suffixes[j]) {
				hint := "ground-truth paths are relative to the agent's working directory"
				if dir := strings.TrimSuffix(p, suffixes[j]); dir != "" && (dir[0] == '/' || strings.Contains(dir, ":")) {
					hint = "did you mean cwd: " + dir + "?"
				}
				return fmt.Sprintf(" (step %d names %s: %s)", t.step+1, p, hint)
			}
			if base == "" && t.base == bases[j] {
				base = fmt.Sprintf(" (step %d names %s, not %s: is the ground-truth path spelled as the trace's?)", t.step+1, t.path, g)
			}
		}
	}
	return base
}

// backtracking returns the files of readOnly (read, never written) that
// are not in the ground truth.
func backtracking(readOnly, truth []string) []string {
	relevant := make(map[string]bool, len(truth))
	for _, f := range truth {
		relevant[f] = true
	}
	out := []string{}
	for _, f := range readOnly {
		if !relevant[f] {
			out = append(out, f)
		}
	}
	return out
}

func (ie *IndexEffectiveness) redundancy(evs eventList) {
	seen := map[string]*lineSet{}
	for _, ev := range evs.each() {
		for _, r := range ev.LineRanges {
			if r.End < r.Start {
				continue
			}
			s := seen[r.Path]
			if s == nil {
				s = &lineSet{}
				seen[r.Path] = s
			}
			n := r.End - r.Start + 1
			ie.LinesRead += n
			ie.LinesReread += s.overlap(r.Start, r.End)
			s.add(r.Start, r.End)
		}
	}
	if ie.LinesRead > 0 {
		v := float64(ie.LinesReread) / float64(ie.LinesRead)
		ie.Redundancy = &v
	}
}

func (ie *IndexEffectiveness) unusedTools(doc *events.Document, evs eventList) {
	avail := doc.Provenance.AvailableTools
	if len(avail) == 0 {
		return
	}
	ie.ToolsKnown = true
	used := map[string]bool{}
	semantic := map[string]bool{}
	for _, ev := range evs.each() {
		used[ev.ToolName] = true
		if ev.ToolClass == events.Semantic {
			semantic[ev.ToolName] = true
		}
	}
	// A tool the agent called is classified by its events; one it never
	// called, by the built-in taxonomy preferring the agent's profile.
	tax := events.DefaultTaxonomy().Prefer(events.SessionProfile(doc.Provenance.TraceFormat, doc.Provenance.Agent))
	offered := false
	for _, t := range avail {
		if semantic[t] {
			offered = true
		} else if r, _ := tax.Classify(t); !used[t] && r.Class == events.Semantic {
			offered = true
		}
	}
	ie.SemanticToolOffered = &offered
	for _, t := range avail {
		if !used[t] && !slices.Contains(ie.UnusedTools, t) {
			ie.UnusedTools = append(ie.UnusedTools, t)
		}
	}
}

// fishing returns the occurrences of fishing.
func fishing(evs eventList, opts IndexOptions) []Pattern {
	minRun := opts.FishingMinRun
	if minRun <= 0 {
		minRun = 5
	}
	breaks := opts.FishingBreak
	if len(breaks) == 0 {
		breaks = []events.Class{events.Semantic}
	}
	extends := opts.FishingExtend
	if len(extends) == 0 {
		extends = []events.Class{events.FileLevel}
	}
	var out []Pattern
	var run []int
	flush := func() {
		if len(run) >= minRun {
			out = append(out, Pattern{
				Name:   PatternFishing,
				Steps:  run,
				Detail: fmt.Sprintf("a run of %d file-level calls with no semantic call between them (%s)", len(run), StepsText(run)),
			})
		}
		run = nil
	}
	for _, ev := range evs.each() {
		switch {
		case slices.Contains(breaks, ev.ToolClass):
			flush()
		case slices.Contains(extends, ev.ToolClass):
			run = append(run, ev.StepIndex)
		}
	}
	flush()
	return out
}

func (ie *IndexEffectiveness) guessing(doc *events.Document, f *indexFacts, opts IndexOptions) {
	symbols := slices.Clone(opts.Symbols)
	for _, s := range doc.GroundTruth.Symbols {
		symbols = append(symbols, s.Symbol)
	}
	symbols = slices.DeleteFunc(symbols, func(s string) bool { return strings.TrimSpace(s) == "" })
	if len(symbols) == 0 {
		ie.GuessingRule = RuleBeforeSemantic
		ie.Patterns = append(ie.Patterns, f.guesses...)
		return
	}
	ie.GuessingRule = RuleKnownSymbol
	for _, s := range f.searches {
		if sym, ok := mentionsSymbol(s.query, symbols); ok {
			ie.Patterns = append(ie.Patterns, Pattern{
				Name:   PatternGuessing,
				Rule:   RuleKnownSymbol,
				Steps:  []int{s.step},
				Symbol: sym,
				Detail: fmt.Sprintf("step %d: %s searched text for %q, a symbol the index knows", s.step+1, s.tool, sym),
			})
		}
	}
}

// findDirect finds the semantic calls followed by an edit.
func (f *indexFacts) findDirect(evs eventList) {
	// Two events at a time, each decoded once into its own Event: the
	// one that is next here is the semantic call of the next turn.
	var bufs [2]events.Event
	var sem, next *events.Event
	for i := 0; i+1 < evs.len(); i, sem = i+1, next {
		if i == 0 {
			sem = evs.at(0, &bufs[0])
		}
		next = evs.at(i+1, &bufs[(i+1)%2])
		if sem.ToolClass != events.Semantic || next.ToolClass != events.Edit {
			continue
		}
		edited := next.FilesWritten
		if len(edited) == 0 {
			edited = next.TargetFiles
		}
		d := directEdit{semStep: sem.StepIndex, edStep: next.StepIndex, semTool: sem.ToolName, edited: edited}
		if len(sem.TargetFiles) == 0 {
			// The call's result was not captured (or named no file): the
			// ground truth is what it should have found.
			d.edited = slices.Clone(edited)
			f.direct = append(f.direct, d)
			continue
		}
		if p, ok := d.occurrence(RuleReturnedFile, sem.TargetFiles); ok {
			d.pattern = &p
			f.direct = append(f.direct, d)
		}
	}
}

// occurrence is the direct edit's occurrence when it changed one of
// candidates.
func (d *directEdit) occurrence(rule string, candidates []string) (Pattern, bool) {
	var hit []string
	for _, f := range d.edited {
		if slices.Contains(candidates, f) {
			hit = append(hit, f)
		}
	}
	if len(hit) == 0 {
		return Pattern{}, false
	}
	return Pattern{
		Name:   PatternDirect,
		Rule:   rule,
		Steps:  []int{d.semStep, d.edStep},
		Files:  hit,
		Detail: fmt.Sprintf("step %d: %s, then step %d edited %s", d.semStep+1, d.semTool, d.edStep+1, strings.Join(hit, ", ")),
	}, true
}

func (ie *IndexEffectiveness) direct(doc *events.Document, f *indexFacts) {
	for i := range f.direct {
		d := &f.direct[i]
		if d.pattern != nil {
			ie.Patterns = append(ie.Patterns, *d.pattern)
		} else if p, ok := d.occurrence(RuleGroundTruth, doc.GroundTruth.Files); ok {
			ie.Patterns = append(ie.Patterns, p)
		}
	}
}

// isTextSearch reports whether an event is a text search: its tool name
// matches one of the configured names or globs, or, by default, it is a
// file-level code or file search with a query.
func isTextSearch(ev *events.Event, tools []string) bool {
	if len(tools) > 0 {
		for _, t := range tools {
			if t == ev.ToolName {
				return true
			}
			if ok, _ := path.Match(t, ev.ToolName); ok {
				return true
			}
		}
		return false
	}
	return ev.ToolClass == events.FileLevel && ev.Query != "" && ev.ToolCategory == events.CodeSearch
}

// mentionsSymbol reports the first known symbol that a query searches for:
// the symbol appears in the query with identifier boundaries on both sides,
// or, for a dotted symbol (OrderService.Create), its last component does.
// Matching is case-sensitive: identifiers are.
func mentionsSymbol(query string, symbols []string) (string, bool) {
	if query == "" {
		return "", false
	}
	for _, s := range symbols {
		if containsIdent(query, s) {
			return s, true
		}
		if i := strings.LastIndexAny(s, ".:#"); i >= 0 && i+1 < len(s) && containsIdent(query, s[i+1:]) {
			return s, true
		}
	}
	return "", false
}

func containsIdent(text, ident string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], ident)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(ident)
		if (start == 0 || !isIdentByte(text[start-1])) && (end == len(text) || !isIdentByte(text[end])) {
			return true
		}
		off = start + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// StepsText names steps as messages do, numbered from 1 in trace order of
// the tool calls: it takes 0-based step indices and writes "step 3" for
// one, and "steps 1–5, 8, 10–11" for several, a range being steps that
// follow one another in the trace with no other call between them.
func StepsText(stepIndices []int) string {
	s := slices.Clone(stepIndices)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) == 1 {
		return fmt.Sprintf("step %d", s[0]+1)
	}
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(s[i]+1))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", s[i]+1, s[j]+1))
		}
		i = j + 1
	}
	return "steps " + strings.Join(parts, ", ")
}

// lineSet is a set of line numbers kept as sorted, disjoint, non-adjacent
// closed intervals.
type lineSet struct{ iv [][2]int }

// overlap counts the lines of [a, b] already in the set.
func (s *lineSet) overlap(a, b int) int {
	n := 0
	for _, r := range s.iv {
		lo, hi := max(a, r[0]), min(b, r[1])
		if lo <= hi {
			n += hi - lo + 1
		}
	}
	return n
}

// add inserts [a, b], merging what it touches.
func (s *lineSet) add(a, b int) {
	out := s.iv[:0:0]
	placed := false
	for _, r := range s.iv {
		switch {
		case r[1] < a-1:
			out = append(out, r)
		case r[0] > b+1:
			if !placed {
				out = append(out, [2]int{a, b})
				placed = true
			}
			out = append(out, r)
		default:
			a, b = min(a, r[0]), max(b, r[1])
		}
	}
	if !placed {
		out = append(out, [2]int{a, b})
	}
	s.iv = out
}
