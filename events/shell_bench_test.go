package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	"github.com/agentretrieval/agentretrieval/trace"
)

// shellFuzzSeeds are the seed commands of FuzzShellCommand; the shell
// benchmarks run them too.
var shellFuzzSeeds = []string{
	"sed -n '10,20p' /testbed/x.py",
	"cd src && cat a.go | head -50",
	"grep -rn foo src/",
	"find . -name '*.go' -exec grep -l x {} \\;",
	"cat > f <<EOF\nbody\nEOF\nls -la",
	"echo $(cat `ls`) 2>&1 >> out.txt",
	"git show HEAD:pkg/a.go && git log -p -- a.go",
	"awk 'NR>=3 && NR<=9' a b | sort | uniq -c",
	"cp -t dest a b; mv x y/; rm -rf z",
	"bash -c 'bash -c \"cat a\"'",
	"x=$((1+(2*3))) <(cat a) >(tee b)",
}

// fuzzCorpusCommands returns the seeds and the commands of the stored
// corpus of FuzzShellCommand (testdata/fuzz), the inputs fuzzing kept.
func fuzzCorpusCommands(tb testing.TB) []string {
	cmds := append([]string(nil), shellFuzzSeeds...)
	files, _ := filepath.Glob("testdata/fuzz/FuzzShellCommand/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		// "go test fuzz v1" then one line per argument: string("...").
		lines := strings.Split(string(b), "\n")
		if len(lines) < 2 {
			continue
		}
		arg := strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")")
		if s, err := strconv.Unquote(arg); err == nil {
			cmds = append(cmds, s)
		}
	}
	return cmds
}

// A sampleCall is a shell call found in a real trace sample: the tool
// name and arguments as the agent recorded them, and the output when the
// format pairs it with the call.
type sampleCall struct {
	tool   string
	args   json.RawMessage
	result string
}

// sampleShellCalls reads the shell calls of the real samples, format by
// format, with encoding/json (only what the benchmark needs: the trace
// package owns the real readers). It returns them per sample file.
func sampleShellCalls(tb testing.TB) map[string][]sampleCall {
	if _, err := os.Stat(samplesDir); err != nil {
		tb.Skip("no samples folder at " + samplesDir)
	}
	out := map[string][]sampleCall{}
	glob := func(pattern string) []string {
		files, _ := filepath.Glob(filepath.Join(samplesDir, pattern))
		return files
	}
	str := func(s string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"command": s})
		return b
	}
	// Claude Code sessions and stream-json: Bash tool_use blocks.
	for _, f := range append(glob("claude-code-jsonl/*.jsonl"), glob("claude-stream-json/*")...) {
		for _, line := range readLines(tb, f) {
			var l struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &l) != nil {
				continue
			}
			var blocks []struct {
				Type  string          `json:"type"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			}
			_ = json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				if b.Type == "tool_use" && b.Name == "Bash" {
					out[f] = append(out[f], sampleCall{tool: b.Name, args: b.Input})
				}
			}
		}
	}
	// Codex rollouts: function_call shell/exec_command, whose arguments
	// are a JSON string ({"command": [...]}); local_shell_call actions.
	for _, f := range glob("codex/*.jsonl") {
		outputs := map[string]string{}
		var calls []struct {
			id string
			c  sampleCall
		}
		for _, line := range readLines(tb, f) {
			var l struct {
				Payload struct {
					Type      string          `json:"type"`
					Name      string          `json:"name"`
					Arguments string          `json:"arguments"`
					CallID    string          `json:"call_id"`
					Output    string          `json:"output"`
					Action    json.RawMessage `json:"action"`
				} `json:"payload"`
			}
			if json.Unmarshal(line, &l) != nil {
				continue
			}
			p := l.Payload
			switch {
			case p.Type == "function_call" && (p.Name == "shell" || p.Name == "exec_command"):
				calls = append(calls, struct {
					id string
					c  sampleCall
				}{p.CallID, sampleCall{tool: p.Name, args: json.RawMessage(p.Arguments)}})
			case p.Type == "local_shell_call":
				calls = append(calls, struct {
					id string
					c  sampleCall
				}{p.CallID, sampleCall{tool: "local_shell", args: p.Action}})
			case p.Type == "function_call_output":
				var o struct {
					Output string `json:"output"`
				}
				if json.Unmarshal([]byte(p.Output), &o) == nil {
					outputs[p.CallID] = o.Output
				} else {
					outputs[p.CallID] = p.Output
				}
			}
		}
		for _, c := range calls {
			c.c.result = outputs[c.id]
			out[f] = append(out[f], c.c)
		}
	}
	// Gemini CLI sessions: run_shell_command calls.
	for _, f := range glob("gemini-cli/*.json") {
		var s struct {
			Messages []struct {
				ToolCalls []struct {
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"toolCalls"`
			} `json:"messages"`
		}
		readJSON(tb, f, &s)
		for _, m := range s.Messages {
			for _, tc := range m.ToolCalls {
				if tc.Name == "run_shell_command" {
					out[f] = append(out[f], sampleCall{tool: tc.Name, args: tc.Args})
				}
			}
		}
	}
	// SWE-agent trajectories: each step's action is a command line.
	for _, f := range glob("swe-agent/*.traj") {
		var s struct {
			Trajectory []struct {
				Action      string `json:"action"`
				Observation string `json:"observation"`
			} `json:"trajectory"`
		}
		readJSON(tb, f, &s)
		for _, st := range s.Trajectory {
			if strings.TrimSpace(st.Action) != "" {
				out[f] = append(out[f], sampleCall{tool: "bash", args: str(st.Action), result: st.Observation})
			}
		}
	}
	// mini-swe-agent: fenced bash blocks in assistant text, or tool_calls.
	fence := regexp.MustCompile("(?s)```(?:bash|sh)\\s*\\n(.*?)\\n```")
	for _, f := range glob("mini-swe-agent/*.json") {
		var s struct {
			Messages []struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		readJSON(tb, f, &s)
		for _, m := range s.Messages {
			if m.Role != "assistant" {
				continue
			}
			for _, tc := range m.ToolCalls {
				out[f] = append(out[f], sampleCall{tool: tc.Function.Name, args: json.RawMessage(tc.Function.Arguments)})
			}
			var text string
			if json.Unmarshal(m.Content, &text) == nil {
				for _, mm := range fence.FindAllStringSubmatch(text, -1) {
					out[f] = append(out[f], sampleCall{tool: "bash", args: str(mm[1])})
				}
			}
		}
	}
	// OpenHands V0 event lists: run actions carry args.command.
	for _, f := range glob("openhands/*.json") {
		var events []struct {
			Action string `json:"action"`
			Args   struct {
				Command string `json:"command"`
			} `json:"args"`
		}
		readJSON(tb, f, &events)
		for _, e := range events {
			if e.Action == "run" && e.Args.Command != "" {
				out[f] = append(out[f], sampleCall{tool: "execute_bash", args: str(e.Args.Command)})
			}
		}
	}
	return out
}

func readLines(tb testing.TB, file string) [][]byte {
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return lines
}

func readJSON(tb testing.TB, file string, v any) {
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
}

// shellScripts returns the scripts that Extract would parse for calls.
func shellScripts(calls []sampleCall) []string {
	var scripts []string
	for _, c := range calls {
		args, raw, _ := decodeArguments(c.args, "", false)
		if in, ok := shellCommand(c.tool, Rule{Shell: true}, args, raw); ok {
			scripts = append(scripts, inputScript(in))
		}
	}
	return scripts
}

// inputScript returns the script of a shell call for the parse
// benchmarks: the SCRIPT of a `bash -c SCRIPT` argv, or the argv's words
// joined.
func inputScript(in shellInput) string {
	if in.argv == nil {
		return in.script
	}
	var words []shellWord
	for _, w := range in.argv[1:] {
		words = append(words, shellWord{text: w})
	}
	if s, ok := shellDashC(words); ok {
		return s
	}
	return strings.Join(in.argv, " ")
}

func TestSampleShellCallsAreFound(t *testing.T) {
	t.Parallel()
	all := sampleShellCalls(t)
	n := 0
	for _, calls := range all {
		n += len(shellScripts(calls))
	}
	if n < 100 {
		t.Errorf("found %d shell commands in the samples, want at least 100", n)
	}
}

// BenchmarkShellCommands parses and extracts the shell commands of the
// fuzz corpus and of the real samples, each command as a Bash call.
// Compare parse (shell syntax only) with extract (the whole call).
func BenchmarkShellCommands(b *testing.B) {
	n := PathNormalizer{CWD: "/testbed"}
	run := func(b *testing.B, cmds []string) {
		calls := make([]*trace.ToolCall, len(cmds))
		for i, c := range cmds {
			calls[i] = &trace.ToolCall{Name: "Bash", Arguments: json.RawMessage(bash(c))}
		}
		b.Run("parse", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.PerOp(b, time.Nanosecond)()
			for b.Loop() {
				for _, c := range cmds {
					parseShell(c)
				}
			}
		})
		b.Run("extract", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.PerOp(b, time.Nanosecond)()
			for b.Loop() {
				for _, c := range calls {
					Extract(c, ruleBash, n)
				}
			}
		})
	}
	b.Run("fuzz-corpus", func(b *testing.B) { run(b, fuzzCorpusCommands(b)) })
	b.Run("samples", func(b *testing.B) {
		var cmds []string
		for _, calls := range sampleShellCalls(b) {
			cmds = append(cmds, shellScripts(calls)...)
		}
		run(b, cmds)
	})
}

// BenchmarkEventsShellShare measures what share of the events path
// (trace.Read then Normalize) shell extraction takes: "events" runs the
// whole path, "shell" only Extract on the shell calls of the same
// sessions, "parse" only the shell syntax of those calls. Real samples
// that trace.Read reads natively are read as they are; the shell calls of
// the other samples are written as a tool-calls trace (with their output
// when the format pairs it). The pathological commands of
// BenchmarkExtractPathological are one tool-calls trace.
func BenchmarkEventsShellShare(b *testing.B) {
	run := func(b *testing.B, traces [][]byte) {
		var sessions []*trace.Session
		for _, t := range traces {
			s, err := trace.Read(bytes.NewReader(t), trace.Options{})
			if err != nil {
				b.Fatal(err)
			}
			sessions = append(sessions, s)
		}
		tax := DefaultTaxonomy()
		type shellCall struct {
			c    *trace.ToolCall
			rule Rule
			n    PathNormalizer
		}
		var shell []shellCall
		var scripts []string
		for _, s := range sessions {
			for i := range s.Calls {
				c := &s.Calls[i]
				rule, _ := tax.Classify(c.Name)
				args, raw, _ := decodeArguments(c.Arguments, "", s.ArgumentsChecked(i))
				if in, ok := shellCommand(c.Name, rule, args, raw); ok {
					shell = append(shell, shellCall{c, rule, PathNormalizer{CWD: s.CWD}})
					scripts = append(scripts, inputScript(in))
				}
			}
		}
		b.Run("events", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.PerOp(b, time.Nanosecond)()
			for b.Loop() {
				for _, t := range traces {
					s, _ := trace.Read(bytes.NewReader(t), trace.Options{})
					Normalize(s, Options{})
				}
			}
		})
		b.Run("shell", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.PerOp(b, time.Nanosecond)()
			for b.Loop() {
				for _, c := range shell {
					Extract(c.c, c.rule, c.n)
				}
			}
		})
		b.Run("parse", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.PerOp(b, time.Nanosecond)()
			for b.Loop() {
				for _, s := range scripts {
					parseShell(s)
				}
			}
		})
	}
	b.Run("samples", func(b *testing.B) {
		var traces [][]byte
		native := map[string]bool{}
		for _, pattern := range []string{"claude-code-jsonl/*", "claude-stream-json/*"} {
			files, _ := filepath.Glob(filepath.Join(samplesDir, pattern))
			for _, f := range files {
				native[f] = true
				data, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				traces = append(traces, data)
			}
		}
		for file, calls := range sampleShellCalls(b) {
			if !native[file] {
				traces = append(traces, toolCallsTrace(b, calls))
			}
		}
		run(b, traces)
	})
	b.Run("pathological", func(b *testing.B) {
		commands, _ := pathologicalInputs()
		var calls []sampleCall
		for _, c := range commands {
			calls = append(calls, sampleCall{tool: "Bash", args: json.RawMessage(bash(c)), result: "x"})
		}
		run(b, [][]byte{toolCallsTrace(b, calls)})
	})
}

// toolCallsTrace writes calls as a tool-calls trace.
func toolCallsTrace(tb testing.TB, calls []sampleCall) []byte {
	type record struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    string          `json:"result,omitempty"`
	}
	recs := make([]record, len(calls))
	for i, c := range calls {
		args := c.args
		if !json.Valid(args) || len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage(`{}`)
		}
		recs[i] = record{Tool: c.tool, Arguments: args, Result: c.result}
	}
	b, err := json.Marshal(map[string]any{"toolCalls": recs})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
