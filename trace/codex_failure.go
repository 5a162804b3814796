package trace

import (
	"bytes"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// This file recognizes the failures Codex reports to the model as plain
// text, without the exit-code wrapper of a command that ran: the texts
// codex-rs/core builds for a function_call_output when a tool call fails
// (FunctionCallError::RespondToModel and, before the tools module, the
// FunctionCallOutputPayload contents of codex.rs). Codex drops the success
// flag it keeps beside them when it writes the rollout, so the text is all
// that says the call failed.

// codexFailurePrefixes start the first line of such a text.
var codexFailurePrefixes = []string{
	// A command the sandbox refused or timed out, with the approval policy
	// letting the model handle it: "failed in sandbox MacosSeatbelt with
	// execution error: sandbox denied exec error, exit code: 1, …".
	"failed in sandbox ",
	"command timed out after ",
	"sandbox error: ",
	// Errors of the exec machinery: "execution error: Io(…)" and a retry
	// outside the sandbox that failed too.
	"execution error: ",
	"retry failed: ",
	"exec_command failed: ",
	"write_stdin failed: ",
	// Commands and patches refused by the user or the policy.
	"exec command rejected",
	"patch rejected by user",
	"approval policy is ",
	// apply_patch: a patch that does not apply ("error: Failed to find
	// expected lines in …", "apply_patch verification failed: invalid
	// patch: …") or is not one.
	"error: ",
	"apply_patch verification failed: ",
	"apply_patch handler received ",
	"invalid patch: ",
	"invalid hunk at line ",
	"Failed to find expected lines",
	"Failed to find context ",
	// Calls Codex could not run at all.
	"failed to parse function arguments: ",
	"failed to parse exec_command arguments: ",
	"failed to parse write_stdin arguments: ",
	"unsupported call: ",
	"unsupported custom tool call: ",
	"unsupported unified exec function ",
	"failed to determine path to codex executable",
	"tool call error: ",
	// An MCP tool call that failed before the server answered:
	// "err: " and the error's Debug form.
	"err: ",
}

// codexTextFailed reports whether a call's output text says it failed: its
// first line is one of Codex's failure messages, the whole text is
// "aborted" (the output Codex records for a call a turn abort left
// unanswered), or it is an MCP result object with "isError": true.
func codexTextFailed(text []byte) bool {
	if string(bytes.TrimSpace(text)) == "aborted" {
		return true
	}
	first, _, _ := bytes.Cut(text, []byte{'\n'})
	for _, p := range codexFailurePrefixes {
		if bytes.HasPrefix(first, []byte(p)) {
			return true
		}
	}
	return len(text) > 0 && text[0] == '{' && codexMCPError(text)
}

// codexMCPError reports whether text is a JSON object with a top-level
// "isError" (or "is_error") of true: an MCP CallToolResult as some
// releases and MCP servers hand it over whole.
func codexMCPError(text []byte) bool {
	var sc jsonscan.Scanner
	sc.Reset(text)
	if !sc.Object() {
		return false
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if k := string(key); (k == "isError" || k == "is_error") && sc.Peek() == jsonscan.Bool {
			if v, _ := sc.Bool(); v {
				return true
			}
			continue
		}
		sc.Skip()
	}
	return false
}
