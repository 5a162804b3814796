package trace

import (
	"strings"
	"time"
	"unicode/utf8"
)

// A Message is one turn of the conversation around the tool calls: a user
// prompt, the assistant's text, or a summary of its reasoning, placed by
// the call it precedes.
type Message struct {
	// Role is RoleUser or RoleAssistant.
	Role string `json:"role"`
	// Kind is KindText, or KindReasoning for the model's thinking or its
	// summary (Claude's thinking blocks, Codex's reasoning summaries,
	// Gemini CLI's thoughts, reasoning_content in ATIF and OpenHands V1).
	// What an agent writes beside its action (a SWE-agent step's thought,
	// an OpenHands action's thought) is text: the model said it.
	Kind string `json:"kind"`
	// Text is the message's text, white space trimmed at both ends and
	// cut to MaxMessageBytes at a character boundary.
	Text string `json:"text"`
	// Cut counts the bytes of the text left out past MaxMessageBytes; 0
	// when the text is whole.
	Cut int `json:"cut,omitempty"`
	// Time is when the message was written; zero when the trace does not
	// say.
	Time time.Time `json:"time,omitzero"`
	// Before is the index of the first tool call after the message: the
	// message comes after calls 0 to Before-1 and before call Before. A
	// message after the last call has Before == NumCalls().
	Before int `json:"before"`
	// Subagent is true when a subagent's conversation holds the message
	// (a Task sidechain's prompt and text) rather than the main agent's.
	Subagent bool `json:"subagent,omitempty"`
}

// The roles and kinds of a Message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"

	KindText      = "text"
	KindReasoning = "reasoning"
)

// MaxMessageBytes is how many bytes of a message's text a session keeps.
// A long message (a pasted log, an assistant's report) is cut there and
// Message.Cut says how much was left out, so the conversation costs at most
// this much per message whatever the trace holds; the tool calls carry
// what the agent retrieved.
const MaxMessageBytes = 4096

// AddMessage appends a message of the conversation, placed before the
// next call the reader adds (Before is the number of calls read so far).
// Its text is trimmed of spaces, tabs and line breaks and cut to
// MaxMessageBytes; a message with no text is not kept.
func (s *Session) AddMessage(role, kind, text string, t time.Time, subagent bool) {
	if s.skipMessages {
		return
	}
	s.Messages = appendMessage(s.Messages, role, kind, text, t, subagent, s.NumCalls())
}

// addMessageBytes is AddMessage for a text still in a reader's buffer: only
// the part kept is copied.
func (s *Session) addMessageBytes(role, kind string, text []byte, t time.Time, subagent bool) {
	if s.skipMessages {
		return
	}
	s.Messages = appendMessage(s.Messages, role, kind, text, t, subagent, s.NumCalls())
}

// appendMessage appends to msgs a message placed before call before, its
// text trimmed and cut (see AddMessage), for readers that place messages
// themselves (they add calls and messages in separate passes).
func appendMessage[T ~string | ~[]byte](msgs []Message, role, kind string, text T, t time.Time, subagent bool, before int) []Message {
	kept, cut := cutMessage(text)
	if len(kept) == 0 {
		return msgs
	}
	return append(msgs, Message{
		Role: role, Kind: kind, Text: string(kept), Cut: cut,
		Time: t, Before: before, Subagent: subagent,
	})
}

// cutMessage trims text and cuts it to MaxMessageBytes at a character
// boundary, returning what is kept and how many bytes of the trimmed text
// were left out. The caller copies what is kept (string(kept)), so that a
// message never holds on to a larger string it was cut from.
func cutMessage[T ~string | ~[]byte](text T) (kept T, cut int) {
	text = trimSpace(text)
	if len(text) <= MaxMessageBytes {
		if s, ok := any(text).(string); ok {
			// A string kept whole would share the reader's; copy it.
			return T(strings.Clone(s)), 0
		}
		return text, 0
	}
	// A character is at most utf8.UTFMax bytes: past that, the bytes are
	// not UTF-8, and the cut stays at the cap.
	n := MaxMessageBytes
	for back := 0; back < utf8.UTFMax-1 && !utf8.RuneStart(text[n]); back++ {
		n--
	}
	if !utf8.RuneStart(text[n]) {
		n = MaxMessageBytes
	}
	kept = trimSpace(text[:n])
	if s, ok := any(kept).(string); ok {
		kept = T(strings.Clone(s))
	}
	return kept, len(text) - len(kept)
}

// trimSpace trims spaces, tabs and line breaks at both ends.
func trimSpace[T ~string | ~[]byte](text T) T {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i, j := 0, len(text)
	for i < j && isSpace(text[i]) {
		i++
	}
	for j > i && isSpace(text[j-1]) {
		j--
	}
	return text[i:j]
}
