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
	return analyzeIndex(doc, docEvents(doc), opts)
}

func analyzeIndex(doc *events.Document, evs eventList, opts IndexOptions) *IndexEffectiveness {
	ie := &IndexEffectiveness{TotalCalls: evs.len(), Backtracking: []string{}, Patterns: []Pattern{}}
	for _, ev := range evs.each() {
		switch ev.ToolClass {
		case events.Semantic:
			ie.SemanticCalls++
		case events.FileLevel:
			ie.FileLevelCalls++
		case events.Edit:
			ie.EditCalls++
		default:
			ie.OtherCalls++
		}
		if ev.IsError {
			ie.FailedCalls++
			ie.FailedSteps = append(ie.FailedSteps, ev.StepIndex)
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
	ie.stepsToTarget(doc, evs)
	ie.backtracking(doc, evs)
	ie.redundancy(doc, evs)
	ie.unusedTools(doc, evs)
	ie.fishing(doc, evs, opts)
	ie.guessing(doc, evs, opts)
	ie.direct(doc, evs)
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

func (ie *IndexEffectiveness) stepsToTarget(doc *events.Document, evs eventList) {
	if len(doc.GroundTruth.Files) > 0 {
		ie.StepsToTargetRule = RuleGroundTruth
		for _, ev := range evs.each() {
			if ev.HitsGroundTruth {
				n := ev.StepIndex + 1
				ie.StepsToTarget = &n
				return
			}
		}
		ie.StepsToTargetReason = "no call touched a ground-truth file" + nearMiss(doc, evs)
		return
	}
	// Without ground truth the first edit is the best sign that the agent
	// found what it was looking for.
	ie.StepsToTargetRule = RuleFirstEdit
	for _, ev := range evs.each() {
		if ev.ToolClass == events.Edit {
			n := ev.StepIndex + 1
			ie.StepsToTarget = &n
			return
		}
	}
	ie.StepsToTargetReason = "the task has no ground truth and the agent made no edit"
}

// nearMiss explains, when it can, why no call touched a ground-truth file
// that the trace does name under another spelling: most often the
// ground truth is relative to a working directory the trace does not
// record, and its paths stay absolute. It returns "" when no path named
// in the trace ends with a ground-truth path or shares its base name.
func nearMiss(doc *events.Document, evs eventList) string {
	var base string
	for _, ev := range evs.each() {
		for _, p := range ev.TargetFiles {
			for _, g := range doc.GroundTruth.Files {
				if strings.HasSuffix(p, "/"+g) {
					hint := "ground-truth paths are relative to the agent's working directory"
					if dir := strings.TrimSuffix(p, "/"+g); dir != "" && (dir[0] == '/' || strings.Contains(dir, ":")) {
						hint = "did you mean cwd: " + dir + "?"
					}
					return fmt.Sprintf(" (step %d names %s: %s)", ev.StepIndex+1, p, hint)
				}
				if base == "" && path.Base(p) == path.Base(g) {
					base = fmt.Sprintf(" (step %d names %s, not %s: is the ground-truth path spelled as the trace's?)", ev.StepIndex+1, p, g)
				}
			}
		}
	}
	return base
}

func (ie *IndexEffectiveness) backtracking(doc *events.Document, evs eventList) {
	written := map[string]bool{}
	for _, ev := range evs.each() {
		for _, f := range ev.FilesWritten {
			written[f] = true
		}
	}
	relevant := map[string]bool{}
	for _, f := range doc.GroundTruth.Files {
		relevant[f] = true
	}
	seen := map[string]bool{}
	for _, ev := range evs.each() {
		for _, f := range ev.FilesRead {
			if seen[f] {
				continue
			}
			seen[f] = true
			if !written[f] && !relevant[f] {
				ie.Backtracking = append(ie.Backtracking, f)
			}
		}
	}
	ie.BacktrackingCount = len(ie.Backtracking)
}

func (ie *IndexEffectiveness) redundancy(doc *events.Document, evs eventList) {
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

func (ie *IndexEffectiveness) fishing(doc *events.Document, evs eventList, opts IndexOptions) {
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
	var run []int
	flush := func() {
		if len(run) >= minRun {
			ie.Patterns = append(ie.Patterns, Pattern{
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
}

func (ie *IndexEffectiveness) guessing(doc *events.Document, evs eventList, opts IndexOptions) {
	symbols := slices.Clone(opts.Symbols)
	for _, s := range doc.GroundTruth.Symbols {
		symbols = append(symbols, s.Symbol)
	}
	symbols = slices.DeleteFunc(symbols, func(s string) bool { return strings.TrimSpace(s) == "" })
	if len(symbols) > 0 {
		ie.GuessingRule = RuleKnownSymbol
	} else {
		ie.GuessingRule = RuleBeforeSemantic
	}
	semanticSeen := false
	for _, ev := range evs.each() {
		if ev.ToolClass == events.Semantic {
			semanticSeen = true
		}
		if !isTextSearch(ev, opts.TextSearchTools) {
			continue
		}
		if len(symbols) > 0 {
			if sym, ok := mentionsSymbol(ev.Query, symbols); ok {
				ie.Patterns = append(ie.Patterns, Pattern{
					Name:   PatternGuessing,
					Rule:   RuleKnownSymbol,
					Steps:  []int{ev.StepIndex},
					Symbol: sym,
					Detail: fmt.Sprintf("step %d: %s searched text for %q, a symbol the index knows", ev.StepIndex+1, ev.ToolName, sym),
				})
			}
			continue
		}
		if !semanticSeen {
			ie.Patterns = append(ie.Patterns, Pattern{
				Name:   PatternGuessing,
				Rule:   RuleBeforeSemantic,
				Steps:  []int{ev.StepIndex},
				Detail: fmt.Sprintf("step %d: %s searched text for %q before any semantic call", ev.StepIndex+1, ev.ToolName, ev.Query),
			})
		}
	}
}

func (ie *IndexEffectiveness) direct(doc *events.Document, evs eventList) {
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
		rule, candidates := RuleReturnedFile, sem.TargetFiles
		if len(sem.TargetFiles) == 0 {
			// The call's result was not captured (or named no file): fall
			// back to the ground truth as what it should have found.
			rule, candidates = RuleGroundTruth, doc.GroundTruth.Files
		}
		var hit []string
		for _, f := range edited {
			if slices.Contains(candidates, f) {
				hit = append(hit, f)
			}
		}
		if len(hit) == 0 {
			continue
		}
		ie.Patterns = append(ie.Patterns, Pattern{
			Name:   PatternDirect,
			Rule:   rule,
			Steps:  []int{sem.StepIndex, next.StepIndex},
			Files:  hit,
			Detail: fmt.Sprintf("step %d: %s, then step %d edited %s", sem.StepIndex+1, sem.ToolName, next.StepIndex+1, strings.Join(hit, ", ")),
		})
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
