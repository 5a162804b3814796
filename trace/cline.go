package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// Cline reads the task folders of Cline and of the editor agents built on
// its code (Roo Code, Kilo Code), which keep one folder a task under the
// extension's global storage: <User>/globalStorage/<extension id>/tasks/<task
// id>/ (saoudrizwan.claude-dev for Cline, rooveterinaryinc.roo-cline for Roo
// Code, kilocode.kilo-code for Kilo Code), <User> being ~/.config/Code/User
// on Linux, ~/Library/Application Support/Code/User on macOS and
// %APPDATA%\Code\User on Windows; the Cline CLI keeps them under
// ~/.cline/data/tasks/.
//
// # Format
//
// api_conversation_history.json holds the conversation as the model saw it,
// a JSON array of Anthropic messages. The model calls a tool by writing it
// as XML in its text (Cline's own tool format):
//
//	{"role": "assistant", "content": [{"type": "text", "text":
//	  "<thinking>…</thinking>\n<read_file>\n<path>src/app.ts</path>\n</read_file>"}]}
//
// or, with providers that call tools natively, as tool_use blocks. Cline
// runs the first tool of a message and answers in the next user message,
// in text blocks: a header naming the call, then its output,
//
//	{"type": "text", "text": "[read_file for 'src/app.ts'] Result:"}
//	{"type": "text", "text": "…the file…"}
//
// and for each further tool of the message "Tool [write_to_file] was not
// executed because a tool has already been used in this message. …". The
// calls and answers are paired by position (tool_result blocks of native
// calls by their tool_use_id). A call that was not executed, that the user
// denied ("The user denied this operation."), or whose output is Cline's
// failure message ("The tool execution failed with the following error:")
// is IsError. The working directory is the one Cline names in the
// environment details of the first user message ("# Current Working
// Directory (/path) Files"). ui_messages.json, the messages Cline showed,
// gives the task, the times and the tokens of each API request
// (api_req_started); it is optional.
//
// The task is read from its folder. The conversation file alone, forced
// with the format name, is read too (without times or tokens). The
// conversation is one JSON array that Cline rewrites whole after every
// message; it is decoded whole, so memory grows with its size (tasks are
// megabytes, bounded by Options.MaxInputSize).
type Cline struct{}

// Name returns "cline".
func (Cline) Name() string { return "cline" }

// Info describes the format.
func (Cline) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Cline (and Roo Code, Kilo Code), for every task, in VS Code's global storage",
		Detection: "a folder holding api_conversation_history.json (a task folder); the file alone only when forced",
		Example: "<User>/globalStorage/saoudrizwan.claude-dev/tasks/<task-id>/, <User> being ~/.config/Code/User (Linux), " +
			"~/Library/Application Support/Code/User (macOS), %APPDATA%\\Code\\User (Windows); ~/.cline/data/tasks/<task-id>/ for the CLI",
	}
}

// Detect never claims a file: a conversation file is a bare array of chat
// messages, which many programs write. Cline's traces are found as folders.
func (Cline) Detect([]byte) bool { return false }

// DetectDir reports a task folder.
func (Cline) DetectDir(fsys fs.FS) bool {
	info, err := fs.Stat(fsys, clineHistory)
	return err == nil && !info.IsDir()
}

const (
	clineHistory    = "api_conversation_history.json"
	clineUIMessages = "ui_messages.json"
)

// ReadDir reads a task folder.
func (c Cline) ReadDir(fsys fs.FS, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "."
	}
	data, cutWarning, err := opts.readFSCut(fsys, clineHistory)
	if err != nil {
		return nil, err
	}
	opts.Source = path.Join(src, clineHistory)
	s, err := clineRead(data, opts)
	if err != nil {
		return nil, err
	}
	cutWarning(s)
	s.Source = src
	ui, cutWarning, err := opts.readFSCut(fsys, clineUIMessages)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		s.Warnf(0, "%s: %v; read without times and tokens", clineUIMessages, err)
	default:
		clineReadUI(s, ui, path.Join(src, clineUIMessages))
		cutWarning(s)
	}
	return s, nil
}

// Read reads a conversation file given alone.
func (Cline) Read(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	return readCut(r, opts, func(r io.Reader) (*Session, error) {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opts.Source, err)
		}
		return clineRead(data, opts)
	})
}

// clineMessage is a message of the conversation.
type clineMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// clineBlock is a content block.
type clineBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func clineRead(data []byte, opts Options) (*Session, error) {
	src := opts.Source
	var msgs []json.RawMessage
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, fmt.Errorf("%s: expected Cline's conversation, a JSON array of messages: %s", src, atifTypeMessage(err))
	}
	s := &Session{Source: src}
	cr := &clineReader{s: s, opts: opts, byID: map[string]int{}}
	read := 0
	for i, raw := range msgs {
		var m clineMessage
		if err := json.Unmarshal(raw, &m); err != nil || m.Role == "" {
			s.Warnf(0, "message [%d] skipped: expected an object with role and content", i)
			continue
		}
		read++
		blocks := clineBlocks(m.Content)
		switch m.Role {
		case "assistant":
			cr.assistant(blocks)
		case "user":
			cr.user(blocks, i)
		}
	}
	if read == 0 && len(msgs) > 0 {
		return nil, fmt.Errorf("%s: not a Cline conversation: no element is a message with role and content", src)
	}
	return s, nil
}

// clineBlocks reads a message's content: a string is one text block.
func clineBlocks(raw json.RawMessage) []clineBlock {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []clineBlock{{Type: "text", Text: text}}
	}
	var blocks []clineBlock
	var rawBlocks []json.RawMessage
	if json.Unmarshal(raw, &rawBlocks) != nil {
		return nil
	}
	for _, rb := range rawBlocks {
		var b clineBlock
		if json.Unmarshal(rb, &b) == nil {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

type clineReader struct {
	s    *Session
	opts Options
	// open lists the calls of the last assistant message still waiting
	// for their answer, in order.
	open []int
	byID map[string]int
}

func (cr *clineReader) assistant(blocks []clineBlock) {
	cr.open = cr.open[:0]
	for _, b := range blocks {
		switch b.Type {
		case "text":
			for _, u := range clineToolUses(b.Text) {
				args, _ := json.Marshal(u.params)
				cr.open = append(cr.open, cr.s.AddCall(ToolCall{Name: u.name, Arguments: args}))
			}
			if t := strings.TrimSpace(clineStripTools(b.Text)); t != "" {
				cr.s.Answer = t
			}
		case "tool_use":
			if b.Name == "" {
				continue
			}
			i := cr.s.AddCall(ToolCall{ID: b.ID, Name: b.Name, Arguments: jsonArgs(b.Input)})
			cr.open = append(cr.open, i)
			if b.ID != "" {
				cr.byID[b.ID] = i
			}
		}
	}
}

func (cr *clineReader) user(blocks []clineBlock, at int) {
	if cr.s.CWD == "" {
		for _, b := range blocks {
			if dir := clineWorkingDir(b.Text); dir != "" {
				cr.s.CWD = dir
				break
			}
		}
	}
	if cr.s.Prompt == "" && len(cr.s.Calls) == 0 {
		for _, b := range blocks {
			if t := clineTask(b.Text); t != "" {
				cr.s.Prompt = t
				break
			}
		}
	}
	var cur *ToolCall // the call whose output the blocks now give
	var out []string
	flush := func() {
		if cur != nil {
			text := strings.Join(out, "\n")
			cur.HasResult = true
			cur.IsError = cur.IsError || clineFailed(text)
			cur.Result = atifClip(text, cr.opts.MaxResultBytes)
		}
		cur, out = nil, nil
	}
	next := func(name string) *ToolCall {
		for len(cr.open) > 0 {
			c := cr.s.Call(cr.open[0])
			cr.open = cr.open[1:]
			if c.HasResult {
				continue
			}
			if c.Name == name {
				return c
			}
			cr.s.Warnf(0, "message [%d]: the answer for %s came where %s was waiting; %s is left without a result", at, name, c.Name, c.Name)
		}
		cr.s.Warnf(0, "message [%d]: an answer for %s, which no open call of the last assistant message asked for", at, name)
		return nil
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			flush()
			i, ok := cr.byID[b.ToolUseID]
			if !ok {
				cr.s.Warnf(0, "message [%d]: tool_result for %q, which no tool_use started, skipped", at, b.ToolUseID)
				continue
			}
			c := cr.s.Call(i)
			text, _ := atifText(b.Content)
			c.HasResult, c.IsError = true, b.IsError || clineFailed(text)
			c.Result = atifClip(text, cr.opts.MaxResultBytes)
			cr.drop(i)
		case "text":
			if name, ok := clineResultHeader(b.Text); ok {
				flush()
				cur = next(name)
				continue
			}
			if name, ok := clineSkipped(b.Text); ok {
				flush()
				if c := next(name); c != nil {
					c.HasResult, c.IsError = true, true
					c.Result = atifClip(b.Text, cr.opts.MaxResultBytes)
				}
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(b.Text), "<environment_details>") {
				flush()
				continue
			}
			if cur != nil {
				out = append(out, b.Text)
			}
		}
	}
	flush()
}

// drop removes call i from the open calls.
func (cr *clineReader) drop(i int) {
	for k, j := range cr.open {
		if j == i {
			cr.open = append(cr.open[:k], cr.open[k+1:]...)
			return
		}
	}
}

// clineResultHeader reads the text block that introduces a tool's output,
// "[read_file for 'src/a.ts'] Result:", and returns the tool's name.
func clineResultHeader(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "] Result:") {
		return "", false
	}
	name := t[1:]
	if i := strings.IndexAny(name, " ]"); i >= 0 {
		name = name[:i]
	}
	return name, name != ""
}

// clineSkipped reads the notice for a tool that was not run ("Tool
// [write_to_file] was not executed because …").
func clineSkipped(text string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "Tool [")
	if !ok {
		return "", false
	}
	name, tail, ok := strings.Cut(rest, "]")
	if !ok || !strings.HasPrefix(tail, " was not executed") {
		return "", false
	}
	return name, true
}

// clineFailed reports an output that is one of Cline's failure messages.
func clineFailed(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"The tool execution failed with the following error:", "The user denied this operation.", "Error executing", "[ERROR]"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// clineWorkingDir finds the working directory Cline names in its
// environment details.
func clineWorkingDir(text string) string {
	const marker = "# Current Working Directory ("
	i := strings.Index(text, marker)
	if i < 0 {
		return ""
	}
	rest := text[i+len(marker):]
	dir, _, ok := strings.Cut(rest, ") Files")
	if !ok || strings.Contains(dir, "\n") {
		return ""
	}
	return strings.TrimSpace(dir)
}

// clineTask finds the user's task in the first user message: the text of
// its <task> element.
func clineTask(text string) string {
	if _, rest, ok := strings.Cut(text, "<task>"); ok {
		if task, _, ok := strings.Cut(rest, "</task>"); ok {
			return strings.TrimSpace(task)
		}
	}
	return ""
}

// clineReadUI reads the messages Cline showed: the task, the times and the
// tokens of the API requests.
func clineReadUI(s *Session, data []byte, src string) {
	var msgs []struct {
		TS   int64  `json:"ts"`
		Type string `json:"type"`
		Say  string `json:"say"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(data, &msgs); err != nil {
		s.Warnf(0, "%s skipped: expected a JSON array of messages: %s", src, atifTypeMessage(err))
		return
	}
	var usage Usage
	has := false
	for _, m := range msgs {
		if m.TS > 0 {
			s.NoteTime(time.UnixMilli(m.TS).UTC())
		}
		switch m.Say {
		case "task":
			if strings.TrimSpace(m.Text) != "" {
				s.Prompt = m.Text
			}
		case "api_req_started":
			var info struct {
				In         int64 `json:"tokensIn"`
				Out        int64 `json:"tokensOut"`
				CacheWrite int64 `json:"cacheWrites"`
				CacheRead  int64 `json:"cacheReads"`
			}
			if json.Unmarshal([]byte(m.Text), &info) == nil && info.In+info.Out+info.CacheRead+info.CacheWrite > 0 {
				has = true
				usage = usage.Add(Usage{InputTokens: info.In + info.CacheWrite + info.CacheRead, OutputTokens: info.Out,
					CacheReadTokens: info.CacheRead, CacheCreationTokens: info.CacheWrite})
			}
		}
	}
	if has {
		s.Usage = &usage
	}
}
