package events

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

func TestClassifyCallByArgument(t *testing.T) {
	t.Parallel()
	tax := DefaultTaxonomy()
	tests := []struct {
		name     string
		tool     string
		args     string
		category Category
		class    Class
	}{
		{"an editor's view is a file-level read", "str_replace_editor", `{"command": "view", "path": "/repo/x.py"}`, FileRead, FileLevel},
		{"an editor's str_replace is an edit", "str_replace_editor", `{"command": "str_replace", "path": "/repo/x.py", "old_str": "a", "new_str": "b"}`, FileWrite, Edit},
		{"an editor's create is an edit", "str_replace_editor", `{"command": "create", "path": "/repo/y.py", "file_text": "x"}`, FileWrite, Edit},
		{"an editor's insert is an edit", "str_replace_editor", `{"command": "insert", "path": "/repo/y.py", "insert_line": 3, "new_str": "x"}`, FileWrite, Edit},
		{"an editor call without a command takes the rule's default", "str_replace_editor", `{"path": "/repo/x.py"}`, FileWrite, Edit},
		{"an unlisted command takes the rule's default", "str_replace_editor", `{"command": "frobnicate", "path": "/repo/x.py"}`, FileWrite, Edit},
		{"a command that is not a string takes the rule's default", "str_replace_editor", `{"command": ["view"], "path": "/repo/x.py"}`, FileWrite, Edit},
		{"arguments that are not an object take the rule's default", "str_replace_editor", `"view /repo/x.py"`, FileWrite, Edit},
		{"the OpenHands SDK's file_editor view is a read", "file_editor", `{"command": "view", "path": "/repo/x.py"}`, FileRead, FileLevel},
		{"the OpenHands SDK's file_editor undo_edit is an edit", "file_editor", `{"command": "undo_edit", "path": "/repo/x.py"}`, FileWrite, Edit},
		{"Anthropic's text editor tool view is a read", "str_replace_based_edit_tool", `{"command": "view", "path": "x.py"}`, FileRead, FileLevel},
		{"an SWE-agent command line is read for its subcommand", "str_replace_editor", `{"command": "str_replace_editor view /repo/x.py --view_range 10 40"}`, FileRead, FileLevel},
		{"an SWE-agent command line that edits is an edit", "str_replace_editor", `{"command": "str_replace_editor str_replace /repo/x.py --old_str 'a b' --new_str c"}`, FileWrite, Edit},
		{"a tool without per-call rules keeps its class", "Read", `{"file_path": "x.go"}`, FileRead, FileLevel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, known := tax.ClassifyCall(&trace.ToolCall{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			require.True(t, known)
			assert.Equal(t, tt.category, r.Category)
			assert.Equal(t, tt.class, r.Class)
		})
	}
}

func TestUserRuleClassifiesPerCall(t *testing.T) {
	t.Parallel()
	rules, err := ParseTaxonomy("mine.yaml", []byte(`profile: my-index
tools:
  - match: "mcp__idx__query"
    by: mode
    category: code_search
    class: semantic
    cases:
      definition: {category: symbol_navigation, class: semantic}
      grep: {category: code_search, class: file_level}
      "true": {category: other, class: other}
`))
	require.NoError(t, err)
	tax, err := NewTaxonomy(rules...)
	require.NoError(t, err)
	tests := []struct {
		name     string
		args     string
		category Category
		class    Class
	}{
		{"a listed value selects its case", `{"mode": "definition", "q": "Foo"}`, SymbolNavigation, Semantic},
		{"another value selects another case", `{"mode": "grep", "q": "Foo"}`, CodeSearch, FileLevel},
		{"a boolean argument is matched by its YAML spelling", `{"mode": true}`, OtherCategory, OtherClass},
		{"a missing argument takes the default", `{"q": "Foo"}`, CodeSearch, Semantic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := tax.ClassifyCall(&trace.ToolCall{Name: "mcp__idx__query", Arguments: json.RawMessage(tt.args)})
			assert.Equal(t, tt.category, r.Category)
			assert.Equal(t, tt.class, r.Class)
			assert.True(t, r.IsMCP("mcp__idx__query"))
		})
	}
}

func TestARuleByAWrittenTextSeesTheText(t *testing.T) {
	t.Parallel()
	// Extraction leaves a Write's content undecoded (unreadArgKeys),
	// unless a rule classifies by it.
	tax, err := NewTaxonomy(Rule{Match: "Write", Category: FileWrite, Class: Edit, By: "content",
		Cases: map[string]Case{"x": {Category: FileRead, Class: FileLevel}}})
	require.NoError(t, err)
	call := &trace.ToolCall{Name: "Write", Arguments: json.RawMessage(`{"file_path": "a.go", "content": "x"}`)}
	r, _ := tax.ClassifyCall(call)
	assert.Equal(t, FileRead, r.Category)
	assert.Equal(t, []FileRef{{Path: "a.go", Read: true}}, Extract(call, r, PathNormalizer{}).Files)
}

func TestPerCallRuleErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"by without cases names the rule's line", "tools:\n  - {match: a, category: other, class: other}\n  - {match: ed, by: command, category: file_write, class: edit}\n",
			`bad.yaml:3:21: tools[1]: taxonomy rule "ed": by: command needs cases`},
		{"cases without by is an error", "tools:\n  - match: ed\n    category: file_write\n    class: edit\n    cases:\n      view: {category: file_read, class: file_level}\n",
			`bad.yaml:2:10: tools[0]: taxonomy rule "ed": cases need by`},
		{"a misspelled category in a case names its line and column", "tools:\n  - match: ed\n    by: command\n    category: file_write\n    class: edit\n    cases:\n      view: {category: file_raed, class: file_level}\n",
			`bad.yaml:7:24: unknown category "file_raed"`},
		{"an unknown key in a case is an error", "tools:\n  - match: ed\n    by: command\n    category: file_write\n    class: edit\n    cases:\n      view: {category: file_read, klass: file_level}\n",
			`bad.yaml:7:35: unknown key "klass"`},
		{"a case without a class is an error", "tools:\n  - match: ed\n    by: command\n    category: file_write\n    class: edit\n    cases:\n      view: {category: file_read}\n",
			`bad.yaml:7:13: tools[0]: taxonomy rule "ed": case "view" has no class`},
		{"cases must be a map", "tools:\n  - {match: ed, by: command, category: file_write, class: edit, cases: [view]}\n",
			`bad.yaml:2`},
		{"zero_based_offset must be a boolean", "tools:\n  - {match: r, category: file_read, class: file_level, zero_based_offset: maybe}\n",
			`bad.yaml:2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseTaxonomy("bad.yaml", []byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewTaxonomyChecksCases(t *testing.T) {
	t.Parallel()
	_, err := NewTaxonomy(Rule{Match: "ed", Category: FileWrite, Class: Edit, By: "command", Cases: map[string]Case{"view": {Category: "reading", Class: FileLevel}}})
	require.ErrorContains(t, err, `case "view": unknown category "reading"`)
	_, err = NewTaxonomy(Rule{Match: "ed", Category: FileWrite, Class: Edit, By: "command", Cases: map[string]Case{"view": {Category: FileRead, Class: "lvl"}}})
	require.ErrorContains(t, err, `case "view": unknown class "lvl"`)
}

// TestNormalizeClassifiesEachEditorCall follows the per-call decision from
// the taxonomy to the document's events and summary.
func TestNormalizeClassifiesEachEditorCall(t *testing.T) {
	t.Parallel()
	s := &trace.Session{Format: "openhands-v0", CWD: "/workspace", Calls: []trace.ToolCall{
		{Index: 0, Name: "str_replace_editor", Arguments: json.RawMessage(`{"command": "view", "path": "/workspace/app.py", "view_range": [10, 20]}`),
			Result: "Here's the result of running `cat -n` on /workspace/app.py:\n    10\tdef f():\n    11\t    return 1\n", HasResult: true},
		{Index: 1, Name: "str_replace_editor", Arguments: json.RawMessage(`{"command": "str_replace", "path": "/workspace/app.py", "old_str": "1", "new_str": "2"}`),
			Result: "The file /workspace/app.py has been edited.", HasResult: true},
		{Index: 2, Name: "str_replace_editor", Arguments: json.RawMessage(`{"command": "view", "path": "/workspace"}`),
			Result: "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n/workspace/\n/workspace/app.py\n", HasResult: true},
	}}
	doc := Normalize(s, Options{})
	require.Len(t, doc.Events, 3)

	view, edit, list := doc.Events[0], doc.Events[1], doc.Events[2]
	assert.Equal(t, [2]any{FileRead, FileLevel}, [2]any{view.ToolCategory, view.ToolClass})
	assert.Equal(t, []string{"app.py"}, view.FilesRead)
	assert.Equal(t, []LineRange{lines("app.py", 10, 11)}, view.LineRanges)
	assert.Equal(t, [2]any{FileWrite, Edit}, [2]any{edit.ToolCategory, edit.ToolClass})
	assert.Equal(t, []string{"app.py"}, edit.FilesWritten)
	assert.Equal(t, [2]any{FileSearch, FileLevel}, [2]any{list.ToolCategory, list.ToolClass}, "a view of a directory is a listing")
	assert.Equal(t, 2, doc.Summary.EventsByClass[FileLevel])
	assert.Equal(t, 1, doc.Summary.EventsByClass[Edit])
}

// TestExtractAppliesPerCallRules checks that Extract, given the rule that
// Classify returns for the name, reports the per-call outcome itself.
func TestExtractAppliesPerCallRules(t *testing.T) {
	t.Parallel()
	rule, _ := DefaultTaxonomy().Classify("file_editor")
	require.NotEmpty(t, rule.By)
	e := Extract(&trace.ToolCall{Name: "file_editor", Arguments: json.RawMessage(`{"command": "view", "path": "/w/a.go", "view_range": [3, 9]}`)}, rule, PathNormalizer{CWD: "/w"})
	assert.Equal(t, FileRead, e.Category)
	assert.Equal(t, FileLevel, e.Class)
	assert.Equal(t, []FileRef{argRead("a.go")}, e.Files)
	assert.Equal(t, []LineRange{lines("a.go", 3, 9)}, e.Ranges)
}
