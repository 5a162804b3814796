package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// SWEAgent reads the .traj file that SWE-agent writes for every task
// instance it runs (sweagent run / run-batch, trajectories/<user>/<run>/
// <instance>/<instance>.traj), before and since version 1.0.
//
// # Format
//
// One JSON object:
//
//	{"environment": "main",
//	 "trajectory": [{"action": "open \"src/app.py\" 120", "observation": "[File: src/app.py (300 lines total)]\n…",
//	                 "thought": "…", "response": "…", "state": {"open_file": "…", "working_dir": "/testbed"},
//	                 "execution_time": 0.3, "query": […], "extra_info": {}}],
//	 "history": [{"role": "assistant", "content": "…", "action": "open \"src/app.py\" 120", "agent": "main",
//	              "tool_calls": [{"id": "call_1", "function": {"name": "open", "arguments": "{\"path\":\"src/app.py\",\"line_number\":120}"}}],
//	              "message_type": "action"},
//	             {"role": "tool", "content": "…", "tool_call_ids": ["call_1"], "message_type": "observation"}],
//	 "info": {"model_stats": {"tokens_sent": 7141, "tokens_received": 243, "api_calls": 5},
//	          "exit_status": "submitted", "submission": "diff --git …", "swe_agent_version": "1.0.1"},
//	 "replay_config": "{… \"agent\": {\"model\": {\"name\": \"gpt-4o\"}}, \"problem_statement\": {\"id\": \"…\"} …}"}
//
// Each trajectory step with an action is one call whose result is the
// step's observation; a step with an empty action (a format error the
// model was asked to correct) is no call. The action is a command line.
// When its first word is one of SWE-agent's own tool commands
// (sweAgentTools) the call is named by that word, otherwise it is a shell
// command and the call is named "bash"; either way the arguments are
// {"command": "<the whole action>"}, as recorded. In a function-calling run
// (1.x) the history's assistant message for the step holds the model's tool
// call, matched to the step by its action text: the call then takes that
// call's id, function name and arguments (for example "bash" with
// {"command": …}, or "str_replace_editor" with {"command": "view", "path":
// …}).
//
// A file without a trajectory (a demonstration) is read from its history:
// an assistant message's tool calls (or its action) are the calls, and the
// tool messages with their tool_call_ids (or the next user message) the
// results. Demonstration messages (is_demo) are skipped.
//
// The file records tokens only as run totals (info.model_stats), so
// Session.Usage has tokens_sent as input and tokens_received as output and
// no call has CumulativeTokens; totals of zero (a replayed run) are not
// reported. Session.Task is replay_config's problem_statement.id,
// Session.Model its agent.model.name, Session.CWD the working_dir of the
// first step's state, and Session.Answer the submission (a patch). A
// retry agent's other attempts ("attempts") are not read: the top-level
// trajectory is the chosen attempt.
type SWEAgent struct{}

// sweAgentTools lists SWE-agent's own commands, from the tool bundles under
// tools/ of the SWE-agent repository (windowed, windowed_edit_*, search,
// edit_anthropic, submit, filemap, forfeit, image_tools, web_browser) and
// the exit_* pseudo-actions that end a run. An action whose first word is
// not one of them is a shell command.
var sweAgentTools = []string{
	// windowed file viewer
	"open", "goto", "scroll_up", "scroll_down", "create",
	// windowed editors
	"edit", "insert",
	// search
	"find_file", "search_dir", "search_file",
	// edit_anthropic
	"str_replace_editor",
	"filemap", "submit", "exit_forfeit", "view_image",
	// web_browser
	"open_site", "close_site", "screenshot_site", "click_mouse", "double_click_mouse",
	"move_mouse", "drag_mouse", "type_text", "scroll_on_page", "execute_script_on_page",
	"navigate_back", "navigate_forward", "reload_page", "wait_time", "press_keys_on_page",
	"set_browser_window_size", "get_console_output",
	// actions the agent records when it stops a run
	"exit_cost", "exit_context", "exit_api", "exit_error", "exit_format",
}

var sweAgentToolSet = func() map[string]bool {
	m := make(map[string]bool, len(sweAgentTools))
	for _, t := range sweAgentTools {
		m[t] = true
	}
	return m
}()

// sweAgentToolName returns the name of the call an action line makes: its
// first word when that is one of sweAgentTools, else "bash".
func sweAgentToolName(action string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(action, " \t\r\n"), " ")
	if i := strings.IndexAny(first, "\t\r\n"); i >= 0 {
		first = first[:i]
	}
	if sweAgentToolSet[first] {
		return first
	}
	return "bash"
}

// Name returns "swe-agent".
func (SWEAgent) Name() string { return "swe-agent" }

// Info describes the format.
func (SWEAgent) Info() FormatInfo {
	return FormatInfo{
		Writer:    "SWE-agent (sweagent run / run-batch write one .traj file per instance)",
		Detection: `a JSON object with a "trajectory" array of steps with an "action", or a "history" array of messages with a "role" and an "agent" or "message_type"`,
		Example:   "trajectories/<user>/<run>/<instance>/<instance>.traj",
	}
}

// Detect reports whether prefix starts a SWE-agent trajectory.
func (SWEAgent) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' {
		return false
	}
	if !bytes.Contains(prefix, []byte(`"trajectory"`)) && !bytes.Contains(prefix, []byte(`"history"`)) {
		return false
	}
	found := false
	atifWalkObject(prefix, func(key string, dec *json.Decoder) bool {
		switch key {
		case "trajectory":
			found = sweFirstHas(dec, func(k map[string]bool) bool { return k["action"] })
			return true
		case "history":
			found = sweFirstHas(dec, func(k map[string]bool) bool { return k["role"] && (k["agent"] || k["message_type"]) })
			return found
		}
		return false
	})
	return found
}

// sweFirstHas reads an array from dec and reports whether its first element
// is an object whose keys satisfy ok. An empty array qualifies; anything
// else read is left half-read, so the caller must stop its walk.
func sweFirstHas(dec *json.Decoder, ok func(keys map[string]bool) bool) bool {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	if !dec.More() {
		return true
	}
	keys := map[string]bool{}
	atifWalkDecoder(dec, func(key string, _ *json.Decoder) bool {
		keys[key] = true
		return false
	})
	return ok(keys)
}

// Read reads a .traj file. A step or message whose fields have the wrong
// types is skipped with a warning; a file cut short keeps the steps read
// before the cut, with a warning.
func (SWEAgent) Read(r io.Reader, opts Options) (*Session, error) {
	return readCut(r, opts, func(r io.Reader) (*Session, error) { return sweAgentReadDoc(newJSONDoc(r), opts) })
}

func sweAgentReadDoc(d *jsonDoc, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	rd := &sweReader{
		s:       &Session{Format: "swe-agent", Source: src, Agent: "swe-agent"},
		max:     opts.MaxResultBytes,
		pending: map[string]int{},
		await:   -1,
	}
	if rd.max <= 0 {
		rd.max = -1
	}
	s := rd.s
	if obj, err := d.Open(); err != nil || !obj {
		return nil, fmt.Errorf("%s:%d: not a SWE-agent trajectory: expected a JSON object", src, d.Line())
	}
	err := rd.root(d)
	if err != nil {
		var de *jsonDocError
		if !errors.As(err, &de) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if rd.records == 0 {
			return nil, fmt.Errorf("%s:%d: reading SWE-agent trajectory: nothing could be read: %v", src, de.Line, de.Err)
		}
		s.Warnf(de.Line, "trajectory is cut short or malformed (%v); kept the %d steps and messages read before it", de.Err, rd.records)
	} else {
		if !rd.sawTrajectory && !rd.sawHistory {
			return nil, fmt.Errorf(`%s: not a SWE-agent trajectory: the object has neither "trajectory" nor "history"`, src)
		}
		if note, line := d.End(); note != "" {
			s.Warnf(line, "%s", note)
		}
	}
	rd.finish()
	return s, nil
}

// sweHistAction is an assistant message of the history, kept to give a
// trajectory step the model's tool call.
type sweHistAction struct {
	action string
	calls  []ohModelCall
}

// sweReader holds the state of one Read.
type sweReader struct {
	s   *Session
	max int
	rec jsonRec
	st  sweStep
	msg sweMsg
	// steps holds the calls made from trajectory steps, with their actions.
	steps   []ToolCall
	actions []string
	// hist holds the history's assistant messages; histCalls the calls
	// made from the history, used when the file has no trajectory.
	hist      []sweHistAction
	histCalls []ToolCall
	pending   map[string]int // tool_call_id → index in histCalls
	await     int            // histCalls index waiting for the next user message
	cwd       string
	// records counts the steps and messages read.
	records                    int
	sawTrajectory, sawHistory  bool
	tokensSent, tokensReceived int64
	hasStats                   bool
	// The conversation: the task (the first user message of the
	// history), the steps' thoughts, and the history's messages, which
	// are used when there is no trajectory. Each is
	// placed by the calls of steps or of histCalls.
	prompt, stepMsgs, histMsgs []Message
	havePrompt                 bool
}

func (rd *sweReader) root(d *jsonDoc) error {
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch key {
		case "trajectory", "history":
			if c, ok := d.peek(); !ok || c != '[' {
				line := d.Line()
				raw, err := d.Value()
				if err != nil {
					return err
				}
				if string(raw) != "null" {
					rd.s.Warnf(line, "ignored %q: expected an array, found %s", key, atifJSONKind(raw))
				}
				continue
			}
			d.Open()
			if key == "trajectory" {
				rd.sawTrajectory = true
			} else {
				rd.sawHistory = true
			}
			var err error
			if key == "trajectory" {
				err = ohParseEvents(d, &rd.rec.sc, rd.parseStep, rd.applyStep)
			} else {
				err = ohParseEvents(d, &rd.rec.sc, rd.parseMessage, rd.applyMessage)
			}
			if err != nil {
				return err
			}
		case "info":
			line := d.Line()
			raw, err := d.Value()
			if err != nil {
				return err
			}
			rd.info(raw, line)
		case "replay_config":
			line := d.Line()
			raw, err := d.Value()
			if err != nil {
				return err
			}
			rd.replayConfig(raw, line)
		default:
			if err := d.Skip(); err != nil {
				return err
			}
		}
	}
}

// sweStep holds the fields of one trajectory step the reader uses.
type sweStep struct {
	action, obs, cwd, thought string
	hasObs                    bool
}

// parseStep reads the step the scanner is at into rd.st, leaving any
// problem in the scanner.
func (rd *sweReader) parseStep() {
	r := &rd.rec
	sc := &r.sc
	st := &rd.st
	*st = sweStep{}
	if !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "action":
			st.action = r.str("action")
		case "observation":
			if sc.Peek() == jsonscan.Null {
				sc.Null()
				continue
			}
			st.obs, st.hasObs = r.strMax("observation", rd.max), true
		case "state":
			st.cwd = sweState(r)
		case "thought":
			if sc.Peek() == jsonscan.String {
				st.thought = r.str("thought")
			} else {
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
}

// applyStep makes a call of the step just parsed; err is what parsing it
// met.
func (rd *sweReader) applyStep(err error, line int) {
	rd.records++
	if err != nil {
		rd.s.Warnf(line, "skipped a trajectory step: %v", err)
		return
	}
	st := &rd.st
	if rd.cwd == "" {
		rd.cwd = st.cwd
	}
	rd.stepMsgs = appendMessage(rd.stepMsgs, RoleAssistant, KindText, st.thought, time.Time{}, false, len(rd.steps))
	if strings.TrimSpace(st.action) == "" {
		return
	}
	rd.steps = append(rd.steps, ToolCall{Name: sweAgentToolName(st.action), Arguments: sweCommandArgs(st.action), Result: st.obs, HasResult: st.hasObs})
	rd.actions = append(rd.actions, strings.TrimSpace(st.action))
}

// sweCommandArgs gives a command the agent ran as the arguments of its
// call: {"command": action}.
func sweCommandArgs(action string) json.RawMessage {
	args, _ := json.Marshal(map[string]string{"command": action}) // a string map always encodes
	return args
}

// sweState returns the working_dir of a step's state: an object, or (before
// 1.0) a string holding one.
func sweState(r *jsonRec) string {
	sc := &r.sc
	var data []byte
	switch sc.Peek() {
	case jsonscan.String:
		data = []byte(r.str("state"))
	case jsonscan.Object:
		data = sc.Raw()
	default:
		sc.Skip()
		return ""
	}
	var sub jsonscan.Scanner
	sub.Reset(bytes.TrimSpace(data))
	if !sub.Object() {
		return ""
	}
	for key, ok := sub.NextKey(); ok; key, ok = sub.NextKey() {
		if string(key) == "working_dir" && sub.Peek() == jsonscan.String {
			s, _ := sub.AppendString(nil, -1)
			return string(s)
		}
		sub.Skip()
	}
	return ""
}

// sweMsg holds the fields of one history message the reader uses.
type sweMsg struct {
	role, action, content, thought string
	isDemo, hasContent             bool
	calls                          []ohModelCall
	ids                            []string
}

// parseMessage reads the history message the scanner is at into rd.msg,
// leaving any problem in the scanner.
func (rd *sweReader) parseMessage() {
	r := &rd.rec
	sc := &r.sc
	m := &rd.msg
	*m = sweMsg{ids: m.ids[:0]}
	// Contents are kept only while no trajectory was seen: with one, the
	// history serves only to name the steps' tool calls.
	keepContent := !rd.sawTrajectory
	if !sc.Object() {
		return
	}
	// Until the first user message, the task, is found, contents are
	// read whatever the role (which may come after the content).
	keepContent = keepContent || !rd.havePrompt
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "role":
			m.role = r.str("role")
		case "action":
			m.action = r.str("action")
		case "is_demo":
			m.isDemo = r.boolean("is_demo")
		case "thought":
			if sc.Peek() == jsonscan.String && !rd.sawTrajectory {
				m.thought = r.str("thought")
			} else {
				sc.Skip()
			}
		case "content":
			if keepContent {
				m.content, m.hasContent = r.text("content", rd.max)
			} else {
				sc.Skip()
			}
		case "tool_calls":
			m.calls = ohReadToolCalls(r, &sweToolCallFields, nil)
		case "tool_call_ids":
			if !r.array("tool_call_ids") {
				continue
			}
			for sc.NextElem() {
				m.ids = append(m.ids, r.str("tool_call_ids[]"))
			}
		default:
			sc.Skip()
		}
	}
}

// applyMessage takes the calls and results of the message just parsed;
// err is what parsing it met.
func (rd *sweReader) applyMessage(err error, line int) {
	rd.records++
	if err != nil {
		rd.s.Warnf(line, "skipped a history message: %v", err)
		return
	}
	m := &rd.msg
	role, action, content, isDemo, hasContent, calls, ids := m.role, m.action, m.content, m.isDemo, m.hasContent, m.calls, m.ids
	keepContent := !rd.sawTrajectory
	if isDemo {
		return
	}
	if role == "user" && hasContent && !rd.havePrompt {
		// The first user message that is not a demonstration states the
		// task; it comes before any call.
		rd.havePrompt = true
		rd.prompt = appendMessage(rd.prompt, RoleUser, KindText, content, time.Time{}, false, 0)
		if keepContent {
			return
		}
	}
	switch role {
	case "assistant":
		if keepContent {
			rd.histMsgs = appendMessage(rd.histMsgs, RoleAssistant, KindText, m.thought, time.Time{}, false, len(rd.histCalls))
		}
		if len(calls) > 0 || strings.TrimSpace(action) != "" {
			rd.hist = append(rd.hist, sweHistAction{action: action, calls: calls})
		}
		if !keepContent {
			return
		}
		rd.await = -1
		for _, mc := range calls {
			rd.pending[mc.id] = len(rd.histCalls)
			rd.histCalls = append(rd.histCalls, ToolCall{ID: mc.id, Name: mc.name, Arguments: mc.args})
		}
		if len(calls) == 0 && strings.TrimSpace(action) != "" {
			rd.await = len(rd.histCalls)
			rd.histCalls = append(rd.histCalls, ToolCall{Name: sweAgentToolName(action), Arguments: sweCommandArgs(action)})
		}
	case "tool", "user":
		if !keepContent || !hasContent {
			return
		}
		for _, id := range ids {
			if i, ok := rd.pending[id]; ok {
				delete(rd.pending, id)
				rd.histCalls[i].Result, rd.histCalls[i].HasResult = content, true
			}
		}
		if len(ids) == 0 && rd.await >= 0 {
			rd.histCalls[rd.await].Result, rd.histCalls[rd.await].HasResult = content, true
			rd.await = -1
		} else if len(ids) == 0 && role == "user" {
			// Not an observation: what the harness told the model.
			rd.histMsgs = appendMessage(rd.histMsgs, RoleUser, KindText, content, time.Time{}, false, len(rd.histCalls))
		}
	}
}

// info reads the info object: model_stats, submission and version.
func (rd *sweReader) info(raw []byte, line int) {
	r := &rd.rec
	sc := &r.sc
	sc.Reset(raw)
	var submission, version string
	var sent, received int64
	var stats bool
	if sc.Peek() == jsonscan.Null {
		return
	}
	if sc.Object() {
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "submission":
				submission = r.str("info.submission")
			case "swe_agent_version":
				version = r.str("info.swe_agent_version")
			case "model_stats":
				if !r.object("info.model_stats") {
					continue
				}
				stats = true
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					switch string(key) {
					case "tokens_sent":
						sent, _ = r.int("info.model_stats.tokens_sent")
					case "tokens_received":
						received, _ = r.int("info.model_stats.tokens_received")
					default:
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
		}
	}
	sc.End()
	if err := sc.Err(); err != nil {
		rd.s.Warnf(line, "ignored info: %v", err)
		return
	}
	rd.s.Answer, rd.s.AgentVersion = submission, version
	rd.tokensSent, rd.tokensReceived, rd.hasStats = sent, received, stats
}

// replayConfig reads the run's configuration (an object, or since 1.0 a
// string holding one): the model name and the problem statement's id.
func (rd *sweReader) replayConfig(raw []byte, line int) {
	r := &rd.rec
	sc := &r.sc
	sc.Reset(raw)
	switch sc.Peek() {
	case jsonscan.Null:
		return
	case jsonscan.String:
		s := r.str("replay_config")
		raw = []byte(s)
		sc.Reset(raw)
		if sc.Peek() != jsonscan.Object {
			return // a config that is not JSON says nothing the reader uses
		}
	}
	var model, task string
	if r.object("replay_config") {
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "agent":
				if !r.object("replay_config.agent") {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) != "model" {
						sc.Skip()
						continue
					}
					if !r.object("replay_config.agent.model") {
						continue
					}
					for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
						if string(key) == "name" {
							model = r.str("replay_config.agent.model.name")
						} else {
							sc.Skip()
						}
					}
				}
			case "problem_statement":
				if !r.object("replay_config.problem_statement") {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) == "id" {
						task = r.str("replay_config.problem_statement.id")
					} else {
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
		}
	}
	sc.End()
	if err := sc.Err(); err != nil {
		rd.s.Warnf(line, "ignored replay_config: %v", err)
		return
	}
	rd.s.Model, rd.s.Task = model, task
}

// finish builds the session's calls: the trajectory's steps named by the
// history's tool calls, or the history's calls when there is no trajectory.
func (rd *sweReader) finish() {
	s := rd.s
	s.CWD = rd.cwd
	if rd.hasStats && rd.tokensSent+rd.tokensReceived > 0 {
		s.Usage = &Usage{InputTokens: rd.tokensSent, OutputTokens: rd.tokensReceived}
	}
	s.Messages = rd.prompt
	if !rd.sawTrajectory {
		for _, c := range rd.histCalls {
			s.AddCall(c)
		}
		s.Messages = append(s.Messages, rd.histMsgs...)
		return
	}
	s.Messages = append(s.Messages, rd.stepMsgs...)
	j := 0
	for i, c := range rd.steps {
		want := rd.actions[i]
		for k := j; k < len(rd.hist); k++ {
			if strings.TrimSpace(rd.hist[k].action) != want {
				continue
			}
			j = k + 1
			if calls := rd.hist[k].calls; len(calls) > 0 {
				mc := calls[0]
				c.ID = mc.id
				if mc.name != "" {
					c.Name = mc.name
				}
				if mc.args != nil {
					c.Arguments = mc.args
				}
			}
			break
		}
		s.AddCall(c)
	}
}
