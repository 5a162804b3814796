package metrics

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
)

// changed sets v, a field of an Event or of IndexOptions, to another value.
func changed(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else {
			changed(t, v.Elem())
		}
	case reflect.Struct:
		changed(t, v.Field(0))
	default:
		t.Fatalf("no change for a %s", v.Kind())
	}
}

func TestSameButHitsComparesEveryFieldButTheHits(t *testing.T) {
	t.Parallel()
	tokens, secs := int64(10), 1.5
	ev := events.Event{StepIndex: 3, ToolName: "Read", ToolCategory: events.FileRead, TargetFiles: []string{"a.go"}, CumulativeTokens: &tokens,
		ElapsedSeconds: &secs, ToolClass: events.FileLevel, CallID: "c", ParentCallID: "p", FilesRead: []string{"a.go"},
		FilesWritten: []string{"b.go"}, LineRanges: []events.LineRange{{Path: "a.go", Start: 1, End: 2}}, Symbols: []string{"S"}, Query: "q"}
	typ := reflect.TypeFor[events.Event]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		for _, nilled := range []bool{false, true} {
			a := ev
			a.TargetFiles = append([]string(nil), ev.TargetFiles...)
			b := a
			b.CumulativeTokens, b.ElapsedSeconds = new(int64), new(float64)
			*b.CumulativeTokens, *b.ElapsedSeconds = tokens, secs
			require.True(t, sameButHits(&a, &b), "equal values in other variables")
			f := reflect.ValueOf(&b).Elem().Field(i)
			if nilled {
				if f.Kind() != reflect.Pointer {
					continue
				}
				f.Set(reflect.Zero(f.Type()))
			} else {
				changed(t, f)
			}
			hit := name == "HitsGroundTruth" || name == "GroundTruthHits"
			assert.Equal(t, hit, sameButHits(&a, &b), "%s changed (nil: %v)", name, nilled)
			assert.Equal(t, hit, sameButHits(&b, &a), "%s changed (nil: %v), the other way", name, nilled)
		}
	}
}

func TestSameIndexRulesComparesEveryOptionButTheSymbols(t *testing.T) {
	t.Parallel()
	base := IndexOptions{FishingMinRun: 4, FishingBreak: []events.Class{events.Semantic}, FishingExtend: []events.Class{events.FileLevel},
		Symbols: []string{"S"}, TextSearchTools: []string{"Grep"}, Grades: GradeThresholds{Excellent: 0.9}}
	typ := reflect.TypeFor[IndexOptions]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		b := base
		changed(t, reflect.ValueOf(&b).Elem().Field(i))
		assert.Equal(t, name == "Symbols", sameIndexRules(base, b), name)
	}
	for _, g := range []GradeThresholds{{Good: 0.5}, {Fair: 0.1}} {
		b := base
		b.Grades = g
		b.Grades.Excellent = base.Grades.Excellent
		assert.False(t, sameIndexRules(base, b), "grades %+v", g)
	}
}

func TestPreparedFitsOnlyOptionsThatLeaveTheEventsFactsAlone(t *testing.T) {
	t.Parallel()
	src := events.SourceTrajectory
	doc := &events.Document{Coverage: events.Coverage{TraceSource: &src}, Events: []events.Event{{ToolName: "Read", FilesRead: []string{"a.go"}}}}
	p := Prepare(doc, Options{})
	for _, opts := range []Options{{Ks: []int{3}}, {Level: 2}, {Grades: map[string]int{"a.go": 2}}, {LineBudgets: []int{5}}, {Index: IndexOptions{Symbols: []string{"S"}}}} {
		assert.True(t, p.fits(doc, opts), "%+v", opts)
	}
	for _, opts := range []Options{{FoldCase: true}, {IncludeWrites: true}, {Index: IndexOptions{FishingMinRun: 2}}} {
		assert.False(t, p.fits(doc, opts), "%+v", opts)
	}
}

func TestPrepareFindsOnceWhatEachDocumentWouldFind(t *testing.T) {
	t.Parallel()
	src := events.SourceTrajectory
	doc := &events.Document{Coverage: events.Coverage{TraceSource: &src}, Events: []events.Event{
		{ToolName: "Read", TargetFiles: []string{"pkg/a.go", "b.go"}, FilesRead: []string{"pkg/a.go"}},
	}}
	p := Prepare(doc, Options{})
	assert.Equal(t, []string{"pkg", "."}, p.facts.dirs, "the surfaced files' folders")
	require.NotNil(t, p.index, "the index analysis of a document with a trace")
	assert.Equal(t, []namedPath{{step: 0, path: "pkg/a.go", base: "a.go"}, {step: 0, path: "b.go", base: "b.go"}}, p.index.targets)
	doc.Coverage.TraceSource = nil
	assert.Nil(t, Prepare(doc, Options{}).index, "no analysis without a trace")
}
