package trace

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// This file reads OTLP log files: the events coding agents export about
// tool calls and model requests, when they export no GenAI spans.

// otelLogEvents are the events the reader uses.
var otelLogEvents = map[string]bool{
	// Gemini CLI (docs/cli/telemetry.md): function_name, function_args (a
	// JSON string), success, error, duration_ms.
	"gemini_cli.tool_call": true,
	// Token counts: input_token_count (cached included),
	// output_token_count, cached_content_token_count.
	"gemini_cli.api_response": true,
	// Claude Code (monitoring-usage): tool_name, success ("true"/"false"),
	// error, duration_ms, tool_use_id, tool_parameters (a JSON string;
	// full_command for Bash), tool_input with OTEL_LOG_TOOL_DETAILS=1.
	"claude_code.tool_result": true,
	// Token counts: input_tokens (cache excluded, as in Anthropic's API),
	// output_tokens, cache_read_tokens, cache_creation_tokens.
	"claude_code.api_request": true,
}

// logSessions makes one session of each session.id (else trace id) of the
// tool-call log events, in the order they first appear.
func (rd *otelReader) logSessions() []*Session {
	var order []string
	groups := map[string][]*otelLog{}
	for i := range rd.p.logs {
		lg := &rd.p.logs[i]
		key := cmp.Or(lg.sessionID, lg.traceID)
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], lg)
	}
	var all []*Session
	for _, key := range order {
		all = append(all, rd.logSession(key, groups[key]))
	}
	return all
}

func (rd *otelReader) logSession(id string, logs []*otelLog) *Session {
	s := &Session{Format: "otel", Source: rd.src, ID: id}
	type event struct {
		call   *ToolCall
		time   int64
		tokens int64
		usage  *Usage
	}
	var events []event
	for _, lg := range logs {
		s.NoteTime(otelTime(lg.time))
		s.Agent = cmp.Or(s.Agent, lg.service)
		a := lg.attrs
		switch lg.event {
		case "gemini_cli.tool_call", "claude_code.tool_result":
			c := otelLogCall(lg, rd.p.max)
			if c.Name == "" {
				s.Warnf(lg.line, "%s event without a tool name; skipped", lg.event)
				continue
			}
			at := lg.time
			// The event is written when the tool is done; the call was
			// issued duration_ms before.
			if d, ok := a["duration_ms"].int(); ok && d > 0 && at > d*1e6 {
				at -= d * 1e6
			}
			c.Time = otelTime(at)
			events = append(events, event{call: &c, time: at})
		case "gemini_cli.api_response", "claude_code.api_request":
			u := otelLogUsage(lg)
			s.Model = cmp.Or(s.Model, a["model"].text)
			events = append(events, event{usage: &u, tokens: u.Total(), time: lg.time})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int { return cmp.Compare(a.time, b.time) })
	var total Usage
	var used int64
	hasUsage := false
	for _, e := range events {
		if e.usage != nil {
			total, used, hasUsage = total.Add(*e.usage), used+e.tokens, true
			continue
		}
		c := *e.call
		if hasUsage {
			n := used
			c.CumulativeTokens = &n
		}
		s.AddCall(c)
	}
	if hasUsage {
		s.Usage = &total
	}
	return s
}

// otelLogCall reads a tool-call event. The events say whether the tool
// failed but carry no output: HasResult is set only by an error message.
func otelLogCall(lg *otelLog, max int) ToolCall {
	a := lg.attrs
	var c ToolCall
	if lg.event == "gemini_cli.tool_call" {
		c.Name = a["function_name"].text
		c.Arguments = otelArguments(a["function_args"].text)
		c.ID = cmp.Or(a["call_id"].text, a["tool_call_id"].text)
	} else {
		c.Name = a["tool_name"].text
		c.ID = cmp.Or(a["tool_use_id"].text, a["gen_ai.tool.call.id"].text)
		if in, ok := a["tool_input"]; ok && in.text != "" {
			c.Arguments = otelArguments(in.text)
		} else {
			c.Arguments = otelClaudeParameters(a["tool_parameters"].text)
		}
	}
	if ok, known := a["success"].bool(); known && !ok {
		c.IsError = true
	}
	if msg := cmp.Or(a["error"].text, a["error_type"].text); msg != "" {
		c.IsError = true
		c.Result, c.HasResult = atifClip(msg, max), true
	}
	return c
}

// otelClaudeParameters turns Claude Code's tool_parameters (a summary of
// the input: bash_command, full_command, … for Bash) into arguments. The
// whole command line is kept under "command", as the Bash tool names it.
func otelClaudeParameters(text string) json.RawMessage {
	args := otelArguments(text)
	var m map[string]any
	if len(args) == 0 || args[0] != '{' || json.Unmarshal(args, &m) != nil {
		return args
	}
	if full, ok := m["full_command"].(string); ok && m["command"] == nil {
		m["command"] = full
		delete(m, "full_command")
		if b, err := json.Marshal(m); err == nil {
			return b
		}
	}
	return args
}

// otelLogUsage reads the token counts of a model request event.
func otelLogUsage(lg *otelLog) Usage {
	a := lg.attrs
	n := func(key string) int64 {
		v, _ := a[key].int()
		return max(v, 0)
	}
	if strings.HasPrefix(lg.event, "gemini_cli.") {
		// Gemini's prompt count already includes the cached tokens.
		return Usage{InputTokens: n("input_token_count"), OutputTokens: n("output_token_count"), CacheReadTokens: n("cached_content_token_count")}
	}
	// Anthropic's input_tokens leaves out the cached tokens; they are added
	// so that InputTokens is every token of the prompt.
	read, write := n("cache_read_tokens"), n("cache_creation_tokens")
	return Usage{InputTokens: n("input_tokens") + read + write, OutputTokens: n("output_tokens"), CacheReadTokens: read, CacheCreationTokens: write}
}
