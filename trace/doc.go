// Package trace reads the traces coding agents leave behind into one
// model: a Session, the ordered tool calls the agent made, each joined with
// its result. It knows nothing about retrieval; package events interprets
// the calls.
//
// # Reading
//
// ReadFile reads the trace in a file ("-" is standard input) and Read the
// trace an io.Reader holds. Both detect the format from the first bytes of
// the input (at most DetectSize, after leading white space and a byte order
// mark); Options.Format forces one by name.
//
// Some inputs hold several sessions: an OpenTelemetry file with the spans of
// several traces, an evaluation harness's output with one task a line. Their
// formats are MultiFormats. ReadAll and ReadFileAll return every session of
// an input in input order (the only one, for other formats). Read and
// ReadFile return the session that Options.SessionID names, matched against
// its Task (an OpenHands instance_id) or its ID (an OpenTelemetry trace id),
// or the only one; when the input holds several and none is named, the
// error is a *MultiSessionError that lists them.
//
// Some traces are folders of files (an OpenHands V1 conversation). Their
// formats are DirFormats: ReadFile and ReadFileAll given a folder try those
// formats only, and read one session from it.
//
// Every built-in format is a Describer: its FormatInfo says what writes the
// format and how it is recorded, the detection rule in words, and what its
// files are usually called. Registry.Infos lists them for a registry
// (retrievaltest formats prints that list).
//
// Options.CallDone hands each call to the caller as it is read, so that a
// long session need not hold every result. The arguments and result it
// hands over are lent for the call only: a reader may use their memory
// again once CallDone returns (the Claude Code readers do, for the next
// line's strings and the next call's arguments). What a CallDone keeps of
// them past its return, other than in the call it does not release, it
// copies first; package events' Stream does.
//
// # Formats
//
// Tool names stay as the trace spells them (ToolCall.Name: "Read",
// "read_file", "str_replace_editor", "mcp__docs__lookup"); mapping them to
// retrieval categories is a taxonomy's job, in package events. Arguments are
// raw JSON, an object wherever the trace has structured arguments (a JSON
// string holding an object is decoded to that object); a shell tool keeps
// its command line under "command", as the agent wrote it (a string, or an
// argv array). Where a trace has no tool name of its own, the entry below
// says how the call is named.
//
//   - "claude-code": Claude Code session JSONL
//     (~/.claude/projects/<project>/<session-id>.jsonl). Tool calls are
//     tool_use blocks of assistant messages, joined to tool_result blocks
//     by id. Subagent (Task) work is inline, on lines marked isSidechain;
//     each such call names the Task call that started it in ParentID.
//   - "claude-stream-json": the output of claude -p --output-format
//     stream-json --verbose (Harbor's agent/claude-code.txt). The first
//     line lists the available tools; subagent lines carry
//     parent_tool_use_id; the result line holds the final answer.
//   - "codex": Codex CLI rollout files
//     (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl), written for
//     every session, interactive or codex exec: the current
//     {timestamp, type, payload} layout and the older one (a first
//     {id, timestamp, instructions} line, then bare items). Tool calls are
//     function_call items (a namespaced name is namespace then name, as
//     Codex flattens it), custom_tool_call items (the freeform apply_patch,
//     given as {"input": patch}), local_shell_call ("local_shell") and
//     web_search_call ("web_search") items, joined to their *_output items
//     by call_id. Shell outputs are unwrapped from Codex's exit-code
//     wrappers, and a non-zero exit code marks the call IsError; so does
//     an output that is one of Codex's own failure messages (a sandbox
//     refusal, "execution error: …", a command or patch rejected, a patch
//     that does not apply, "aborted") and an MCP result marked isError,
//     in the output or in its mcp_tool_call_end event. A Codex subagent
//     writes a rollout file of its own, so no call is Subagent.
//   - "codex-exec-json": the standard output of codex exec --json
//     (thread.started, item.started/updated/completed, turn.completed).
//     Items are named as the rollout names their tools, so one taxonomy
//     serves both: command_execution is "shell" with
//     {"command": "<string>"}, file_change is "apply_patch" with
//     {"changes": [...]} (paths and kinds, no patch text), mcp_tool_call is
//     "<server>__<tool>", todo_list updates are "update_plan" calls. A call's
//     ID is its item id. The stream records no timestamps: prefer the
//     rollout when both exist.
//   - "otel": OpenTelemetry traces that follow the GenAI semantic
//     conventions, as OTLP/JSON: one ExportTraceServiceRequest document, or
//     JSON Lines of requests as the OpenTelemetry Collector's file exporter
//     writes them. Each trace id is one session (Session.ID, in lower-case
//     hex). Tool calls are execute_tool spans and the tool_call parts of
//     chat spans' gen_ai.input/output.messages, joined to their
//     tool_call_response parts by id; a call that both describe is read
//     once, and calls are ordered by the time they were issued. Calls inside
//     an invoke_agent span that runs under a tool call are subagent calls
//     whose ParentID is that call. A file of OTLP logs is read for the
//     tool-call events of Gemini CLI (gemini_cli.tool_call) and Claude Code
//     (claude_code.tool_result), one session per session.id; those events
//     say which tool ran with what arguments and whether it failed, not
//     what it returned, so a successful call has no result.
//   - "atif": Harbor ATIF trajectory.json, ATIF-v1.2 to v1.7. Results are
//     joined from observation.results[].source_call_id (or by position
//     when a result names no call); when Harbor kept the tool's raw result
//     (extra.tool_result_metadata.raw_tool_result), that is the result
//     text. Sidechain steps and embedded subagent trajectories (v1.7) are
//     subagent calls (a subagent_trajectory_ref may be one object or an
//     array); copied-context steps are skipped.
//   - "gemini-cli": Gemini CLI chat recordings
//     (~/.gemini/tmp/<project-hash>/chats/session-*.jsonl, and the older
//     session-*.json document; the first line tells the two apart). The
//     line format is applied the way Gemini CLI loads it: a message record
//     with a known id replaces that message in place, "$set" updates the
//     session (a "$set" of "messages" replaces them all) and "$rewindTo"
//     drops the named message and every message after it; the document's
//     messages array is read as it stands, a repeated id included, as
//     Gemini CLI reads an older file. Calls are the
//     toolCalls of gemini messages, results their functionResponse output;
//     status error or cancelled, or a response holding an error, is
//     IsError. A run_shell_command result is the command's output alone,
//     unwrapped from the fields Gemini CLI writes around it (Command,
//     Directory, Output, Exit Code, Signal, …, in each version's shape,
//     with an output the scheduler cut keeping its cut marker), and a
//     non-zero exit code, a signal or a cancellation marks the call
//     IsError although Gemini CLI records status success; so does the
//     grep tool's error text. A recording of kind "subagent" (a
//     subagent's own file) has subagent calls, with no ParentID.
//   - "mini-swe-agent": mini-swe-agent trajectories (*.traj.json,
//     trajectory_format mini-swe-agent-1 and -1.1). In text mode the one
//     bash block of an assistant message (found with the trajectory's own
//     action_regex when it records one) is a call named "bash" with
//     {"command": …}, and the next user message its result; in
//     tool-calling mode tool_calls are joined to role "tool" replies by
//     tool_call_id. A result is the command output its observation shows:
//     the text inside <output>…</output> of the rendered template (or the
//     output of the JSON one), and for a long output the head and the tail
//     around a line "[... N characters elided ...]". A non-zero return
//     code, an exception or a timeout is IsError; instance_id is the
//     session's Task.
//   - "tool-calls": tool-call records, {"toolCalls":[{tool, arguments,
//     result, timestamp}]} or a bare array of the same objects. Arguments
//     may be an object or a JSON-encoded string; key spellings are
//     forgiving (tool, toolName, tool_name).
//   - "openhands": an OpenHands V0 event list (save_trajectory_path in
//     config.toml, or the GUI's trajectory export): a JSON array of actions
//     and observations. An action with tool_call_metadata, or a tool action
//     the agent issued (run, read, edit, browse, delegate, …), is a call
//     named by the metadata's function_name (execute_bash,
//     str_replace_editor, …), else by its action type; its arguments are
//     the model's tool-call arguments when the response is recorded, else
//     the event's args. Its result is the observation whose cause is the
//     action's id (or with the same tool_call_id); an error or
//     user_rejected observation, or a non-zero extras.metadata.exit_code,
//     is IsError. Calls between a delegate action and its observation are
//     the sub-agent's.
//   - "openhands-v1": a conversation of the OpenHands V1 agent SDK and CLI,
//     stored as a folder (~/.openhands/conversations/<id>/: base_state.json,
//     events/event-NNNNN-<id>.json read in numeric order, sub-agents under
//     subagents/<id>/), or its events as JSON Lines or a JSON array.
//     ActionEvents are calls named by tool_name (terminal, file_editor, …),
//     joined by tool_call_id to the ObservationEvent, AgentErrorEvent or
//     UserRejectObservation that answers them. A sub-agent's calls follow
//     the delegate call issued last before its first event, their ParentID.
//   - "openhands-eval": the OpenHands evaluation harness's output.jsonl,
//     one task instance a line ({instance_id, instruction, history,
//     metrics, …}). Each line is a session whose Task is the instance_id;
//     its history is read as V0 events, or as V1 events when they have a
//     "kind".
//   - "swe-agent": the .traj file SWE-agent writes per instance, before and
//     since 1.0. Each trajectory step with a non-empty action is a call
//     whose result is the step's observation. The action is a command
//     line: a call is named by its first word when that is one of
//     SWE-agent's own commands (open, goto, scroll_down, edit, find_file,
//     search_dir, search_file, str_replace_editor, submit, …), else "bash",
//     with {"command": "<the whole action>"}; in function-calling runs (1.x)
//     it takes the id, function name and arguments of the model's tool call
//     that the history records for the step. A file without a trajectory (a
//     demonstration) is read from its history. Task is the problem
//     statement's id, Answer the submitted patch.
//
// The agents people run in their editors keep their conversations in their
// own stores (docs/editor-agents.md says where each writes on each OS):
//
//   - "amp": Amp thread files (~/.local/share/amp/threads/T-<id>.json),
//     read one message at a time. Calls are tool_use blocks joined by
//     toolUseID to the tool_result block whose run holds the status and the
//     tool's answer; the result is the member the model reads (a read's
//     numbered content, an edit's diff, a command's output), a folder's
//     listing stays JSON. env.initial.trees[0] is the working directory.
//   - "copilot-chat": VS Code's Copilot Chat sessions
//     (workspaceStorage/<id>/chatSessions/<session>.json, and the .jsonl
//     operation log since 2026: a snapshot, then set, append and delete
//     records replayed in memory). Calls are each request's
//     result.metadata.toolCallRounds tool calls (read_file, grep_search,
//     …), joined by id to toolCallResults, rendered as the model read
//     them; a result starting "ERROR" is IsError. A request without
//     rounds gives its toolInvocationSerialized parts, without arguments.
//   - "cursor": Cursor's globalStorage/state.vscdb, an SQLite database read
//     with a read-only reader of the file format (no SQLite library; a
//     -wal file beside it is applied). Each composerData:<id> row is a
//     session; its bubbles' toolFormerData are the calls, with rawArgs
//     and the result the model read. Options.SessionID picks a composer.
//   - "cursor-agent-transcript": the transcript Cursor's hooks are given
//     (~/.cursor/projects/<slug>/agent-transcripts/*.jsonl): tool_use
//     blocks only, without ids or results.
//   - "cline": a Cline task folder (tasks/<id>/ in VS Code's global
//     storage; Roo Code and Kilo Code write the same):
//     api_conversation_history.json with the calls as XML in the model's
//     text or as tool_use blocks, answered in the next user message by
//     "[tool for '…'] Result:" blocks paired by position, and
//     ui_messages.json for the task, times and tokens. A tool that was not
//     executed, that the user denied or that failed is IsError.
//
// OpenInference spans (Arize Phoenix's instrumentations of LangGraph,
// CrewAI, smolagents, the OpenAI Agents SDK, LlamaIndex) are read by "otel":
// TOOL spans are calls, and an LLM span's flattened tool calls and tool
// messages join them.
//
// A Registry holds formats and tries them in registration order; the
// built-in detection rules are written not to overlap, so that order
// matters only for a caller's own formats. DefaultRegistry has every format above, and a caller can Register
// its own Format (one with a built-in's name replaces it).
//
// # Tokens and time
//
// ToolCall.CumulativeTokens is the run's token count up to and including
// the model turn that issued the call, Session.Usage the run's total, and
// Session.Start the earliest timestamp, from which elapsed times are
// measured. Each is absent (nil, zero) when the trace does not record it,
// never guessed. Usage.InputTokens includes the cached prompt tokens;
// CacheReadTokens and CacheCreationTokens say how much of it was cached and
// are never added again. What each format records:
//
//   - Claude Code repeats a message's usage on every content-block line of
//     the message; it is counted once per message id. Anthropic's
//     input_tokens excludes the cache, so both cache fields are added to
//     InputTokens.
//   - Codex writes the session's running total (total_token_usage) on
//     token_count events, repeatedly; totals are taken, never summed.
//     input_tokens already includes cached_input_tokens (CacheReadTokens).
//     A rollout call's CumulativeTokens is the total as of the next input
//     the model received after the call; a codex exec --json call's is the
//     running total on the turn.completed of its turn, and its calls have
//     no Time.
//   - OpenTelemetry's gen_ai.usage.input_tokens already includes cached
//     tokens (gen_ai.usage.cache_read.input_tokens is that part); a span
//     whose descendants also carry usage (an invoke_agent span that sums
//     its model calls) is not counted again. A log event's call Time is the
//     event's time minus its duration.
//   - ATIF prompt_tokens already include cached_tokens; final_metrics give
//     the usage when no step has metrics.
//   - Gemini CLI's tokens.input already includes tokens.cached; tool-use
//     prompt tokens count as input and thoughts as output, so a message
//     counts its total once, however often it was rewritten.
//   - mini-swe-agent records each model response's usage in
//     extra.response; prompt_tokens already include the cached tokens.
//   - OpenHands attaches running totals (accumulated_token_usage) to the
//     actions of a model response (V0) or to "stats" state updates (V1,
//     summed over the agent's and the condenser's LLMs); prompt_tokens
//     already include cache reads and writes. OpenHands timestamps carry no
//     zone and are read as UTC.
//   - Amp records each assistant message's usage; inputTokens excludes the
//     cache, so both cache fields are added. Cursor's bubbles carry
//     tokenCount (often zero: then there is no usage); Cline's
//     ui_messages.json gives each API request's tokensIn (without the
//     cache), tokensOut, cacheReads and cacheWrites; Copilot Chat's
//     session files record none. OpenInference's llm.token_count.prompt
//     includes the cached tokens.
//   - SWE-agent records run totals only (info.model_stats tokens_sent and
//     tokens_received): Session.Usage, and no call has CumulativeTokens. Its
//     trajectories carry no timestamps.
//
// # The conversation
//
// Session.Messages keeps what was said around the calls: the user's
// prompts, the assistant's text and the summaries of its reasoning, each a
// Message with its Role (RoleUser, RoleAssistant), Kind (KindText,
// KindReasoning), Time when the trace records one, Subagent, and Before, the
// index of the call it precedes (NumCalls for a message after the last
// call), so that a viewer can interleave it with the calls. Each message's
// text is cut to MaxMessageBytes (4 KiB) at a character boundary, and
// Message.Cut counts the bytes left out: the conversation costs at most that
// much per message, and the streaming readers keep streaming. A caller that
// reads only the calls sets Options.SkipMessages and pays nothing for it.
// What each format gives:
//
//   - Claude Code (both dialects): user text (not tool results, nor the
//     "Caveat:" meta line), assistant text blocks and thinking blocks; a
//     sidechain's are Subagent.
//   - Codex rollouts: what the user typed (user_message events, without the
//     instructions and environment Codex sends as user items), assistant
//     message items, and reasoning items' summaries; the agent_message and
//     agent_reasoning events repeat these and are not kept again.
//     codex exec --json: agent_message and reasoning items (its stream has
//     no user message, nor times).
//   - Gemini CLI: user messages, and each gemini message's thoughts
//     ("subject: description") and text, before its calls; info, error and
//     warning messages are not the conversation.
//   - OpenHands V0 (and the evaluation output): message actions of the user
//     and the agent, the thought written with each action, a finish
//     action's final thought; V1: MessageEvents, and each ActionEvent's
//     thought and reasoning_content (once for the actions of one response).
//   - mini-swe-agent: the task and the harness's other messages (not the
//     observations), and each assistant message's text without its action
//     block. SWE-agent: the task (the history's first user message past the
//     demonstrations) and each step's thought.
//   - ATIF: each user and agent step's message and reasoning_content (the
//     system prompt and steps of other sources are left out); an embedded
//     trajectory's messages follow the call that started it.
//   - OpenTelemetry: the text and reasoning parts of the chat spans'
//     gen_ai.output.messages, at the end of their span, and the user's text
//     parts of gen_ai.input.messages, each distinct text once, at the start
//     of the first span that holds it.
//
// The other formats (Amp, Copilot Chat, Cursor, Cline,
// tool-call records, OpenTelemetry log events, OpenInference spans) keep
// only Prompt and Answer.
//
// # Robustness
//
// Readers stream: memory grows with the calls kept (with the spans, for
// OpenTelemetry), not with the size of the file, and a single line or record
// of any length is read (Options.MaxResultBytes bounds what is kept of each
// result, and a tool-calls record takes what is kept of its result). A
// malformed or truncated record is skipped with a Warning naming the source
// and line (the first MaxWarnings are kept, the rest counted in
// Session.WarningsDropped); a long line of JSON Lines that cannot be a
// record (it does not start with "{", or its JSON breaks) is dropped as it
// streams in, unheld, and its warning quotes its first 64 escaped bytes. A
// file cut short (the agent was stopped while writing) is read up to its
// last complete record. An empty input is ErrEmpty; an input in no known format is a *FormatError naming the formats
// tried and what the input looked like (text, compressed data, a JSON object
// with its keys), and suggesting a forced format only when that reader would
// read tool calls from it. A forced format that finds no record of its own
// is an error naming the file and what was expected. No input makes a reader
// panic; a reader that does is reported as an error naming the source.
package trace
