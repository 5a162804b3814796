package trace

import (
	"bytes"
	"io"
	"slices"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// Codex reads the rollout files that OpenAI's Codex CLI keeps for every
// session, interactive or `codex exec`, under
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl.
//
// Each line of the current layout is {"timestamp", "type", "payload"}: a
// session_meta line (session id, cwd, originator, cli_version), turn_context
// lines (cwd, model), response_item lines holding the conversation items
// the model saw, and event_msg lines (token counts among them). The older
// layout, still found in users' folders, starts with a {"id", "timestamp",
// "instructions"} line followed by bare conversation items and
// {"record_type": "state"} lines; it is read by the same reader.
//
// Tool calls are function_call items (their arguments, a JSON string, are
// decoded to the object it holds; a namespaced name is flattened as Codex
// does, namespace then name), custom_tool_call items (the freeform
// apply_patch tool: the patch text becomes {"input": patch}, the arguments
// of the JSON apply_patch tool), local_shell_call items (named
// "local_shell", with the exec action as arguments), web_search_call items
// (named "web_search", with the search action as arguments) and
// tool_search_call items. Results are the *_output items with the same
// call_id. A shell output that Codex wrapped with its exit code — the JSON
// {"output", "metadata": {"exit_code"}} or the "Exit code: N" / "Process
// exited with code N" header before "Output:" — is unwrapped to the command
// output, and a non-zero exit code marks the call IsError. Codex writes no
// success flag to the rollout, so a failure it reports in plain text is
// read from the text: an output whose first line is one of Codex's failure
// messages ("failed in sandbox …", "execution error: …", "exec command
// rejected by user", "apply_patch verification failed: …", …, see
// codexTextFailed), or that is "aborted", is IsError, kept as it is. MCP
// tools keep their raw names (server__tool); an MCP call is IsError when
// its output says "isError": true or "success": false, or when the
// mcp_tool_call_end event newer releases keep reports an error.
//
// Tokens: event_msg token_count lines carry the session's running total
// (info.total_token_usage); Codex writes the same total more than once, so
// totals are taken, never summed. Codex counts cached prompt tokens inside
// input_tokens (cached_input_tokens is that part of it) and reasoning tokens
// inside output_tokens, so InputTokens is input_tokens as written and
// CacheReadTokens is cached_input_tokens, counted once. A call's
// CumulativeTokens is the total as of the next input the model received
// after the call (a tool output or user message): by then the model turn
// that issued the call has been counted, and the next one has not started.
//
// A session spawned by another (Codex subagents) is written to a rollout
// file of its own; calls are never marked Subagent.
type Codex struct{}

// Name returns "codex".
func (Codex) Name() string { return "codex" }

// Info describes the format.
func (Codex) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Codex CLI, for every session (interactive and codex exec)",
		Detection: `JSON Lines whose first record is {"timestamp","type","payload"} with type session_meta, response_item, event_msg, turn_context or compacted, or (older layout) an {"id","timestamp","instructions"} line`,
		Example:   "~/.codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-<id>.jsonl",
	}
}

// Detect reports whether the first line of prefix is a Codex rollout
// record.
func (Codex) Detect(prefix []byte) bool { return codexDetect(prefix) == codexRollout }

// Read reads a Codex rollout file. Lines that are not JSON objects, or
// whose fields have unexpected types, are skipped with a warning; it
// returns an error when no line is a rollout record.
func (Codex) Read(r io.Reader, opts Options) (*Session, error) {
	return codexReadRollout(r, opts)
}

// CodexExecJSON reads the event stream that `codex exec --json` writes to
// standard output: thread.started (the thread id), turn.started,
// item.started / item.updated / item.completed and turn.completed (or
// turn.failed), one JSON object a line. It is a format of its own, not a
// variant of the rollout: its records are the item lifecycle events of the
// exec client, which keep no timestamps, give commands as one string and
// report file changes without the patch, where a rollout keeps the
// conversation items the model saw. (Early releases wrote the raw protocol
// events, {"id", "msg"}, under --json and the thread events under
// --experimental-json; only the thread events are read.)
//
// Items become calls named as the rollout names the tools they come from,
// so that one taxonomy classifies both: command_execution is "shell" with
// {"command": "<command string>"}; file_change is "apply_patch" with
// {"changes": [...]}; mcp_tool_call is "<server>__<tool>" with its
// arguments; web_search is "web_search" with its action; todo_list is
// "update_plan" with {"items": [...]}, one call per plan update;
// collab_tool_call is its tool (spawn_agent, send_input, wait,
// close_agent). A call's ID is the item id. A failed or declined item, or
// a command with a non-zero exit code, is IsError.
//
// turn.completed carries the thread's running token total (Codex's
// total_token_usage): input_tokens includes cached_input_tokens, which
// become CacheReadTokens, counted once. Session.Usage is the last total;
// the calls of a turn get that turn's total as CumulativeTokens, and calls
// of a turn that never completed get none.
type CodexExecJSON struct{}

// Name returns "codex-exec-json".
func (CodexExecJSON) Name() string { return "codex-exec-json" }

// Info describes the format.
func (CodexExecJSON) Info() FormatInfo {
	return FormatInfo{
		Writer:    "codex exec --json (standard output)",
		Detection: `JSON Lines whose first record has "type" thread.started, turn.started, turn.completed, turn.failed or item.started/updated/completed`,
		Example:   "codex-exec.jsonl (codex exec --json \"…\" > codex-exec.jsonl)",
	}
}

// Detect reports whether the first line of prefix is a codex exec --json
// event.
func (CodexExecJSON) Detect(prefix []byte) bool { return codexDetect(prefix) == codexExec }

// Read reads a codex exec --json stream. Lines that are not JSON objects,
// or whose fields have unexpected types, are skipped with a warning; it
// returns an error when no line is an exec event.
func (CodexExecJSON) Read(r io.Reader, opts Options) (*Session, error) {
	return codexReadExec(r, opts)
}

// codexKind tells the Codex formats apart.
type codexKind int

const (
	codexNone codexKind = iota
	codexRollout
	codexExec
)

// codexRolloutTypes are the record types of the current rollout layout.
var codexRolloutTypes = []string{"session_meta", "response_item", "event_msg", "turn_context", "compacted"}

// codexExecTypes are the event types that can start a codex exec --json
// stream (or the part of it a user kept). "error" is left out: too many
// streams have one.
var codexExecTypes = []string{"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed"}

// codexDetect decides from the first non-empty line of prefix which Codex
// format it holds, if any. The line may be cut by the prefix limit: the
// top-level keys read before the cut still count.
func codexDetect(prefix []byte) codexKind {
	line := prefix
	for len(line) > 0 {
		var rest []byte
		line, rest, _ = bytes.Cut(line, []byte{'\n'})
		if t := bytes.TrimSpace(line); len(t) > 0 {
			line = t
			break
		}
		line = rest
	}
	if len(line) == 0 || line[0] != '{' {
		return codexNone
	}
	var (
		sc                               jsonscan.Scanner
		typBuf                           [32]byte
		typ                              []byte
		sawType, payload                 bool
		id, timestamp, instructions, rec bool
	)
	sc.Reset(line)
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "type":
			if sc.Peek() == jsonscan.String {
				typ, _ = sc.AppendString(typBuf[:0], len(typBuf))
				sawType = true
			} else {
				sc.Skip()
			}
		case "payload":
			payload = true
			sc.Skip()
		case "id":
			id = true
			sc.Skip()
		case "timestamp":
			timestamp = true
			sc.Skip()
		case "instructions":
			instructions = true
			sc.Skip()
		case "record_type":
			rec = true
			sc.Skip()
		default:
			sc.Skip()
		}
	}
	t := string(typ)
	switch {
	case sawType && payload && slices.Contains(codexRolloutTypes, t):
		return codexRollout
	case !sawType && (id && timestamp && instructions || rec):
		return codexRollout
	case sawType && !payload && slices.Contains(codexExecTypes, t):
		return codexExec
	}
	return codexNone
}
