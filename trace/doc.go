// Package trace reads the traces coding agents leave behind into one
// model: a Session, the ordered tool calls the agent made, each joined with
// its result. It knows nothing about retrieval; package events interprets
// the calls.
//
// # Formats
//
// Read detects the format from the first bytes of the input (Options.Format
// forces one by name):
//
//   - "claude-code": Claude Code session JSONL (~/.claude/projects/*/*.jsonl).
//     Tool calls are tool_use blocks of assistant messages, joined to
//     tool_result blocks by id. Subagent (Task) work is inline, on lines
//     marked isSidechain; each such call names the Task call that started
//     it in ParentID.
//   - "claude-stream-json": the output of claude -p --output-format
//     stream-json --verbose (Harbor's agent/claude-code.txt). The first
//     line lists the available tools; subagent lines carry
//     parent_tool_use_id; the result line holds the final answer.
//   - "atif": Harbor ATIF trajectory.json, ATIF-v1.2 to v1.7. Results are
//     joined from observation.results[].source_call_id (or by position
//     when a result names no call); sidechain steps and embedded subagent
//     trajectories (v1.7) are subagent calls; copied-context steps are
//     skipped.
//   - "tool-calls": tool-call records, {"toolCalls":[{tool, arguments,
//     result, timestamp}]} or a bare array of the same objects. Arguments
//     may be an object or a JSON-encoded string; key spellings are
//     forgiving (tool, toolName, tool_name).
//
// A Registry holds the formats; DefaultRegistry has the four above, and a
// caller can Register its own Format.
//
// # Tokens and time
//
// Claude Code repeats a message's usage on every content-block line of the
// message; it is counted once per message id. ATIF prompt_tokens already
// include cached tokens; they are not added again. ToolCall.CumulativeTokens
// is the run's token count up to and including the turn that issued the
// call; Session.Start is the earliest timestamp, from which elapsed times
// are measured. Both are absent (nil, zero) when the trace does not record
// them, never guessed.
//
// # Robustness
//
// Readers stream: memory grows with the calls kept, not with the size of
// the file, and a single line of any length is read (Options.MaxResultBytes
// bounds what is kept of each result). A malformed or truncated line is
// skipped with a Warning naming the source and line (the first MaxWarnings
// are kept, the rest counted in Session.WarningsDropped); an empty input is
// ErrEmpty; an input in no known format is a *FormatError naming the
// formats tried and what the input looked like (text, compressed data, a
// JSON object with its keys), and suggesting a forced format only when that
// reader would read tool calls from it. No input makes a reader panic.
package trace
