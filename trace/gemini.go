package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// GeminiCLI reads Gemini CLI chat recordings: the session files Gemini CLI
// keeps under ~/.gemini/tmp/<project-hash>/chats/.
//
// # Format
//
// Current versions append one JSON record a line to session-*.jsonl: first
// the session's metadata, then every message as it is recorded, again each
// time it changes (same id: the later record replaces the earlier one in
// place), "$set" records that update the metadata (a "$set" holding
// "messages" replaces the whole list), and "$rewindTo" records written when
// the user rewinds, which drop the named message and every message after
// it:
//
//	{"sessionId":"…","projectHash":"…","startTime":"…","kind":"main"}
//	{"id":"m1","timestamp":"…","type":"user","content":[{"text":"…"}]}
//	{"id":"m2","timestamp":"…","type":"gemini","content":"","model":"gemini-2.5-pro",
//	 "tokens":{"input":9553,"output":79,"cached":0,"thoughts":524,"tool":0,"total":10156},
//	 "toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"/w/a.go"},
//	   "status":"success","timestamp":"…",
//	   "result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"…"}}}]}]}
//	{"$set":{"lastUpdated":"…"}}
//	{"$rewindTo":"m2"}
//
// Older versions wrote the same data as one JSON document, session-*.json:
// the metadata with a "messages" array, every element of which is a
// message where it stands (Gemini CLI parses the array; a repeated id
// replaces nothing). Both are read; the reader tells them apart by the
// first line, which is a complete JSON object only in the line format (a
// one-line document is a metadata record holding its messages, as Gemini
// CLI itself reads it).
//
// Memory does not grow with the file. A document is read one message at
// a time; read from a file, its "kind", which Gemini CLI writes after the
// messages, is found first by walking the file's brackets and quotes, so
// that each message goes to the session, and each call to
// Options.CallDone, as it is read. A line recording is known only at its
// end, since a later record may replace or drop any message: read from a
// file, each message is kept as the place of its last line and read again
// from there once the file is read. Neither can be done on a stream
// (standard input, an HTTP body), so a stream that goes on past the read
// buffer is first copied to a temporary file (in $TMPDIR, removed at once
// where the system allows it, else once read) and read as a file is; a
// shorter one, or one for which no temporary file can be made, is read as
// it comes, each message kept as what the session needs of it. The
// recording names no working directory (Session.CWDSettled).
//
// Tool calls are the toolCalls of "gemini" messages, with their results
// inline: the text is the functionResponse's response.output (or
// response.error) of result. A call whose status is "error" or
// "cancelled", or whose response holds an error, is IsError; a cancelled
// call did not run to completion, so its output is not what the agent
// asked for. A call with no result yet (a session cut off while the tool
// ran) has HasResult false. A recording whose metadata says kind
// "subagent" (a subagent's own file, chats/<parent-session>/<id>.jsonl)
// has every call marked Subagent.
//
// Status "success" only says that a tool ran. The shell tool
// (run_shell_command) reports how its command ended in the text it gives
// the model, fields around the output:
//
//	Command: file /root/offer.docx
//	Directory: (root)
//	Output: bash: line 1: file: command not found
//	Error: (none)
//	Exit Code: 127
//	Signal: 0
//	Background PIDs: (none)
//	Process Group PGID: 1184
//
// (since 2026 "Output: …" first and only the fields that say something).
// Its result is the output alone ("(empty)" is empty), and a non-zero exit
// code, a signal, an error or a cancellation marks the call IsError; see
// geminiShellOutput for every version's shape. Other tools that report a
// failure under status success (the grep tool's "Error during grep search
// operation: …") are IsError too.
//
// Tokens come from each gemini message's tokens, the model's usage
// metadata: input is promptTokenCount, which already includes the cached
// tokens (cached is a part of it and is not added again), and tool
// (toolUsePromptTokenCount) and thoughts are counted as input and output
// respectively, so that a message counts input+tool+output+thoughts, its
// total. Each message is counted once, however often it was rewritten.
type GeminiCLI struct{}

// Name returns "gemini-cli".
func (GeminiCLI) Name() string { return "gemini-cli" }

// Info describes the format.
func (GeminiCLI) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Gemini CLI, for every session (chat recording, on by default)",
		Detection: `a JSON object, or JSON Lines whose first record is one, with top-level "sessionId" and "projectHash" strings`,
		Example:   "~/.gemini/tmp/<project-hash>/chats/session-<time>-<id>.jsonl (session-*.json before)",
	}
}

// Detect reports whether prefix starts with a JSON object whose top-level
// keys include "sessionId" and "projectHash", both strings: the first
// record of a line recording, or a whole older session document. The
// object may be cut by the prefix limit; the keys read before the cut
// count.
func (GeminiCLI) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' || !bytes.Contains(prefix, []byte(`"projectHash"`)) {
		return false
	}
	var sc jsonscan.Scanner
	sc.Reset(prefix)
	sc.Object()
	var session, project bool
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "sessionId", "projectHash":
			if sc.Peek() != jsonscan.String {
				return false
			}
			if string(key) == "sessionId" {
				session = true
			} else {
				project = true
			}
		}
		if session && project {
			return true
		}
		sc.Skip()
	}
	return false
}

// Read reads a Gemini CLI recording, in the line format or the older
// document format. A line that is not a JSON object, or a record of no
// known kind, is skipped with a warning; a message whose fields have the
// wrong types keeps what could be read, with a warning. It returns an error
// when the input holds no Gemini CLI record at all.
func (GeminiCLI) Read(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	gr := newGeminiReader(opts)
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	if opts.file == nil {
		spool, err := geminiSpool(br, opts.spool)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opts.Source, err)
		}
		if spool != nil {
			defer spool.Close()
			br = bufio.NewReaderSize(spool.Reader(), 1<<16)
			opts.file, opts.fileSize = spool, max(spool.Size(), 1)
		}
	}
	document, err := geminiIsDocument(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Source, err)
	}
	if document {
		if opts.file != nil {
			gr.kind, gr.streaming = geminiDocumentKind(opts.file, opts.fileSize)
		}
		cut, summary := cutDocument(br, opts)
		err = gr.readDocument(newJSONDoc(cut))
		warnCut(gr.s, summary)
	} else {
		if opts.file != nil {
			gr.file = opts.file
			var head [len(bom)]byte
			if n, _ := opts.file.ReadAt(head[:], 0); n == len(head) && string(head[:]) == bom {
				gr.fileBOM = true
			}
		}
		err = gr.readLines(br)
	}
	if err != nil {
		return nil, err
	}
	gr.finish()
	return gr.s, nil
}

// geminiSpool holds a stream (standard input, an HTTP body) that goes on
// past what br holds in a temporary file, to be read as a file is: a
// document's kind found first and its messages streamed, a line
// recording's messages kept as their places, so that memory does not grow
// with the input. A stream that has ended within br is in memory already
// and is read from it (mode, set by tests, may say otherwise). It returns
// no spool, and the stream is read as it comes, when no temporary file can
// be made; an error only when the file could not be written, the stream
// being then partly read.
func geminiSpool(br *bufio.Reader, mode spoolMode) (*input.Spool, error) {
	if mode == spoolNever {
		return nil, nil
	}
	if _, err := br.Peek(br.Size()); err == io.EOF && mode != spoolAlways {
		return nil, nil
	}
	spool, err := input.NewSpool("")
	if err != nil {
		return nil, nil
	}
	if err := spool.Fill(br); err != nil {
		spool.Close()
		return nil, err
	}
	return spool, nil
}

// geminiIsDocument tells an older session document from a line recording
// by its first line: a document's first line is the opening brace alone
// (JSON.stringify with indentation), a line recording's first line is a
// complete record.
func geminiIsDocument(br *bufio.Reader) (bool, error) {
	for n := 1 << 12; ; n *= 2 {
		peek, err := br.Peek(n)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return false, err
		}
		peek = bytes.TrimPrefix(peek, []byte(bom))
		trimmed := bytes.TrimLeft(peek, " \t\r\n")
		if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
			first := bytes.TrimSpace(trimmed[:i])
			return string(first) == "{" || (len(first) > 0 && first[0] == '{' && !json.Valid(first) && geminiOpensObject(first)), nil
		}
		if err != nil || len(peek) < n {
			// One line only: a one-line document or a single record, read
			// alike.
			return false, nil
		}
		if n >= br.Size() {
			// A first line longer than the buffer is a record, never the
			// opening of an indented document.
			return false, nil
		}
	}
}

// geminiOpensObject reports whether line is the first line of an indented
// document that puts its first key on the brace's line ({"sessionId": …,).
func geminiOpensObject(line []byte) bool {
	line = bytes.TrimSpace(line)
	return bytes.HasSuffix(line, []byte(",")) || bytes.HasSuffix(line, []byte("["))
}

// readLines reads the line format.
func (gr *geminiReader) readLines(br *bufio.Reader) error {
	lr := newLineReader(br)
	lr.skip = func(n int, msg string) { gr.s.Warnf(n, "%s", msg) }
	lr.cutLongLines(gr.max, lr.skip)
	for {
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: reading Gemini CLI recording: %w", gr.s.Source, n+1, err)
		}
		if n == 1 {
			if gr.fileBOM && !bytes.HasPrefix(line, []byte(bom)) {
				// The byte order mark was dropped before the stream.
				gr.base = int64(len(bom))
			}
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		// A message on a line read whole is kept as the place of the line
		// in the file, to be read again once no later record can replace
		// or drop it; a line cut as it streamed in is kept as read.
		gr.at = geminiLineRef{}
		if gr.file != nil && n > 1 && !lr.compacted {
			gr.at = geminiLineRef{off: gr.base + lr.start, size: len(line), line: n, sum: maphash.Bytes(gr.seed, line)}
		}
		gr.record(line, n)
	}
	if gr.records == 0 {
		return gr.notARecording()
	}
	if gr.lastBroken > 0 && gr.lastBroken == lr.line && gr.s.WarningsDropped == 0 {
		// Gemini CLI appends one line at a time; a CLI killed mid-write
		// leaves the last one half written.
		w := &gr.s.Warnings[len(gr.s.Warnings)-1]
		w.Message = "the last line is cut short or malformed (" + gr.lastErr + "); the recording was read up to the line before it"
	}
	return nil
}

func (gr *geminiReader) notARecording() error {
	src := gr.s.Source
	if len(gr.s.Warnings) > 0 {
		w := gr.s.Warnings[0]
		return fmt.Errorf("%s: not a Gemini CLI recording: no record has sessionId and projectHash, a message id, $set or $rewindTo (line %d: %s)", src, w.Line, w.Message)
	}
	return fmt.Errorf("%s: not a Gemini CLI recording: no record has sessionId and projectHash, a message id, $set or $rewindTo", src)
}

// readDocument reads the older one-document format, holding one message at
// a time.
func (gr *geminiReader) readDocument(d *jsonDoc) error {
	src := gr.s.Source
	c, _ := d.peek()
	line := d.Line()
	if c != '{' {
		return fmt.Errorf("%s:%d: expected a Gemini CLI session (a JSON object with sessionId and messages), found %s", src, line, jsonValueKind(c))
	}
	d.Open()
	if err := gr.documentFields(d); err != nil {
		var de *jsonDocError
		if !errors.As(err, &de) {
			return fmt.Errorf("%s: %w", src, err)
		}
		if gr.records == 0 {
			return fmt.Errorf("%s:%d: reading Gemini CLI session: no message could be read: %w", src, de.Line, de.Err)
		}
		gr.s.Warnf(de.Line, "session is cut short or malformed (%v); kept the %d messages read before it", de.Err, gr.identified)
		return nil
	}
	if !gr.sawMeta && gr.identified == 0 {
		return fmt.Errorf("%s:%d: not a Gemini CLI session: the object has neither sessionId and projectHash nor messages with an id", src, line)
	}
	if note, at := d.End(); note != "" {
		gr.s.Warnf(at, "%s", note)
	}
	return nil
}

// documentFields reads the members of the session object, which d has
// entered.
func (gr *geminiReader) documentFields(d *jsonDoc) error {
	var session, project bool
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			gr.sawMeta = session && project
			return err
		}
		c, _ := d.peek()
		line := d.Line()
		if key != "messages" {
			raw, err := d.Value()
			if err != nil {
				return err
			}
			gr.sc.Reset(raw)
			switch key {
			case "sessionId":
				session = gr.sc.Peek() == jsonscan.String
			case "projectHash":
				project = gr.sc.Peek() == jsonscan.String
			}
			gr.metaField(key, line)
			continue
		}
		if c != '[' {
			if err := d.Skip(); err != nil {
				return err
			}
			gr.s.Warnf(line, "messages: expected an array, found %s; no messages read", jsonValueKind(c))
			continue
		}
		d.Open()
		for {
			more, err := d.NextElem()
			if err != nil {
				return err
			}
			if !more {
				break
			}
			d.peek()
			line := d.Line()
			raw, err := d.Frame()
			if err != nil {
				return err
			}
			gr.reset(&gr.sc, raw)
			m, err := gr.message(line, "message")
			if err != nil {
				return d.RecordError(line, raw, err, "a message")
			}
			gr.records++
			if m != nil {
				gr.addDocumentMessage(m)
			}
		}
	}
}

// geminiDocumentKind reads the session document in f ahead of the read
// for its kind ("main" or "subagent"), which Gemini CLI writes after the
// messages, so that the messages can go to the session, and their calls
// to Options.CallDone, as they are read. It finds the end of each value
// by its brackets and quotes alone, a fraction of the cost of reading
// it, and holds one message at a time. ok is false when the document
// cannot be walked to its end: its messages are then kept until the end.
// (A document whose brackets close but whose messages hold a syntax
// error is read up to the error with the kind the file gives after it.)
func geminiDocumentKind(f io.ReaderAt, size int64) (kind string, ok bool) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)
	if b, _ := br.Peek(len(bom)); string(b) == bom {
		br.Discard(len(bom))
	}
	d := newJSONDoc(br)
	if c, _ := d.peek(); c != '{' {
		return "", false
	}
	d.Open()
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return "", false
		}
		if !more {
			break
		}
		c, _ := d.peek()
		switch {
		case key == "kind":
			raw, err := d.Value()
			if err != nil {
				return "", false
			}
			// A string sets the kind; null or another type leaves it, as
			// the read does.
			var sc jsonscan.Scanner
			sc.Reset(raw)
			if sc.Peek() == jsonscan.String {
				b, _ := sc.AppendString(nil, -1)
				kind = string(b)
			}
		case key == "messages" && c == '[':
			d.Open()
			for {
				more, err := d.NextElem()
				if err != nil {
					return "", false
				}
				if !more {
					break
				}
				if _, err := d.Frame(); err != nil {
					return "", false
				}
			}
		default:
			if _, err := d.Frame(); err != nil {
				return "", false
			}
		}
	}
	if note, _ := d.End(); note != "" {
		return "", false
	}
	return kind, true
}
