package trace

import (
	"bytes"
	"io"
	"slices"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// ClaudeCode reads Claude Code session transcripts: the JSONL files Claude
// Code keeps under ~/.claude/projects/<project>/<session>.jsonl, one JSON
// object per line.
//
// Lines of type "assistant" carry tool_use blocks and lines of type "user"
// carry the matching tool_result blocks; every other line type (summary,
// system, queue-operation, file-history-snapshot, last-prompt, ...) is
// read for metadata only. Subagents started by the Task (or Agent) tool are
// written inline as sidechain lines (isSidechain true); their calls are
// marked Subagent with ParentID set to the Task call that started them.
//
// Claude Code writes one line per content block and repeats the message's
// usage on each of them, so tokens are counted once per message id.
type ClaudeCode struct{}

// Name returns "claude-code".
func (ClaudeCode) Name() string { return "claude-code" }

// Info describes the format.
func (ClaudeCode) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Claude Code, for every session",
		Detection: `JSON Lines whose records have "type" user, assistant, summary or system and session fields (sessionId, uuid)`,
		Example:   "~/.claude/projects/<project>/<session-id>.jsonl",
	}
}

// Detect reports whether the first lines of prefix are Claude Code session
// records: JSON objects with the camelCase session keys (sessionId,
// parentUuid, isSidechain) or of a type only sessions have (summary,
// queue-operation, file-history-snapshot, last-prompt).
func (ClaudeCode) Detect(prefix []byte) bool { return claudeDetect(prefix) == claudeSession }

// Read reads a Claude Code session transcript. Lines that are not valid
// JSON objects, or whose fields have unexpected types, are skipped with a
// warning; it returns an error only when no line at all is a JSON object.
func (ClaudeCode) Read(r io.Reader, opts Options) (*Session, error) {
	return claudeRead(r, opts, claudeSession)
}

// ClaudeStreamJSON reads the output of `claude -p --output-format
// stream-json --verbose` (Harbor saves it as agent/claude-code.txt): the
// same assistant and user messages as a session transcript, one per line,
// between a system/init line that lists the tools and a final result line
// that holds the answer.
//
// Subagent lines carry the id of the Task call that started them in
// parent_tool_use_id. Most lines have no timestamp. Assistant lines are
// written as the message streams in, so their usage can lag behind (output
// tokens are often 1); Session.Usage therefore takes, field by field, the
// larger of the per-message sum and the total on the result line.
type ClaudeStreamJSON struct{}

// Name returns "claude-stream-json".
func (ClaudeStreamJSON) Name() string { return "claude-stream-json" }

// Info describes the format.
func (ClaudeStreamJSON) Info() FormatInfo {
	return FormatInfo{
		Writer:    "claude -p --output-format stream-json --verbose",
		Detection: `JSON Lines whose records have "type" system, user, assistant or result and a "session_id"`,
		Example:   "agent/claude-code.txt (Harbor), out.stream.jsonl",
	}
}

// Detect reports whether the first lines of prefix are Claude stream-json
// events: a system/init line, or Claude message lines with the snake_case
// keys session_id or parent_tool_use_id.
func (ClaudeStreamJSON) Detect(prefix []byte) bool { return claudeDetect(prefix) == claudeStream }

// Read reads Claude stream-json output. Lines that are not valid JSON
// objects, or whose fields have unexpected types, are skipped with a
// warning; it returns an error only when no line at all is a JSON object.
// A stream cut off mid-run is read up to its last complete line.
func (ClaudeStreamJSON) Read(r io.Reader, opts Options) (*Session, error) {
	return claudeRead(r, opts, claudeStream)
}

// claudeDialect tells the two Claude line formats apart.
type claudeDialect int

const (
	claudeUnknown claudeDialect = iota
	claudeSession
	claudeStream
)

// claudeDetectLines bounds how many non-empty lines detection looks at
// before giving up: Claude files say what they are on their first lines.
const claudeDetectLines = 8

// claudeDetect decides from the first lines of prefix which Claude dialect
// it holds, if any. Each line must be a JSON object; the first line that
// shows a dialect's keys decides. The last line of the prefix may be cut
// by the prefix limit: the keys read before the cut still count.
func claudeDetect(prefix []byte) claudeDialect {
	var sc jsonscan.Scanner
	rest := prefix
	for n := 0; n < claudeDetectLines && len(rest) > 0; {
		line, after, complete := bytes.Cut(rest, []byte{'\n'})
		rest = after
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		n++
		if line[0] != '{' {
			return claudeUnknown
		}
		d, ok := claudeClassify(&sc, line, complete)
		if !ok {
			return claudeUnknown
		}
		if d != claudeUnknown {
			return d
		}
	}
	return claudeUnknown
}

// claudeSessionOnlyTypes are line types that Claude Code writes to session
// files but never to stream-json output.
var claudeSessionOnlyTypes = []string{"summary", "queue-operation", "file-history-snapshot", "last-prompt"}

// claudeStreamTypes are the message types of Claude stream-json output.
// Other tools' JSONL streams (Gemini CLI's stream-json, say) also carry a
// session_id key, but with types of their own.
var claudeStreamTypes = []string{"system", "assistant", "user", "result", "stream_event"}

// claudeClassify reads the top-level keys of one line. It returns ok=false
// when the line rules out both dialects: it belongs to another format (an
// ATIF document, tool-call records) or is a complete line that is not
// valid JSON.
func claudeClassify(sc *jsonscan.Scanner, line []byte, complete bool) (claudeDialect, bool) {
	var (
		typ, subtype      []byte
		sawType           bool
		camel, snake      bool
		otherFormat       bool
		typBuf, subtypBuf [32]byte
	)
	sc.Reset(line)
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "type", "subtype":
			if sc.Peek() != jsonscan.String {
				sc.Skip()
				break
			}
			if string(key) == "type" {
				typ, _ = sc.AppendString(typBuf[:0], len(typBuf))
				sawType = true
			} else {
				subtype, _ = sc.AppendString(subtypBuf[:0], len(subtypBuf))
			}
		case "sessionId", "parentUuid", "isSidechain":
			camel = true
			sc.Skip()
		case "session_id", "parent_tool_use_id":
			snake = true
			sc.Skip()
		case "schema_version", "toolCalls", "projectHash":
			// An ATIF document, tool-call records, or the first record of
			// a Gemini CLI recording (which has a sessionId too).
			otherFormat = true
			sc.Skip()
		default:
			sc.Skip()
		}
	}
	sc.End()
	if otherFormat || sc.Err() != nil && complete {
		return claudeUnknown, false
	}
	t := string(typ)
	switch {
	case t == "system" && string(subtype) == "init":
		return claudeStream, true
	case sawType && slices.Contains(claudeSessionOnlyTypes, t):
		return claudeSession, true
	case camel && !snake:
		return claudeSession, true
	case snake && !camel && (!sawType || slices.Contains(claudeStreamTypes, t)):
		return claudeStream, true
	}
	return claudeUnknown, true
}
