package expectations

import (
	"encoding/json"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCallPatternReadsTheShortForms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want CallPattern
	}{
		{"Read", CallPattern{Tool: "Read"}},
		{"  mcp__*__search ", CallPattern{Tool: "mcp__*__search"}},
		{"class:semantic", CallPattern{Class: "semantic"}},
		{"category: file_read", CallPattern{Category: "file_read"}},
	} {
		p, err := ParseCallPattern(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, p.resolved(), c.in)
	}
	for in, want := range map[string]string{
		"[":              `"[" is not a glob`,
		"class:fishing":  `"class:fishing": unknown class "fishing"`,
		"category:greps": `"category:greps": unknown category "greps"`,
		"   ":            "an empty pattern matches every call",
		"class:":         "an empty pattern matches every call",
	} {
		_, err := ParseCallPattern(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

func TestAnArgMatcherReadsEveryKindOfJSONValue(t *testing.T) {
	paths := events.PathNormalizer{CWD: "/work/shop"}
	for _, c := range []struct {
		name string
		m    ArgMatcher
		v    any
		want bool
	}{
		{"a number by its JSON text", ArgMatcher{Glob: "50"}, float64(50), true},
		{"not by a part of it", ArgMatcher{Glob: "5"}, float64(50), false},
		{"a fraction in full", ArgMatcher{Regex: `^0\.25$`}, 0.25, true},
		{"a boolean", ArgMatcher{Glob: "true"}, true, true},
		{"a false boolean", ArgMatcher{Glob: "true"}, false, false},
		{"null", ArgMatcher{Glob: "null"}, nil, true},
		{"an object by its JSON text", ArgMatcher{Regex: `"depth":2`}, map[string]any{"depth": float64(2)}, true},
		{"an object that does not match", ArgMatcher{Regex: `"depth":3`}, map[string]any{"depth": float64(2)}, false},
		{"a list when an item matches", ArgMatcher{Glob: "**/*.go"}, []any{float64(1), "cart/retry.go"}, true},
		{"a list when none does", ArgMatcher{Glob: "*.go"}, []any{"README.md", true}, false},
		{"a * stays within one folder", ArgMatcher{Glob: "*.go"}, "cart/retry.go", false},
		{"an empty list", ArgMatcher{Glob: "*"}, []any{}, false},
		{"a path by its normalized form", ArgMatcher{Glob: "cart/retry.go"}, "/work/shop/cart/retry.go", true},
		{"a path as written", ArgMatcher{Glob: "/work/shop/*/retry.go"}, "/work/shop/cart/retry.go", true},
		{"a path under neither form", ArgMatcher{Glob: "api/*.go"}, "/work/shop/cart/retry.go", false},
		{"glob and regex both", ArgMatcher{Glob: "cart/*.go", Regex: "retry"}, "cart/retry.go", true},
		{"glob and regex, one failing", ArgMatcher{Glob: "cart/*.go", Regex: "^api/"}, "cart/retry.go", false},
		{"an invalid regex matches nothing", ArgMatcher{Regex: "("}, "(", false},
	} {
		assert.Equal(t, c.want, c.m.matches(c.v, paths), c.name)
	}
}

func TestIndexAndCallsSayWhyARunHasNone(t *testing.T) {
	ie, why := indexOf(nil)
	assert.Nil(t, ie)
	assert.Equal(t, "the run was not measured", why)
	reason := "no tool calls could be classified"
	ie, why = indexOf(&Run{Metrics: &metrics.Result{Coverage: events.Coverage{DegradedReason: &reason}}})
	assert.Nil(t, ie)
	assert.Equal(t, reason, why)
	_, why = indexOf(&Run{Metrics: &metrics.Result{}})
	assert.Equal(t, "the trace has no usable tool calls", why)
	want := &metrics.IndexEffectiveness{}
	ie, why = indexOf(&Run{Metrics: &metrics.Result{IndexEffectiveness: want}})
	assert.Same(t, want, ie)
	assert.Empty(t, why)

	_, ok := callsOf(nil)
	assert.False(t, ok)
	_, ok = callsOf(&Run{})
	assert.False(t, ok, "a run with neither document nor session")
	calls, ok := callsOf(&Run{Session: &trace.Session{Calls: []trace.ToolCall{{Index: 0, Name: "Read"}, {Index: 2, Name: "Grep"}}}})
	require.True(t, ok)
	assert.Equal(t, []toolCall{{0, "Read"}, {2, "Grep"}}, calls, "the session's calls when there is no document")
}

func TestACallsKeyIsItsArgumentsWithKeysSorted(t *testing.T) {
	view := func(raw string) callView { return callView{lazy: &lazyArgs{raw: json.RawMessage(raw)}} }
	a, b := view(`{"b": 1, "a": {"d": 2, "c": 3}}`), view(`{"a":{"c":3,"d":2},"b":1}`)
	assert.Equal(t, `{"a":{"c":3,"d":2},"b":1}`, a.key())
	assert.Equal(t, a.key(), b.key(), "the same arguments in another order")
	assert.NotEqual(t, a.key(), view(`{"a":{"c":3,"d":2},"b":2}`).key())
	assert.Equal(t, `{"a":`, view(`{"a":`).key(), "arguments that are not JSON are their text")
	assert.Empty(t, view(``).key(), "no arguments")
	assert.Equal(t, "x", callView{argsKey: "x"}.key(), "a view without raw arguments keeps its key")
}

func TestAnExactPatternWithoutArgumentsMatchesOnlyACallWithNone(t *testing.T) {
	exact := CallPattern{Tool: "Read", Match: "exact"}
	withArgs := callView{name: "Read", lazy: &lazyArgs{raw: json.RawMessage(`{"file_path":"a.go"}`)}}
	without := callView{name: "Read", lazy: &lazyArgs{raw: json.RawMessage(`{}`)}}
	var paths events.PathNormalizer
	assert.False(t, exact.matches(withArgs, paths))
	assert.True(t, exact.matches(without, paths))
	assert.True(t, CallPattern{Tool: "Read"}.matches(withArgs, paths), "partial, the default, with no args matches any")
	assert.True(t, CallPattern{Tool: "Read", Match: "ignore", Args: map[string]ArgMatcher{"x": {Glob: "y"}}}.matches(withArgs, paths))
	assert.False(t, CallPattern{Tool: "Read", Args: map[string]ArgMatcher{"x": {Glob: "y"}}}.matches(withArgs, paths), "a listed argument the call lacks")
}
