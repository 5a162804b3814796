package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cliResultBytes is what the command keeps of each result
// (events.ResultBytesRead, which this package cannot import).
const cliResultBytes = 8<<20 + 1

// memoryLimit is what reading one trace may take, whatever its longest line.
const memoryLimit = 256 << 20

// filler is an io.Reader of n bytes: head, then pattern repeated, never a
// newline. It makes a line of hundreds of megabytes without holding it.
type filler struct {
	head    string
	pattern []byte
	n       int64
	off     int64
}

func (f *filler) Read(p []byte) (int, error) {
	if f.off >= f.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), f.n-f.off)]
	for i := 0; i < len(p); {
		var n int
		if o := f.off + int64(i); o < int64(len(f.head)) {
			n = copy(p[i:], f.head[o:])
		} else {
			n = copy(p[i:], f.pattern[(o-int64(len(f.head)))%int64(len(f.pattern)):])
		}
		i += n
	}
	f.off += int64(len(p))
	return len(p), nil
}

// longLineCase is a trace with a long line inserted: after line `after` of
// the fixture, a line of size bytes that starts with head.
type longLineCase struct {
	format, fixture string
	after           int
	head            string
	size            int64
}

// garbage is not JSON at all; a broken record starts as one and stops
// being one a few bytes in, in a string the Claude reader would drop.
const (
	garbage      = "garbage \"quoted\" \x01 caf\xc3\xa9 \xff and no newline; "
	brokenRecord = "{\"type\":\"user\",\"toolUseResult\":\"output with a control character \x01"
)

var longLineCases = map[string]longLineCase{
	"claude-code garbage":       {"claude-code", "../testdata/traces/claude/read-through-bash.claude.jsonl", 4, garbage, 300 << 20},
	"claude-code broken record": {"claude-code", "../testdata/traces/claude/read-through-bash.claude.jsonl", 4, brokenRecord, 300 << 20},
	"codex garbage":             {"codex", "testdata/codex/minimal.rollout.jsonl", 3, garbage, 300 << 20},
	"gemini-cli garbage":        {"gemini-cli", "testdata/gemini-cli/minimal.session.jsonl", 2, garbage, 300 << 20},
	"otel garbage":              {"otel", "testdata/otel/two-traces.collector.jsonl", 1, garbage, 300 << 20},
	"otel broken record":        {"otel", "testdata/otel/two-traces.collector.jsonl", 1, `{"resourceSpans":[{]` + garbage, 300 << 20},
	"openhands-v1 garbage":      {"openhands-v1", "testdata/openhands/v1-events.jsonl", 3, garbage, 300 << 20},
	"openhands-eval garbage":    {"openhands-eval", "testdata/openhands/output.jsonl", 1, garbage, 300 << 20},
}

// input returns the case's trace as a stream, and the fixture alone.
func (c longLineCase) input(t testing.TB) (io.Reader, []byte) {
	data, err := os.ReadFile(c.fixture)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	before := bytes.Join(lines[:c.after], nil)
	after := bytes.Join(lines[c.after:], nil)
	pattern := []byte(garbage)
	r := io.MultiReader(bytes.NewReader(before), &filler{head: c.head, pattern: pattern, n: c.size}, strings.NewReader("\n"), bytes.NewReader(after))
	return r, data
}

// memoryResult is what a child process reports of its read.
type memoryResult struct {
	Sys, HeapSys uint64
	Calls        int
	Warnings     []Warning
	Err          string
}

// runMemoryChild reads in this process what the parent test asked for in
// TRACE_MEMORY_CASE, and prints the result for it.
func runMemoryChild(t *testing.T, read func(string) ([]*Session, error)) {
	var res memoryResult
	all, err := read(os.Getenv("TRACE_MEMORY_CASE"))
	if err != nil {
		res.Err = err.Error()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.Sys, res.HeapSys = ms.Sys, ms.HeapSys
	for _, s := range all {
		res.Calls += len(s.Calls)
		res.Warnings = append(res.Warnings, s.Warnings...)
	}
	out, _ := json.Marshal(res)
	fmt.Printf("\nRESULT %s\n", out)
}

// inChild runs test in a new process of the test binary, with
// TRACE_MEMORY_CASE set to name, and returns what it reported. Memory is
// measured in a process of its own so that no other test counts.
func inChild(t *testing.T, test, name string) memoryResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TRACE_MEMORY_CASE="+name)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var res memoryResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok {
			require.NoError(t, json.Unmarshal([]byte(rest), &res))
			return res
		}
	}
	t.Fatalf("the child reported nothing:\n%s", out)
	return res
}

func TestALongLineThatIsNotARecordIsSkippedAsItStreams(t *testing.T) {
	if os.Getenv("TRACE_MEMORY_CASE") != "" {
		runMemoryChild(t, func(name string) ([]*Session, error) {
			r, _ := longLineCases[name].input(t)
			return ReadAll(r, Options{Format: longLineCases[name].format, Source: "in", MaxResultBytes: cliResultBytes})
		})
		return
	}
	if testing.Short() {
		t.Skip("reads lines of 300 MB")
	}
	for name, c := range longLineCases {
		t.Run(name, func(t *testing.T) {
			_, fixture := c.input(t)
			want, err := ReadAll(bytes.NewReader(fixture), Options{Format: c.format, Source: "in", MaxResultBytes: cliResultBytes})
			require.NoError(t, err)
			wantCalls := 0
			for _, s := range want {
				wantCalls += len(s.Calls)
			}
			got := inChild(t, "TestALongLineThatIsNotARecordIsSkippedAsItStreams", name)
			require.Empty(t, got.Err)
			t.Logf("%s: Sys %d MiB, HeapSys %d MiB", name, got.Sys>>20, got.HeapSys>>20)
			assert.Less(t, got.Sys, uint64(memoryLimit), "memory taken by the read")
			assert.Equal(t, wantCalls, got.Calls, "the lines around the long one are read")
			// A warning of a file of several sessions is given to each.
			var skipped []Warning
			for _, w := range got.Warnings {
				if w.Line == c.after+1 && !slices.Contains(skipped, w) {
					skipped = append(skipped, w)
				}
			}
			require.Len(t, skipped, 1, "warnings: %v", got.Warnings)
			msg := skipped[0].Message
			assert.Contains(t, msg, "line skipped")
			_, quoted, ok := strings.Cut(msg, "(it starts ")
			require.True(t, ok, msg)
			require.True(t, strings.HasSuffix(quoted, `"…)`), msg)
			quoted = strings.TrimSuffix(quoted, `"…)`)
			require.True(t, strings.HasPrefix(quoted, `"`), msg)
			quoted = quoted[1:]
			assert.LessOrEqual(t, len(quoted), lineHeadBytes, msg)
			assert.NotContains(t, quoted, "\x01")
		})
	}
}

func TestLineQuoteHeadEscapesAtMost64Bytes(t *testing.T) {
	for _, tc := range []struct{ name, head, want string }{
		{"plain text is quoted as it is", "abc", `"abc"…`},
		{"quotes, control bytes and invalid UTF-8 are escaped", "a\"b\x01\xffé", `"a\"b\x01\xff\u00e9"…`},
		{"a long start is cut at 64 escaped bytes", strings.Repeat("\x01", 20), `"` + strings.Repeat(`\x01`, 16) + `"…`},
		{"an escape is never cut in two", "abc" + strings.Repeat("\x01", 20), `"abc` + strings.Repeat(`\x01`, 15) + `"…`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, lineQuoteHead([]byte(tc.head), true))
		})
	}
}

// readLinesChecked reads data with a lineReader that checks every line
// past 16 bytes (the smallest read buffer), and returns the lines it
// returned and those it skipped, by number.
func readLinesChecked(data []byte) (lines map[int][]byte, skipped map[int]string) {
	saved := lineCheckAt
	lineCheckAt = 0
	defer func() { lineCheckAt = saved }()
	lines, skipped = map[int][]byte{}, map[int]string{}
	lr := newLineReader(bufio.NewReaderSize(bytes.NewReader(data), 16))
	lr.skip = func(n int, msg string) { skipped[n] = msg }
	for {
		line, n, err := lr.next()
		if err != nil {
			return lines, skipped
		}
		lines[n] = bytes.Clone(line)
	}
}

// assertCheckSkipsOnlyNonRecords checks that the lines the line reader
// skips are lines the readers' scanner would not read as a JSON object,
// and that it returns every other line as it is.
func assertCheckSkipsOnlyNonRecords(t *testing.T, data []byte) {
	t.Helper()
	lines, skipped := readLinesChecked(data)
	want := bytes.Split(data, []byte("\n"))
	if len(want) > 0 && len(want[len(want)-1]) == 0 {
		want = want[:len(want)-1]
	}
	require.Equal(t, len(want), len(lines)+len(skipped))
	for i, w := range want {
		n := i + 1
		w = bytes.TrimSuffix(w, []byte("\r"))
		if msg, ok := skipped[n]; ok {
			var sc jsonscan.Scanner
			sc.Reset(bytes.TrimPrefix(w, []byte(bom)))
			if sc.Peek() == jsonscan.Object {
				sc.Skip()
				sc.End()
				assert.Error(t, sc.Err(), "line %d skipped (%s) is a JSON object: %q", n, msg, w)
			}
			continue
		}
		assert.Equal(t, string(w), string(lines[n]), "line %d", n)
	}
}

var lineCheckSeeds = []string{
	"{\"a\":[1,2.5e-3,true,false,null,{\"b\":\"c\\u00e9\\n\"}]}\n",
	"not a record at all, and long enough\n{\"a\":1}\n",
	"{\"a\":\"control \x01 in a string, long enough\"}\n",
	"{\"a\":\"bad escape \\q in a string, long enough\"}\n",
	"{\"a\":[1,2,3]} and trailing data, long enough\n",
	"\xef\xbb\xbf{\"a\":\"a byte order mark before a long line\"}\r\n[1,2,3,4,5,6,7,8,9,10,11,12,13,14]\n",
	"{\"a\":\"a record cut short, long enough to be checked",
	"   \t{\"a\" : { \"b\" : [ ] , \"c\" : { } } , \"d\" : -0.5E+7 }   \n",
	"{\"a\":tru, \"long enough\": 1}\n{\"a\":nul}\n{\"a\":[}, \"long enough\": 1}\n",
}

func TestTheLineCheckSkipsOnlyLinesThatAreNotRecords(t *testing.T) {
	for _, seed := range lineCheckSeeds {
		assertCheckSkipsOnlyNonRecords(t, []byte(seed))
	}
	_, skipped := readLinesChecked([]byte(lineCheckSeeds[1]))
	assert.Equal(t, map[int]string{1: `not a JSON record: found 'n' where a record (a JSON object) starts at offset 0; line skipped (it starts "not a record at all, and long enough")`}, skipped)
}

func FuzzLineCheckSkipsOnlyLinesThatAreNotRecords(f *testing.F) {
	for _, seed := range lineCheckSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assertCheckSkipsOnlyNonRecords(t, data)
	})
}
