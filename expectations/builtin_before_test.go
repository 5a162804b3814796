package expectations

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBeforeJudgesWhichCallsComeFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		lines     []string
		want      Status
		inMessage string
	}{
		{"a semantic search before the first read passes", []string{`first: "class:semantic"`, `then: "category:file_read"`}, Pass, "precedes the first"},
		{"the first write after the first test run fails", []string{"first: file.write", "then: Bash"}, Fail, "the first {tool: file.write} at step 6 (file.write services/checkout/discount.go) comes after the first {tool: Bash} at step 3 (Bash)"},
		{"a then that never comes fails in mode first", []string{"first: aura_search", "then: grep_search"}, Fail, "no {tool: grep_search} call"},
		{"a then that never comes passes in mode every", []string{"first: aura_search", "then: grep_search", "mode: every"}, Pass, "no {tool: grep_search} call: nothing to precede"},
		{"a first that never comes fails", []string{"first: grep_search", "then: file.read"}, Fail, "no {tool: grep_search} call before the first"},
		{"every B after the first A passes", []string{"first: {category: file_read}", "then: {class: edit}", "mode: every"}, Pass, "every {class: edit} (1)"},
		{"a B before the first A fails in mode every", []string{"first: file.write", "then: Bash", "mode: every"}, Fail, "3 {tool: Bash} calls with no {tool: file.write} before: step 3 (Bash), step 4 (Bash), step 5 (Bash)"},
		{"an edit after a read of the same file passes", []string{"first: {category: file_read}", "then: {class: edit}", "same_file: true"}, Pass, ""},
		{"an edit after a read of another file fails", []string{"first: {category: file_read, args: {path: \"**/other.go\"}}", "then: {class: edit}", "same_file: true"}, Fail, "without a"},
		{"arguments narrow the calls", []string{"first: {tool: Bash, args: {command: {regex: \"go test\"}}}", "then: file.write"}, Pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(checkoutFix, "before", tt.lines...)))
			assert.Equal(t, tt.want, r.Status, r.Message)
			assert.Contains(t, r.Message, tt.inMessage)
		})
	}
}

func TestBeforeRejectsRulesThatCannotWork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		lines   []string
		inError string
	}{
		{"no first", []string{"then: Read"}, "first: give tool, class, category or args"},
		{"a count", []string{"first: {tool: Grep, min: 2}", "then: Read"}, "min and max count the calls of a sequence step"},
		{"same_file in mode first", []string{"first: Read", "then: Edit", "mode: first", "same_file: true"}, "give mode: every"},
		{"an unknown category", []string{`first: "category:file_reed"`, "then: Edit"}, "did you mean file_read?"},
		{"an unknown mode", []string{"first: Read", "then: Edit", "mode: all"}, "unknown value"},
		{"the same pattern twice", []string{"first: Read", "then: {tool: Read}"}, "a call cannot come before itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseInline(t, exp(checkoutFix, "before", tt.lines...))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.inError)
		})
	}
}

func TestErrorsBoundsFailedCallsAndRetryLoops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		lines     []string
		want      Status
		inMessage string
	}{
		{"three failed calls within the bound", []string{"max_failed: 3"}, Pass, "failed calls 3"},
		{"three failed calls above the bound", []string{"max_failed: 2"}, Fail, "failed calls measured 3, required ≤ 2"},
		{"failed calls per tool glob", []string{`failed: {"Ba*": {max: 2}}`}, Fail, "failed Ba* calls measured 3, required ≤ 2 (at steps 3–5)"},
		{"failed calls per class", []string{"failed_by_class: {edit: {max: 0}, other: {max: 3}}"}, Pass, ""},
		{"a retry loop within the bound", []string{"max_retries: 2"}, Pass, ""},
		{"a retry loop above the bound", []string{"max_retries: 1"}, Fail, `retries of a failing call measured 2, required ≤ 1 (Bash {"command":"go test ./services/checkout/..."} failed 3 times in a row at steps 3–5)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(checkoutFix, "errors", tt.lines...)))
			assert.Equal(t, tt.want, r.Status, r.Message)
			assert.Contains(t, r.Message, tt.inMessage)
		})
	}
}

func TestARetryLoopIsTheSameCallFailingInARow(t *testing.T) {
	t.Parallel()
	fail := func(step int, name, args string) callView {
		return callView{step: step, name: name, argsKey: args, failed: true}
	}
	tests := []struct {
		name  string
		calls []callView
		want  int
	}{
		{"no failure", []callView{{step: 0, name: "Bash"}}, 0},
		{"different arguments are not a retry", []callView{fail(0, "Bash", "a"), fail(1, "Bash", "b")}, 1},
		{"a success in between breaks the loop", []callView{fail(0, "Bash", "a"), {step: 1, name: "Bash", argsKey: "a"}, fail(2, "Bash", "a")}, 1},
		{"another tool in between breaks the loop", []callView{fail(0, "Bash", "a"), fail(1, "Read", "a"), fail(2, "Bash", "a")}, 1},
		{"the longest loop counts", []callView{fail(0, "Bash", "a"), fail(1, "Bash", "a"), fail(2, "Read", "x"), fail(3, "Read", "x"), fail(4, "Read", "x")}, 3},
	}
	for _, tt := range tests {
		assert.Len(t, longestRetryLoop(tt.calls), tt.want, tt.name)
	}
}

func TestErrorsRejectsRulesThatCannotWork(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, line, inError string }{
		{"no rule", "description: nothing", "no rule"},
		{"an unknown class", "failed_by_class: {edits: {max: 0}}", "did you mean edit?"},
		{"a bound with neither min nor max", `failed: {Bash: {}}`, "give min, max or both"},
		{"a negative retry bound", "max_retries: -1", "below the minimum 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseInline(t, exp(checkoutFix, "errors", tt.line))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.inError)
		})
	}
}

// The evidence of a failure opens with the calls that broke the rule: the
// markdown report shows evidence, not the message.
func TestABeforeFailureNamesTheCallsThatBrokeTheRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		broke string
	}{
		{"a first after the first then", []string{"first: file.write", "then: Bash"},
			"the calls that broke the rule: step 3 (Bash) came before step 6 (file.write services/checkout/discount.go)"},
		{"a first that never comes", []string{"first: grep_search", "then: file.read"}, "the call that broke the rule: step 2 (file.read"},
		{"thens before the first in mode every", []string{"first: file.write", "then: Bash", "mode: every"},
			"the calls that broke the rule: step 3 (Bash), step 4 (Bash), step 5 (Bash)"},
		{"an edit of a file not read before", []string{"first: {category: file_read, args: {path: \"**/other.go\"}}", "then: {class: edit}", "same_file: true"},
			"the calls that broke the rule: step 6 (file.write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(checkoutFix, "before", tt.lines...)))
			require.Equal(t, Fail, r.Status, r.Message)
			require.NotEmpty(t, r.Evidence)
			assert.Contains(t, r.Evidence[0], tt.broke)
		})
	}
	r := only(t, evalInline(t, exp(checkoutFix, "before", `first: "class:semantic"`, `then: "category:file_read"`)))
	require.Equal(t, Pass, r.Status)
	for _, e := range r.Evidence {
		assert.NotContains(t, e, "broke the rule", "a pass names no culprit")
	}
}

// Evidence names the calls of each side that the run has, and nothing for
// a side it lacks.
func TestBeforeEvidenceListsOnlyTheCallsThatExist(t *testing.T) {
	t.Parallel()
	r := only(t, evalInline(t, exp(checkoutFix, "before", "first: grep_search", "then: file.read")))
	require.Equal(t, Fail, r.Status)
	require.Len(t, r.Evidence, 2, "the culprit and the then calls: %q", r.Evidence)
	assert.True(t, strings.HasPrefix(r.Evidence[1], "{tool: file.read} at step"), r.Evidence[1])

	r = only(t, evalInline(t, exp(checkoutFix, "before", "first: aura_search", "then: grep_search")))
	require.Equal(t, Fail, r.Status)
	require.Len(t, r.Evidence, 1, "the first calls only: %q", r.Evidence)
	assert.True(t, strings.HasPrefix(r.Evidence[0], "{tool: aura_search} at step"), r.Evidence[0])
}
