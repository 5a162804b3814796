package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
	"github.com/agentretrieval/agentretrieval/internal/lazyre"
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
// role "tool" messages with the same tool_call_id. The final "exit"
// message is not a result: the call that submitted has none in
// tool-calling mode. A 1.x submission, recorded as a user message holding
// the submitted output, is the result of the call that submitted.
//
// An observation is the command's output rendered with the config's
// template, "<returncode>0</returncode>\n<output>\n…</output>" in most
// configs. A result is the output alone, as the command printed it; an
// output too long to show whole, rendered as its first and last 5,000
// characters, is the head, a line "[... N characters elided ...]" and the
// tail (see miniObservation for every template's shape). A result is
// IsError when its return code (extra.returncode, else the one the
// observation shows) is not 0, when it records an exception, or when the
// command timed out.
//
// Tokens are the usage of each model response recorded in extra.response
// (litellm's OpenAI-style usage): prompt_tokens, which include the cached
// prompt tokens (those are reported as CacheReadTokens, not added again),
// plus completion_tokens. A response the agent rejected as malformed is
// recorded on the format-error message and counted there. Trajectories
// without extra.response have no token usage.
//
// The reader streams: it holds one message at a time, so memory grows with
// the calls kept, not with the size of the file.
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
	return readCut(r, opts, func(r io.Reader) (*Session, error) { return miniSWEReadDoc(newJSONDoc(r), opts) })
}

func miniSWEReadDoc(d *jsonDoc, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	mr := &miniReader{
		s:       &Session{Format: MiniSWEAgent{}.Name(), Source: src, Agent: "mini-swe-agent", skipMessages: opts.SkipMessages},
		d:       d,
		max:     opts.MaxResultBytes,
		pending: map[string]int{},
	}
	c, _ := d.peek()
	line := d.Line()
	if c != '{' {
		return nil, fmt.Errorf("%s:%d: expected a mini-swe-agent trajectory (a JSON object with info and messages), found %s", src, line, jsonValueKind(c))
	}
	d.Open()
	if err := mr.document(); err != nil {
		var de *jsonDocError
		if !errors.As(err, &de) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if mr.messages == 0 {
			return nil, fmt.Errorf("%s:%d: reading mini-swe-agent trajectory: no message could be read: %w", src, de.Line, de.Err)
		}
		mr.s.Warnf(de.Line, "trajectory is cut short or malformed (%v); kept the %d messages read before it", de.Err, mr.messages)
	} else {
		if mr.version == "" && !strings.HasPrefix(mr.format, "mini-swe-agent") {
			return nil, fmt.Errorf("%s:%d: not a mini-swe-agent trajectory: the object has neither a trajectory_format \"mini-swe-agent-…\" nor info.mini_version", src, line)
		}
		if note, at := d.End(); note != "" {
			mr.s.Warnf(at, "%s", note)
		}
	}
	mr.finish()
	return mr.s, nil
}

// miniReader holds the state of one Read.
type miniReader struct {
	s   *Session
	d   *jsonDoc
	sc  jsonscan.Scanner
	max int
	buf []byte
	msg miniMsg

	messages int // messages framed, kept or skipped
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

// miniDefaultAction matches the action block of every version that does
// not record its own regex: ```bash in 1.x, ```mswea_bash_command in 2.x
// text-based models.
var miniDefaultAction = lazyre.New("(?s)```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n```")

// document reads the members of the trajectory object, which the jsonDoc
// has entered.
func (mr *miniReader) document() error {
	d := mr.d
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return err
		}
		d.peek()
		line := d.Line()
		if key == "messages" {
			if err := mr.messageList(line); err != nil {
				return err
			}
			continue
		}
		raw, err := d.Value()
		if err != nil {
			return err
		}
		switch key {
		case "info":
			mr.readInfo(line, raw)
		case "trajectory_format":
			mr.stringValue(line, raw, "trajectory_format", &mr.format)
		case "instance_id":
			mr.stringValue(line, raw, "instance_id", &mr.s.Task)
		}
	}
}

func (mr *miniReader) stringValue(line int, raw []byte, key string, dst *string) {
	if string(raw) != "null" && json.Unmarshal(raw, dst) != nil {
		mr.s.Warnf(line, "%s: expected a string, found %s; ignored", key, atifJSONKind(raw))
	}
}

func (mr *miniReader) readInfo(line int, raw []byte) {
	if err := json.Unmarshal(raw, &mr.info); err != nil {
		mr.s.Warnf(line, "info: %s; kept the fields that could be read", atifTypeMessage(err))
	}
	mr.version = mr.info.MiniVersion
	if mr.messages > 0 {
		return // too late to parse actions with the recorded regex
	}
	for _, expr := range []string{mr.info.Config.Model.ActionRegex, mr.info.Config.Agent.ActionRegex} {
		if expr == "" {
			continue
		}
		// Python's re.findall runs with re.DOTALL.
		re, err := regexp.Compile("(?s)" + expr)
		if err != nil {
			mr.s.Warnf(line, "info.config: action_regex %q is not a regular expression Go can run (%v); actions are found with the default ```bash block", expr, err)
			return
		}
		mr.regex = re
		return
	}
}

func (mr *miniReader) messageList(line int) error {
	d := mr.d
	if c, _ := d.peek(); c != '[' {
		if err := d.Skip(); err != nil {
			return err
		}
		mr.s.Warnf(line, "messages: expected an array, found %s; no messages read", jsonValueKind(c))
		return nil
	}
	d.Open()
	for i := 0; ; i++ {
		more, err := d.NextElem()
		if err != nil || !more {
			return err
		}
		d.peek()
		line := d.Line()
		raw, err := d.Frame()
		if err != nil {
			return err
		}
		if err := mr.message(i, line, raw); err != nil {
			return d.RecordError(line, raw, err, "a message")
		}
		mr.messages++
	}
}

// message reads messages[i]. It returns a syntax error: the document is
// broken there.
func (mr *miniReader) message(i, line int, raw []byte) error {
	sc := &mr.sc
	sc.Reset(raw)
	if k := sc.Peek(); k != jsonscan.Object {
		sc.Skip()
		if err := sc.Err(); err != nil {
			return err
		}
		mr.s.Warnf(line, "messages[%d]: expected a message object, found %s; skipped", i, atifJSONKind(raw))
		return nil
	}
	m := &mr.msg
	mr.parse(m)
	sc.End()
	if err := sc.Err(); err != nil {
		return err
	}
	if m.bad != "" {
		mr.s.Warnf(line, "messages[%d] skipped: %s", i, m.bad)
		return nil
	}
	var t time.Time
	if m.created > 0 {
		t, _ = atifUnixTime(json.Number(strconv.FormatFloat(m.created, 'f', -1, 64)))
		mr.s.NoteTime(t)
	}
	if m.timestamp > 0 {
		if ts, ok := atifUnixTime(json.Number(strconv.FormatFloat(m.timestamp, 'f', -1, 64))); ok {
			t = ts
		}
	}
	mr.s.NoteTime(t)
	if m.hasUsage {
		// Responses report cached prompt tokens in one place or the other.
		m.usage.CacheReadTokens = max(m.usage.CacheReadTokens, m.cachedDetail)
		mr.usage = mr.usage.Add(m.usage)
		mr.used += m.usage.Total()
		mr.hasUsage = true
	}
	switch m.role {
	case "assistant":
		mr.assistant(i, line, m, t)
	case "tool":
		k, ok := mr.pending[m.toolCallID]
		if !ok {
			mr.s.Warnf(line, "messages[%d]: tool reply for tool_call_id %q matches no call awaiting a result; ignored", i, m.toolCallID)
			return nil
		}
		delete(mr.pending, m.toolCallID)
		mr.join(k, m)
	case "user":
		if len(mr.open) > 0 {
			k := mr.open[0]
			mr.open = mr.open[1:]
			mr.join(k, m)
			break
		}
		// Not an observation: the task, or what the harness told the
		// model (a format error, a limit).
		mr.s.addMessageBytes(RoleUser, KindText, m.text, t, false)
	}
	return nil
}

func (mr *miniReader) assistant(i, line int, m *miniMsg, t time.Time) {
	// A new model turn: a text-mode call left without an observation
	// keeps none.
	mr.open = mr.open[:0]
	if len(m.calls) > 0 {
		mr.s.addMessageBytes(RoleAssistant, KindText, m.text, t, false)
		for j, tc := range m.calls {
			if tc.name == "" {
				mr.s.Warnf(line, "messages[%d]: tool_calls[%d] has no function name; skipped", i, j)
				continue
			}
			k := mr.add(ToolCall{ID: tc.id, Name: tc.name, Arguments: atifArguments(tc.args), Time: t})
			if tc.id != "" {
				mr.pending[tc.id] = k
			}
		}
		return
	}
	var commands [][]byte
	re := mr.regex
	if re == nil {
		re = miniDefaultAction()
	}
	found := re.FindAllSubmatch(m.text, 2)
	// The message's text is its thought; its one action block is the
	// call, shown as the call.
	if len(found) == 1 {
		at := bytes.Index(m.text, found[0][0])
		mr.s.addMessageBytes(RoleAssistant, KindText, slices.Concat(m.text[:at], m.text[at+len(found[0][0]):]), t, false)
	} else {
		mr.s.addMessageBytes(RoleAssistant, KindText, m.text, t, false)
	}
	if len(m.actions) > 0 {
		commands = m.actions
	} else {
		if len(found) != 1 {
			return // the agent answered with a format error
		}
		action := found[0][0]
		if len(found[0]) > 1 {
			action = found[0][1]
		}
		commands = append(commands, miniQuote(string(bytes.TrimSpace(action))))
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
var miniReturnCode = lazyre.New(`<returncode>\s*(-?\d+)\s*</returncode>`)

// join makes message m the result of call k: the command output its
// observation shows (see miniObservation), cut to MaxResultBytes.
func (mr *miniReader) join(k int, m *miniMsg) {
	c := &mr.s.Calls[k]
	text, failed, ok := miniObservation(m.text)
	if !ok {
		text = m.text
	}
	if mr.max > 0 && len(text) > mr.max {
		cut := mr.max
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	c.Result, c.HasResult = string(text), m.hasText
	if failed || m.exception != "" {
		c.IsError = true
	}
	code := string(m.returncode)
	if code == "" || code == "null" {
		code = ""
		if sm := miniReturnCode().FindSubmatch(m.text[:min(len(m.text), 4096)]); sm != nil {
			code = string(sm[1])
		}
	}
	if f, err := strconv.ParseFloat(code, 64); err == nil && f != 0 {
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
