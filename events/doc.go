// Package events turns a trace session into retrieval events: one Event per
// tool call, classified, with the files, line ranges, symbols and query the
// call revealed, and marked when it touches the ground truth. The result is
// a Document in the retrieval-events schema (1.0; 1.1 when it carries
// expected_edit_files), whose JSON Schema Schema returns.
//
// # Taxonomy
//
// A Taxonomy maps raw tool names to a Category of the schema (file_read,
// file_search, symbol_navigation, code_search, commit_search, deep_search,
// file_write, other) and an index-effectiveness Class (semantic,
// file_level, edit, other). Rules match an exact name or a glob; the first
// match wins. Built-in profiles (ProfileNames: claude-code, then amp, aura,
// cline, codex, copilot, cursor, gemini-cli, generic, mini-swe-agent,
// openhands, sourcegraph-mcp, swe-agent) are YAML compiled into the
// package, one per agent, listing the
// tools of the agent's own source; a user taxonomy file comes before them,
// overriding or extending:
//
//	profile: my-index
//	tools:
//	  - {match: "mcp__myindex__search*", category: code_search, class: semantic}
//	  - {match: Grep, category: code_search, class: semantic, mcp: false}
//	  - {match: run_shell, category: other, class: other, shell: true}
//	  - match: my_editor
//	    by: command
//	    category: file_write
//	    class: edit
//	    cases:
//	      view: {category: file_read, class: file_level}
//	  - {match: my_read, category: file_read, class: file_level, zero_based_offset: true}
//
// A tool whose class depends on an argument is classified per call: by
// names the argument, cases maps its values to a category and class, and
// the rule's own category and class apply when the argument is missing or
// holds a value cases does not list (str_replace_editor's view is a read,
// its str_replace an edit). Taxonomy.ClassifyCall applies a rule to one
// call; Normalize and Extract use that per-call decision, so the events'
// tool_category and tool_class, the summary and every metric built on them
// see it. shell marks a tool whose command is parsed (see Extraction);
// zero_based_offset a tool whose offset argument counts lines from 0
// (Gemini CLI's read_file).
//
// Several agents use the same tool names (read_file, bash, edit,
// apply_patch); their profiles agree on category and class, and differ at
// most in argument conventions. Normalize therefore tries the rules of the
// profile of the agent that wrote the session (SessionProfile, from the
// trace format or the agent an ATIF or OpenTelemetry trace names) before
// the other built-in profiles' rules (Taxonomy.Prefer); a user file's rules
// stay first.
//
// A tool no rule matches is other/other, counted in
// Summary.UnclassifiedTools and never dropped.
//
// # Extraction
//
// Extract reads a call's arguments first, then its result: Read offsets
// and numbered result lines give line ranges; grep output (path:line:text)
// marks files read at those lines; listings and search hits surface files;
// MCP results are walked for file keys (Sourcegraph's keyword search uses
// "file", its list and read tools "path"). Shell calls are parsed: cat,
// head, tail, sed -n, grep, rg, find, ls, git show and friends count as
// reads and searches (reading through the shell is reading), and
// redirects, tee and sed -i as writes; the call's category and class are
// refined accordingly. A read window (a file_lines list of lines with a
// window_size) reads line ± window. ExtractOrigins also says which ranges
// came from the arguments and which from the result.
//
// # Streaming
//
// A Stream makes the same documents as Normalize while the trace is read:
// its CallDone, given to trace.Options.CallDone, extracts each call as
// soon as the reader has its result, and the reader then drops the
// result and the arguments, or, with trace.Options.DropReleased, the
// whole call: the Stream keeps what the document needs of it. Memory then
// follows the number of calls, not the size of their outputs; the
// retrievaltest commands read this way. The reader lends the call's
// arguments and result to CallDone only (see trace.Options.CallDone): the
// Stream keeps its events' strings as copies, and a concurrent Stream
// copies the call's arguments and result for its goroutine, into buffers
// it uses again.
// NewConcurrentStream extracts on a second goroutine, in order, while the
// reader parses the next lines, when GOMAXPROCS allows it. A Stream keeps
// each event in a few dozen bytes rather than as an Event; Stream.Pending
// writes a document from that form (Pending.WriteJSON), one event at a
// time, when the document is only to be written, and Pending.Events gives
// the events one at a time to a reader that goes over them in turn
// (metrics.ComputeEvents).
//
// # Paths
//
// PathNormalizer makes paths comparable: absolute paths become relative to
// the session's working directory, workspace prefixes (/workspace/,
// /testbed/, …) are stripped, a/ and b/ are stripped only from diff paths (a
// real top-level folder named a survives), and directories, URLs and grep
// fragments are not files. Comparison is case-sensitive unless FoldCase.
package events
