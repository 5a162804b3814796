package events

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// samplesDir holds real traces kept next to the repository (see
// shared/samples/README.md); tests that use it skip when it is absent.
const samplesDir = "../../shared/samples"

// claudeCalls pairs the tool_use and tool_result blocks of a Claude Code
// session file. It reads only what extraction needs; the trace package
// owns the real reader.
func claudeCalls(t *testing.T, file string) []trace.ToolCall {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var calls []trace.ToolCall
	byID := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(line.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				byID[b.ID] = len(calls)
				calls = append(calls, trace.ToolCall{Index: len(calls), ID: b.ID, Name: b.Name, Arguments: b.Input})
			case "tool_result":
				i, ok := byID[b.ToolUseID]
				if !ok {
					continue
				}
				calls[i].Result, calls[i].HasResult, calls[i].IsError = blockText(b.Content), true, b.IsError
			}
		}
	}
	require.NoError(t, sc.Err())
	return calls
}

func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// sampleRules classifies the Claude Code tools the samples use, as the
// claude-code profile does.
var sampleRules = map[string]Rule{
	"Read": ruleRead, "Write": ruleWrite, "Edit": ruleWrite, "MultiEdit": ruleWrite,
	"Glob": ruleGlob, "Grep": ruleGrep, "LS": ruleGlob, "Bash": ruleBash,
}

func TestExtractRealClaudeSessions(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(samplesDir, "claude-code-jsonl", "dkimuson-*.jsonl"))
	if len(files) == 0 {
		t.Skip("no real samples in " + samplesDir)
	}
	n := PathNormalizer{CWD: "/path/to/Demo"}
	byCommand := map[string]Extraction{}
	reads := 0
	for _, file := range files {
		for _, c := range claudeCalls(t, file) {
			rule, ok := sampleRules[c.Name]
			if !ok {
				rule = ruleOther
			}
			e := Extract(&c, rule, n)
			checkInvariants(t, e, n)
			if rule.Category == FileRead && !c.IsError {
				reads++
				assert.NotEmpty(t, e.Ranges, "a successful Read shows numbered lines: %s", c.Arguments)
			}
			if c.Name == "Bash" {
				var a struct{ Command string }
				_ = json.Unmarshal(c.Arguments, &a)
				if _, seen := byCommand[a.Command]; !seen {
					byCommand[a.Command] = e
				}
			}
		}
	}
	assert.Positive(t, reads)

	find := byCommand[`find /path/to/Demo -type f -name "*.md" -o -name "*.json" -o -name "*.tsx" -o -name "*.ts" -o -name "*.css" -o -name "*.js" | head -20`]
	require.NotEmpty(t, find.Files, "the real find call surfaces files")
	assert.Equal(t, surfaced("types/state.ts"), find.Files[0])
	assert.Equal(t, FileSearch, find.Category)
	assert.Equal(t, "*.md", find.Query)

	ls := byCommand["ls -la /path/to/Demo/todo-app/src/app"]
	assert.Equal(t, []FileRef{surfaced("todo-app/src/app/favicon.ico"), surfaced("todo-app/src/app/globals.css"), surfaced("todo-app/src/app/layout.tsx"), surfaced("todo-app/src/app/page.tsx")}, ls.Files)

	top := byCommand["ls -la /path/to/Demo"]
	assert.Equal(t, []FileRef{surfaced(".gitignore"), surfaced("CLAUDE.md")}, top.Files, "directories such as .git and types are not files")
}

func TestExtractRealSWEAgentTrajectory(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(samplesDir, "swe-agent", "demo-function_calling_simple.traj"))
	if os.IsNotExist(err) {
		t.Skip("no real samples in " + samplesDir)
	}
	require.NoError(t, err)
	var traj struct {
		History []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"history"`
	}
	require.NoError(t, json.Unmarshal(data, &traj))
	rules := map[string]Rule{
		"find_file": ruleGlob, "open": ruleRead, "edit": ruleWrite, "bash": ruleBash,
	}
	n := PathNormalizer{CWD: "/SWE-agent__test-repo"}
	got := map[string]Extraction{}
	var pending []trace.ToolCall
	for _, h := range traj.History {
		for _, tc := range h.ToolCalls {
			pending = append(pending, trace.ToolCall{Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)})
		}
		if h.Role == "tool" && len(pending) > 0 {
			c := pending[0]
			pending = pending[1:]
			c.Result, c.HasResult = blockText(h.Content), true
			rule, ok := rules[c.Name]
			if !ok {
				rule = ruleOther
			}
			e := Extract(&c, rule, n)
			checkInvariants(t, e, n)
			got[c.Name] = e
		}
	}
	assert.Equal(t, []FileRef{surfaced("tests/missing_colon.py")}, got["find_file"].Files)
	assert.Equal(t, []FileRef{argRead("tests/missing_colon.py")}, got["open"].Files)
	assert.Equal(t, []LineRange{lines("tests/missing_colon.py", 1, 10)}, got["open"].Ranges)
	assert.Equal(t, []FileRef{{Path: "tests/missing_colon.py", Read: true, Written: true, FromResult: true}}, got["edit"].Files, "SWE-agent's edit names the open file only in its result")
	assert.Equal(t, []LineRange{lines("tests/missing_colon.py", 1, 10)}, got["edit"].Ranges, "the edit's window shows the file's lines")
	assert.Equal(t, []FileRef{argNamed("tests/missing_colon.py")}, got["bash"].Files, "running a script names it")
	assert.Equal(t, []LineRange{lines("tests/missing_colon.py", 1, 7)}, got["submit"].Ranges, "the submitted diff shows its new side")
}
