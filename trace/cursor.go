package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/sqlitefile"
)

// Cursor reads the conversations of Cursor's agent and chat (composer)
// from the SQLite database in which Cursor keeps them, globalStorage/
// state.vscdb below Cursor's user folder: ~/.config/Cursor/User on Linux,
// ~/Library/Application Support/Cursor/User on macOS, %APPDATA%\Cursor\User
// on Windows. The database holds every conversation: each is one session
// (Session.ID is its composer id), and Options.SessionID picks one.
//
// # Format
//
// The table cursorDiskKV maps text keys to JSON values. Since 2025 a
// conversation is a row composerData:<composerId>, whose
// fullConversationHeadersOnly lists its messages ("bubbles") in order,
// each a row bubbleId:<composerId>:<bubbleId>; earlier conversations hold
// their bubbles inline, in conversation. A bubble of type 1 is the user's,
// of type 2 the model's; a tool call is a model bubble with toolFormerData:
//
//	{"name": "read_file", "toolCallId": "call_…\nfc_…", "status": "completed",
//	 "rawArgs": "{\"target_file\":\"/w/a.rs\",\"offset\":320,\"limit\":30}",
//	 "result": "{\"contents\":\"…\",\"totalLinesInFile\":1895}"}
//
// The call's id is the first line of toolCallId (the model's call id; the
// second is the provider's item id), its arguments are rawArgs as the
// model wrote them (params, Cursor's own form, when rawArgs is absent),
// and its result is the text of result that the model read: its
// resultForModel when it has one (an edit's "Success. Updated the following
// files: …"), the file text of a read (contents), else the JSON as stored
// (a grep's matches by file and line, a search's code blocks with their
// numbered lines, a command's output). Status "error" or
// "cancelled", or a result holding an error, marks the call IsError. The
// working directory is the workspace folder a search result is keyed by
// (workspaceResults); Cursor records it nowhere else in this database.
//
// The database is opened read-only and never written: Cursor may have it
// open. When a write-ahead log (state.vscdb-wal) lies beside the file, its
// committed pages are read too, as SQLite would; a log that cannot be read
// is a warning, and the database is then read as its last checkpoint left
// it. Given a stream rather than a file, the reader reads it whole first,
// since an SQLite file is read by page number; given a file, it reads only
// the pages it needs.
type Cursor struct{}

// Name returns "cursor".
func (Cursor) Name() string { return "cursor" }

// Info describes the format.
func (Cursor) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Cursor, for every agent and chat conversation (one SQLite database for all of them)",
		Detection: `an SQLite database ("SQLite format 3" header) whose schema, on its first page, creates the table cursorDiskKV`,
		Example: "<User>/globalStorage/state.vscdb, <User> being ~/.config/Cursor/User (Linux), " +
			"~/Library/Application Support/Cursor/User (macOS), %APPDATA%\\Cursor\\User (Windows)",
	}
}

// Detect reports an SQLite database whose first page creates the table
// cursorDiskKV.
func (Cursor) Detect(prefix []byte) bool {
	if !bytes.HasPrefix(prefix, []byte(sqlitefile.Header)) || len(prefix) < 100 {
		return false
	}
	ps := int(prefix[16])<<8 | int(prefix[17])
	if ps == 1 {
		ps = 65536
	}
	first := prefix[:min(len(prefix), max(ps, 512))]
	return bytes.Contains(first, []byte("CREATE TABLE cursorDiskKV"))
}

// Read reads the one conversation of the database, or the one
// Options.SessionID names.
func (c Cursor) Read(r io.Reader, opts Options) (*Session, error) {
	all, err := c.ReadAll(r, opts)
	if err != nil {
		return nil, err
	}
	return pickSession(all, opts)
}

// ReadAll reads every conversation of a database given as a stream.
func (c Cursor) ReadAll(r io.Reader, opts Options) ([]*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Source, err)
	}
	return c.readAllAt(bytes.NewReader(data), int64(len(data)), "", opts)
}

func (Cursor) readAllAt(r io.ReaderAt, size int64, name string, opts Options) ([]*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	db, err := sqlitefile.Open(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	var walNote string
	if name != "" {
		walNote = cursorApplyWAL(db, name+"-wal")
	}
	tables, err := db.Tables()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the schema: %w", src, err)
	}
	i := slices.IndexFunc(tables, func(t sqlitefile.Table) bool { return t.Name == "cursorDiskKV" })
	if i < 0 {
		return nil, fmt.Errorf("%s: not a Cursor database: an SQLite database without the table cursorDiskKV", src)
	}
	cr := &cursorReader{db: db, root: tables[i].Root, opts: opts, src: src, bubbles: map[string]int64{}}
	if err := cr.scan(); err != nil {
		return nil, fmt.Errorf("%s: reading cursorDiskKV: %w", src, err)
	}
	if len(cr.composers) == 0 {
		return nil, fmt.Errorf("%s: a Cursor database without conversations (no composerData row in cursorDiskKV)", src)
	}
	var out []*Session
	for _, c := range cr.composers {
		s := cr.session(c)
		if walNote != "" {
			s.Warnings = append([]Warning{{Source: src, Message: walNote}}, s.Warnings...)
		}
		out = append(out, s)
	}
	return out, nil
}

// cursorApplyWAL applies the write-ahead log at path when there is one,
// and returns a warning when it could not be applied.
func cursorApplyWAL(db *sqlitefile.DB, path string) string {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("a write-ahead log is beside the database and could not be opened (%v); read as of the last checkpoint", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("a write-ahead log is beside the database and could not be read (%v); read as of the last checkpoint", err)
	}
	if _, err := db.ApplyWAL(f, info.Size()); err != nil {
		return fmt.Sprintf("the write-ahead log beside the database was not applied (%v); read as of the last checkpoint", err)
	}
	return ""
}

// cursorComposer is a conversation's row.
type cursorComposer struct {
	ComposerID string `json:"composerId"`
	Name       string `json:"name"`
	CreatedAt  int64  `json:"createdAt"`
	Headers    []struct {
		BubbleID string `json:"bubbleId"`
	} `json:"fullConversationHeadersOnly"`
	Conversation []json.RawMessage `json:"conversation"`
	ModelConfig  struct {
		ModelName string `json:"modelName"`
	} `json:"modelConfig"`
	key string
}

// cursorBubble is a message of a conversation.
type cursorBubble struct {
	Type       int    `json:"type"`
	Text       string `json:"text"`
	CreatedAt  string `json:"createdAt"`
	TokenCount struct {
		Input  int64 `json:"inputTokens"`
		Output int64 `json:"outputTokens"`
	} `json:"tokenCount"`
	Tool *struct {
		Name       string          `json:"name"`
		ToolCallID string          `json:"toolCallId"`
		Status     string          `json:"status"`
		RawArgs    json.RawMessage `json:"rawArgs"`
		Params     json.RawMessage `json:"params"`
		Result     json.RawMessage `json:"result"`
		Error      json.RawMessage `json:"error"`
	} `json:"toolFormerData"`
}

type cursorReader struct {
	db        *sqlitefile.DB
	root      uint32
	opts      Options
	src       string
	composers []*cursorComposer
	bubbles   map[string]int64 // "<composerId>:<bubbleId>" -> rowid
	skipped   []Warning        // rows that could not be read, before any session
}

// scan reads the conversations' rows and notes where each bubble is.
func (cr *cursorReader) scan() error {
	return cr.db.Scan(cr.root, func(r sqlitefile.Row) error {
		if len(r.Columns) < 2 {
			return nil
		}
		key, _ := r.Columns[0].(string)
		switch {
		case strings.HasPrefix(key, "bubbleId:"):
			cr.bubbles[strings.TrimPrefix(key, "bubbleId:")] = r.RowID
		case strings.HasPrefix(key, "composerData:"):
			c := &cursorComposer{key: key}
			if err := json.Unmarshal(cursorValue(r.Columns[1]), c); err != nil {
				cr.skipped = append(cr.skipped, Warning{Source: cr.src, Message: fmt.Sprintf("%s skipped: its value is not a conversation object (%s)", key, atifTypeMessage(err))})
				return nil
			}
			if c.ComposerID == "" {
				c.ComposerID = strings.TrimPrefix(key, "composerData:")
			}
			cr.composers = append(cr.composers, c)
		}
		return nil
	})
}

// cursorValue is a value column's bytes, TEXT or BLOB.
func cursorValue(v sqlitefile.Value) []byte {
	switch v := v.(type) {
	case string:
		return []byte(v)
	case []byte:
		return v
	}
	return nil
}

// session reads one conversation.
func (cr *cursorReader) session(c *cursorComposer) *Session {
	s := &Session{Source: cr.src, ID: c.ComposerID, Model: c.ModelConfig.ModelName}
	for _, w := range cr.skipped {
		s.Warn(w)
	}
	if c.CreatedAt > 0 {
		s.NoteTime(time.UnixMilli(c.CreatedAt).UTC())
	}
	var usage Usage
	var hasUsage bool
	add := func(what string, raw []byte) {
		var b cursorBubble
		if err := json.Unmarshal(raw, &b); err != nil {
			s.Warn(Warning{Source: cr.src, Message: fmt.Sprintf("%s skipped: its value is not a message object (%s)", what, atifTypeMessage(err))})
			return
		}
		if b.TokenCount.Input > 0 || b.TokenCount.Output > 0 {
			hasUsage = true
			usage = usage.Add(Usage{InputTokens: b.TokenCount.Input, OutputTokens: b.TokenCount.Output})
		}
		cr.bubble(s, &b, what, usage, hasUsage)
	}
	if len(c.Headers) > 0 {
		for _, h := range c.Headers {
			key := c.ComposerID + ":" + h.BubbleID
			rowid, ok := cr.bubbles[key]
			if !ok {
				s.Warn(Warning{Source: cr.src, Message: fmt.Sprintf("bubbleId:%s is listed by %s but has no row; the message is missing", key, c.key)})
				continue
			}
			row, ok, err := cr.db.Lookup(cr.root, rowid)
			if err != nil || !ok || len(row.Columns) < 2 {
				s.Warn(Warning{Source: cr.src, Message: fmt.Sprintf("bubbleId:%s could not be read back (%v); the message is missing", key, err)})
				continue
			}
			add("bubbleId:"+key, cursorValue(row.Columns[1]))
		}
	} else {
		for i, raw := range c.Conversation {
			add(fmt.Sprintf("%s conversation[%d]", c.key, i), raw)
		}
	}
	if hasUsage {
		s.Usage = &usage
	}
	return s
}

// bubble reads one message.
func (cr *cursorReader) bubble(s *Session, b *cursorBubble, what string, usage Usage, hasUsage bool) {
	var at time.Time
	if t, err := time.Parse(time.RFC3339Nano, b.CreatedAt); err == nil {
		at = t
		s.NoteTime(t)
	}
	switch {
	case b.Type == 1 && s.Prompt == "" && strings.TrimSpace(b.Text) != "":
		s.Prompt = b.Text
	case b.Type == 2 && strings.TrimSpace(b.Text) != "":
		s.Answer = b.Text
	}
	t := b.Tool
	if t == nil {
		return
	}
	if t.Name == "" {
		s.Warn(Warning{Source: cr.src, Message: fmt.Sprintf("%s: a tool call without a name, skipped", what)})
		return
	}
	id, _, _ := strings.Cut(t.ToolCallID, "\n")
	c := ToolCall{ID: id, Name: t.Name, Time: at}
	if args := jsonStringOr(t.RawArgs); args != "" {
		c.Arguments = jsonArgsText(args)
	} else {
		c.Arguments = copilotArguments(t.Params)
	}
	if hasUsage {
		total := usage.Total()
		c.CumulativeTokens = &total
	}
	result := jsonStringOr(t.Result)
	text, failed, dir := cursorResultText(result)
	if result != "" {
		c.HasResult = true
		c.Result = atifClip(text, cr.opts.MaxResultBytes)
	}
	if e := jsonStringOr(t.Error); e != "" && e != "null" {
		failed = true
		if !c.HasResult {
			c.HasResult, c.Result = true, atifClip(e, cr.opts.MaxResultBytes)
		}
	}
	switch t.Status {
	case "error", "cancelled", "aborted":
		failed = true
	}
	c.IsError = failed
	if s.CWD == "" && dir != "" {
		s.CWD = dir
	}
	s.AddCall(c)
}

// jsonStringOr returns a JSON string's text, or the raw JSON of any other
// value ("" for none or null).
func jsonStringOr(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// cursorResultText is the text of a tool's result: a read's contents, or
// the result as stored. failed reports a result that holds an error; dir is
// the workspace folder a search result is keyed by.
func cursorResultText(result string) (text string, failed bool, dir string) {
	t := strings.TrimSpace(result)
	if !strings.HasPrefix(t, "{") {
		return result, false, ""
	}
	var obj struct {
		Contents       *string         `json:"contents"`
		ResultForModel *string         `json:"resultForModel"`
		Error          json.RawMessage `json:"error"`
		Success        *struct {
			WorkspaceResults map[string]json.RawMessage `json:"workspaceResults"`
		} `json:"success"`
	}
	if json.Unmarshal([]byte(t), &obj) != nil {
		return result, false, ""
	}
	failed = len(obj.Error) > 0 && string(obj.Error) != "null"
	if obj.Success != nil && len(obj.Success.WorkspaceResults) > 0 {
		keys := make([]string, 0, len(obj.Success.WorkspaceResults))
		for k := range obj.Success.WorkspaceResults {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dir = keys[0]
	}
	switch {
	case obj.ResultForModel != nil:
		return *obj.ResultForModel, failed, dir
	case obj.Contents != nil:
		return *obj.Contents, failed, dir
	}
	return result, failed, dir
}
