package trace

import (
	"slices"
	"strings"
)

// This file reads the tool calls that Cline's models write as XML in their
// text: an element named for the tool, holding one element a parameter.
//
//	<replace_in_file>
//	<path>src/app.ts</path>
//	<diff>
//	------- SEARCH
//	…
//	</diff>
//	</replace_in_file>

// clineTools are the tools Cline, Roo Code and Kilo Code describe to their
// models; only their elements are calls (a model may write other tags).
var clineTools = []string{
	"execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff", "insert_content",
	"search_and_replace", "search_files", "list_files", "list_code_definition_names", "codebase_search",
	"browser_action", "web_fetch", "use_mcp_tool", "access_mcp_resource", "ask_followup_question",
	"plan_mode_respond", "attempt_completion", "new_task", "load_mcp_documentation", "condense",
	"summarize_task", "report_bug", "new_rule", "switch_mode", "fetch_instructions", "update_todo_list",
}

// clineFileTextTools are the tools whose parameters hold file text.
var clineFileTextTools = []string{"write_to_file", "replace_in_file", "apply_diff", "insert_content", "new_rule"}

// clineParams are the parameters of those tools. content and diff hold
// file text, which may contain the closing tag itself: their value runs
// to the last closing tag inside the call.
var clineParams = []string{
	"command", "requires_approval", "path", "content", "diff", "regex", "file_pattern", "recursive",
	"action", "url", "coordinate", "text", "server_name", "tool_name", "arguments", "uri", "question",
	"options", "response", "result", "context", "title", "what_happened", "steps_to_reproduce",
	"api_request_output", "additional_context", "timeout", "line", "start_line", "end_line", "query",
	"mode_slug", "reason", "search", "replace", "use_regex", "ignore_case", "todos", "task",
	"needs_more_exploration", "mode",
}

// clineToolUse is one call written as XML.
type clineToolUse struct {
	name   string
	params map[string]string
	start  int // where the call's element starts in the text
	end    int // just past its closing tag (the text's end when unclosed)
}

// clineToolUses finds the calls in a message's text, in order.
func clineToolUses(text string) []clineToolUse {
	var out []clineToolUse
	for pos := 0; pos < len(text); {
		start, name := -1, ""
		for _, t := range clineTools {
			if i := strings.Index(text[pos:], "<"+t+">"); i >= 0 && (start < 0 || pos+i < start) {
				start, name = pos+i, t
			}
		}
		if start < 0 {
			break
		}
		bodyStart := start + len(name) + 2
		body, end := text[bodyStart:], len(text)
		closing := "</" + name + ">"
		i := strings.Index(body, closing)
		if slices.Contains(clineFileTextTools, name) {
			// The file text may hold the closing tag: the call ends at the
			// last one.
			i = strings.LastIndex(body, closing)
		}
		if i >= 0 {
			body, end = body[:i], bodyStart+i+len(closing)
		}
		out = append(out, clineToolUse{name: name, params: clineParamValues(body), start: start, end: end})
		pos = end
	}
	return out
}

// clineParamValues reads the parameters of a call's body. A value loses
// the line breaks around it, as Cline trims them.
func clineParamValues(body string) map[string]string {
	params := map[string]string{}
	for _, p := range clineParams {
		open, closing := "<"+p+">", "</"+p+">"
		i := strings.Index(body, open)
		if i < 0 {
			continue
		}
		v := body[i+len(open):]
		var j int
		if p == "content" || p == "diff" {
			j = strings.LastIndex(v, closing)
		} else {
			j = strings.Index(v, closing)
		}
		if j < 0 {
			j = len(v) // cut off: the value runs to the end
		}
		params[p] = strings.Trim(v[:j], "\r\n")
	}
	return params
}

// clineStripTools removes the calls and the <thinking> elements from a
// message's text, leaving what the model said.
func clineStripTools(text string) string {
	var b strings.Builder
	pos := 0
	for _, u := range clineToolUses(text) {
		b.WriteString(text[pos:u.start])
		pos = u.end
	}
	b.WriteString(text[pos:])
	t := b.String()
	for {
		i := strings.Index(t, "<thinking>")
		if i < 0 {
			break
		}
		j := strings.Index(t[i:], "</thinking>")
		if j < 0 {
			t = t[:i]
			break
		}
		t = t[:i] + t[i+j+len("</thinking>"):]
	}
	return t
}
