package trace

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// This file reads what OpenInference, the semantic conventions of Arize
// Phoenix's instrumentations (LangChain and LangGraph, LlamaIndex, CrewAI,
// smolagents, the OpenAI Agents SDK), says about tool calls. A TOOL span
// (openinference.span.kind) is one call: tool.name, its arguments in
// input.value and its result in output.value. An LLM span lists the calls
// the model asked for as flattened attributes,
//
//	llm.output_messages.0.message.tool_calls.0.tool_call.id
//	llm.output_messages.0.message.tool_calls.0.tool_call.function.name
//	llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments
//
// and the answers the model was given as tool messages of its input:
//
//	llm.input_messages.3.message.role = "tool"
//	llm.input_messages.3.message.tool_call_id
//	llm.input_messages.3.message.content
//
// They become message parts like the GenAI conventions' tool_call and
// tool_call_response parts, joined to the TOOL spans by id.

// oiToolCall is a tool call an LLM span's output names.
type oiToolCall struct {
	msg, call      int
	id, name, args string
}

// oiToolMessage is a message of an LLM span's input.
type oiToolMessage struct {
	msg                   int
	role, callID, content string
}

// oiMessageAttr reads an indexed message attribute of an LLM span; it
// returns false for any other key.
func (p *otelParser) oiMessageAttr(key string, sc *jsonscan.Scanner, sp *otelSpan) bool {
	switch {
	case strings.HasPrefix(key, "llm.output_messages."):
		msg, rest, ok := oiIndex(strings.TrimPrefix(key, "llm.output_messages."))
		if !ok {
			return false
		}
		rest, ok = strings.CutPrefix(rest, "message.tool_calls.")
		if !ok {
			return false
		}
		call, field, ok := oiIndex(rest)
		if !ok {
			return false
		}
		c := oiCallAt(&sp.oiCalls, msg, call)
		if c == nil {
			sc.Skip()
			return true
		}
		switch field {
		case "tool_call.id":
			c.id = p.anyValue(sc, -1).text
		case "tool_call.function.name":
			c.name = p.anyValue(sc, -1).text
		case "tool_call.function.arguments":
			c.args = p.anyValue(sc, -1).text
		default:
			return false
		}
		return true
	case strings.HasPrefix(key, "llm.input_messages."):
		msg, field, ok := oiIndex(strings.TrimPrefix(key, "llm.input_messages."))
		if !ok {
			return false
		}
		m := oiMessageAt(&sp.oiToolMsgs, msg)
		if m == nil {
			sc.Skip()
			return true
		}
		switch field {
		case "message.role":
			m.role = p.anyValue(sc, -1).text
		case "message.tool_call_id":
			m.callID = p.anyValue(sc, -1).text
		case "message.content":
			m.content = atifClip(p.anyValue(sc, p.limit()).text, p.max)
		default:
			return false
		}
		return true
	}
	return false
}

// oiIndex splits "3.message.role" into 3 and "message.role".
func oiIndex(s string) (int, string, bool) {
	head, rest, ok := strings.Cut(s, ".")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.Atoi(head)
	if err != nil || n < 0 || n > 1<<20 {
		return 0, "", false
	}
	return n, rest, true
}

// oiMaxEntries bounds the calls and messages kept of one span.
const oiMaxEntries = 4096

// oiCallAt finds or adds the entry of a call; nil past oiMaxEntries.
func oiCallAt(calls *[]oiToolCall, msg, call int) *oiToolCall {
	for i := range *calls {
		if c := &(*calls)[i]; c.msg == msg && c.call == call {
			return c
		}
	}
	if len(*calls) >= oiMaxEntries {
		return nil
	}
	*calls = append(*calls, oiToolCall{msg: msg, call: call})
	return &(*calls)[len(*calls)-1]
}

// oiMessageAt finds or adds the entry of a message; nil past oiMaxEntries.
func oiMessageAt(msgs *[]oiToolMessage, msg int) *oiToolMessage {
	for i := range *msgs {
		if m := &(*msgs)[i]; m.msg == msg {
			return m
		}
	}
	if len(*msgs) >= oiMaxEntries {
		return nil
	}
	*msgs = append(*msgs, oiToolMessage{msg: msg})
	return &(*msgs)[len(*msgs)-1]
}

// oiParts returns an LLM span's tool calls as message parts, in the order
// of their messages and calls, and its tool messages' answers by call id.
func oiParts(sp *otelSpan) (calls []otelPart, answers map[string]string) {
	cs := slices.Clone(sp.oiCalls)
	slices.SortFunc(cs, func(a, b oiToolCall) int { return cmp.Or(cmp.Compare(a.msg, b.msg), cmp.Compare(a.call, b.call)) })
	for _, c := range cs {
		calls = append(calls, otelPart{Type: "tool_call", ID: c.id, Name: c.name, Arguments: otelArguments(c.args)})
	}
	for _, m := range sp.oiToolMsgs {
		if m.role == "tool" && m.callID != "" {
			if answers == nil {
				answers = map[string]string{}
			}
			answers[m.callID] = m.content
		}
	}
	return calls, answers
}
