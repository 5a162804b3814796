package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MiniSWEAgent reads mini-swe-agent trajectories, the *.traj.json file the
// agent saves after every step (trajectory_format mini-swe-agent-1 and
// mini-swe-agent-1.1).
//
// # Format
//
// A trajectory is one JSON object, the agent's whole message list plus
// what the run was:
//
//	{"info": {"mini_version": "2.2.7", "exit_status": "Submitted", "submission": "…",
//	          "model_stats": {"instance_cost": 0.02, "api_calls": 48},
//	          "config": {"model": {"model_name": "…"}, "environment": {"cwd": "/testbed"}}},
//	 "messages": [
//	   {"role": "system", "content": "…"},
//	   {"role": "assistant", "content": "THOUGHT: …\n\n```bash\nnl -ba x.py | sed -n '10,40p'\n```",
//	    "extra": {"response": {"usage": {"prompt_tokens": 752, "completion_tokens": 69}}}},
//	   {"role": "user", "content": "<returncode>0</returncode>\n<output>\n…</output>"},
//	   {"role": "exit", "content": "…", "extra": {"exit_status": "Submitted"}}],
//	 "trajectory_format": "mini-swe-agent-1.1", "instance_id": "repo__repo-123"}
//
// In text mode (every 1.x version, and 2.x with a text-based model) the
// action is the one fenced bash block of an assistant message: the call
// is named "bash" with arguments {"command": "<the block's text>"}, and its
// result is the next user message, the rendered observation. The block is
// found with the action_regex of the recorded config when there is one
// (else ```bash or ```mswea_bash_command), or taken from extra.actions
// where 2.x recorded the parsed actions; a message without exactly one
// block makes no call, as the agent rejected it. In tool-calling mode (2.x)
// assistant messages carry OpenAI-style tool_calls whose results are the
// role "tool" messages with the same tool_call_id. A result is IsError when
// its return code (extra.returncode, else the <returncode> tag of the
// observation) is not 0, or when it records an exception. The final
// "exit" message is not a result: the call that submitted has none in
// tool-calling mode. A 1.x submission, recorded as a user message holding
// the submitted output, is the result of the call that submitted.
//
// Tokens are the usage of each model response recorded in extra.response
// (litellm's OpenAI-style usage): prompt_tokens, which include the cached
// prompt tokens (those are reported as CacheReadTokens, not added again),
// plus completion_tokens. A response the agent rejected as malformed is
// recorded on the format-error message and counted there. Trajectories
// without extra.response have no token usage.
type MiniSWEAgent struct{}

// Name returns "mini-swe-agent".
func (MiniSWEAgent) Name() string { return "mini-swe-agent" }

// Info describes the format.
func (MiniSWEAgent) Info() FormatInfo {
	return FormatInfo{
		Writer:    "mini-swe-agent: mini -o FILE, mini-extra swebench -o DIR (one <instance_id>.traj.json per task)",
		Detection: `a JSON object with a top-level "trajectory_format" starting "mini-swe-agent", or an "info" object holding "mini_version"`,
		Example:   "<output>/<instance_id>/<instance_id>.traj.json",
	}
}

// Detect reports whether prefix starts a JSON object with a top-level
// trajectory_format naming a mini-swe-agent format, or a top-level info
// object with a mini_version key (info comes first in the files the agent
// writes; trajectory_format may lie past the detection prefix).
func (MiniSWEAgent) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' ||
		(!bytes.Contains(prefix, []byte(`"mini_version"`)) && !bytes.Contains(prefix, []byte(`"mini-swe-agent`))) {
		return false
	}
	found := false
	atifWalkObject(prefix, func(key string, dec *json.Decoder) bool {
		switch key {
		case "trajectory_format":
			tok, err := dec.Token()
			v, ok := tok.(string)
			found = err == nil && ok && strings.HasPrefix(v, "mini-swe-agent")
			return true
		case "info":
			atifWalkDecoder(dec, func(key string, _ *json.Decoder) bool {
				found = key == "mini_version"
				return found
			})
			return true
		}
		return false
	})
	return found
}

// Read reads one trajectory, streaming its messages. A message whose fields
// have the wrong types is skipped with a warning; a syntax error or
// truncation keeps the messages read before it, with a warning naming the
// line. It returns an error when the input is not a mini-swe-agent
// trajectory, or when no message could be read from a broken one.
func (MiniSWEAgent) Read(r io.Reader, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	mr := &miniReader{
		s:       &Session{Format: MiniSWEAgent{}.Name(), Source: src, Agent: "mini-swe-agent"},
		st:      newATIFStream(r),
		max:     opts.MaxResultBytes,
		pending: map[string]int{},
	}
	line := mr.st.line()
	err := mr.document()
	if err != nil {
		var shape *atifShapeError
		if errors.As(err, &shape) {
			return nil, fmt.Errorf("%s:%d: %s", src, shape.Line, shape.Msg)
		}
		var se *atifStreamError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if mr.messages == 0 {
			return nil, fmt.Errorf("%s:%d: reading mini-swe-agent trajectory: no message could be read: %w", src, se.Line, se.Err)
		}
		mr.s.Warnf(se.Line, "trajectory is cut short or malformed (%v); kept the %d messages read before it", se.Err, mr.messages)
	} else {
		if mr.version == "" && !strings.HasPrefix(mr.format, "mini-swe-agent") {
			return nil, fmt.Errorf("%s:%d: not a mini-swe-agent trajectory: the object has neither a trajectory_format \"mini-swe-agent-…\" nor info.mini_version", src, line)
		}
		if note, at := mr.st.endOfDocument(); note != "" {
			mr.s.Warnf(at, "%s", note)
		}
	}
	mr.finish()
	return mr.s, nil
}

// miniReader holds the state of one Read.
type miniReader struct {
	s   *Session
	st  *atifStream
	max int

	messages int // messages decoded, kept or skipped
	version  string
	format   string
	info     miniInfo
	regex    *regexp.Regexp

	// pending maps tool_call_id to the index of a call awaiting its role
	// "tool" reply; open lists text-mode calls awaiting the next user
	// message.
	pending map[string]int
	open    []int

	used     int64
	usage    Usage
	hasUsage bool
}

type miniInfo struct {
	MiniVersion string `json:"mini_version"`
	ExitStatus  string `json:"exit_status"`
	Submission  string `json:"submission"`
	Config      struct {
		Model struct {
			ModelName   string `json:"model_name"`
			ActionRegex string `json:"action_regex"`
		} `json:"model"`
		Agent struct {
			ActionRegex string `json:"action_regex"`
		} `json:"agent"`
		Environment struct {
			CWD string `json:"cwd"`
		} `json:"environment"`
	} `json:"config"`
}

type miniMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []miniToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Extra      *miniExtra      `json:"extra"`
}

type miniToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type miniExtra struct {
	Actions []struct {
		Command    json.RawMessage `json:"command"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"actions"`
	Returncode    json.RawMessage `json:"returncode"`
	ExceptionInfo json.RawMessage `json:"exception_info"`
	Timestamp     *float64        `json:"timestamp"`
	// Response is the model's raw response; 2.x stores its repr (a
	// string) when it cannot be serialized, hence RawMessage.
	Response json.RawMessage `json:"response"`
}

type miniResponse struct {
	Created *float64 `json:"created"`
	Usage   *struct {
		PromptTokens        *atifCount `json:"prompt_tokens"`
		CompletionTokens    *atifCount `json:"completion_tokens"`
		CacheReadTokens     *atifCount `json:"cache_read_input_tokens"`
		CacheCreationTokens *atifCount `json:"cache_creation_input_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *atifCount `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// miniDefaultAction matches the action block of every version that does
// not record its own regex: ```bash in 1.x, ```mswea_bash_command in 2.x
// text-based models.
var miniDefaultAction = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n```")

func (mr *miniReader) document() error {
	line := mr.st.line()
	tok, err := mr.st.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		if err := mr.st.skipRest(tok); err != nil {
			return err
		}
		return &atifShapeError{Line: line, Msg: "expected a mini-swe-agent trajectory (a JSON object with info and messages), found " + atifTokenKind(tok)}
	}
	for mr.st.dec.More() {
		tok, err := mr.st.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		switch key {
		case "info":
			err = mr.readInfo()
		case "messages":
			err = mr.messageList()
		case "trajectory_format":
			err = mr.stringValue(key, &mr.format)
		case "instance_id":
			err = mr.stringValue(key, &mr.s.Task)
		default:
			err = mr.st.skip()
		}
		if err != nil {
			return err
		}
	}
	_, err = mr.st.token()
	return err
}

func (mr *miniReader) stringValue(key string, dst *string) error {
	line := mr.st.line()
	raw, err := mr.st.raw()
	if err != nil {
		return err
	}
	if string(raw) != "null" && json.Unmarshal(raw, dst) != nil {
		mr.s.Warnf(line, "%s: expected a string, found %s; ignored", key, atifJSONKind(raw))
	}
	return nil
}

func (mr *miniReader) readInfo() error {
	line := mr.st.line()
	raw, err := mr.st.raw()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &mr.info); err != nil {
		mr.s.Warnf(line, "info: %s; kept the fields that could be read", atifTypeMessage(err))
	}
	mr.version = mr.info.MiniVersion
	if mr.messages > 0 {
		return nil // too late to parse actions with the recorded regex
	}
	for _, expr := range []string{mr.info.Config.Model.ActionRegex, mr.info.Config.Agent.ActionRegex} {
		if expr == "" {
			continue
		}
		// Python's re.findall runs with re.DOTALL.
		re, err := regexp.Compile("(?s)" + expr)
		if err != nil {
			mr.s.Warnf(line, "info.config: action_regex %q is not a regular expression Go can run (%v); actions are found with the default ```bash block", expr, err)
			break
		}
		mr.regex = re
		break
	}
	return nil
}

func (mr *miniReader) messageList() error {
	line := mr.st.line()
	tok, err := mr.st.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		mr.s.Warnf(line, "messages: expected an array, found %s; no messages read", atifTokenKind(tok))
		return mr.st.skipRest(tok)
	}
	for i := 0; mr.st.dec.More(); i++ {
		line := mr.st.line()
		raw, err := mr.st.raw()
		if err != nil {
			return err
		}
		mr.messages++
		mr.message(i, line, raw)
	}
	_, err = mr.st.token()
	return err
}

// message reads messages[i].
func (mr *miniReader) message(i, line int, raw json.RawMessage) {
	var m miniMessage
	if len(raw) == 0 || raw[0] != '{' {
		mr.s.Warnf(line, "messages[%d]: expected a message object, found %s; skipped", i, atifJSONKind(raw))
		return
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		mr.s.Warnf(line, "messages[%d] skipped: %s", i, atifTypeMessage(err))
		return
	}
	var t time.Time
	if m.Extra != nil {
		t = mr.response(i, line, m.Extra)
		mr.s.NoteTime(t)
		if m.Extra.Timestamp != nil {
			if ts, ok := atifUnixTime(json.Number(strconv.FormatFloat(*m.Extra.Timestamp, 'f', -1, 64))); ok {
				t = ts
			}
		}
		mr.s.NoteTime(t)
	}
	switch m.Role {
	case "assistant":
		mr.assistant(i, line, &m, t)
	case "tool":
		k, ok := mr.pending[m.ToolCallID]
		if !ok {
			mr.s.Warnf(line, "messages[%d]: tool reply for tool_call_id %q matches no call awaiting a result; ignored", i, m.ToolCallID)
			return
		}
		delete(mr.pending, m.ToolCallID)
		mr.join(k, &m)
	case "user":
		if len(mr.open) > 0 {
			k := mr.open[0]
			mr.open = mr.open[1:]
			mr.join(k, &m)
		}
	}
}

// response counts the tokens of a recorded model response and returns its
// creation time.
func (mr *miniReader) response(i, line int, e *miniExtra) time.Time {
	raw := bytes.TrimSpace(e.Response)
	if len(raw) == 0 || raw[0] != '{' {
		return time.Time{}
	}
	var resp miniResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		mr.s.Warnf(line, "messages[%d]: extra.response: %s; its usage is not counted", i, atifTypeMessage(err))
		return time.Time{}
	}
	var t time.Time
	if resp.Created != nil && *resp.Created > 0 {
		t, _ = atifUnixTime(json.Number(strconv.FormatFloat(*resp.Created, 'f', -1, 64)))
	}
	u := resp.Usage
	if u == nil || (u.PromptTokens == nil && u.CompletionTokens == nil) {
		return t
	}
	cached := u.CacheReadTokens.value()
	if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
		cached = max(cached, d.CachedTokens.value())
	}
	use := Usage{
		InputTokens:         u.PromptTokens.value(),
		OutputTokens:        u.CompletionTokens.value(),
		CacheReadTokens:     cached,
		CacheCreationTokens: u.CacheCreationTokens.value(),
	}
	mr.usage = mr.usage.Add(use)
	mr.used += use.Total()
	mr.hasUsage = true
	return t
}

func (mr *miniReader) assistant(i, line int, m *miniMessage, t time.Time) {
	// A new model turn: a text-mode call left without an observation
	// keeps none.
	mr.open = mr.open[:0]
	if len(m.ToolCalls) > 0 {
		for j, tc := range m.ToolCalls {
			if tc.Function.Name == "" {
				mr.s.Warnf(line, "messages[%d]: tool_calls[%d] has no function name; skipped", i, j)
				continue
			}
			k := mr.add(ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: atifArguments(tc.Function.Arguments), Time: t})
			if tc.ID != "" {
				mr.pending[tc.ID] = k
			}
		}
		return
	}
	var commands []json.RawMessage
	if m.Extra != nil && len(m.Extra.Actions) > 0 {
		for _, a := range m.Extra.Actions {
			if len(a.Command) > 0 {
				commands = append(commands, a.Command)
			}
		}
	} else {
		text, _ := atifText(m.Content)
		re := mr.regex
		if re == nil {
			re = miniDefaultAction
		}
		found := re.FindAllStringSubmatch(text, 2)
		if len(found) != 1 {
			return // the agent answered with a format error
		}
		action := found[0][0]
		if len(found[0]) > 1 {
			action = found[0][1]
		}
		commands = append(commands, miniQuote(strings.TrimSpace(action)))
	}
	for _, cmd := range commands {
		var args bytes.Buffer
		args.WriteString(`{"command":`)
		args.Write(atifCompact(cmd))
		args.WriteByte('}')
		mr.open = append(mr.open, mr.add(ToolCall{Name: "bash", Arguments: args.Bytes(), Time: t}))
	}
}

// miniQuote encodes s as a JSON string, leaving <, > and & as they are.
func miniQuote(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func (mr *miniReader) add(c ToolCall) int {
	if mr.hasUsage {
		cum := mr.used
		c.CumulativeTokens = &cum
	}
	return mr.s.AddCall(c)
}

// miniReturnCode finds the <returncode> tag of a rendered observation.
var miniReturnCode = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)

// join makes message m the result of call k.
func (mr *miniReader) join(k int, m *miniMessage) {
	c := &mr.s.Calls[k]
	text, ok := atifText(m.Content)
	c.Result, c.HasResult = atifClip(text, mr.max), ok
	code := ""
	if m.Extra != nil {
		code = string(bytes.TrimSpace(m.Extra.Returncode))
		var exc string
		if json.Unmarshal(m.Extra.ExceptionInfo, &exc) == nil && exc != "" {
			c.IsError = true
		}
	}
	if code == "" || code == "null" {
		code = ""
		head := text[:min(len(text), 4096)]
		if sm := miniReturnCode.FindStringSubmatch(head); sm != nil {
			code = sm[1]
		}
	}
	if code != "" && code != "0" {
		c.IsError = true
	}
}

func (mr *miniReader) finish() {
	s := mr.s
	info := &mr.info
	s.AgentVersion = info.MiniVersion
	s.Model = info.Config.Model.ModelName
	s.CWD = info.Config.Environment.CWD
	s.Answer = info.Submission
	if mr.hasUsage {
		u := mr.usage
		s.Usage = &u
	}
	if mr.format != "" && !strings.HasPrefix(mr.format, "mini-swe-agent-1") {
		s.Warnf(0, "trajectory_format %q is not a known version (mini-swe-agent-1, mini-swe-agent-1.1); read as mini-swe-agent-1.1", mr.format)
	}
}
