package metrics

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

const tokenGo = "pkg/auth/token.go"

// indexDoc reads a trace of testdata/index and normalizes it with the given
// ground truth.
func indexDoc(t *testing.T, file string, gt *events.GroundTruth) *events.Document {
	t.Helper()
	sess, err := trace.ReadFile(filepath.Join("..", "testdata", "index", file), trace.Options{})
	require.NoError(t, err)
	require.Empty(t, sess.Warnings)
	return events.Normalize(sess, events.Options{GroundTruth: gt})
}

func tokenTruth() *events.GroundTruth {
	return &events.GroundTruth{
		Files:   []string{tokenGo},
		Symbols: []events.Symbol{{File: tokenGo, Symbol: "ValidateToken"}},
	}
}

// Each pattern has a trace where it fires and a near miss where it must
// not, in two formats: Claude Code with Sourcegraph tools, and tool-call
// records with Aura's tools.
func TestPatternsFireAndNearMissesDoNot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		trace    string
		patterns []string
		check    func(t *testing.T, ie *IndexEffectiveness)
	}{
		{"fishing-five-file-level-calls", []string{PatternFishing}, func(t *testing.T, ie *IndexEffectiveness) {
			occ := ie.Occurrences(PatternFishing)
			require.Len(t, occ, 1)
			assert.Equal(t, []int{0, 1, 2, 3, 4}, occ[0].Steps)
			assert.Contains(t, occ[0].Detail, "a run of 5 file-level calls with no semantic call between them (steps 1–5)")
		}},
		{"fishing-near-miss-four-calls", nil, nil},
		{"fishing-near-miss-split-by-semantic", nil, nil},
		{"guessing-grep-for-known-symbol", []string{PatternGuessing}, func(t *testing.T, ie *IndexEffectiveness) {
			occ := ie.Occurrences(PatternGuessing)
			require.Len(t, occ, 1)
			assert.Equal(t, []int{1}, occ[0].Steps)
			assert.Equal(t, "ValidateToken", occ[0].Symbol)
			assert.Equal(t, RuleKnownSymbol, occ[0].Rule)
			assert.Equal(t, RuleKnownSymbol, ie.GuessingRule)
		}},
		{"guessing-near-miss-plain-word", nil, nil},
		{"direct-search-then-edit", []string{PatternDirect}, func(t *testing.T, ie *IndexEffectiveness) {
			occ := ie.Occurrences(PatternDirect)
			require.Len(t, occ, 1)
			assert.Equal(t, []int{0, 1}, occ[0].Steps)
			assert.Equal(t, []string{tokenGo}, occ[0].Files)
			assert.Equal(t, RuleReturnedFile, occ[0].Rule)
		}},
		{"direct-near-miss-read-between", nil, nil},
	}
	for _, format := range []string{".claude.jsonl", ".aura.toolcalls.json"} {
		for _, tt := range tests {
			t.Run(tt.trace+format, func(t *testing.T) {
				t.Parallel()
				ie := AnalyzeIndex(indexDoc(t, tt.trace+format, tokenTruth()), IndexOptions{})
				assert.Equal(t, tt.patterns, ie.DetectedPatterns())
				if tt.check != nil {
					tt.check(t, ie)
				}
			})
		}
	}
}

func TestFishingOptionsChangeTheOutcome(t *testing.T) {
	t.Parallel()
	four := indexDoc(t, "fishing-near-miss-four-calls.aura.toolcalls.json", tokenTruth())
	assert.False(t, AnalyzeIndex(four, IndexOptions{}).Has(PatternFishing))
	assert.True(t, AnalyzeIndex(four, IndexOptions{FishingMinRun: 4}).Has(PatternFishing), "a shorter minimum run fires on four calls")

	five := indexDoc(t, "fishing-five-file-level-calls.aura.toolcalls.json", tokenTruth())
	assert.False(t, AnalyzeIndex(five, IndexOptions{FishingMinRun: 7}).Has(PatternFishing))
	// The edit after the five reads extends the run when edits count.
	ie := AnalyzeIndex(five, IndexOptions{FishingMinRun: 6, FishingExtend: []events.Class{events.FileLevel, events.Edit}})
	require.True(t, ie.Has(PatternFishing))
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, ie.Occurrences(PatternFishing)[0].Steps)

	// An edit breaks the run when configured to.
	split := &events.Document{Events: []events.Event{
		{StepIndex: 0, ToolClass: events.FileLevel}, {StepIndex: 1, ToolClass: events.FileLevel},
		{StepIndex: 2, ToolClass: events.FileLevel}, {StepIndex: 3, ToolClass: events.Edit},
		{StepIndex: 4, ToolClass: events.FileLevel}, {StepIndex: 5, ToolClass: events.FileLevel},
		{StepIndex: 6, ToolClass: events.OtherClass}, {StepIndex: 7, ToolClass: events.FileLevel},
	}}
	assert.Equal(t, []int{0, 1, 2, 4, 5, 7}, AnalyzeIndex(split, IndexOptions{}).Occurrences(PatternFishing)[0].Steps,
		"by default edits and other calls neither extend nor break a run")
	assert.False(t, AnalyzeIndex(split, IndexOptions{FishingBreak: []events.Class{events.Semantic, events.Edit}}).Has(PatternFishing))
}

func TestGuessingRules(t *testing.T) {
	t.Parallel()
	noSymbols := &events.GroundTruth{Files: []string{tokenGo}}

	// With no symbol list, a text search before any semantic call guesses.
	ie := AnalyzeIndex(indexDoc(t, "fishing-five-file-level-calls.claude.jsonl", noSymbols), IndexOptions{})
	assert.Equal(t, RuleBeforeSemantic, ie.GuessingRule)
	occ := ie.Occurrences(PatternGuessing)
	require.Len(t, occ, 1, "the Grep at step 3; the Glob at step 0 searches file names")
	assert.Equal(t, []int{3}, occ[0].Steps)
	assert.Equal(t, RuleBeforeSemantic, occ[0].Rule)

	// After a semantic call, the same search is not a guess.
	ie = AnalyzeIndex(indexDoc(t, "guessing-grep-for-known-symbol.claude.jsonl", noSymbols), IndexOptions{})
	assert.False(t, ie.Has(PatternGuessing))

	// An index symbol file supplies the symbols when the ground truth has none.
	syms, err := ReadSymbols(strings.NewReader("!_TAG_FILE_FORMAT\t2\t/extended format/\nValidateToken\tpkg/auth/token.go\t/^func ValidateToken(/;\"\tf\n"))
	require.NoError(t, err)
	ie = AnalyzeIndex(indexDoc(t, "guessing-grep-for-known-symbol.claude.jsonl", noSymbols), IndexOptions{Symbols: syms})
	assert.Equal(t, []string{PatternGuessing}, ie.DetectedPatterns())
	assert.Equal(t, "ValidateToken", ie.Occurrences(PatternGuessing)[0].Symbol)

	// TextSearchTools narrows what counts as a text search.
	ie = AnalyzeIndex(indexDoc(t, "guessing-grep-for-known-symbol.claude.jsonl", tokenTruth()), IndexOptions{TextSearchTools: []string{"Glob"}})
	assert.False(t, ie.Has(PatternGuessing))
	ie = AnalyzeIndex(indexDoc(t, "guessing-grep-for-known-symbol.aura.toolcalls.json", tokenTruth()), IndexOptions{TextSearchTools: []string{"grep_*"}})
	assert.True(t, ie.Has(PatternGuessing))
}

func TestMentionsSymbol(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query string
		symbols     []string
		want        string
	}{
		{"an exact identifier", "ValidateToken", []string{"ValidateToken"}, "ValidateToken"},
		{"an identifier inside a regexp", `func\s+ValidateToken\(`, []string{"ValidateToken"}, "ValidateToken"},
		{"a longer identifier does not match", "ValidateTokens", []string{"ValidateToken"}, ""},
		{"a prefix does not match", "MustValidateToken", []string{"ValidateToken"}, ""},
		{"case matters", "validatetoken", []string{"ValidateToken"}, ""},
		{"the last component of a dotted symbol", "Create(", []string{"OrderService.Create"}, "OrderService.Create"},
		{"an empty query", "", []string{"X"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := mentionsSymbol(tt.query, tt.symbols)
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDirectFallsBackToGroundTruthWithoutResults(t *testing.T) {
	t.Parallel()
	doc := &events.Document{
		GroundTruth: events.GroundTruth{Files: []string{tokenGo}},
		Events: []events.Event{
			{StepIndex: 0, ToolName: "aura_search", ToolClass: events.Semantic},
			{StepIndex: 1, ToolName: "file.write", ToolClass: events.Edit, TargetFiles: []string{tokenGo}, FilesWritten: []string{tokenGo}},
			{StepIndex: 2, ToolName: "aura_search", ToolClass: events.Semantic},
			{StepIndex: 3, ToolName: "file.write", ToolClass: events.Edit, FilesWritten: []string{"other.go"}},
		},
	}
	occ := AnalyzeIndex(doc, IndexOptions{}).Occurrences(PatternDirect)
	require.Len(t, occ, 1, "the second edit is not of a ground-truth file")
	assert.Equal(t, RuleGroundTruth, occ[0].Rule)
	assert.Equal(t, []int{0, 1}, occ[0].Steps)
}

// The two worked examples of the index-effectiveness plan's report table:
//
//	| add-service | 72% | 2 | direct  |
//	| fix-bug     | 45% | 6 | fishing |
//
// **Aggregate:** 58.5% Aura tool usage
func TestWorkedExamplesOfThePlan(t *testing.T) {
	t.Parallel()
	add := AnalyzeIndex(indexDoc(t, "worked-add-service.aura.toolcalls.json", &events.GroundTruth{
		Files: []string{"src/Startup.cs", "src/Services/InventoryService.cs"},
	}), IndexOptions{})
	// 18 semantic (aura_search, aura_navigate) and 7 file.read calls:
	// 18 / (18 + 7) = 0.72. aura_navigate at step index 1 returns
	// src/Startup.cs: steps to target 2.
	assert.Equal(t, 18, add.SemanticCalls)
	assert.Equal(t, 7, add.FileLevelCalls)
	assert.InDelta(t, 0.72, *add.SemanticRatio, 1e-12)
	assert.Equal(t, 2, *add.StepsToTarget)
	assert.Equal(t, RuleGroundTruth, add.StepsToTargetRule)
	assert.Equal(t, []string{PatternDirect}, add.DetectedPatterns())
	assert.Equal(t, "excellent", add.Grade)

	fix := AnalyzeIndex(indexDoc(t, "worked-fix-bug.aura.toolcalls.json", &events.GroundTruth{
		Files:   []string{"src/Pricing/DiscountCalculator.cs"},
		Symbols: []events.Symbol{{File: "src/Pricing/DiscountCalculator.cs", Symbol: "DiscountCalculator.Apply"}},
	}), IndexOptions{})
	// 9 semantic and 11 file-level (file.list, file.read, grep_search):
	// 9 / 20 = 0.45. Five file-level calls open the trace (fishing); the
	// first semantic call, step index 5, returns the ground-truth file.
	assert.Equal(t, 9, fix.SemanticCalls)
	assert.Equal(t, 11, fix.FileLevelCalls)
	assert.InDelta(t, 0.45, *fix.SemanticRatio, 1e-12)
	assert.Equal(t, 6, *fix.StepsToTarget)
	assert.Equal(t, []string{PatternFishing}, fix.DetectedPatterns())
	assert.Equal(t, []int{0, 1, 2, 3, 4}, fix.Occurrences(PatternFishing)[0].Steps)
	assert.Equal(t, "fair", fix.Grade)

	assert.InDelta(t, 0.585, (*add.SemanticRatio+*fix.SemanticRatio)/2, 1e-12)
}

func TestCountsRatiosAndGrades(t *testing.T) {
	t.Parallel()
	ev := func(i int, c events.Class) events.Event { return events.Event{StepIndex: i, ToolClass: c} }
	doc := &events.Document{Events: []events.Event{
		ev(0, events.Semantic), ev(1, events.FileLevel), ev(2, events.FileLevel), ev(3, events.Edit),
		ev(4, events.OtherClass), ev(5, events.Semantic), ev(6, events.FileLevel), ev(7, events.FileLevel),
	}}
	doc.Events[4].IsError = true
	ie := AnalyzeIndex(doc, IndexOptions{})
	assert.Equal(t, 8, ie.TotalCalls)
	assert.Equal(t, [4]int{2, 4, 1, 1}, [4]int{ie.SemanticCalls, ie.FileLevelCalls, ie.EditCalls, ie.OtherCalls})
	assert.InDelta(t, 2.0/6.0, *ie.SemanticRatio, 1e-12) // 2 / (2 + 4)
	assert.InDelta(t, 2.0/8.0, *ie.SemanticRatioAllCalls, 1e-12)
	assert.Equal(t, "poor", ie.Grade)
	assert.Equal(t, 1, ie.FailedCalls)
	assert.Equal(t, []int{4}, ie.FailedSteps)

	// Only edits and other calls: the ratio is non-computable, not 0.
	ie = AnalyzeIndex(&events.Document{Events: []events.Event{ev(0, events.Edit), ev(1, events.OtherClass)}}, IndexOptions{})
	assert.Nil(t, ie.SemanticRatio)
	assert.Empty(t, ie.Grade)
	assert.InDelta(t, 0, *ie.SemanticRatioAllCalls, 0)
	ie = AnalyzeIndex(&events.Document{}, IndexOptions{})
	assert.Nil(t, ie.SemanticRatioAllCalls)
}

func TestGradeThresholds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ratio float64
		g     GradeThresholds
		want  string
	}{
		{0.70, GradeThresholds{}, "excellent"},
		{0.6999, GradeThresholds{}, "good"},
		{0.60, GradeThresholds{}, "good"},
		{0.59, GradeThresholds{}, "fair"},
		{0.40, GradeThresholds{}, "fair"},
		{0.39, GradeThresholds{}, "poor"},
		{0.75, GradeThresholds{Excellent: 0.8}, "good"},
		{0.35, GradeThresholds{Fair: 0.3}, "fair"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.g.Grade(tt.ratio), "%v with %+v", tt.ratio, tt.g)
	}
	assert.Less(t, GradeRank("poor"), GradeRank("fair"))
	assert.Less(t, GradeRank("good"), GradeRank("excellent"))
	assert.Equal(t, -1, GradeRank("great"))
}

func TestStepsToTargetRules(t *testing.T) {
	t.Parallel()
	evs := []events.Event{
		{StepIndex: 0, ToolClass: events.FileLevel, TargetFiles: []string{"a.go"}},
		{StepIndex: 1, ToolClass: events.Edit, TargetFiles: []string{"b.go"}, FilesWritten: []string{"b.go"}},
		{StepIndex: 2, ToolClass: events.FileLevel, TargetFiles: []string{"c.go"}, HitsGroundTruth: true},
	}
	ie := AnalyzeIndex(&events.Document{GroundTruth: events.GroundTruth{Files: []string{"c.go"}}, Events: evs}, IndexOptions{})
	assert.Equal(t, 3, *ie.StepsToTarget)
	assert.Equal(t, RuleGroundTruth, ie.StepsToTargetRule)

	ie = AnalyzeIndex(&events.Document{Events: evs}, IndexOptions{})
	assert.Equal(t, 2, *ie.StepsToTarget, "without ground truth, the first edit")
	assert.Equal(t, RuleFirstEdit, ie.StepsToTargetRule)

	ie = AnalyzeIndex(&events.Document{GroundTruth: events.GroundTruth{Files: []string{"z.go"}}, Events: evs[:1]}, IndexOptions{})
	assert.Nil(t, ie.StepsToTarget)
	assert.Equal(t, "no call touched a ground-truth file", ie.StepsToTargetReason)

	ie = AnalyzeIndex(&events.Document{Events: evs[:1]}, IndexOptions{})
	assert.Nil(t, ie.StepsToTarget)
	assert.Contains(t, ie.StepsToTargetReason, "no ground truth and the agent made no edit")
}

func TestBacktrackingRedundancyAndUnusedTools(t *testing.T) {
	t.Parallel()
	r := func(p string, a, b int) events.LineRange { return events.LineRange{Path: p, Start: a, End: b} }
	doc := &events.Document{
		Provenance:  events.Provenance{AvailableTools: []string{"Read", "Grep", "Edit", "mcp__sourcegraph__sg_keyword_search"}},
		GroundTruth: events.GroundTruth{Files: []string{"gt.go"}},
		Events: []events.Event{
			{StepIndex: 0, ToolName: "Read", ToolClass: events.FileLevel, FilesRead: []string{"a.go"}, LineRanges: []events.LineRange{r("a.go", 1, 10)}},
			{StepIndex: 1, ToolName: "Read", ToolClass: events.FileLevel, FilesRead: []string{"gt.go"}, LineRanges: []events.LineRange{r("gt.go", 1, 5)}},
			{StepIndex: 2, ToolName: "Read", ToolClass: events.FileLevel, FilesRead: []string{"a.go", "b.go"}, LineRanges: []events.LineRange{r("a.go", 6, 15), r("b.go", 1, 5)}},
			{StepIndex: 3, ToolName: "Read", ToolClass: events.FileLevel, FilesRead: []string{"c.go"}, LineRanges: []events.LineRange{r("c.go", 3, 3)}},
			{StepIndex: 4, ToolName: "Edit", ToolClass: events.Edit, FilesWritten: []string{"b.go"}},
		},
	}
	ie := AnalyzeIndex(doc, IndexOptions{})
	// a.go and c.go were read, never written and are not ground truth;
	// b.go was edited and gt.go is relevant.
	assert.Equal(t, []string{"a.go", "c.go"}, ie.Backtracking)
	assert.Equal(t, 2, ie.BacktrackingCount)
	// Lines read: 10 + 5 + 10 + 5 + 1 = 31; re-read: a.go 6..10 = 5.
	assert.Equal(t, 31, ie.LinesRead)
	assert.Equal(t, 5, ie.LinesReread)
	assert.InDelta(t, 5.0/31.0, *ie.Redundancy, 1e-12)
	assert.True(t, ie.ToolsKnown)
	assert.Equal(t, []string{"Grep", "mcp__sourcegraph__sg_keyword_search"}, ie.UnusedTools)

	ie = AnalyzeIndex(&events.Document{Events: []events.Event{{StepIndex: 0, ToolClass: events.Semantic}}}, IndexOptions{})
	assert.Nil(t, ie.Redundancy, "no line ranges: redundancy is non-computable")
	assert.False(t, ie.ToolsKnown)
	assert.Empty(t, ie.UnusedTools)
}

func TestLineSet(t *testing.T) {
	t.Parallel()
	var s lineSet
	s.add(10, 20)
	s.add(30, 40)
	assert.Equal(t, 0, s.overlap(21, 29))
	assert.Equal(t, 4, s.overlap(19, 31)) // 19-20 and 30-31
	s.add(21, 29)                         // bridges both
	assert.Equal(t, [][2]int{{10, 40}}, s.iv)
	s.add(1, 3)
	s.add(50, 50)
	assert.Equal(t, [][2]int{{1, 3}, {10, 40}, {50, 50}}, s.iv)
	assert.Equal(t, 3+31+1, s.overlap(1, 100))
}

func TestReadSymbolsForms(t *testing.T) {
	t.Parallel()
	syms, err := ReadSymbols(strings.NewReader("# index symbols\nValidateToken\n\nOrderService.Create\nValidateToken\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"ValidateToken", "OrderService.Create"}, syms)

	_, err = ReadSymbols(strings.NewReader("ok\nnot a symbol\n"))
	require.ErrorContains(t, err, `line 2: "not a symbol" is not a symbol`)

	_, err = LoadSymbols(filepath.Join(t.TempDir(), "missing.tags"))
	require.Error(t, err)
}

func TestStepsToTargetSaysWhyAGroundTruthPathNeverMatched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		truth  string
		named  []string
		reason string
	}{
		{name: "an absolute path ending with the ground-truth path suggests the cwd", truth: "test.bib",
			named:  []string{"/root/notes.txt", "/root/test.bib"},
			reason: "no call touched a ground-truth file (step 2 names /root/test.bib: did you mean cwd: /root?)"},
		{name: "a deeper working directory is suggested whole", truth: "pkg/a.go",
			named:  []string{"/home/u/proj/pkg/a.go"},
			reason: "no call touched a ground-truth file (step 1 names /home/u/proj/pkg/a.go: did you mean cwd: /home/u/proj?)"},
		{name: "a drive path suggests the drive's folder", truth: "a.go",
			named:  []string{"C:/work/a.go"},
			reason: "no call touched a ground-truth file (step 1 names C:/work/a.go: did you mean cwd: C:/work?)"},
		{name: "a relative path ending with the ground-truth path names no cwd", truth: "a.go",
			named:  []string{"src/a.go"},
			reason: "no call touched a ground-truth file (step 1 names src/a.go: ground-truth paths are relative to the agent's working directory)"},
		{name: "a path from the root alone names no cwd", truth: "a.go",
			named:  []string{"/a.go"},
			reason: "no call touched a ground-truth file (step 1 names /a.go: ground-truth paths are relative to the agent's working directory)"},
		{name: "a file of the same name elsewhere is pointed out", truth: "lib/a.go",
			named:  []string{"/root/b.go", "/root/src/a.go", "/root/x/a.go"},
			reason: "no call touched a ground-truth file (step 2 names /root/src/a.go, not lib/a.go: is the ground-truth path spelled as the trace's?)"},
		{name: "a suffix match wins over an earlier base-name match", truth: "lib/a.go",
			named:  []string{"/root/src/a.go", "/srv/lib/a.go"},
			reason: "no call touched a ground-truth file (step 2 names /srv/lib/a.go: did you mean cwd: /srv?)"},
		{name: "a name that only ends like the ground-truth file is no match", truth: "a.go",
			named:  []string{"/root/data.go"},
			reason: "no call touched a ground-truth file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var evs []events.Event
			for i, f := range tc.named {
				evs = append(evs, events.Event{StepIndex: i, ToolClass: events.FileLevel, TargetFiles: []string{f}})
			}
			ie := AnalyzeIndex(&events.Document{GroundTruth: events.GroundTruth{Files: []string{tc.truth}}, Events: evs}, IndexOptions{})
			assert.Nil(t, ie.StepsToTarget)
			assert.Equal(t, tc.reason, ie.StepsToTargetReason)
		})
	}
}
