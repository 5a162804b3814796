package htmlreport

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/trace"
)

// How much of a call's arguments and result a page keeps for its call
// list, where they are shown whole on demand: a result's first lines up to
// a byte budget (ShownResult), and the arguments up to a larger one.
const (
	keptResultLines   = 80
	keptResultBytes   = 6000
	keptArgumentBytes = 64 << 10
)

// traceData is what a page's script needs of one trace to draw its call
// list, filter it and search it. It travels in the page as gzip-compressed
// JSON in base64 (a script element of a type that is not JavaScript: data,
// never run), so that a session of tens of
// thousands of calls gives a page of a few megabytes whose calls are put
// in the document only as they are shown.
type traceData struct {
	Calls    []callData    `json:"calls"`
	Patterns []patternData `json:"patterns,omitempty"`
	// Prompt and Answer are the user's task and the agent's final text,
	// when the trace format records them.
	Prompt string `json:"prompt,omitempty"`
	Answer string `json:"answer,omitempty"`
	// Messages is the conversation, when the trace records it; the page
	// then shows it in place of Prompt and Answer, which it repeats.
	Messages []messageData `json:"messages,omitempty"`
}

// messageData is one message of the conversation: who wrote it, its text
// (made printable), the call it precedes (0-based; the number of calls
// when it follows the last), and what the trace reader left out of it.
type messageData struct {
	Who    string `json:"r"` // "u" user, "a" assistant text, "t" assistant reasoning
	Text   string `json:"x"`
	Before int    `json:"b"`
	Flags  int    `json:"f,omitempty"` // flagSubagent
	When   string `json:"w,omitempty"`
	Note   string `json:"n,omitempty"`
}

// messagesOf turns a session's messages into the page's, each made
// printable; start is the session's first time, from which When counts.
func messagesOf(msgs []trace.Message, start time.Time) []messageData {
	out := make([]messageData, 0, len(msgs))
	for _, m := range msgs {
		md := messageData{Who: "a", Text: cleanLines(m.Text), Before: m.Before}
		switch {
		case m.Role == trace.RoleUser:
			md.Who = "u"
		case m.Kind == trace.KindReasoning:
			md.Who = "t"
		}
		if m.Subagent {
			md.Flags |= flagSubagent
		}
		if !m.Time.IsZero() && !start.IsZero() {
			md.When = "+" + m.Time.Sub(start).Round(time.Second).String()
		}
		if m.Cut > 0 {
			md.Note = fmt.Sprintf("… %d more bytes not kept (a trace keeps a message's first %d bytes)", m.Cut, trace.MaxMessageBytes)
		}
		out = append(out, md)
	}
	return out
}

// callData is one call with short keys: the page of a long session holds
// thousands of them.
type callData struct {
	Tool     string     `json:"t"`
	Class    string     `json:"k"` // S, F, E or O: semantic, file-level, edit, other
	Category string     `json:"g,omitempty"`
	Flags    int        `json:"f,omitempty"` // flagSubagent | flagError | flagGroundTruth
	When     string     `json:"w,omitempty"`
	Query    string     `json:"q,omitempty"`
	Command  string     `json:"c,omitempty"` // what the call ran: a command line, a description
	Symbols  []string   `json:"y,omitempty"`
	Files    []fileData `json:"fl,omitempty"`
	Lines    []string   `json:"l,omitempty"`
	Patterns []int      `json:"p,omitempty"` // indexes into traceData.Patterns
	Args     string     `json:"a,omitempty"`
	ArgsNote string     `json:"an,omitempty"`
	Result   string     `json:"r,omitempty"`
	Note     string     `json:"rn,omitempty"`
}

// Flags of a call.
const (
	flagSubagent    = 1
	flagError       = 2
	flagGroundTruth = 4
)

// fileData is a file a call named: its path and what the call did with
// it, as fileRead | fileWritten | fileGroundTruth.
type fileData struct {
	Path  string
	Flags int
}

const (
	fileGroundTruth = 1
	fileRead        = 2
	fileWritten     = 4
)

// A file is [path, flags] in the data.
func (f fileData) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{f.Path, f.Flags})
}

func (f *fileData) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &[]any{&f.Path, &f.Flags})
}

// patternData is one pattern occurrence: its name, its detail, and its
// first and last step (1-based).
type patternData struct {
	Name   string `json:"n"`
	Detail string `json:"d"`
	First  int    `json:"s"`
	Last   int    `json:"e"`
}

// detailData is the heavy part of a call: its arguments and its result,
// each with a note of what the page left out; [a, an, r, rn] in the data.
type detailData [4]string

// encodeData writes a trace's two data blocks: the calls without their
// arguments and results, which the page's script reads when it loads, and
// those arguments and results, which it reads when a call is first opened
// or searched. Each is gzip-compressed JSON in URL-safe base64 without
// padding, whose alphabet (letters, digits, - and _) can neither end the
// element nor start markup, and which no escaping changes.
func encodeData(d *traceData) (calls, details string, err error) {
	light := *d
	light.Calls = make([]callData, len(d.Calls))
	heavy := make([]detailData, len(d.Calls))
	for i, c := range d.Calls {
		heavy[i] = detailData{c.Args, c.ArgsNote, c.Result, c.Note}
		c.Args, c.ArgsNote, c.Result, c.Note = "", "", "", ""
		light.Calls[i] = c
	}
	if calls, err = encodeBlock(&light); err != nil {
		return "", "", err
	}
	details, err = encodeBlock(heavy)
	return calls, details, err
}

func encodeBlock(v any) (string, error) {
	var b strings.Builder
	b64 := base64.NewEncoder(base64.RawURLEncoding, &b)
	zw, err := gzip.NewWriterLevel(b64, gzip.DefaultCompression)
	if err != nil {
		return "", err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("call data: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	if err := b64.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// decodeData is encodeData's inverse, for tests.
func decodeData(calls, details string) (*traceData, error) {
	var d traceData
	if err := decodeBlock(calls, &d); err != nil {
		return nil, err
	}
	var heavy []detailData
	if err := decodeBlock(details, &heavy); err != nil {
		return nil, err
	}
	if len(heavy) != len(d.Calls) {
		return nil, fmt.Errorf("%d calls, %d details", len(d.Calls), len(heavy))
	}
	for i, h := range heavy {
		c := &d.Calls[i]
		c.Args, c.ArgsNote, c.Result, c.Note = h[0], h[1], h[2], h[3]
	}
	return &d, nil
}

func decodeBlock(s string, v any) error {
	zr, err := gzip.NewReader(base64.NewDecoder(base64.RawURLEncoding, strings.NewReader(s)))
	if err != nil {
		return err
	}
	return json.NewDecoder(zr).Decode(v)
}

// keptLines are the lines of a result that a page keeps: the first
// keptResultLines, each cut at maxShownLineBytes, while the bytes kept are
// under keptResultBytes; and how many lines follow them.
func keptLines(s string) (kept []string, more int) {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil, 0
	}
	used := 0
	for len(kept) < keptResultLines && used < keptResultBytes {
		line, rest, ok := strings.Cut(s, "\n")
		if len(line) > maxShownLineBytes {
			line = line[:maxShownLineBytes]
		}
		kept = append(kept, line)
		used += len(line) + 1
		if !ok {
			return kept, 0
		}
		s = rest
	}
	return kept, strings.Count(s, "\n") + 1
}

// resultText is what a call's entry shows of a result: its kept lines,
// each made printable and cut at maxLineRunes, and a note saying how many
// lines the page left out.
func resultText(s string) (string, string) {
	kept, more := keptLines(s)
	lines := make([]string, len(kept))
	for i, l := range kept {
		lines[i] = shorten(clean(strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\t", "    ")), maxLineRunes)
	}
	note := ""
	if more > 0 {
		note = fmt.Sprintf("… %d more lines not kept in this page (it keeps a result's first %d lines or %d bytes)", more, keptResultLines, keptResultBytes)
	}
	return strings.Join(lines, "\n"), note
}

// argumentsText is a call's arguments as its entry shows them: indented
// JSON, made printable, whole up to keptArgumentBytes.
func argumentsText(s string) (string, string) {
	s = strings.TrimRight(s, "\n")
	note := ""
	if len(s) > keptArgumentBytes {
		note = fmt.Sprintf("… %d more bytes not kept in this page", len(s)-keptArgumentBytes)
		s = s[:keptArgumentBytes]
	}
	return cleanLines(s), note
}

// dataOf turns a trace's call views into its data block.
func dataOf(calls []callView, patterns []patternData, prompt, answer string) *traceData {
	d := &traceData{Calls: make([]callData, len(calls)), Patterns: patterns, Prompt: prompt, Answer: answer}
	for i := range calls {
		c := &calls[i]
		cd := callData{
			Tool: c.Tool, Class: c.Letter, Category: c.Category, When: c.When, Query: c.Query, Command: c.Command,
			Symbols: c.Symbols, Lines: c.Lines, Patterns: c.PatternIdx,
			Args: c.Arguments, ArgsNote: c.ArgsNote, Result: c.Result, Note: c.ResultNote,
		}
		if c.Subagent {
			cd.Flags |= flagSubagent
		}
		if c.Error {
			cd.Flags |= flagError
		}
		if c.GroundHit {
			cd.Flags |= flagGroundTruth
		}
		for _, f := range c.Files {
			fd := fileData{Path: f.Path}
			if f.GroundTruth {
				fd.Flags |= fileGroundTruth
			}
			if f.Read {
				fd.Flags |= fileRead
			}
			if f.Written {
				fd.Flags |= fileWritten
			}
			cd.Files = append(cd.Files, fd)
		}
		d.Calls[i] = cd
	}
	return d
}
