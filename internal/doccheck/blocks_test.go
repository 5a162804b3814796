package doccheck_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/retrievaltest/steps"
)

// Every fenced block of the README and of docs/*.md is checked by what it
// holds, so that the documentation cannot drift from the code:
//
//   - sh, bash: the block parses as shell; every retrievaltest command it
//     runs (also as go run ./cmd/retrievaltest) is a command of the binary,
//     and every flag it gives is one of that command's. A block after a
//     "<!-- doccheck: exit N -->" line runs, from a folder that holds the
//     repository's scenarios and testdata, and must exit N.
//   - a block without a language that starts with "retrievaltest": a
//     synopsis, checked like a command line;
//   - yaml: parses; a scenario (expectations.IsScenario) loads with no
//     error but a file it names that is absent here;
//   - json: parses as JSON documents or lines (a line of "…" or "..."
//     stands for left-out members and is dropped);
//   - go: parses as a file, or as statements of a function;
//   - gherkin: every step is one of the registered steps;
//   - text, markdown, dockerfile, and plain blocks of program output:
//     shown as they are.
//
// "<!-- doccheck: parse (why) -->" before a shell block says it is only
// parsed and its commands checked, never run, and why.

type block struct {
	file      string
	line      int
	info      string
	text      string
	directive string
}

var directiveRE = regexp.MustCompile(`^<!-- doccheck: (.*?) -->$`)

func docFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md")}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	return append(files, docs...)
}

func blocks(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		b := block{file: file, line: i + 1, info: strings.TrimSpace(fence)}
		if i > 0 {
			if m := directiveRE.FindStringSubmatch(lines[i-1]); m != nil {
				b.directive = m[1]
			}
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		require.Less(t, i, len(lines), "%s:%d: a block that never closes", file, b.line)
		b.text = strings.Join(body, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

func TestEveryCodeBlockOfTheDocsIsChecked(t *testing.T) {
	t.Parallel()
	cli := binary(t)
	for _, file := range docFiles(t) {
		for _, b := range blocks(t, file) {
			name := fmt.Sprintf("%s:%d", filepath.Base(file), b.line)
			t.Run(name, func(t *testing.T) {
				switch b.info {
				case "sh", "bash":
					checkShell(t, cli, b)
				case "":
					if strings.HasPrefix(b.text, "retrievaltest ") {
						checkShell(t, cli, b)
					}
				case "yaml":
					checkYAML(t, b)
				case "json":
					checkJSON(t, b)
				case "go":
					checkGo(t, b)
				case "gherkin":
					checkGherkin(t, b)
				case "text", "markdown", "dockerfile", "sql":
				default:
					t.Errorf("%s:%d: a block of %q, which no check knows", b.file, b.line, b.info)
				}
			})
		}
	}
}

// A cli is the built command and what it accepts.
type cli struct {
	bin   string
	flags map[string][]string // command → flags
}

var (
	cliOnce sync.Once
	cliVal  cli
	cliErr  error
)

func binary(t *testing.T) cli {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "doccheck-bin")
		if err != nil {
			cliErr = err
			return
		}
		bin := filepath.Join(dir, "retrievaltest")
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", bin, "../../cmd/retrievaltest").CombinedOutput()
		if err != nil {
			cliErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		help, _ := exec.Command(bin, "help").Output()
		flags := map[string][]string{}
		for _, l := range strings.Split(string(help), "\n") {
			f := strings.Fields(l)
			if strings.HasPrefix(l, "  ") && len(f) > 1 {
				var stderr bytes.Buffer
				cmd := exec.Command(bin, f[0], "-h")
				cmd.Stdout, cmd.Stderr = &stderr, &stderr
				_ = cmd.Run()
				for _, fl := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(stderr.String(), -1) {
					flags[f[0]] = append(flags[f[0]], fl[1])
				}
				if _, ok := flags[f[0]]; !ok {
					flags[f[0]] = nil
				}
			}
		}
		// The version is also printed for these, as Go users expect.
		flags["--version"], flags["-version"] = nil, nil
		cliVal = cli{bin: bin, flags: flags}
	})
	require.NoError(t, cliErr)
	require.Contains(t, cliVal.flags, "check", "the command list was read")
	return cliVal
}

var goRun = regexp.MustCompile(`go run \./cmd/retrievaltest\b`)

func checkShell(t *testing.T, c cli, b block) {
	t.Helper()
	text := goRun.ReplaceAllString(b.text, "retrievaltest")
	if b.info == "" {
		// A synopsis: [optional] parts and … are not shell.
		text = regexp.MustCompile(`\[|\]|…|\||\.\.\.`).ReplaceAllString(text, " ")
		text = regexp.MustCompile(`#.*`).ReplaceAllString(text, "")
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(text), b.file)
	require.NoError(t, err, "%s:%d: the block is not shell", b.file, b.line)
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) < 2 || call.Args[0].Lit() != "retrievaltest" {
			return true
		}
		cmd := call.Args[1].Lit()
		flags, known := c.flags[cmd]
		if !assert.True(t, known, "%s:%d: retrievaltest %s is not a command", b.file, b.line, cmd) {
			return true
		}
		for _, a := range call.Args[2:] {
			lit := a.Lit()
			if lit == "--" {
				break
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(lit, "-"), "-"), "=")
			if strings.HasPrefix(lit, "-") && name != "" && name != "h" && !isNumber(name) {
				assert.True(t, slices.Contains(flags, name), "%s:%d: retrievaltest %s has no flag -%s", b.file, b.line, cmd, name)
			}
		}
		return true
	})
	if b.info == "" {
		return
	}
	switch {
	case strings.HasPrefix(b.directive, "exit "):
		var want int
		_, err := fmt.Sscanf(b.directive, "exit %d", &want)
		require.NoError(t, err)
		code, out := runBlock(t, c, text)
		assert.Equal(t, want, code, "%s:%d: the block exits as the text says:\n%s", b.file, b.line, out)
	case strings.HasPrefix(b.directive, "parse ("):
	default:
		assert.Fail(t, "a shell block says how it is checked",
			"%s:%d: put <!-- doccheck: exit N --> (run, must exit N) or <!-- doccheck: parse (why) --> before it", b.file, b.line)
	}
}

func isNumber(s string) bool { return regexp.MustCompile(`^[0-9.]+$`).MatchString(s) }

// runBlock runs a shell block with bash from a fresh folder that holds a
// copy of the repository's scenarios and test data (a block may write
// beside them), with the built command on PATH.
func runBlock(t *testing.T, c cli, text string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	for _, d := range []string{"scenarios", "testdata", "features", "report/htmlreport/testdata"} {
		require.NoError(t, os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join(root, d))))
	}
	cmd := exec.Command("bash", "-eo", "pipefail", "-c", text)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(c.bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_ACTIONS=", "GITHUB_STEP_SUMMARY=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	require.NoError(t, err)
	return 0, string(out)
}

// missing are the load errors of a documented scenario that name files
// of the reader's, absent here.
var missing = regexp.MustCompile(`does not exist|matches no file|no such file`)

func checkYAML(t *testing.T, b block) {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal([]byte(b.text), &v), "%s:%d: the block is not YAML", b.file, b.line)
	if !expectations.IsScenario(b.file, []byte(b.text)) {
		return
	}
	// Scenarios of the docs are written as if in scenarios/.
	_, err := expectations.Parse(filepath.Join("..", "..", "scenarios", "doc.yaml"), []byte(b.text), expectations.LoadOptions{})
	if err == nil {
		return
	}
	var errs expectations.Errors
	if !errors.As(err, &errs) {
		t.Errorf("%s:%d: %v", b.file, b.line, err)
		return
	}
	// A fragment (expectations alone) is shown without its trace.
	fragment := !regexp.MustCompile(`(?m)^(trace|traces|run):`).MatchString(b.text)
	for _, e := range errs {
		if fragment && strings.Contains(e.Error(), "no trace: give trace") {
			continue
		}
		if !missing.MatchString(e.Error()) {
			t.Errorf("%s:%d: the scenario does not load: %v", b.file, b.line, e)
		}
	}
}

// elided is a line that stands for left-out members.
var elided = regexp.MustCompile(`(?m)^\s*(\.\.\.|…)\s*\n`)

func checkJSON(t *testing.T, b block) {
	t.Helper()
	text := elided.ReplaceAllString(b.text, "")
	dec := json.NewDecoder(strings.NewReader(text))
	n := 0
	for {
		var v any
		err := dec.Decode(&v)
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Errorf("%s:%d: the block is not JSON (documents or lines of JSON): %v", b.file, b.line, err)
			return
		}
		n++
	}
	assert.Positive(t, n, "%s:%d: an empty JSON block", b.file, b.line)
}

func checkGo(t *testing.T, b block) {
	t.Helper()
	fset := token.NewFileSet()
	if regexp.MustCompile(`(?m)^package \w+`).MatchString(b.text) {
		_, err := parser.ParseFile(fset, b.file, b.text, 0)
		assert.NoError(t, err, "%s:%d: the block is not a Go file", b.file, b.line)
		return
	}
	if _, err := parser.ParseFile(fset, b.file, "package doc\n"+b.text, 0); err == nil {
		return
	}
	_, err := parser.ParseFile(fset, b.file, "package doc\nfunc _() {\n"+b.text+"\n}\n", 0)
	assert.NoError(t, err, "%s:%d: the block is not Go", b.file, b.line)
}

var stepLine = regexp.MustCompile(`^\s*(Given|When|Then|And|But) (.*)$`)

func checkGherkin(t *testing.T, b block) {
	t.Helper()
	var patterns []*regexp.Regexp
	for _, p := range steps.Catalogue() {
		pattern, _, _ := strings.Cut(p, "\t")
		patterns = append(patterns, regexp.MustCompile(pattern))
	}
	for i, l := range strings.Split(b.text, "\n") {
		m := stepLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ok := slices.ContainsFunc(patterns, func(p *regexp.Regexp) bool { return p.MatchString(m[2]) })
		assert.True(t, ok, "%s:%d: no registered step matches %q", b.file, b.line+1+i, m[2])
	}
}

// The README shows the scenario init writes for the example session: it
// is what init writes today.
func TestTheREADMEShowsWhatInitWrites(t *testing.T) {
	t.Parallel()
	c := binary(t)
	var shown string
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(data), "writes `my-first.yaml`:\n\n```yaml\n")
	require.True(t, ok, "the README shows my-first.yaml")
	shown, _, _ = strings.Cut(after, "```")
	code, out := runBlock(t, c, "retrievaltest init -o my-first.yaml testdata/examples/fix-token-expiry.claude.jsonl 2>/dev/null && cat my-first.yaml")
	require.Equal(t, 0, code, out)
	assert.Equal(t, out, shown)
}
