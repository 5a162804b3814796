package events

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuiltinProfilesLoad(t *testing.T) {
	t.Parallel()
	names := ProfileNames()
	require.Equal(t, []string{"claude-code", "amp", "aura", "cline", "codex", "copilot", "cursor", "gemini-cli", "generic", "mini-swe-agent", "openhands", "sourcegraph-mcp", "swe-agent"}, names)
	for _, n := range names {
		rules, err := Profile(n)
		require.NoError(t, err, n)
		require.NotEmpty(t, rules, n)
		for _, r := range rules {
			assert.Equal(t, n, r.Profile)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tax := DefaultTaxonomy()
	tests := []struct {
		name     string
		tool     string
		category Category
		class    Class
		known    bool
		mcp      bool
		shell    bool
	}{
		{"Claude Read is a file-level read", "Read", FileRead, FileLevel, true, false, false},
		{"Claude Grep is a file-level code search", "Grep", CodeSearch, FileLevel, true, false, false},
		{"Claude Glob is a file-level file search", "Glob", FileSearch, FileLevel, true, false, false},
		{"Claude Edit is an edit", "Edit", FileWrite, Edit, true, false, false},
		{"Claude Bash is a shell tool", "Bash", OtherCategory, OtherClass, true, false, true},
		{"Sourcegraph keyword search with sg_ prefix is semantic", "mcp__sourcegraph__sg_keyword_search", CodeSearch, Semantic, true, true, false},
		{"Sourcegraph keyword search without prefix is semantic", "mcp__sourcegraph__keyword_search", CodeSearch, Semantic, true, true, false},
		{"Sourcegraph go to definition is navigation", "mcp__sourcegraph__sg_go_to_definition", SymbolNavigation, Semantic, true, true, false},
		{"Sourcegraph read_file is a file-level read", "mcp__sourcegraph__sg_read_file", FileRead, FileLevel, true, true, false},
		{"Sourcegraph deepsearch is deep search", "mcp__sourcegraph__deepsearch", DeepSearch, Semantic, true, true, false},
		{"Sourcegraph commit search is commit search", "mcp__sourcegraph__sg_commit_search", CommitSearch, Semantic, true, true, false},
		{"an unlisted Sourcegraph tool falls to the server glob", "mcp__sourcegraph__sg_new_tool", OtherCategory, OtherClass, true, true, false},
		{"aura_search is semantic", "aura_search", CodeSearch, Semantic, true, false, false},
		{"aura_navigate is semantic navigation", "aura_navigate", SymbolNavigation, Semantic, true, false, false},
		{"aura_inspect is semantic", "aura_inspect", SymbolNavigation, Semantic, true, false, false},
		{"Aura MCP codebase tools are semantic and MCP", "mcp_aura_codebase_search", CodeSearch, Semantic, true, true, false},
		{"an unlisted Aura MCP tool matches the glob", "mcp_aura_codebase_outline", CodeSearch, Semantic, true, true, false},
		{"file.read is file-level", "file.read", FileRead, FileLevel, true, false, false},
		{"grep_search is file-level", "grep_search", CodeSearch, FileLevel, true, false, false},
		{"list_dir is file-level", "list_dir", FileSearch, FileLevel, true, false, false},
		{"Copilot semantic_search is semantic", "semantic_search", CodeSearch, Semantic, true, false, false},
		{"Amp edit_file is an edit", "edit_file", FileWrite, Edit, true, false, false},
		{"Amp's finder subagent searches the codebase", "finder", CodeSearch, Semantic, true, false, false},
		{"Amp glob is a file search", "glob", FileSearch, FileLevel, true, false, false},
		{"Cursor codebase_search queries its embedding index", "codebase_search", CodeSearch, Semantic, true, false, false},
		{"Cline search_files is a file-level search", "search_files", CodeSearch, FileLevel, true, false, false},
		{"Cline list_files is a file-level listing", "list_files", FileSearch, FileLevel, true, false, false},
		{"Cline replace_in_file is an edit", "replace_in_file", FileWrite, Edit, true, false, false},
		{"Cline use_mcp_tool goes to an MCP server", "use_mcp_tool", OtherCategory, OtherClass, true, true, false},
		{"Cursor run_terminal_cmd is a shell tool", "run_terminal_cmd", OtherCategory, OtherClass, true, false, true},
		{"Cursor search_replace is an edit", "search_replace", FileWrite, Edit, true, false, false},
		{"a Cursor MCP tool counts as MCP by its mcp_ prefix", "mcp_linear_list_issues", OtherCategory, OtherClass, false, true, false},
		{"OpenHands execute_bash is a shell tool", "execute_bash", OtherCategory, OtherClass, true, false, true},
		{"terminus bash_command is a shell tool", "bash_command", OtherCategory, OtherClass, true, false, true},
		{"SWE-agent open is a file-level read", "open", FileRead, FileLevel, true, false, false},
		{"SWE-agent edit is an edit", "edit", FileWrite, Edit, true, false, false},
		{"an unknown tool is other and unclassified", "frobnicate", OtherCategory, OtherClass, false, false, false},
		{"an unknown MCP tool counts as MCP", "mcp__github__search_code", OtherCategory, OtherClass, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, known := tax.Classify(tt.tool)
			assert.Equal(t, tt.known, known)
			assert.Equal(t, tt.category, r.Category)
			assert.Equal(t, tt.class, r.Class)
			assert.Equal(t, tt.mcp, r.IsMCP(tt.tool))
			assert.Equal(t, tt.shell, r.Shell)
		})
	}
}

func TestClassifyTakesTheFirstMatchingRuleInOrder(t *testing.T) {
	t.Parallel()
	// Classify looks names up instead of trying every rule: it must give
	// what trying them in order gives, globs before and after exact names
	// included.
	mine, err := NewTaxonomy(
		Rule{Match: "mcp__*", Category: CodeSearch, Class: Semantic},
		Rule{Match: "Read", Category: FileRead, Class: FileLevel},
		Rule{Match: "mcp__idx__read", Category: FileRead, Class: FileLevel},
		Rule{Match: "R?ad", Category: OtherCategory, Class: OtherClass},
		Rule{Match: "Read", Category: FileWrite, Class: Edit},
		Rule{Match: "Re[ae]d", Category: OtherCategory, Class: OtherClass},
		Rule{Match: "R*", Category: FileSearch, Class: FileLevel},
	)
	require.NoError(t, err)
	for _, tax := range []*Taxonomy{mine, DefaultTaxonomy(), DefaultTaxonomy().Prefer("codex")} {
		names := []string{"Raad", "Reed", "Rxad", "Rx", "mcp__idx__read", "nothing matches this", ""}
		for _, r := range tax.rules {
			names = append(names, r.Match, strings.ReplaceAll(r.Match, "*", "x"))
		}
		for _, name := range names {
			want, wantKnown := Rule{Match: name, Category: OtherCategory, Class: OtherClass}, false
			for _, r := range tax.rules {
				if r.matches(name) {
					want, wantKnown = r, true
					break
				}
			}
			got, known := tax.Classify(name)
			assert.Equal(t, wantKnown, known, "%q", name)
			assert.Equal(t, want, got, "%q", name)
		}
	}
}

func TestUserTaxonomyOverridesProfiles(t *testing.T) {
	t.Parallel()
	file := filepath.Join("testdata", "my-index.taxonomy.yaml")
	tax, err := LoadTaxonomy([]string{"claude-code"}, file)
	require.NoError(t, err)

	r, known := tax.Classify("Grep")
	require.True(t, known)
	assert.Equal(t, Semantic, r.Class, "the user file's rule comes before the profile's")
	assert.Equal(t, "my-index", r.Profile)

	r, known = tax.Classify("mcp__myindex__search_code")
	require.True(t, known)
	assert.Equal(t, CodeSearch, r.Category)
	assert.True(t, r.IsMCP("mcp__myindex__search_code"))

	r, _ = tax.Classify("Read")
	assert.Equal(t, FileRead, r.Category, "the profile still classifies the rest")
	assert.Equal(t, file+",claude-code", tax.Name())

	// Without the user file, Grep is file-level again.
	plain, err := LoadTaxonomy([]string{"claude-code"})
	require.NoError(t, err)
	r, _ = plain.Classify("Grep")
	assert.Equal(t, FileLevel, r.Class)
}

func TestProfileSelectionLimitsClassification(t *testing.T) {
	t.Parallel()
	tax, err := LoadTaxonomy([]string{"aura"})
	require.NoError(t, err)
	_, known := tax.Classify("Read")
	assert.False(t, known, "Read is a claude-code tool, not an aura one")
	_, known = tax.Classify("aura_search")
	assert.True(t, known)
}

func TestTaxonomyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"a misspelled category names its line and column", "tools:\n  - match: a\n    category: code_serch\n    class: semantic\n", `bad.yaml:3:15: unknown category "code_serch"`},
		{"an unknown class is an error", "tools:\n  - {match: a, category: other, class: sematic}\n", `bad.yaml:2:40: unknown class "sematic"`},
		{"an unknown key is an error", "tools:\n  - match: a\n    category: other\n    class: other\n    klass: x\n", `bad.yaml:5:5: unknown key "klass"`},
		{"an unknown top-level key is an error", "profle: x\ntools:\n  - {match: a, category: other, class: other}\n", `bad.yaml:1:1: unknown key "profle"`},
		{"a taxonomy without tools is an error", "profile: x\n", "bad.yaml: taxonomy has no tools"},
		{"a rule without match is an error", "tools:\n  - {category: other, class: other}\n", "tools[0]: taxonomy rule has no match"},
		{"a bad glob is an error", "tools:\n  - {match: \"mcp[\", category: other, class: other}\n", `taxonomy rule "mcp[": bad glob`},
		{"a list where a category belongs is an error", "tools:\n  - {match: a, category: [x], class: other}\n", "bad.yaml:2:26: expected a string"},
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

func TestLoadTaxonomyErrors(t *testing.T) {
	t.Parallel()
	_, err := LoadTaxonomy([]string{"nope"})
	require.ErrorContains(t, err, `unknown taxonomy profile "nope" (built-in: claude-code, amp, aura, cline, codex, copilot, cursor, gemini-cli, generic, mini-swe-agent, openhands, sourcegraph-mcp, swe-agent)`)

	_, err = LoadTaxonomy(nil, filepath.Join(t.TempDir(), "missing.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// A tool named server__tool (Codex, Gemini CLI) or server.tool takes the
// rule of Claude Code's mcp__server__tool, when both parts are names:
// letters, digits, _ and -, at most 128 bytes each.
func TestAnMCPToolNamedWithoutThePrefixTakesThePrefixedRule(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("s", 128)
	tax, err := NewTaxonomy(
		Rule{Match: "mcp__idx-2__find_Symbol", Category: SymbolNavigation, Class: Semantic},
		Rule{Match: "mcp__" + long + "__t", Category: CodeSearch, Class: Semantic},
		Rule{Match: "mcp__" + long + "s__t", Category: CodeSearch, Class: Semantic},
		Rule{Match: "mcp__a b__t", Category: CodeSearch, Class: Semantic},
		Rule{Match: "mcp__a/b__t", Category: CodeSearch, Class: Semantic},
		Rule{Match: "mcp__a__t:x", Category: CodeSearch, Class: Semantic},
		Rule{Match: "mcp____t", Category: CodeSearch, Class: Semantic},
	)
	require.NoError(t, err)
	for _, tt := range []struct {
		tool  string
		known bool
	}{
		{"idx-2__find_Symbol", true},
		{"idx-2.find_Symbol", true},
		{long + "__t", true},
		{long + "s__t", false},            // a server name longer than 128 bytes
		{"a b__t", false},                 // a blank
		{"a/b__t", false},                 // a slash
		{"a__t:x", false},                 // a colon in the tool's name
		{"__t", false},                    // no server name
		{"idx-2__", false},                // no tool name
		{"mcp_idx-2__find_Symbol", false}, // already prefixed, by another client
	} {
		r, known := tax.Classify(tt.tool)
		assert.Equal(t, tt.known, known, tt.tool)
		if tt.known {
			assert.NotEqual(t, OtherCategory, r.Category, tt.tool)
		}
	}
}
