package expectations

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkoutFix: aura_search (semantic), file.read of
// services/checkout/discount.go (file_level, file_read), three identical
// failing Bash go test calls (steps 2–4), file.write of discount.go
// (edit), a passing Bash go test.
const checkoutFix = "trace: ../traces/checkout-fix.toolcalls.json\n"

func TestSequenceJudgesTheOrderOfCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  Status
		// inMessage is a part of the message.
		inMessage string
	}{
		{"in order with gaps passes", []string{"calls: [aura_search, file.read, file.write]"}, Pass, "came in order"},
		{"classes and categories match", []string{"calls: [{class: semantic}, {category: file_read}, {class: edit}]"}, Pass, ""},
		{"the short forms of class and category match", []string{`calls: ["class:semantic", "category:file_read", "class:edit"]`}, Pass, ""},
		{"a call out of order fails at the expected call it never reached", []string{"calls: [file.write, file.read]"}, Fail, "expected call 2 of 2 {tool: file.read}"},
		{"a call that never came fails", []string{"calls: [aura_search, grep_search]"}, Fail, "it never came"},
		{"exact mode fails on a gap", []string{"mode: exact", "calls: [aura_search, file.read, file.write]"}, Fail, "matching stopped at step 3 (Bash)"},
		{"exact mode passes with counts for the repeats", []string{"mode: exact", "calls: [aura_search, file.read, {tool: Bash, min: 3}, file.write, Bash]"}, Pass, ""},
		{"a max count stops the walk", []string{"calls: [file.read, {tool: Bash, max: 2}, file.write]"}, Fail, "matched 3 calls, required in [1, 2]"},
		{"a min count needs the repeats", []string{"calls: [{tool: Bash, min: 5}, file.write]"}, Fail, "matched 4 calls, required ≥ 5"},
		{"an optional call may be absent", []string{"calls: [aura_search, {tool: grep_search, min: 0}, file.read]"}, Pass, ""},
		{"an optional call at the end may be absent", []string{"calls: [file.write, {tool: grep_search, min: 0}]"}, Pass, "came in order"},
		{"the call after an optional one must still come", []string{"calls: [aura_search, {tool: grep_search, min: 0}, list_dir]"}, Fail,
			"matching stopped at expected call 3 of 3 {tool: list_dir}: it never came"},
		{"where the walk stopped names the last match", []string{"calls: [aura_search, grep_search]"}, Fail,
			"(none after step 1, the last match, among the trace's 7 calls)"},
		{"exact mode past the last expected call names only it", []string{"mode: exact", "calls: [aura_search, file.read]"}, Fail,
			"matching stopped at step 3 (Bash): it matches neither expected call 2 of 2 {tool: file.read}"},
		{"superset takes as many calls as the max", []string{"mode: superset", "calls: [file.write, {tool: Bash, max: 4}]"}, Pass, "2 of 2 expected calls matched"},
		{"unordered takes as few calls as the min", []string{"mode: unordered", "calls: [file.write, {tool: Bash, min: 4, max: 4}, file.read, aura_search]"}, Pass, "4 of 4 expected calls matched"},
		{"a max of zero forbids the call there", []string{"calls: [aura_search, {tool: Bash, min: 0, max: 0}]"}, Fail, "expected call 2 of 2 {tool: Bash} matched 1 call, required exactly 0"},
		{"unordered passes with every call accounted for", []string{"mode: unordered", "calls: [file.write, {tool: Bash, min: 4}, file.read, aura_search]"}, Pass, ""},
		{"unordered fails on an unexpected call", []string{"mode: unordered", "calls: [file.write, {tool: Bash, min: 4}, file.read]"}, Fail, "1 call matching no expected call: step 1 (aura_search"},
		{"subset passes when every call is listed", []string{"mode: subset", "calls: [aura_*, file.*, Bash, grep_search]"}, Pass, ""},
		{"subset fails on a call outside the list", []string{"mode: subset", "calls: [file.*, Bash]"}, Fail, "matching no expected call"},
		{"superset passes in any order", []string{"mode: superset", "calls: [file.write, aura_search]"}, Pass, ""},
		{"superset fails on a missing call", []string{"mode: superset", "calls: [file.write, grep_search]"}, Fail, "{tool: grep_search} matched 0 calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(checkoutFix, "sequence", tt.lines...)))
			assert.Equal(t, tt.want, r.Status, r.Message)
			assert.Contains(t, r.Message, tt.inMessage)
		})
	}
}

func TestSequenceEvidenceNamesWhereMatchingStopped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"a gap in exact mode", []string{"mode: exact", "calls: [aura_search, file.read, file.write]"}, []string{
			"expected call 1 of 3 {tool: aura_search} matched step 1",
			"expected call 2 of 3 {tool: file.read} matched step 2",
			"matching stopped at step 3 (Bash), waiting for expected call 3 of 3 {tool: file.write}",
		}},
		{"a call that never came", []string{"calls: [file.read, grep_search, file.write]"}, []string{
			"expected call 1 of 3 {tool: file.read} matched step 2",
			"matching stopped at the end of the trace, waiting for expected call 2 of 3 {tool: grep_search}",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(checkoutFix, "sequence", tt.lines...)))
			assert.Equal(t, Fail, r.Status)
			assert.Equal(t, tt.want, r.Evidence)
		})
	}
}

func TestSequenceMatchesArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call string
		want Status
	}{
		{"a ** glob crosses folders of a normalized absolute path", `{tool: file.read, args: {path: "**/checkout/*.go"}}`, Pass},
		{"** matches no folder too", `{tool: file.write, args: {path: "**/services/checkout/discount.go"}}`, Pass},
		{"a glob that names another folder fails", `{tool: file.read, args: {path: "**/billing/*.go"}}`, Fail},
		{"a regex matches inside the value", `{class: semantic, args: {query: {regex: "disc\\w+ rounding"}}}`, Pass},
		{"a regex that does not match fails", `{class: semantic, args: {query: {regex: "^rounding"}}}`, Fail},
		{"a value without wildcards must be equal", `{tool: aura_search, args: {query: discount}}`, Fail},
		{"an absent argument fails", `{tool: aura_search, args: {limit: 5}}`, Fail},
		{"exact match fails on an unlisted argument", `{tool: file.write, args: {path: "**/discount.go"}, match: exact}`, Fail},
		{"exact match passes when every argument is listed", `{tool: file.write, args: {path: "**/discount.go", content: "*"}, match: exact}`, Pass},
		{"ignore match does not look at arguments", `{tool: file.read, args: {path: "**/billing/*.go"}, match: ignore}`, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(checkoutFix, "sequence", "mode: superset", "calls: ["+tt.call+"]")))
			assert.Equal(t, tt.want, r.Status, r.Message)
		})
	}
}

func TestGlobMatchCrossesFoldersOnlyWithDoubleStar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"**/checkout/*.go", "checkout/a.go", true},
		{"**/checkout/*.go", "svc/x/checkout/a.go", true},
		{"**/checkout/*.go", "svc/checkout/sub/a.go", false},
		{"svc/**", "svc/a/b/c.go", true},
		{"svc/**/c.go", "svc/c.go", true},
		{"*.go", "pkg/a.go", false},
		{"pkg/*.go", "pkg/a.go", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, globMatch(tt.glob, tt.name), "%s against %s", tt.glob, tt.name)
	}
}

func TestSequenceRejectsPatternsThatCannotWork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, inError string
	}{
		{"no calls", "calls: []", "no calls"},
		{"an unknown short class", `calls: ["class:semantik"]`, "did you mean semantic?"},
		{"an unknown class key value", "calls: [{class: semantik}]", "semantic"},
		{"an empty pattern", "calls: [{match: exact}]", "an empty pattern matches every call"},
		{"min above max", "calls: [{tool: Bash, min: 3, max: 2}]", "min 3 is above max 2"},
		{"a matcher with nothing", "calls: [{tool: Bash, args: {command: {}}}]", "give a glob or a regex"},
		{"an unknown mode", "mode: in-order", "did you mean in_order?"},
		{"a bad regex", `calls: [{tool: Bash, args: {command: {regex: "("}}}]`, "not a regular expression"},
		{"only optional calls", "calls: [{tool: Bash, min: 0}]", "no run can fail in_order"},
		{"a list where a call goes", "calls: [[Bash]]", "calls[0]: expected a string (its tool) or a mapping with keys tool, class, category, args, match, min, max, got a list"},
		{"an unknown key in a call", "calls: [{tool: Bash, arg: {command: x}}]", "did you mean args?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseInline(t, exp(checkoutFix, "sequence", tt.line))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.inError)
			assert.Regexp(t, `inline\.yaml:\d+:\d+: `, err.Error())
		})
	}
}

// A call with min 0 and a max can still fail a run (by coming too often),
// so a sequence of such calls is taken.
func TestSequenceTakesOptionalCallsWithAMax(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"calls: [{tool: Bash, min: 0, max: 0}]", "calls: [{tool: Bash, min: 0, max: 2}]"} {
		_, err := parseInline(t, exp(checkoutFix, "sequence", line))
		assert.NoError(t, err, line)
	}
	r := only(t, evalInline(t, exp(checkoutFix, "sequence", "calls: [{tool: Bash, min: 0, max: 2}]")))
	assert.Equal(t, Fail, r.Status, "four Bash calls are two too many")
}
