package trace

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/printable"
)

// A Session is one agent run as read from a trace file: the ordered tool
// calls the agent made plus what the trace says about the run itself.
type Session struct {
	// Format is the name of the reader that produced the session
	// ("claude-code", "codex", "otel", "openhands-eval", …).
	Format string `json:"format"`
	// Source names where the trace came from, usually its file name; it is
	// the name used in warnings.
	Source string `json:"source"`

	ID string `json:"session_id,omitempty"`
	// Task names the task the session worked on when the trace records it
	// (an evaluation harness's instance id).
	Task         string `json:"task,omitempty"`
	Agent        string `json:"agent,omitempty"`
	AgentVersion string `json:"agent_version,omitempty"`
	Model        string `json:"model,omitempty"`
	// CWD is the agent's working directory when the trace records it. Event
	// extraction makes absolute paths relative to it.
	CWD string `json:"cwd,omitempty"`
	// Tools lists the tools the agent had available, when the trace says
	// (Claude stream-json init line, ATIF tool_definitions).
	Tools []string `json:"tools,omitempty"`

	// Start is the earliest timestamp in the trace (zero when the trace has
	// none). Elapsed times are measured from it.
	Start time.Time `json:"start,omitzero"`

	// Calls holds every tool call in trace order; Calls[i].Index == i.
	// A session read with Options.DropReleased holds only the calls not
	// dropped (see NumCalls and Call).
	Calls []ToolCall `json:"calls"`

	// Usage is the token total over the whole trace, each model message
	// counted once. Nil when the trace records no token usage.
	Usage *Usage `json:"usage,omitempty"`

	// Prompt is the first instruction the user gave the main agent, when
	// the trace records it (a Claude Code session transcript, a Codex
	// rollout's first user_message, a Gemini CLI session's or an OpenHands
	// event list's first user message): the task in the user's words.
	// Command wrappers ("<command-name>…") and meta lines are not prompts.
	Prompt string `json:"prompt,omitempty"`

	// Answer is the agent's final text answer when the trace has one (the
	// stream-json result line, or the last assistant text of the main agent).
	Answer string `json:"answer,omitempty"`

	// Messages is the conversation around the calls, in trace order: the
	// user's prompts, the assistant's text and its reasoning summaries,
	// each placed by the call it precedes (Message.Before), each cut to
	// MaxMessageBytes. Nil when the format records none (see the package
	// documentation for what each reader keeps).
	Messages []Message `json:"messages,omitempty"`

	// Warnings lists what the reader skipped or could not interpret, the
	// first MaxWarnings of them. A session with warnings is still usable;
	// each warning says what was lost.
	Warnings []Warning `json:"warnings,omitempty"`
	// WarningsDropped counts the warnings past the first MaxWarnings: they
	// are counted, not kept, so a trace of millions of malformed lines costs
	// neither memory nor a message per line. WarningsSummary says it in words.
	WarningsDropped int `json:"warnings_dropped,omitempty"`

	// skipMessages, set from Options.SkipMessages by the readers that
	// stream, makes AddMessage keep nothing.
	skipMessages bool
	// streamed is set by readers that hand calls to Options.CallDone
	// themselves, as they read.
	streamed bool
	// noCWD is set by the readers of formats that record no working
	// directory: CWD stays empty whatever the rest of the trace holds.
	noCWD bool
	// ledger, for a session read with Options.DropReleased, counts its
	// calls and holds those not dropped.
	ledger *callLedger
	// checked holds, by call index, the arguments the reader checked as
	// JSON (see ArgumentsChecked) of the calls not released. It is kept
	// here rather than in each ToolCall so that a call read from a trace
	// equals, field for field (reflect.DeepEqual), the same call written
	// as a literal.
	checked []checkedArgs
}

// CWDSettled reports whether CWD is final while the session is still
// being read: it is set (readers set it once), or the format records no
// working directory (a Gemini CLI recording). An Options.CallDone that
// makes paths relative to the working directory can use a call at once
// when it is, and must wait for the end of the read when it is not.
func (s *Session) CWDSettled() bool { return s.CWD != "" || s.noCWD }

// MaxWarnings is how many warnings a session keeps. Later ones are only
// counted (Session.WarningsDropped).
const MaxWarnings = 20

// Name returns the session's Task, else its ID, else its Source: the name
// by which a user picks it out of a file that holds several.
func (s *Session) Name() string {
	switch {
	case s.Task != "":
		return s.Task
	case s.ID != "":
		return s.ID
	}
	return s.Source
}

// A ToolCall is one tool invocation by the agent (or by one of its
// subagents) joined with its result.
type ToolCall struct {
	// Index is the 0-based position of the call among all tool calls of the
	// session, subagent calls included. Two sources of the same run (a
	// transcript and a trajectory) join on it.
	Index int `json:"index"`
	// ID is the call id the trace assigns (tool_use id, tool_call_id);
	// empty when the format has none.
	ID string `json:"id,omitempty"`
	// Name is the raw tool name as the trace spells it.
	Name string `json:"name"`
	// Arguments is the call's input as raw JSON (an object for every format
	// that has structured arguments; a JSON string when the trace only has
	// text).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result is the text the tool returned. Empty when the trace has no
	// result for the call (HasResult is then false).
	Result    string `json:"result,omitempty"`
	HasResult bool   `json:"has_result"`
	// IsError is true when the trace marks the result as an error.
	IsError bool `json:"is_error,omitempty"`
	// Time is when the call was issued; zero when the trace has no
	// timestamp for it.
	Time time.Time `json:"time,omitzero"`
	// CumulativeTokens is the number of tokens the run had used up to and
	// including the model turn that issued this call (input, cache and
	// output tokens, each model message counted once). Nil when the trace
	// records no usage.
	CumulativeTokens *int64 `json:"cumulative_tokens,omitempty"`
	// Subagent is true when a subagent (a Task sidechain, an embedded or
	// delegated trajectory) made the call rather than the main agent.
	Subagent bool `json:"subagent,omitempty"`
	// ParentID is the ID of the main-agent call that started the subagent,
	// when the trace lets it be known.
	ParentID string `json:"parent_id,omitempty"`
}

// ArgumentsChecked reports whether the reader that made call i checked
// its Arguments as JSON, the content of every string included, as it read
// the trace, and the call's Arguments are still the value it checked (the
// same bytes in the same place). Readers that decode arguments from a line
// they check anyway (Claude Code's) say so; a consumer that decodes the
// arguments again can then pass over strings it does not read without
// checking them twice. A call built by a program, or one no longer in the
// session, reports false.
func (s *Session) ArgumentsChecked(i int) bool {
	k, ok := s.findChecked(i)
	if !ok {
		return false
	}
	c := s.Call(i)
	if c == nil {
		return false
	}
	// b is never empty (markChecked keeps no empty arguments): equal
	// lengths leave a a first byte to compare.
	a, b := c.Arguments, s.checked[k].args
	return len(a) == len(b) && &a[0] == &b[0]
}

// checkedArgs is the Arguments of call i as the reader checked them.
type checkedArgs struct {
	i    int
	args json.RawMessage
}

// markChecked records that the reader checked args, the Arguments of call
// i, as JSON (see ArgumentsChecked). Calls are marked in the order they
// are added, hence by index.
func (s *Session) markChecked(i int, args json.RawMessage) {
	if len(args) == 0 {
		return
	}
	s.checked = append(s.checked, checkedArgs{i: i, args: args})
}

// findChecked returns the place of call i in s.checked, and whether it is
// there.
func (s *Session) findChecked(i int) (int, bool) {
	// Looked up mostly while the session is read, among the few calls
	// waiting for their result, the one just read last.
	if n := len(s.checked); n > 0 && s.checked[n-1].i == i {
		return n - 1, true
	}
	return slices.BinarySearchFunc(s.checked, i, func(c checkedArgs, i int) int { return cmp.Compare(c.i, i) })
}

// forgetChecked drops what s.checked holds of call i, once the call is
// released: its arguments can go.
func (s *Session) forgetChecked(i int) {
	k, ok := s.findChecked(i)
	if !ok {
		return
	}
	// Delete clears the element it leaves past the end: its arguments go.
	s.checked = slices.Delete(s.checked, k, k+1)
}

// ArgumentsMap decodes the arguments as a JSON object. It returns nil when
// the arguments are absent or not an object. A number float64 cannot hold
// is kept as a json.Number rather than losing the object (see
// DecodeArguments).
func (c *ToolCall) ArgumentsMap() map[string]any {
	m, _ := DecodeArguments(c.Arguments)
	return m
}

// Usage counts tokens. InputTokens includes cached prompt tokens (cache reads
// and cache writes), so Total is the number of tokens the model processed.
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_tokens,omitempty"`
	CacheCreationTokens int64 `json:"cache_creation_tokens,omitempty"`
}

// Total is input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:         u.InputTokens + v.InputTokens,
		OutputTokens:        u.OutputTokens + v.OutputTokens,
		CacheReadTokens:     u.CacheReadTokens + v.CacheReadTokens,
		CacheCreationTokens: u.CacheCreationTokens + v.CacheCreationTokens,
	}
}

// A Warning reports part of a trace that a reader skipped or could not
// interpret. Line is 1-based; 0 when the warning is not about one line.
type Warning struct {
	Source  string `json:"source"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String is "source:line: message", with control characters escaped
// (printable.Line): source and message come from the trace.
func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", printable.Line(w.Source), w.Line, printable.Line(w.Message))
	}
	return fmt.Sprintf("%s: %s", printable.Line(w.Source), printable.Line(w.Message))
}

// Warnf records a warning about the given line of the session's source.
// Past MaxWarnings the warning is only counted, and its message is never
// formatted.
func (s *Session) Warnf(line int, format string, args ...any) {
	if len(s.Warnings) >= MaxWarnings {
		s.WarningsDropped++
		return
	}
	s.Warnings = append(s.Warnings, Warning{Source: s.Source, Line: line, Message: fmt.Sprintf(format, args...)})
}

// Warn records w, or only counts it once MaxWarnings are kept.
func (s *Session) Warn(w Warning) {
	if len(s.Warnings) >= MaxWarnings {
		s.WarningsDropped++
		return
	}
	s.Warnings = append(s.Warnings, w)
}

// AddWarnings records the warnings of another session (a subagent's, the
// other source of a merged run) after s's own, kept and counted alike.
func (s *Session) AddWarnings(from *Session) {
	for _, w := range from.Warnings {
		s.Warn(w)
	}
	s.WarningsDropped += from.WarningsDropped
}

// prependWarnings puts the warnings of from (about the file that holds
// several sessions) before s's own.
func (s *Session) prependWarnings(from *Session) {
	own := &Session{Warnings: s.Warnings, WarningsDropped: s.WarningsDropped}
	s.Warnings, s.WarningsDropped = slices.Clone(from.Warnings), from.WarningsDropped
	s.AddWarnings(own)
}

// WarningCount is the number of warnings, kept and dropped.
func (s *Session) WarningCount() int { return len(s.Warnings) + s.WarningsDropped }

// WarningsSummary is the line that stands for the dropped warnings ("t.jsonl:
// and 9,999,990 more warnings, not kept"); empty when none was dropped.
func (s *Session) WarningsSummary() string {
	if s.WarningsDropped == 0 {
		return ""
	}
	return Warning{Source: s.Source, Message: "and " + thousands(s.WarningsDropped) + " more warnings, not kept"}.String()
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	d := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && c != '-' && (len(d)-i)%3 == 0 && d[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// AddCall appends a call, setting its Index, and returns that index so a
// reader can fill in the result later through s.Call(i).
func (s *Session) AddCall(c ToolCall) int {
	if s.ledger != nil && s.ledger.live != nil {
		return s.ledger.add(c)
	}
	c.Index = len(s.Calls)
	s.Calls = append(s.Calls, c)
	return c.Index
}

// NoteTime moves Start back to t when t is earlier (or Start is unset).
func (s *Session) NoteTime(t time.Time) {
	if t.IsZero() {
		return
	}
	if s.Start.IsZero() || t.Before(s.Start) {
		s.Start = t
	}
}
