package benchgen

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The shape of a real session this generator follows: a main agent that
// plans with TodoWrite, starts five subagents in parallel with Task calls,
// and collects their summaries. The subagents' sidechains interleave and
// hold almost every line (about 9 in 10) and call (Bash, Write, Read,
// TodoWrite, Edit, ...). Results are mostly small (a median of about 160
// bytes, nine in ten under 2 KB); about one call in 150 returns a large
// output of 64 to 512 KB. Claude Code repeats each result, and a Write's or
// Edit's file content, in the line's toolUseResult.
const (
	subagents       = 5
	subagentTurns   = 30
	largeResultRate = 150
)

// subagentTools is the tool mix of subagent calls, by weight.
var subagentTools = []struct {
	name   string
	weight int
}{
	{"Bash", 61}, {"Write", 33}, {"Read", 28}, {"TodoWrite", 19}, {"Edit", 8},
	{"BashOutput", 5}, {"MultiEdit", 3}, {"KillBash", 3}, {"Glob", 2},
}

// real generates one real-shaped session.
type real struct {
	c    *countingWriter
	rng  *rand.Rand
	ep   int // episode: one prompt, its subagents and their summaries
	call int
	msg  int
	sec  int // seconds since the start, for timestamps
	main any // the uuid of the main chain's last line
	out  strings.Builder
}

func writeRealShaped(w *bufio.Writer, size int64) error {
	g := &real{c: &countingWriter{w: w}, rng: rand.New(rand.NewPCG(3, 4))}
	g.c.line(map[string]any{"type": "summary", "summary": "Generated session: TODO app with subagents", "leafUuid": g.uuid()})
	for ; g.c.n < size && g.c.err == nil; g.ep++ {
		g.episode()
	}
	return g.c.err
}

func (g *real) uuid() string {
	r := g.rng
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, 0x8000|r.Uint32()&0x3fff, r.Uint64()&(1<<48-1))
}

func (g *real) timestamp() string {
	g.sec += 1 + g.rng.IntN(4)
	return fmt.Sprintf("2025-09-03T%02d:%02d:%02d.%03dZ", g.sec/3600%24, g.sec/60%60, g.sec%60, g.rng.IntN(1000))
}

// line writes one session line and returns its uuid.
func (g *real) line(parent any, side bool, cwd, typ string, msg any, extra map[string]any) string {
	uuid := g.uuid()
	m := map[string]any{"parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": cwd,
		"sessionId": "fe5e1c67-0000-4000-8000-000000000000", "version": "1.0.98", "gitBranch": "", "type": typ,
		"message": msg, "uuid": uuid, "timestamp": g.timestamp()}
	for k, v := range extra {
		m[k] = v
	}
	g.c.line(m)
	return uuid
}

// assistant writes one content block of an assistant message.
func (g *real) assistant(parent any, side bool, cwd, msgID string, block map[string]any) string {
	usage := map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100 + g.rng.IntN(2000), "cache_read_input_tokens": 10000 + g.rng.IntN(40000),
		"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 0}, "output_tokens": 1 + g.rng.IntN(300), "service_tier": "standard"}
	msg := map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
		"content": []any{block}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	return g.line(parent, side, cwd, "assistant", msg, map[string]any{"requestId": "req_" + msgID})
}

func (g *real) msgID() string {
	g.msg++
	return fmt.Sprintf("msg_%06d_%s", g.msg, strings.Repeat("x", 12))
}

func (g *real) callID() string {
	g.call++
	return fmt.Sprintf("toolu_%08d%s", g.call, "AbCdEfGhIjKlMn")
}

// result writes the user line with a tool_result and returns its uuid.
func (g *real) result(parent any, side bool, cwd, id string, content any, isError bool, toolUseResult any) string {
	block := map[string]any{"tool_use_id": id, "type": "tool_result", "content": content}
	if isError {
		block["is_error"] = true
	}
	return g.line(parent, side, cwd, "user", map[string]any{"role": "user", "content": []any{block}}, map[string]any{"toolUseResult": toolUseResult})
}

type sidechain struct {
	prompt string
	cwd    string
	last   any
	turns  int
	taskID string
}

func (g *real) episode() {
	root := "/path/to/Demo"
	app := fmt.Sprintf("%s/app%d", root, g.ep)
	prompt := g.line(g.main, false, root, "user", map[string]any{"role": "user",
		"content": fmt.Sprintf("Create TODO app number %d with Next.js, split into subtasks run in parallel.", g.ep)}, nil)
	g.main = prompt

	// Plan.
	id := g.msgID()
	g.main = g.assistant(g.main, false, root, id, map[string]any{"type": "text", "text": "I'll split this into independent subtasks and run them in parallel."})
	g.mainCall(root, id, "TodoWrite", g.todos(5))
	g.mainCall(root, id, "Glob", map[string]any{"pattern": "**/*.md", "path": "~/.claude/commands"})

	// Start the subagents: one message, one tool_use line per Task call.
	id = g.msgID()
	sides := make([]*sidechain, subagents)
	for i := range sides {
		s := &sidechain{cwd: app, turns: subagentTurns/2 + g.rng.IntN(subagentTurns)}
		s.prompt = fmt.Sprintf("Subtask %d of app %d: create the %s in %s/src/%s. Use TypeScript and Tailwind CSS.\nReturn a summary (150 words) of what was created.",
			i+1, g.ep, []string{"components", "hooks", "API routes", "tests", "styles"}[i], app, []string{"components", "hooks", "app/api", "__tests__", "styles"}[i])
		s.taskID = g.callID()
		g.main = g.assistant(g.main, false, root, id, map[string]any{"type": "tool_use", "id": s.taskID, "name": "Task",
			"input": map[string]any{"subagent_type": "general-purpose", "description": fmt.Sprintf("Subtask %d", i+1), "prompt": s.prompt}})
		sides[i] = s
	}
	// The sidechains run at once: their lines interleave, each chained by
	// its own parentUuid.
	for _, s := range sides {
		s.last = g.line(nil, true, s.cwd, "user", map[string]any{"role": "user", "content": s.prompt}, nil)
	}
	for open := len(sides); open > 0; {
		open = 0
		for _, s := range sides {
			if s.turns > 0 {
				g.sideTurn(s)
				s.turns--
				open++
			}
		}
	}
	for _, s := range sides {
		summary := fmt.Sprintf("## Summary\n\nCreated the files of %s:\n- %s/src/index.ts\n- %s/src/types.ts\nAll type checks pass.", s.prompt[:20], s.cwd, s.cwd)
		s.last = g.assistant(s.last, true, s.cwd, g.msgID(), map[string]any{"type": "text", "text": summary})
		content := []any{map[string]any{"type": "text", "text": summary}}
		g.main = g.result(g.main, false, root, s.taskID, content, false,
			map[string]any{"content": content, "totalDurationMs": 60000 + g.rng.IntN(100000), "totalTokens": 30000, "totalToolUseCount": subagentTurns})
	}
	g.main = g.assistant(g.main, false, root, g.msgID(), map[string]any{"type": "text", "text": fmt.Sprintf("App %d is ready: the subagents created its components, hooks, routes, tests and styles.", g.ep)})
}

// mainCall writes a main-chain call and its result.
func (g *real) mainCall(cwd, msgID, name string, input map[string]any) {
	id := g.callID()
	g.main = g.assistant(g.main, false, cwd, msgID, map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	content, tur := g.output(name, input, cwd)
	g.main = g.result(g.main, false, cwd, id, content, false, tur)
}

// sideTurn writes one subagent turn: sometimes a text line, then a call
// and its result.
func (g *real) sideTurn(s *sidechain) {
	id := g.msgID()
	if g.rng.IntN(2) == 0 {
		s.last = g.assistant(s.last, true, s.cwd, id, map[string]any{"type": "text", "text": "Now let me check the \"components\" directory and update the imports."})
	}
	name := g.pickTool()
	input := g.input(name, s.cwd)
	callID := g.callID()
	s.last = g.assistant(s.last, true, s.cwd, id, map[string]any{"type": "tool_use", "id": callID, "name": name, "input": input})
	content, tur := g.output(name, input, s.cwd)
	isError := g.rng.IntN(40) == 0
	if isError {
		content = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
		tur = "Error: File has not been read yet. Read it first before writing to it."
	}
	s.last = g.result(s.last, true, s.cwd, callID, content, isError, tur)
}

func (g *real) pickTool() string {
	total := 0
	for _, t := range subagentTools {
		total += t.weight
	}
	n := g.rng.IntN(total)
	for _, t := range subagentTools {
		if n < t.weight {
			return t.name
		}
		n -= t.weight
	}
	return "Bash"
}

func (g *real) file(cwd string) string {
	return fmt.Sprintf("%s/src/%s/%s%d.tsx", cwd, []string{"components", "hooks", "app/api", "lib", "styles"}[g.rng.IntN(5)],
		[]string{"TodoItem", "TodoList", "AddTodo", "Filter", "useTodos"}[g.rng.IntN(5)], g.rng.IntN(8))
}

// code returns n lines of source text, numbered like Claude Code's Read
// output when numbered is set.
func (g *real) code(n int, numbered bool) string {
	g.out.Reset()
	for i := 1; i <= n; i++ {
		if numbered {
			fmt.Fprintf(&g.out, "%6d→", i)
		}
		g.out.WriteString(CodeLines[g.rng.IntN(len(CodeLines))])
		g.out.WriteByte('\n')
	}
	return g.out.String()
}

// lines is a typical result length in lines, now and then a large one.
func (g *real) lines(typical int) int {
	if g.rng.IntN(largeResultRate) == 0 {
		return 1000 + g.rng.IntN(7000) // 64 to 512 KB
	}
	return 1 + g.rng.IntN(typical)
}

func (g *real) todos(n int) map[string]any {
	todos := make([]any, n)
	for i := range todos {
		todos[i] = map[string]any{"content": fmt.Sprintf("Build part %d of the TODO app", i+1), "status": []string{"pending", "in_progress", "completed"}[g.rng.IntN(3)],
			"activeForm": fmt.Sprintf("Building part %d of the TODO app", i+1)}
	}
	return map[string]any{"todos": todos}
}

func (g *real) input(name, cwd string) map[string]any {
	switch name {
	case "Bash":
		cmds := []string{"ls -la", "npm run build 2>&1 | tail -40", "grep -rn \"useState\" src/", "cat package.json", "npx tsc --noEmit", "find src -name '*.tsx'"}
		return map[string]any{"command": cmds[g.rng.IntN(len(cmds))], "description": "Check the project"}
	case "Write":
		return map[string]any{"file_path": g.file(cwd), "content": g.code(20+g.rng.IntN(80), false)}
	case "Read":
		return map[string]any{"file_path": g.file(cwd)}
	case "TodoWrite":
		return g.todos(3 + g.rng.IntN(5))
	case "Edit":
		return map[string]any{"file_path": g.file(cwd), "old_string": g.code(3+g.rng.IntN(10), false), "new_string": g.code(3+g.rng.IntN(10), false)}
	case "MultiEdit":
		return map[string]any{"file_path": g.file(cwd), "edits": []any{
			map[string]any{"old_string": g.code(2, false), "new_string": g.code(3, false)},
			map[string]any{"old_string": g.code(2, false), "new_string": g.code(2, false)},
		}}
	case "BashOutput", "KillBash":
		return map[string]any{"bash_id": fmt.Sprintf("bash_%d", 1+g.rng.IntN(3))}
	case "Glob":
		return map[string]any{"pattern": "src/**/*.tsx"}
	}
	return map[string]any{}
}

// output returns a call's tool_result content and the toolUseResult
// Claude Code writes with it.
func (g *real) output(name string, input map[string]any, cwd string) (any, any) {
	switch name {
	case "Bash":
		out := g.code(g.lines(30), false)
		return out, map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
	case "Read":
		n := g.lines(60)
		out := g.code(n, true)
		return out, map[string]any{"type": "text", "file": map[string]any{"filePath": input["file_path"], "content": out, "numLines": n, "startLine": 1, "totalLines": n}}
	case "Write":
		path := input["file_path"].(string)
		return "File created successfully at: " + path, map[string]any{"type": "create", "filePath": path, "content": input["content"], "structuredPatch": []any{}}
	case "Edit", "MultiEdit":
		path := input["file_path"].(string)
		snippet := g.code(5+g.rng.IntN(10), true)
		return "The file " + path + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + snippet,
			map[string]any{"filePath": path, "oldString": input["old_string"], "newString": input["new_string"], "originalFile": g.code(20+g.rng.IntN(60), false), "userModified": false}
	case "TodoWrite":
		return "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
			map[string]any{"oldTodos": []any{}, "newTodos": input["todos"]}
	case "Glob":
		var files []string
		for range 1 + g.rng.IntN(8) {
			files = append(files, g.file(cwd))
		}
		return strings.Join(files, "\n"), map[string]any{"filenames": files, "durationMs": 4, "numFiles": len(files), "truncated": false}
	}
	out := "<status>running</status>\n\n<stdout>\n> todo-app@0.1.0 dev\n> next dev --port 3001\n\n   ▲ Next.js 15.5.2\n</stdout>"
	return out, map[string]any{"shellId": input["bash_id"], "status": "running"}
}
