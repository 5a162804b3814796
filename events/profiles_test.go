package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agentTools lists, per built-in profile, the tool names the agent's own
// source defines and the class each must get; "shell" marks a tool whose
// command is parsed. The lists were taken from: codex-rs's tool specs
// (shell, shell_command, exec_command, write_stdin, apply_patch,
// update_plan, view_image, read_file, list_dir, grep_files, the MCP
// resource and collaboration tools); Gemini CLI's
// packages/core/src/tools/definitions (base-declarations, tool-names,
// including the legacy alias search_file_content); OpenHands' CodeAct
// tools, its V0 action names and the software-agent-sdk's openhands-tools;
// SWE-agent's tools/*/config.yaml; vscode-copilot-chat's toolNames.ts; and
// the tools of Claude Code's init lines.
var agentTools = map[string][]struct {
	name     string
	category Category
	class    Class
	shell    bool
}{
	"codex": {
		{"shell", OtherCategory, OtherClass, true},
		{"shell_command", OtherCategory, OtherClass, true},
		{"local_shell", OtherCategory, OtherClass, true},
		{"exec_command", OtherCategory, OtherClass, true},
		{"write_stdin", OtherCategory, OtherClass, false},
		{"apply_patch", FileWrite, Edit, false},
		{"update_plan", OtherCategory, OtherClass, false},
		{"view_image", OtherCategory, OtherClass, false},
		{"read_file", FileRead, FileLevel, false},
		{"list_dir", FileSearch, FileLevel, false},
		{"grep_files", CodeSearch, FileLevel, false},
		{"web_search", OtherCategory, OtherClass, false},
		{"list_mcp_resources", OtherCategory, OtherClass, false},
		{"list_mcp_resource_templates", OtherCategory, OtherClass, false},
		{"read_mcp_resource", OtherCategory, OtherClass, false},
		{"spawn_agent", OtherCategory, OtherClass, false},
		{"send_input", OtherCategory, OtherClass, false},
		{"wait", OtherCategory, OtherClass, false},
		{"close_agent", OtherCategory, OtherClass, false},
	},
	"gemini-cli": {
		{"read_file", FileRead, FileLevel, false},
		{"read_many_files", FileRead, FileLevel, false},
		{"list_directory", FileSearch, FileLevel, false},
		{"glob", FileSearch, FileLevel, false},
		{"grep_search", CodeSearch, FileLevel, false},
		{"search_file_content", CodeSearch, FileLevel, false},
		{"replace", FileWrite, Edit, false},
		{"write_file", FileWrite, Edit, false},
		{"run_shell_command", OtherCategory, OtherClass, true},
		{"web_fetch", OtherCategory, OtherClass, false},
		{"google_web_search", OtherCategory, OtherClass, false},
		{"save_memory", OtherCategory, OtherClass, false},
		{"write_todos", OtherCategory, OtherClass, false},
		{"activate_skill", OtherCategory, OtherClass, false},
		{"ask_user", OtherCategory, OtherClass, false},
		{"get_internal_docs", OtherCategory, OtherClass, false},
		{"enter_plan_mode", OtherCategory, OtherClass, false},
		{"exit_plan_mode", OtherCategory, OtherClass, false},
		{"update_topic", OtherCategory, OtherClass, false},
		{"tracker_create_task", OtherCategory, OtherClass, false},
		{"codebase_investigator", OtherCategory, OtherClass, false},
	},
	"openhands": {
		{"execute_bash", OtherCategory, OtherClass, true},
		{"str_replace_editor", FileWrite, Edit, false},
		{"execute_ipython_cell", OtherCategory, OtherClass, false},
		{"browser", OtherCategory, OtherClass, false},
		{"edit_file", FileWrite, Edit, false},
		{"web_read", OtherCategory, OtherClass, false},
		{"think", OtherCategory, OtherClass, false},
		{"finish", OtherCategory, OtherClass, false},
		{"task_tracker", OtherCategory, OtherClass, false},
		{"run", OtherCategory, OtherClass, true},
		{"read", FileRead, FileLevel, false},
		{"edit", FileWrite, Edit, false},
		{"write", FileWrite, Edit, false},
		{"run_ipython", OtherCategory, OtherClass, false},
		{"browse", OtherCategory, OtherClass, false},
		{"browse_interactive", OtherCategory, OtherClass, false},
		{"delegate", OtherCategory, OtherClass, false},
		{"terminal", OtherCategory, OtherClass, true},
		{"bash", OtherCategory, OtherClass, true},
		{"file_editor", FileWrite, Edit, false},
		{"planning_file_editor", FileWrite, Edit, false},
		{"apply_patch", FileWrite, Edit, false},
		{"glob", FileSearch, FileLevel, false},
		{"grep", CodeSearch, FileLevel, false},
		{"read_file", FileRead, FileLevel, false},
		{"list_directory", FileSearch, FileLevel, false},
		{"write_file", FileWrite, Edit, false},
		{"task", OtherCategory, OtherClass, false},
		{"invoke_skill", OtherCategory, OtherClass, false},
		{"switch_llm", OtherCategory, OtherClass, false},
		{"inspect_image_with_vision", OtherCategory, OtherClass, false},
		{"browser_navigate", OtherCategory, OtherClass, false},
		{"browser_get_content", OtherCategory, OtherClass, false},
		{"tom_consult", OtherCategory, OtherClass, false},
		{"sleeptime_compute", OtherCategory, OtherClass, false},
		{"workflow", OtherCategory, OtherClass, false},
	},
	"swe-agent": {
		{"bash", OtherCategory, OtherClass, true},
		{"open", FileRead, FileLevel, false},
		{"goto", FileRead, FileLevel, false},
		{"scroll_up", FileRead, FileLevel, false},
		{"scroll_down", FileRead, FileLevel, false},
		{"filemap", FileRead, FileLevel, false},
		{"find_file", FileSearch, FileLevel, false},
		{"search_dir", CodeSearch, FileLevel, false},
		{"search_file", CodeSearch, FileLevel, false},
		{"create", FileWrite, Edit, false},
		{"edit", FileWrite, Edit, false},
		{"insert", FileWrite, Edit, false},
		{"str_replace_editor", FileWrite, Edit, false},
		{"submit", OtherCategory, OtherClass, false},
		{"exit_forfeit", OtherCategory, OtherClass, false},
		{"exit_cost", OtherCategory, OtherClass, false},
		{"view_image", OtherCategory, OtherClass, false},
		{"open_site", OtherCategory, OtherClass, false},
		{"click_mouse", OtherCategory, OtherClass, false},
		{"get_console_output", OtherCategory, OtherClass, false},
	},
	"mini-swe-agent": {
		{"bash", OtherCategory, OtherClass, true},
	},
	"copilot": {
		{"semantic_search", CodeSearch, Semantic, false},
		{"list_code_usages", SymbolNavigation, Semantic, false},
		{"search_workspace_symbols", SymbolNavigation, Semantic, false},
		{"github_repo", CodeSearch, Semantic, false},
		{"read_file", FileRead, FileLevel, false},
		{"list_dir", FileSearch, FileLevel, false},
		{"file_search", FileSearch, FileLevel, false},
		{"grep_search", CodeSearch, FileLevel, false},
		{"test_search", FileSearch, FileLevel, false},
		{"insert_edit_into_file", FileWrite, Edit, false},
		{"replace_string_in_file", FileWrite, Edit, false},
		{"multi_replace_string_in_file", FileWrite, Edit, false},
		{"create_file", FileWrite, Edit, false},
		{"apply_patch", FileWrite, Edit, false},
		{"edit_notebook_file", FileWrite, Edit, false},
		{"copilot_replaceString", FileWrite, Edit, false},
		{"copilot_readFile", FileRead, FileLevel, false},
		{"run_in_terminal", OtherCategory, OtherClass, true},
		{"get_terminal_output", OtherCategory, OtherClass, false},
		{"get_errors", OtherCategory, OtherClass, false},
		{"get_changed_files", OtherCategory, OtherClass, false},
		{"fetch_webpage", OtherCategory, OtherClass, false},
		{"create_directory", OtherCategory, OtherClass, false},
		{"manage_todo_list", OtherCategory, OtherClass, false},
		{"runSubagent", OtherCategory, OtherClass, false},
		{"runTests", OtherCategory, OtherClass, false},
	},
	"aura": {
		{"aura_search", CodeSearch, Semantic, false},
		{"mcp_aura_codebase_navigate", SymbolNavigation, Semantic, false},
		{"read_file", FileRead, FileLevel, false},
		{"grep_search", CodeSearch, FileLevel, false},
		{"list_dir", FileSearch, FileLevel, false},
		{"file_search", FileSearch, FileLevel, false},
		{"replace_string_in_file", FileWrite, Edit, false},
		{"multi_replace_string_in_file", FileWrite, Edit, false},
		{"insert_edit_into_file", FileWrite, Edit, false},
		{"create_file", FileWrite, Edit, false},
		{"apply_patch", FileWrite, Edit, false},
		{"run_in_terminal", OtherCategory, OtherClass, true},
	},
	"claude-code": {
		{"Read", FileRead, FileLevel, false},
		{"Glob", FileSearch, FileLevel, false},
		{"Grep", CodeSearch, FileLevel, false},
		{"Edit", FileWrite, Edit, false},
		{"MultiEdit", FileWrite, Edit, false},
		{"Write", FileWrite, Edit, false},
		{"NotebookEdit", FileWrite, Edit, false},
		{"LSP", SymbolNavigation, Semantic, false},
		{"Bash", OtherCategory, OtherClass, true},
		{"Agent", OtherCategory, OtherClass, false},
		{"Task", OtherCategory, OtherClass, false},
		{"TaskOutput", OtherCategory, OtherClass, false},
		{"TaskStop", OtherCategory, OtherClass, false},
		{"TaskCreate", OtherCategory, OtherClass, false},
		{"KillShell", OtherCategory, OtherClass, false},
		{"WebFetch", OtherCategory, OtherClass, false},
		{"WebSearch", OtherCategory, OtherClass, false},
		{"TodoWrite", OtherCategory, OtherClass, false},
		{"ExitPlanMode", OtherCategory, OtherClass, false},
		{"EnterPlanMode", OtherCategory, OtherClass, false},
		{"AskUserQuestion", OtherCategory, OtherClass, false},
		{"Skill", OtherCategory, OtherClass, false},
		{"ToolSearch", OtherCategory, OtherClass, false},
	},
}

func TestEachProfileClassifiesEveryToolOfItsAgent(t *testing.T) {
	t.Parallel()
	for profile, tools := range agentTools {
		tax, err := LoadTaxonomy([]string{profile})
		require.NoError(t, err, profile)
		for _, tt := range tools {
			t.Run(profile+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r, known := tax.Classify(tt.name)
				require.True(t, known, "%s is a tool of %s, not an unclassified one", tt.name, profile)
				assert.Equal(t, tt.category, r.Category)
				assert.Equal(t, tt.class, r.Class)
				assert.Equal(t, tt.shell, r.Shell)
			})
		}
	}
}

// TestProfilesAgreeOnSharedNames checks that first-match-wins over all
// profiles is unambiguous: where two profiles name the same tool (read_file,
// bash, edit, apply_patch, ...), they agree on its category, class and
// per-call cases and on whether it runs a shell command. The only
// difference allowed is an argument convention (ZeroBasedOffset), which
// Prefer resolves for the agent that wrote the session.
func TestProfilesAgreeOnSharedNames(t *testing.T) {
	t.Parallel()
	type owner struct {
		profile string
		rule    Rule
	}
	byName := map[string][]owner{}
	for _, p := range ProfileNames() {
		rules, err := Profile(p)
		require.NoError(t, err)
		for _, r := range rules {
			if !strings.ContainsAny(r.Match, `*?[\`) {
				byName[r.Match] = append(byName[r.Match], owner{p, r})
			}
		}
	}
	shared := 0
	for name, owners := range byName {
		if len(owners) < 2 {
			continue
		}
		shared++
		first := owners[0]
		for _, o := range owners[1:] {
			what := fmt.Sprintf("%s in %s and %s", name, first.profile, o.profile)
			assert.Equal(t, first.rule.Category, o.rule.Category, what)
			assert.Equal(t, first.rule.Class, o.rule.Class, what)
			assert.Equal(t, first.rule.Shell, o.rule.Shell, what)
			assert.Equal(t, first.rule.By, o.rule.By, what)
			assert.Equal(t, first.rule.Cases, o.rule.Cases, what)
		}
	}
	assert.Greater(t, shared, 10, "the profiles share names such as read_file, bash, edit and apply_patch")
}

// TestPreferredProfileDecidesItsOwnTools checks, for every exact name of
// every profile, that the default taxonomy with that profile preferred
// classifies the name by that profile's own rule.
func TestPreferredProfileDecidesItsOwnTools(t *testing.T) {
	t.Parallel()
	def := DefaultTaxonomy()
	for _, p := range ProfileNames() {
		rules, err := Profile(p)
		require.NoError(t, err)
		tax := def.Prefer(p)
		for _, want := range rules {
			if strings.ContainsAny(want.Match, `*?[\`) {
				continue
			}
			got, known := tax.Classify(want.Match)
			require.True(t, known)
			assert.Equal(t, want, got, "%s with %s preferred", want.Match, p)
		}
	}
}

func TestPreferResolvesArgumentConventions(t *testing.T) {
	t.Parallel()
	def := DefaultTaxonomy()
	tests := []struct {
		name     string
		profile  string
		zeroBase bool
	}{
		{"Gemini CLI's read_file counts its offset from 0", "gemini-cli", true},
		{"the OpenHands SDK's read_file counts its offset from 0", "openhands", true},
		{"Codex's read_file counts its offset from 1", "codex", false},
		{"Copilot's read_file takes 1-based lines", "copilot", false},
		{"with no agent known, read_file is read as the Copilot-style aura tool", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := def.Prefer(tt.profile).Classify("read_file")
			assert.Equal(t, tt.zeroBase, r.ZeroBasedOffset)
			assert.Equal(t, FileRead, r.Category)
		})
	}
}

func TestPreferKeepsUserRulesFirst(t *testing.T) {
	t.Parallel()
	user, err := ParseTaxonomy("mine.yaml", []byte("tools:\n  - {match: read_file, category: code_search, class: semantic}\n"))
	require.NoError(t, err)
	builtin, err := Profile("gemini-cli")
	require.NoError(t, err)
	aura, err := Profile("aura")
	require.NoError(t, err)
	tax, err := NewTaxonomy(slices.Concat(user, aura, builtin)...)
	require.NoError(t, err)

	r, _ := tax.Prefer("gemini-cli").Classify("read_file")
	assert.Equal(t, Semantic, r.Class, "a user file still overrides the preferred profile")
	r, _ = tax.Prefer("gemini-cli").Classify("list_directory")
	assert.Equal(t, "gemini-cli", r.Profile)
	assert.Same(t, tax, tax.Prefer(""), "no preference is the same taxonomy")
	assert.Same(t, tax, tax.Prefer("codex"), "a profile the taxonomy does not hold changes nothing")
	assert.Len(t, tax.Prefer("gemini-cli").Rules(), len(tax.Rules()))
}

func TestSessionProfile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, format, agent, want string
	}{
		{"Claude Code transcripts", "claude-code", "claude-code", "claude-code"},
		{"Claude stream-json", "claude-stream-json", "", "claude-code"},
		{"a Codex rollout", "codex-rollout", "", "codex"},
		{"codex exec JSON", "codex-exec", "", "codex"},
		{"a Gemini CLI session", "gemini-cli", "", "gemini-cli"},
		{"an OpenHands event list", "openhands-v0", "", "openhands"},
		{"an SWE-agent trajectory", "swe-agent", "", "swe-agent"},
		{"a mini-swe-agent trajectory is not SWE-agent's", "mini-swe-agent", "", "mini-swe-agent"},
		{"an ATIF trajectory names its agent", "atif", "openhands", "openhands"},
		{"an ATIF trajectory of terminus has no profile of its own", "atif", "terminus-2", ""},
		{"tool-call records written for Aura", "tool-calls", "aura", "aura"},
		{"OpenTelemetry spans of Gemini CLI", "otel", "gemini-cli", "gemini-cli"},
		{"nothing known", "tool-calls", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, SessionProfile(tt.format, tt.agent))
			if tt.want != "" {
				assert.Contains(t, ProfileNames(), tt.want)
			}
		})
	}
}

func TestPreferReturnsTheSameTaxonomyForTheSameProfile(t *testing.T) {
	t.Parallel()
	def := DefaultTaxonomy()
	first := def.Prefer("gemini-cli")
	assert.Same(t, first, def.Prefer("gemini-cli"), "asked again, the preferred taxonomy is not built again")
	assert.Equal(t, def.prefer("gemini-cli").Rules(), first.Rules(), "and it is the one Prefer computes")
	assert.NotSame(t, first, def.Prefer("codex"))
	assert.Same(t, first.Prefer("gemini-cli"), first.Prefer("gemini-cli"), "a preferred taxonomy caches its own")
	var zero Taxonomy
	assert.Same(t, &zero, zero.Prefer("codex"), "a zero taxonomy has no rules to move and no cache")
}
