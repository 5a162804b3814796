package events

import (
	"math"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SWE-agent's tool bundles (the windowed viewer and editors, search,
// str_replace_editor, filemap) are commands the model writes as one line,
// "open src/x.py 120". A trajectory records that line as the action; the
// trace readers keep it as {"command": "<line>"} under a tool named for its
// first word. With function calling (SWE-agent 1.x) the same commands arrive
// as structured arguments named by the bundles' signatures
// ({"path": "src/x.py", "line_number": 120}). sweAgentArguments turns both
// forms into the argument keys extraction reads.

// sweWindow is the number of lines SWE-agent's windowed viewer shows (its
// WINDOW setting, 100 by default); open and goto place the requested line a
// sixth of a window below the top (tools/windowed: first_line = line -
// WINDOW/6, 0-based).
const sweWindow = 100

// sweSignatures lists the positional arguments of each SWE-agent command, in
// the order of its bundle's signature.
var sweSignatures = map[string][]string{
	"open":        {"path", "line_number"},
	"goto":        {"line_number"},
	"scroll_up":   nil,
	"scroll_down": nil,
	"create":      {"filename"},
	"find_file":   {"file_name", "dir"},
	"search_dir":  {"search_term", "dir"},
	"search_file": {"search_term", "file"},
	"filemap":     {"file_path"},
	"view_image":  {"image_file"},
	"insert":      {"text", "line"},
	"submit":      nil,
	// str_replace_editor <command> <path> [--file_text T] [--view_range A B]
	// [--old_str S] [--new_str S] [--insert_line N]
	"str_replace_editor": {"command", "path"},
	// edit is either "edit <search> <replace> [<replace-all>]" or, in the
	// windowed_edit_linting bundle and before 1.0, "edit <start>:<end>"
	// followed by the replacement lines; the start:end form is recognized
	// below.
	"edit": {"search", "replace", "replace-all"},
}

// sweAgentArguments returns the arguments of an SWE-agent command call in
// extraction's vocabulary, or nil when the call is not one. It recognizes
// the command-line form by its single "command" argument starting with the
// tool's own name, and the structured form by the keys only SWE-agent's
// signatures use (open's line_number, find_file's file_name).
func sweAgentArguments(name string, args map[string]any) map[string]any {
	sig, ok := sweSignatures[name]
	if !ok || args == nil {
		return nil
	}
	if line, ok := args["command"].(string); ok && len(args) == 1 && isSWECommandLine(name, line) {
		parsed, ok := parseSWECommand(name, sig, line)
		if !ok {
			return nil
		}
		args = parsed
	} else if !sweHasKey(args, "line_number", "file_name", "search_term", "image_file") {
		return nil
	}
	out := make(map[string]any, len(args)+2)
	for k, v := range args {
		out[k] = v
	}
	switch name {
	case "open":
		// Without a result the window is the best estimate of what the
		// agent saw; the numbered lines of a result replace it.
		first := 1
		if n, ok := intValue(out["line_number"]); ok && n > 0 {
			first = max(1, int(math.Floor(float64(n-1)-sweWindow/6.0))+1)
		}
		out["startLine"], out["endLine"] = float64(first), float64(first+sweWindow-1)
	case "find_file":
		if s, ok := out["file_name"].(string); ok {
			out["pattern"] = s
		}
	}
	return out
}

func sweHasKey(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// isSWECommandLine reports whether line is a command line of the named
// command: the name alone or followed by white space.
func isSWECommandLine(name, line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), name)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n')
}

// parseSWECommand splits a command line as bash does (SWE-agent runs it in
// bash) and names its words by the command's signature. The pre-1.0 edit
// form, "edit 10:20" followed by replacement lines up to end_of_edit, is
// read from its first line only.
func parseSWECommand(name string, sig []string, line string) (map[string]any, bool) {
	// A command line longer than this is an edit's text; its command and
	// arguments are on its first line.
	const maxCommandLine = 1 << 20
	words, ok := []string(nil), false
	if len(line) <= maxCommandLine {
		words, ok = sweWords(line)
	}
	if !ok || len(words) == 0 {
		first, _, _ := strings.Cut(line, "\n")
		if len(first) > maxCommandLine {
			first = first[:maxCommandLine]
		}
		if words, ok = sweWords(first); !ok || len(words) == 0 {
			return nil, false
		}
	}
	words = words[1:]
	out := map[string]any{}
	if name == "edit" && len(words) > 0 {
		if start, end, ok := sweLineSpan(words[0]); ok {
			out["start_line"], out["end_line"] = float64(start), float64(end)
			return out, true
		}
	}
	pos := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if flag, ok := strings.CutPrefix(w, "--"); ok && name == "str_replace_editor" && flag != "" {
			switch flag {
			case "view_range":
				if i+2 < len(words) {
					a, errA := strconv.Atoi(words[i+1])
					b, errB := strconv.Atoi(words[i+2])
					if errA == nil && errB == nil {
						out["view_range"] = []any{float64(a), float64(b)}
					}
					i += 2
				}
			default:
				if i+1 < len(words) {
					out[flag] = words[i+1]
					i++
				}
			}
			continue
		}
		if pos < len(sig) {
			if n, err := strconv.Atoi(w); err == nil && (sig[pos] == "line_number" || sig[pos] == "line") {
				out[sig[pos]] = float64(n)
			} else {
				out[sig[pos]] = w
			}
			pos++
		}
	}
	return out, true
}

// sweLineSpan reads "10:20".
func sweLineSpan(s string) (start, end int, ok bool) {
	a, b, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, false
	}
	start, errA := strconv.Atoi(a)
	end, errB := strconv.Atoi(b)
	return start, end, errA == nil && errB == nil && start > 0 && end >= start
}

// sweWords returns the words of the first simple command of a script, with
// quotes removed; words that need expansion (variables, globs, command
// substitution) are kept as written.
func sweWords(script string) ([]string, bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil, false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, false
	}
	words := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		words = append(words, sweWordText(script, w))
	}
	return words, true
}

// sweWordText returns a word with its quotes removed and its escapes
// resolved, or as written when its value would depend on the environment.
func sweWordText(script string, w *syntax.Word) string {
	if !sweLiteral(w) {
		return script[w.Pos().Offset():w.End().Offset()]
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			// Outside quotes a backslash is kept, as mvdan.cc/sh's
			// expand.Literal kept it when this used it.
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				unescapeLit(&b, q.(*syntax.Lit).Value, true)
			}
		}
	}
	return b.String()
}

// sweLiteral reports a word made only of literal text and quotes, whose
// value does not depend on the environment. A $'…' string is left as
// written, escapes and all. A ~ stays a ~: it names a folder of the machine
// that ran the agent.
func sweLiteral(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
