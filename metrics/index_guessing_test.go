package metrics

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// claudeSession builds a Claude Code session of calls given as tool name
// and JSON arguments, each with an empty successful result.
func claudeSession(tools []string, calls ...[2]string) *trace.Session {
	s := &trace.Session{Format: "claude-code", Source: "test.jsonl", Tools: tools}
	for i, c := range calls {
		s.Calls = append(s.Calls, trace.ToolCall{Index: i, Name: c[0], Arguments: json.RawMessage(c[1]), HasResult: true})
	}
	return s
}

// Guessing is about identifiers: a search of file contents fires, a search
// of file names does not, whatever the pattern looks like.
func TestGuessingIsATextSearchForAnIdentifierNotAFileNameSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		call  [2]string
		fires bool
	}{
		{"a Grep for an identifier fires", [2]string{"Grep", `{"pattern":"ValidateToken"}`}, true},
		{"a shell grep for an identifier fires", [2]string{"Bash", `{"command":"grep -rn ValidateToken pkg"}`}, true},
		{"a shell rg for an identifier fires", [2]string{"Bash", `{"command":"rg ValidateToken"}`}, true},
		{"a Glob for markdown files does not fire", [2]string{"Glob", `{"pattern":"**/*.md"}`}, false},
		{"a Glob naming the identifier's file does not fire", [2]string{"Glob", `{"pattern":"**/token*.go"}`}, false},
		{"find -name does not fire", [2]string{"Bash", `{"command":"find . -name '*.go'"}`}, false},
		{"ls does not fire", [2]string{"Bash", `{"command":"ls pkg/auth"}`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := events.Normalize(claudeSession(nil, tt.call), events.Options{})
			ie := AnalyzeIndex(doc, IndexOptions{})
			assert.Equal(t, RuleBeforeSemantic, ie.GuessingRule)
			assert.Equal(t, tt.fires, ie.Has(PatternGuessing), "events: %+v", doc.Events)
		})
	}
}

// Fishing and guessing by an agent whose tool list has no semantic tool are
// information: it had no index to use.
func TestPatternsOfAnAgentOfferedNoSemanticToolAreInformation(t *testing.T) {
	t.Parallel()
	var calls [][2]string
	calls = append(calls, [2]string{"Grep", `{"pattern":"ValidateToken"}`})
	for range 5 {
		calls = append(calls, [2]string{"Read", `{"file_path":"pkg/auth/token.go"}`})
	}
	tests := []struct {
		name        string
		tools       []string
		offered     *bool
		information bool
	}{
		{"no semantic tool in the list: information", []string{"Read", "Grep", "Glob", "Bash"}, new(false), true},
		{"a semantic tool in the list: a problem", []string{"Read", "Grep", "aura_search"}, new(true), false},
		{"no tool list: unknown, a problem", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ie := AnalyzeIndex(events.Normalize(claudeSession(tt.tools, calls...), events.Options{}), IndexOptions{})
			assert.Equal(t, tt.offered, ie.SemanticToolOffered)
			require.True(t, ie.Has(PatternFishing))
			require.True(t, ie.Has(PatternGuessing))
			for _, p := range ie.Patterns {
				assert.Equal(t, tt.information, p.Information, "%s", p.Name)
			}
		})
	}
}

// Messages number steps from 1, as steps to target does, and show a run of
// calls as ranges only where the calls follow one another.
func TestStepsTextNumbersFromOneAndShowsRunsAsTheyAre(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		indices []int
		want    string
	}{
		{"one step", []int{0}, "step 1"},
		{"calls in a row are a range", []int{0, 1, 2, 3, 4}, "steps 1–5"},
		{"calls with others between them are not", []int{1, 2, 7, 8, 10, 11, 12}, "steps 2–3, 8–9, 11–13"},
		{"two separate calls", []int{3, 9}, "steps 4, 10"},
		{"unsorted and repeated", []int{5, 4, 4}, "steps 5–6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, StepsText(tt.indices))
		})
	}
}

// The step a message names is the step steps to target counts.
func TestPatternDetailsAndStepsToTargetNameTheSameStep(t *testing.T) {
	t.Parallel()
	doc := events.Normalize(claudeSession(nil,
		[2]string{"Grep", `{"pattern":"ValidateToken"}`},
		[2]string{"Edit", `{"file_path":"pkg/auth/token.go","old_string":"a","new_string":"b"}`},
	), events.Options{})
	ie := AnalyzeIndex(doc, IndexOptions{})
	require.NotNil(t, ie.StepsToTarget)
	assert.Equal(t, 2, *ie.StepsToTarget, "the edit is the second call")
	guess := ie.Occurrences(PatternGuessing)
	require.Len(t, guess, 1)
	assert.Equal(t, []int{0}, guess[0].Steps, "Steps keep the 0-based step_index")
	assert.Contains(t, guess[0].Detail, "step 1: Grep")
}
