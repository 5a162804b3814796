package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// This file reads one step of a trajectory: its calls, the results joined
// to them, and its token counts.

type atifStep struct {
	StepID          json.RawMessage  `json:"step_id"`
	Timestamp       string           `json:"timestamp"`
	Source          string           `json:"source"`
	ModelName       string           `json:"model_name"`
	Message         json.RawMessage  `json:"message"`
	Reasoning       json.RawMessage  `json:"reasoning_content"`
	ToolCalls       []atifToolCall   `json:"tool_calls"`
	Observation     *atifObservation `json:"observation"`
	Metrics         *atifMetrics     `json:"metrics"`
	Extra           json.RawMessage  `json:"extra"`
	IsCopiedContext bool             `json:"is_copied_context"`
}

type atifToolCall struct {
	ToolCallID   string          `json:"tool_call_id"`
	FunctionName string          `json:"function_name"`
	Arguments    json.RawMessage `json:"arguments"`
}

type atifObservation struct {
	Results []atifResult `json:"results"`
}

type atifResult struct {
	SourceCallID string          `json:"source_call_id"`
	Content      json.RawMessage `json:"content"`
	Refs         atifRefs        `json:"subagent_trajectory_ref"`
	Extra        json.RawMessage `json:"extra"`
}

// atifRefs is a result's subagent_trajectory_ref. The RFC makes it an
// array; some writers put a single reference object there, which is read
// as an array of one.
type atifRefs []atifRef

func (r *atifRefs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var one atifRef
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*r = atifRefs{one}
		return nil
	}
	return json.Unmarshal(b, (*[]atifRef)(r))
}

type atifRef struct {
	SessionID    string `json:"session_id"`
	TrajectoryID string `json:"trajectory_id"`
}

type atifMetrics struct {
	PromptTokens     *atifCount      `json:"prompt_tokens"`
	CompletionTokens *atifCount      `json:"completion_tokens"`
	CachedTokens     *atifCount      `json:"cached_tokens"`
	Extra            json.RawMessage `json:"extra"`
}

// atifCount is a token count. Writers in Python sometimes emit counts as
// floats (100.0); any JSON number is accepted.
type atifCount int64

func (c *atifCount) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return &json.UnmarshalTypeError{Value: strings.TrimPrefix(atifJSONKind(b), "a "), Type: reflect.TypeFor[int64]()}
	}
	*c = atifCount(f)
	return nil
}

func (c *atifCount) value() int64 {
	if c == nil {
		return 0
	}
	return int64(*c)
}

// hasExtra reports whether metrics.extra holds any field.
func (m *atifMetrics) hasExtra() bool {
	return len(atifExtra(m.Extra)) > 0
}

// key returns the metrics as a comparable string, "" when they hold no
// token count.
func (m *atifMetrics) key() string {
	if m == nil || (m.PromptTokens == nil && m.CompletionTokens == nil && m.CachedTokens == nil) {
		return ""
	}
	f := func(c *atifCount) string {
		if c == nil {
			return "-"
		}
		return strconv.FormatInt(int64(*c), 10)
	}
	return f(m.PromptTokens) + "/" + f(m.CompletionTokens) + "/" + f(m.CachedTokens) + "/" + string(atifCompact(m.Extra))
}

// step reads one step into t.
func (rd *atifReader) step(t *atifTraj, i, line int, raw json.RawMessage) {
	var st atifStep
	if err := json.Unmarshal(raw, &st); err != nil {
		rd.s.Warnf(line, "%s skipped: %s", atifStepName(t, i, atifStepID(raw)), atifTypeMessage(err))
		return
	}
	rd.steps++
	if st.IsCopiedContext {
		// Harbor's context-summarization trajectories start with the steps
		// of the parent they continue, copied for context; those calls and
		// tokens belong to the parent.
		return
	}
	// The step's name is only needed for warnings; build it then.
	name := func() string { return atifStepName(t, i, string(st.StepID)) }
	var ts time.Time
	if st.Timestamp != "" {
		var ok bool
		if ts, ok = atifParseTime(st.Timestamp); ok {
			rd.s.NoteTime(ts)
		} else {
			rd.badTime(name, line, st.Timestamp)
		}
	}
	extra := atifExtra(st.Extra)
	sidechain := atifBool(extra, "is_sidechain")
	// Harbor's Claude Code converter flags a failed tool result on the step
	// that holds the call.
	stepErr := atifBool(extra, "tool_result_is_error")
	if cwd := atifString(extra, "cwd"); cwd != "" && t.stepCWD == "" {
		t.stepCWD = cwd
	}
	// The first user message of the root trajectory states the task.
	if st.Source == "user" && t.depth == 0 && !sidechain && rd.s.Prompt == "" {
		if text, _ := atifText(st.Message); strings.TrimSpace(text) != "" {
			rd.s.Prompt = strings.TrimSpace(text)
		}
	}
	rd.stepMessages(t, &st, ts, sidechain)
	agent := st.Source == "agent"
	if agent && t.stepModel == "" {
		t.stepModel = st.ModelName
	}

	var calls, fresh []int // entries of this step's calls; the new ones
	for j, tc := range st.ToolCalls {
		if tc.FunctionName == "" {
			rd.s.Warnf(line, "%s: tool_calls[%d] has no function_name; skipped", name(), j)
			continue
		}
		args := atifArguments(tc.Arguments)
		if k, ok := t.callByID[tc.ToolCallID]; ok && atifSameCall(t.entries[k], tc.FunctionName, args) {
			// A converter that gives the event holding a result its own step
			// may repeat the call there: same id, name and arguments, and no
			// result yet. It is one call. Ids alone are not enough, since
			// some writers number calls per step.
			calls = append(calls, k)
			t.entries[k].call.IsError = t.entries[k].call.IsError || stepErr
			continue
		}
		t.entries = append(t.entries, atifEntry{call: ToolCall{
			ID:        tc.ToolCallID,
			Name:      tc.FunctionName,
			Arguments: args,
			Time:      ts,
			Subagent:  sidechain,
			IsError:   stepErr,
		}})
		k := len(t.entries) - 1
		if _, seen := t.callByID[tc.ToolCallID]; !seen && tc.ToolCallID != "" {
			t.callByID[tc.ToolCallID] = k
		}
		calls = append(calls, k)
		fresh = append(fresh, k)
	}

	if agent {
		rd.metrics(t, st.Metrics)
	}
	for _, k := range fresh {
		t.entries[k].cum, t.entries[k].hasCum = t.used, t.hasUsage
	}

	if st.Observation != nil {
		rd.results(t, name, line, calls, st.Observation.Results)
	}

	if agent && !sidechain && t.depth == 0 {
		if text, _ := atifText(st.Message); text != "" {
			t.answerAny = text
			if len(st.ToolCalls) == 0 {
				t.answerNoCalls = text
			}
		}
	}
}

// stepMessages keeps what a user or agent step says: its reasoning_content
// and its message, before the step's calls. A system step's message (the
// system prompt) is not part of the conversation, nor is a step of a source
// ATIF does not define (a redacted one).
func (rd *atifReader) stepMessages(t *atifTraj, st *atifStep, ts time.Time, sidechain bool) {
	var role string
	switch st.Source {
	case "user":
		role = RoleUser
	case "agent":
		role = RoleAssistant
	default:
		return
	}
	if reasoning, _ := atifText(st.Reasoning); reasoning != "" {
		t.msgs = appendMessage(t.msgs, role, KindReasoning, reasoning, ts, sidechain, len(t.entries))
	}
	if text, _ := atifText(st.Message); text != "" {
		t.msgs = appendMessage(t.msgs, role, KindText, text, ts, sidechain, len(t.entries))
	}
}

// badTime notes a step whose timestamp cannot be read. A trajectory with
// one unreadable timestamp usually has them all (redacted copies write
// "<redacted>" in every step), so they are reported once, at the first.
func (rd *atifReader) badTime(name func() string, line int, ts string) {
	if rd.badTimes == 0 {
		rd.firstBadTime = fmt.Sprintf("%s: timestamp %q", name(), ts)
		rd.firstBadLine = line
	}
	rd.badTimes++
}

// warnBadTimes reports the steps whose timestamps could not be read.
func (rd *atifReader) warnBadTimes() {
	switch rd.badTimes {
	case 0:
	case 1:
		rd.s.Warnf(rd.firstBadLine, "%s is not ISO 8601; its calls have no time", rd.firstBadTime)
	default:
		rd.s.Warnf(rd.firstBadLine, "%s is not ISO 8601, nor are the timestamps of %d more steps; their calls have no time", rd.firstBadTime, rd.badTimes-1)
	}
}

func atifSameCall(e atifEntry, name string, args json.RawMessage) bool {
	return !e.matched && e.call.Name == name && bytes.Equal(e.call.Arguments, args)
}

// metrics counts an agent step's tokens.
func (rd *atifReader) metrics(t *atifTraj, m *atifMetrics) {
	key := m.key()
	if key == "" {
		t.prevMetrics = ""
		return
	}
	// Harbor's Claude Code converter makes one step per content block of a
	// Claude message and copies that message's usage onto each of them
	// (Claude Code's own log repeats it on every block's line). Consecutive
	// agent steps with identical metrics are therefore one model call and
	// are counted once. Two real model calls in a row never have the same
	// prompt size, since each prompt holds the previous output; but Harbor's
	// golden terminus-2 trajectories, made with a fake model, do repeat
	// counts across distinct calls (and count them twice in final_metrics).
	// The converter always copies Claude's other usage fields
	// (cache_creation_input_tokens, service_tier) into metrics.extra, so a
	// repeat is only taken for one when extra is not empty.
	repeated := key == t.prevMetrics && m.hasExtra()
	t.prevMetrics = key
	t.hasUsage = true
	if repeated {
		return
	}
	// prompt_tokens already includes cached_tokens (ATIF v1.2 and later):
	// adding cached_tokens again would count cache reads twice.
	prompt, completion := m.PromptTokens.value(), m.CompletionTokens.value()
	t.used += prompt + completion
	t.usage = t.usage.Add(Usage{InputTokens: prompt, OutputTokens: completion, CacheReadTokens: m.CachedTokens.value()})
}

// results joins a step's observation results to its calls.
func (rd *atifReader) results(t *atifTraj, name func() string, line int, calls []int, results []atifResult) {
	var loose []atifResult
	for _, res := range results {
		if res.SourceCallID == "" {
			loose = append(loose, res)
			continue
		}
		k := -1
		for _, c := range calls {
			if e := &t.entries[c]; e.call.ID == res.SourceCallID && !e.matched {
				k = c
				break
			}
		}
		if c, ok := t.callByID[res.SourceCallID]; k < 0 && ok && !t.entries[c].matched {
			// The result arrives in a later step than its call.
			k = c
		}
		if k < 0 {
			rd.s.Warnf(line, "%s: result for tool_call_id %q matches no call without a result; its content is dropped", name(), res.SourceCallID)
			rd.anchor(t, res.Refs)
			continue
		}
		rd.join(t, k, res)
	}
	// terminus-2 writes results without source_call_id; they belong, in
	// order, to the step's calls that have no result yet.
	for _, res := range loose {
		k := -1
		for _, c := range calls {
			if !t.entries[c].matched {
				k = c
				break
			}
		}
		if k < 0 {
			// Feedback that answers no call (a parse error message, a
			// system event); only its subagent references matter.
			rd.anchor(t, res.Refs)
			continue
		}
		rd.join(t, k, res)
	}
}

func (rd *atifReader) join(t *atifTraj, k int, res atifResult) {
	e := &t.entries[k]
	e.matched = true
	extra := atifExtra(res.Extra)
	content := res.Content
	// Harbor's Claude Code conversion appends sections of its own to the
	// content ("[stdout]", "[exit_code]", "[metadata] {...}") and keeps the
	// tool_result block the agent received in
	// extra.tool_result_metadata.raw_tool_result: its content is the exact
	// text, and its is_error the error flag.
	raw := atifExtra(atifExtra(extra["tool_result_metadata"])["raw_tool_result"])
	if c, ok := raw["content"]; ok {
		if _, ok := atifText(c); ok {
			content = c
		}
	}
	if text, ok := atifText(content); ok {
		e.call.Result = atifClip(text, rd.max)
		e.call.HasResult = true
	}
	// extra.is_error is written by several converters; NeMo Relay's
	// exporter writes extra.status instead.
	if atifBool(extra, "is_error") || atifBool(raw, "is_error") || atifErrorStatus(atifString(extra, "status")) {
		e.call.IsError = true
	}
	e.refs = append(e.refs, res.Refs...)
}

// atifErrorStatus reports whether a result status names a failure.
func atifErrorStatus(status string) bool {
	switch strings.ToLower(status) {
	case "error", "failed", "failure":
		return true
	}
	return false
}

func (rd *atifReader) anchor(t *atifTraj, refs []atifRef) {
	if len(refs) == 0 {
		return
	}
	t.entries = append(t.entries, atifEntry{anchor: true, refs: refs, cum: t.used, hasCum: t.hasUsage})
}

func atifStepName(t *atifTraj, i int, id string) string {
	name := fmt.Sprintf("%ssteps[%d]", t.path, i)
	if id = strings.TrimSpace(id); id != "" && id != "null" && len(id) <= 40 {
		name += " (step_id " + id + ")"
	}
	return name
}

// atifStepID returns the raw step_id of a step that could not be decoded,
// or "".
func atifStepID(raw json.RawMessage) string {
	var v struct {
		StepID json.RawMessage `json:"step_id"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return string(v.StepID)
}

// atifExtra decodes a free-form "extra" object. Extra fields are read
// leniently: a field of an unexpected type is ignored, never a reason to
// skip a step.
func atifExtra(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func atifBool(m map[string]json.RawMessage, key string) bool {
	return string(bytes.TrimSpace(m[key])) == "true"
}

func atifString(m map[string]json.RawMessage, key string) string {
	raw := m[key]
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func atifFirstString(raw json.RawMessage) string {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	for _, v := range list {
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
