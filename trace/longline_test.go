package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cutLine passes line through a cutter that keeps keep bytes of a string,
// in pieces of size step, and returns what it kept.
func cutLine(t testing.TB, line string, keep, nest, lineMaxBytes, step int) (*stringCutter, string) {
	t.Helper()
	c := &stringCutter{keep: keep, nests: true, max: lineMaxBytes}
	saved := nestMax
	nestMax = nest
	defer func() { nestMax = saved }()
	c.reset()
	for i := 0; i < len(line); i += step {
		c.write([]byte(line[i:min(i+step, len(line))]))
	}
	return c, string(c.line())
}

func TestTheCutterKeepsTheStartOfEachLongString(t *testing.T) {
	for _, step := range []int{1, 3, 1 << 20} {
		c, got := cutLine(t, `{"id":"c1","out":"0123456789abcdef","short":"ok","k":[1,"日本語テキスト"]}`, 8, 1<<20, 1<<20, step)
		// Cut at 8 bytes, and at a character boundary for the Japanese
		// text (3 bytes a character: 9 kept).
		assert.Equal(t, `{"id":"c1","out":"01234567","short":"ok","k":[1,"日本語"]}`, got, "step %d", step)
		assert.Equal(t, 2, c.cutN)
		assert.Equal(t, 21, c.longest, "the longest string's raw length")
		assert.Equal(t, len(`{"id":"c1","out":"01234567`)+8, c.original(len(`{"id":"c1","out":"01234567`)), "offsets past a cut map back")
		assert.Equal(t, 3, c.original(3))
	}
}

func TestTheCutterChecksWhatItDrops(t *testing.T) {
	for name, tc := range map[string]struct {
		line string
		want string
	}{
		"escapes are dropped whole":               {`{"a":"0123456789\"\\\/\b\f\n\r\t\u00e9z","b":1}`, `{"a":"01234567","b":1}`},
		"an escape is never split":                {`{"a":"0123456\u00e9zz"}`, `{"a":"0123456\u00e9"}`},
		"an invalid escape keeps the rest":        {`{"a":"0123456789\q rest"}`, `{"a":"01234567\q rest"}`},
		"an invalid \\u escape keeps the rest":    {`{"a":"0123456789\u12x4 rest"}`, `{"a":"01234567\u12x4 rest"}`},
		"a control character keeps the rest":      {"{\"a\":\"0123456789\x01 rest\"}", "{\"a\":\"01234567\x01 rest\"}"},
		"a key is cut like any string":            {`{"0123456789":1}`, `{"01234567":1}`},
		"a string of exactly keep bytes is whole": {`{"a":"01234567"}`, `{"a":"01234567"}`},
	} {
		t.Run(name, func(t *testing.T) {
			for _, step := range []int{1, 2, 64} {
				_, got := cutLine(t, tc.line, 8, 0, 1<<20, step)
				assert.Equal(t, tc.want, got, "step %d", step)
			}
		})
	}
}

func TestAStringHoldingJSONIsReadAsJSON(t *testing.T) {
	inner := `{"output":"` + strings.Repeat("x", 40) + `\n\"q\"","metadata":{"exit_code":1}}`
	outer, err := json.Marshal(map[string]any{"output": inner, "call_id": "c1"})
	require.NoError(t, err)
	for _, step := range []int{1, 5, 1 << 20} {
		c, got := cutLine(t, string(outer), 16, 1<<20, 1<<20, step)
		var m map[string]string
		require.NoError(t, json.Unmarshal([]byte(got), &m), got)
		assert.Equal(t, "c1", m["call_id"])
		assert.Equal(t, `{"output":"`+strings.Repeat("x", 16)+`","metadata":{"exit_code":1}}`, m["output"],
			"the long output is cut, and the exit code after it kept (step %d)", step)
		assert.Equal(t, 1, c.nestedN)
		assert.Equal(t, 1, c.inner.cutN, "the inner string was cut")
	}
}

func TestJSONInAStringIsDecodedExactly(t *testing.T) {
	// Every escape a JSON encoder writes, surrogate pairs included, comes
	// back as the same text once decoded, cut and escaped again.
	text := "tab\t nl\n cr\r bs\\ q\" slash/ bell\x07 é 日本 🙂 \u2028"
	inner, err := json.Marshal([]any{text, map[string]any{"k": text}})
	require.NoError(t, err)
	outer, err := json.Marshal(map[string]any{"m": string(inner) + strings.Repeat(" ", 64)})
	require.NoError(t, err)
	// Escape non-ASCII as \u too, as some writers do.
	ascii := strings.NewReplacer("é", `\u00e9`, "🙂", `\ud83d\ude42`).Replace(string(outer))
	for _, line := range []string{string(outer), ascii} {
		for _, step := range []int{1, 7, 1 << 20} {
			_, got := cutLine(t, line, 100, 1<<20, 1<<20, step)
			var m map[string]string
			require.NoError(t, json.Unmarshal([]byte(got), &m), got)
			var back []any
			require.NoError(t, json.Unmarshal([]byte(m["m"]), &back), m["m"])
			assert.Equal(t, []any{text, map[string]any{"k": text}}, back, "step %d", step)
		}
	}
}

func TestALoneSurrogateInJSONInAStringBecomesAReplacementCharacter(t *testing.T) {
	line := `{"m":"[\"a\\ud800b\"]` + strings.Repeat(" ", 40) + `"}`
	_, got := cutLine(t, line, 8, 1<<20, 1<<20, 1)
	var m map[string]string
	require.NoError(t, json.Unmarshal([]byte(got), &m), got)
	var back []string
	require.NoError(t, json.Unmarshal([]byte(m["m"]), &back), m["m"])
	assert.Equal(t, []string{"a\ufffdb"}, back)
}

func TestJSONInAStringThatTakesTooMuchIsCut(t *testing.T) {
	// Not JSON after all: text that starts with a bracket. Its JSON read
	// keeps nest bytes, then the rest is dropped.
	line := `{"log":"[INFO] ` + strings.Repeat("é", 100) + `","after":2}`
	c, got := cutLine(t, line, 8, 40, 1<<20, 3)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &m), got)
	assert.Equal(t, float64(2), m["after"])
	log := m["log"].(string)
	assert.True(t, strings.HasPrefix(log, "[INFO] é"), log)
	assert.LessOrEqual(t, len(log), 40)
	assert.True(t, strings.HasPrefix(`[INFO] `+strings.Repeat("é", 100), log), "a prefix, cut at a character: %q", log)
	assert.Equal(t, 1, c.cutN)
}

func TestAnInvalidEscapeInJSONInAStringKeepsTheRestForTheParser(t *testing.T) {
	line := `{"m":"[\"` + strings.Repeat("a", 20) + `\"] \x rest"}`
	_, got := cutLine(t, line, 8, 1<<20, 1<<20, 4)
	assert.True(t, strings.HasSuffix(got, `\x rest"}`), got)
	assert.False(t, json.Valid([]byte(got)), "still invalid: %s", got)
}

func TestALineOverItsBoundIsFull(t *testing.T) {
	line := `[` + strings.Repeat(`1,`, 100) + `1]`
	c, _ := cutLine(t, line, 8, 1<<20, 50, 7)
	assert.True(t, c.tooLong())
	assert.LessOrEqual(t, len(c.line()), 50)
	c, _ = cutLine(t, line, 8, 1<<20, 1<<20, 7)
	assert.False(t, c.tooLong())
}

func TestTheCutSummarySaysWhatWasCut(t *testing.T) {
	c := &stringCutter{keep: 8 << 20}
	assert.Equal(t, "", c.summary(20<<20))
	c.cutN, c.longest = 2, 1<<30
	assert.Equal(t, "a line of 20.0 MiB was read with its long strings cut: 2 kept only their first 8.0 MiB (the longest was 1.0 GiB)", c.summary(20<<20))
	c.nestedN = 1
	assert.Equal(t, "a line of 20.0 MiB was read with its long strings cut: 2 kept only their first 8.0 MiB (the longest was 1.0 GiB); 1 holding JSON were read as JSON with their own long strings cut", c.summary(20<<20))
	c.cutN = 0
	assert.Equal(t, "a line of 2.0 KiB was read with its long strings cut: 1 holding JSON were read as JSON with their own long strings cut", c.summary(2<<10))
	assert.Equal(t, "12 bytes", byteSize(12))
}

// FuzzStringCutter checks that a valid JSON line stays valid JSON of the
// same shape once cut, whatever the pieces it arrives in.
func FuzzStringCutter(f *testing.F) {
	f.Add(`{"a":"0123456789","b":[1,"x"]}`, 3)
	f.Add(`{"m":"[\"a\\ud800b\", {\"k\": \"0123456789\"}]   "}`, 1)
	f.Add(`["\u00e9\u00e9\u00e9\u00e9\u00e9", "\ud83d\ude42\ud83d\ude42\ud83d\ude42"]`, 2)
	f.Fuzz(func(t *testing.T, line string, step int) {
		if !json.Valid([]byte(line)) {
			return
		}
		step = max(1, step%16+1)
		_, got := cutLine(t, line, 6, 48, 1<<20, step)
		require.True(t, json.Valid([]byte(got)), "%q cut to %q", line, got)
		sameShape(t, line, got, 6)
	})
}

// sameShape checks that the JSON text out is in with long strings cut:
// the same tokens, each string whole, or equal to the input's in its
// first keep bytes (cut, or JSON in a string read as JSON), and JSON in a
// string that is still JSON of the same shape again.
func sameShape(t *testing.T, in, out string, keep int) {
	t.Helper()
	din, dout := json.NewDecoder(strings.NewReader(in)), json.NewDecoder(strings.NewReader(out))
	for {
		a, errA := din.Token()
		b, errB := dout.Token()
		if errA != nil || errB != nil {
			require.Equal(t, errA == nil, errB == nil, "%q cut to %q", in, out)
			return
		}
		x, ok := a.(string)
		if !ok {
			require.Equal(t, a, b, "%q cut to %q", in, out)
			continue
		}
		y, ok := b.(string)
		require.True(t, ok, "%q cut to %q", in, out)
		if x == y {
			continue
		}
		k := min(len(y), keep)
		require.True(t, strings.HasPrefix(x, y[:k]), "%q does not start as %q", y, x)
		if startsJSON([]byte(x)) && json.Valid([]byte(x)) && json.Valid([]byte(y)) {
			sameShape(t, x, y, keep)
		}
	}
}

// TestCuttingLongLinesChangesNothingWhenNoStringIsLong reads every
// line-based fixture and sample with every line passed through the
// cutter, which must then change nothing the reader returns.
func TestCuttingLongLinesChangesNothingWhenNoStringIsLong(t *testing.T) {
	cases := map[string][]string{
		"codex":                   {"testdata/codex/*.jsonl", "../../shared/samples/codex/*.jsonl"},
		"gemini-cli":              {"testdata/gemini-cli/*.jsonl"},
		"otel":                    {"testdata/otel/*", "../../shared/samples/otel/*.json"},
		"openhands-eval":          {"testdata/openhands/output.jsonl"},
		"openhands-v1":            {"testdata/openhands/v1-events.jsonl"},
		"copilot-chat":            {"testdata/copilot-chat/*.jsonl", "../../shared/samples/copilot-chat/*.jsonl"},
		"cursor-agent-transcript": {"testdata/cursor-agent-transcript/*.jsonl", "../../shared/samples/cursor-agent-transcript/*.jsonl"},
	}
	read := func(format string, data []byte, max int) ([]*Session, error) {
		return ReadAll(bytes.NewReader(data), Options{Format: format, Source: "in", MaxResultBytes: max})
	}
	files := 0
	for format, globs := range cases {
		for _, g := range globs {
			names, _ := filepath.Glob(g)
			for _, name := range names {
				data, err := os.ReadFile(name)
				require.NoError(t, err)
				files++
				for _, max := range []int{1, 1 << 20} {
					want, wantErr := read(format, data, max)
					saved := longLine
					longLine = 0
					got, gotErr := read(format, data, max)
					longLine = saved
					if wantErr != nil {
						require.Error(t, gotErr, name)
						assert.Equal(t, wantErr.Error(), gotErr.Error(), name)
						continue
					}
					require.NoError(t, gotErr, name)
					assert.Equal(t, want, got, "%s, MaxResultBytes %d", name, max)
				}
			}
		}
	}
	assert.GreaterOrEqual(t, files, 12, "the fixtures are found")
}

// withCutLimits runs f with the cutter's limits lowered.
func withCutLimits(t *testing.T, longAt, keep, lineBytes int, f func()) {
	t.Helper()
	savedLong, savedKeep, savedMax := longLine, minKeepBytes, lineMax
	longLine, minKeepBytes, lineMax = longAt, keep, lineBytes
	defer func() { longLine, minKeepBytes, lineMax = savedLong, savedKeep, savedMax }()
	f()
}

func TestALineTooLongEvenCutIsSkippedWithAWarning(t *testing.T) {
	data, err := os.ReadFile("testdata/codex/minimal.rollout.jsonl")
	require.NoError(t, err)
	want, err := Read(bytes.NewReader(data), Options{Format: "codex", Source: "in", MaxResultBytes: 1})
	require.NoError(t, err)
	// A record of a thousand small values, which no cutting makes short.
	huge := `{"timestamp":"2025-11-20T09:00:01.500Z","type":"event_msg","payload":{"type":"x","n":[` + strings.Repeat("1,", 1000) + `1]}}` + "\n"
	lines := bytes.SplitAfter(data, []byte("\n"))
	in := append(bytes.Join(lines[:2], nil), huge...)
	in = append(in, bytes.Join(lines[2:], nil)...)
	withCutLimits(t, 1024, 64, 1500, func() {
		got, err := Read(bytes.NewReader(in), Options{Format: "codex", Source: "in", MaxResultBytes: 1})
		require.NoError(t, err)
		assert.Equal(t, len(want.Calls), len(got.Calls), "the lines around it are read")
		require.NotEmpty(t, got.Warnings)
		w := got.Warnings[0]
		assert.Equal(t, 3, w.Line)
		assert.Equal(t, `a line of 2.0 KiB takes over 1.5 KiB even with its long strings cut; line skipped (it starts "{\"timestamp\":\"2025-11-20T09:00:01.500Z\",\"type\":\"event_msg"…)`, w.Message)
	})
}

func TestAReaderSaysWhatItCutOfALongLine(t *testing.T) {
	data, err := os.ReadFile("testdata/codex/minimal.rollout.jsonl")
	require.NoError(t, err)
	long := `{"timestamp":"2025-11-20T09:00:03.150Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + strings.Repeat("x", 5000) + `"}]}}` + "\n"
	lines := bytes.SplitAfter(data, []byte("\n"))
	in := append(bytes.Join(lines[:5], nil), long...)
	in = append(in, bytes.Join(lines[5:], nil)...)
	withCutLimits(t, 1024, 100, 1<<20, func() {
		got, err := Read(bytes.NewReader(in), Options{Format: "codex", Source: "in", MaxResultBytes: 1})
		require.NoError(t, err)
		var msgs []string
		for _, w := range got.Warnings {
			msgs = append(msgs, fmt.Sprintf("%d: %s", w.Line, w.Message))
		}
		assert.Contains(t, msgs, "6: a line of 5.0 KiB was read with its long strings cut: 1 kept only their first 100 bytes (the longest was 4.9 KiB)")
		// Without a result budget, nothing is cut.
		got, err = Read(bytes.NewReader(in), Options{Format: "codex", Source: "in"})
		require.NoError(t, err)
		assert.Empty(t, got.Warnings)
	})
}

func TestCuttingADocumentChangesNothingWhenNoStringIsLong(t *testing.T) {
	cases := map[string][]string{
		"gemini-cli":     {"testdata/gemini-cli/*.json", "../../shared/samples/gemini-cli/*.json"},
		"openhands":      {"testdata/openhands/*.json", "../../shared/samples/openhands/*.json"},
		"openhands-v1":   {"testdata/openhands/v1-conversation/events/*.json"},
		"swe-agent":      {"testdata/swe-agent/*", "../../shared/samples/swe-agent/*.traj"},
		"mini-swe-agent": {"testdata/mini-swe-agent/*", "../../shared/samples/mini-swe-agent/*.json"},
		"amp":            {"testdata/amp/*", "../../shared/samples/amp/*.json"},
		"copilot-chat":   {"testdata/copilot-chat/*.json", "../../shared/samples/copilot-chat/*.json"},
	}
	files := 0
	for format, globs := range cases {
		for _, g := range globs {
			names, _ := filepath.Glob(g)
			for _, name := range names {
				data, err := os.ReadFile(name)
				require.NoError(t, err)
				files++
				opts := Options{Format: format, Source: "in", MaxResultBytes: 1 << 20}
				got, gotErr := ReadAll(bytes.NewReader(data), opts)
				documentCutting = false
				want, wantErr := ReadAll(bytes.NewReader(data), opts)
				documentCutting = true
				if wantErr != nil {
					require.Error(t, gotErr, name)
					assert.Equal(t, wantErr.Error(), gotErr.Error(), name)
					continue
				}
				require.NoError(t, gotErr, name)
				assert.Equal(t, want, got, name)
			}
		}
	}
	assert.GreaterOrEqual(t, files, 15, "the fixtures are found")
}

func TestACutDocumentReadsTheSameInPiecesOfAnySize(t *testing.T) {
	doc := "{\n  \"a\": \"" + strings.Repeat("0123456789", 30) + "\",\n  \"m\": \"[{\\\"k\\\": \\\"" + strings.Repeat("é", 200) + "\\\"}, 7]\",\n  \"b\": [1, \"ok\"]\n}\n"
	whole, _ := cutLine(t, doc, 64, 1<<20, 1<<20, len(doc))
	for _, size := range []int{1, 2, 7, 64, 1 << 16} {
		withCutLimits(t, longLine, 64, lineMax, func() {
			r, summary := cutDocument(strings.NewReader(doc), Options{MaxResultBytes: 1})
			r.(*cuttingReader).buf = make([]byte, size)
			got, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, string(whole.line()), string(got), "pieces of %d", size)
			msg, line := summary()
			assert.Equal(t, 2, line, "the first cut is on line 2")
			assert.Equal(t, "the document was read with its long strings cut: 1 kept only their first 64 bytes (the longest was 300 bytes); 1 holding JSON were read as JSON with their own long strings cut", msg)
		})
	}
	// Without a result budget the document is read as it is, however
	// long its strings.
	withCutLimits(t, longLine, 64, lineMax, func() {
		r, summary := cutDocument(strings.NewReader(doc), Options{})
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Equal(t, doc, string(got))
		msg, _ := summary()
		assert.Empty(t, msg)
	})
}

func TestACutterKeepsTheResultBudgetAndAMargin(t *testing.T) {
	assert.Equal(t, 10<<20+8, newStringCutter(10<<20).keep, "a result budget and a margin, so that the reader sees the text go on")
	assert.Equal(t, minKeepBytes, newStringCutter(10).keep, "never less than any id or path")
	assert.Equal(t, lineMax, newStringCutter(10).max)
	assert.True(t, newStringCutter(10).nests)
}

// BenchmarkCutDocument passes a session document with no long string
// through the cutter: its cost on what it leaves as it is.
func BenchmarkCutDocument(b *testing.B) {
	lines, _ := geminiBench()
	doc := geminiDocument(b, lines)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	defer benchcpu.Throughput(b, int64(len(doc)))()
	for b.Loop() {
		r, _ := cutDocument(bytes.NewReader(doc), Options{MaxResultBytes: 8<<20 + 1})
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestADocumentFileIsCutOnlyWhenLongerThanALongLine(t *testing.T) {
	doc := "{\n" + `"sessionId":"s1","projectHash":"p","startTime":"2026-02-01T09:00:00.000Z",` + "\n" + `"messages":[{"id":"g9","timestamp":"2026-02-01T09:00:06.000Z","type":"gemini","content":"","toolCalls":[` +
		`{"id":"read_file-9","name":"read_file","args":{"file_path":"/work/app/big.go"},"status":"success","result":[{"functionResponse":{"id":"read_file-9","name":"read_file","response":{"output":"` +
		strings.Repeat("x", 5000) + `"}}}]}]}]` + "\n}\n"
	name := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(name, []byte(doc), 0o644))
	read := func(longAt int) *Session {
		var s *Session
		withCutLimits(t, longAt, 100, lineMax, func() {
			var err error
			s, err = ReadFile(name, Options{Format: "gemini-cli", MaxResultBytes: 1})
			require.NoError(t, err)
		})
		return s
	}
	s := read(1024)
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, 3, s.Warnings[0].Line)
	assert.Equal(t, "the document was read with its long strings cut: 1 kept only their first 100 bytes (the longest was 4.9 KiB)", s.Warnings[0].Message)
	assert.Empty(t, read(len(doc)).Warnings, "a file no longer than a long line is read as it is")
	assert.NotEmpty(t, read(len(doc)-1).Warnings)
}

func TestAClaudeLineTooLongEvenCompactedIsSkippedWithAWarning(t *testing.T) {
	call := `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/a"}}]}}` + "\n"
	huge := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[` + strings.Repeat(`{"type":"text","text":"x"},`, 100) + `{"type":"text","text":"x"}]}]}}` + "\n"
	savedLong := claudeLongLine
	claudeLongLine = 64
	defer func() { claudeLongLine = savedLong }()
	withCutLimits(t, longLine, minKeepBytes, 1000, func() {
		s, err := Read(strings.NewReader(call+huge+call), Options{Format: "claude-code", Source: "in", MaxResultBytes: 8})
		require.NoError(t, err)
		require.NotEmpty(t, s.Warnings)
		assert.Equal(t, 2, s.Warnings[0].Line)
		assert.Contains(t, s.Warnings[0].Message, "takes over 1000 bytes even with its long strings cut; line skipped")
		assert.False(t, s.Calls[0].HasResult, "the result line was skipped")
	})
}

func TestEscapedQuotesAndBackslashesAreReadInsideTheirString(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		// An escaped quote does not end a string, an escaped backslash
		// before a quote does: the long string after each is cut.
		{`{"a":"x\"y","b":"0123456789abcdef"}`, `{"a":"x\"y","b":"01234567"}`},
		{`{"a":"x\\","b":"0123456789abcdef"}`, `{"a":"x\\","b":"01234567"}`},
		{`{"a":"x\\\"\\","b":"0123456789abcdef"}`, `{"a":"x\\\"\\","b":"01234567"}`},
		{`{"a":"\\\\\\\\\"","b":"0123456789abcdef"}`, `{"a":"\\\\\\\\\"","b":"01234567"}`},
		// A long string with escapes counts each once.
		{`{"b":"\"\"\"\"\"\"\"\"\"\"tail"}`, `{"b":"\"\"\"\"\"\"\"\""}`},
	} {
		for _, step := range []int{1, 2, 3, 5, 1 << 20} {
			_, got := cutLine(t, tc.line, 8, 1<<20, 1<<20, step)
			assert.Equal(t, tc.want, got, "%s in pieces of %d", tc.line, step)
		}
	}
}

func TestCutAtRuneDropsOnlyACharacterCutShort(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"},
		{"日本", "日本"},
		{"日本"[:5], "日"},
		{"日本"[:4], "日"},
		{"a🙂"[:4], "a"},
		{"a🙂", "a🙂"},
		{"é"[:1], ""},
		{"", ""},
	} {
		assert.Equal(t, tc.want, string(cutAtRune([]byte(tc.in))), "%q", tc.in)
	}
}

func TestOffsetsPastAStringReadAsJSONMapBack(t *testing.T) {
	inner := `[\"` + strings.Repeat("a", 40) + `\"]`
	line := `{"m":"` + inner + `","z":1}`
	c, got := cutLine(t, line, 8, 1<<20, 1<<20, 1<<20)
	at := strings.Index(got, `"z"`)
	require.Positive(t, at, got)
	assert.Equal(t, strings.Index(line, `"z"`), c.original(at), "the offset of a key after the string, in the line as read")
	assert.Equal(t, 2, c.original(2), "an offset before it is unchanged")
}

func TestAnInvalidUnicodeEscapeInJSONInAStringKeepsTheRestForTheParser(t *testing.T) {
	line := `{"m":"[\"` + strings.Repeat("a", 20) + `\"] \u12x4 rest"}`
	for _, step := range []int{1, 3, 1 << 20} {
		_, got := cutLine(t, line, 8, 1<<20, 1<<20, step)
		assert.True(t, strings.HasSuffix(got, `\u12x4 rest"}`), "pieces of %d: %s", step, got)
		assert.False(t, json.Valid([]byte(got)), "still invalid: %s", got)
	}
}

// decodeInPieces runs a string decoder over raw string content cut at the
// given offsets, and returns what it decoded, what it used and whether it
// met an invalid escape.
func decodeInPieces(raw string, at ...int) (text string, used int, ok bool, bad string) {
	var d stringDecoder
	w := &stringCutter{keep: 1 << 20, max: 1 << 20}
	from := 0
	for _, to := range append(at, len(raw)) {
		piece := []byte(raw[from:to])
		if e := d.end(piece); e != len(piece) {
			panic(fmt.Sprintf("end found a closing quote at %d in %q", e, piece))
		}
		n, good := d.decode(piece, w)
		used += n
		if !good {
			return string(w.out), used, false, string(d.bad)
		}
		from = to
	}
	d.buf = d.buf[:0]
	d.flushHigh()
	w.write(d.buf)
	return string(w.out), used, true, ""
}

func TestTheStringDecoderReadsEscapesSplitAcrossPieces(t *testing.T) {
	// Every escape, and surrogates paired, alone and doubled, cut at every
	// offset into two pieces and into three: the text decoded is the one
	// encoding/json decodes.
	for _, raw := range []string{
		`a\"b\\c\/d\be\ff\ng\rh\ti`,
		`\u00e9\u65e5x\u2028`,
		`\ud83d\ude42 pair`,
		`\ud83d lone high`,
		`lone high at the end \ud83d`,
		`\ude42 lone low`,
		`\ud83d\ud83d\ude42 two highs`,
		`\ud83dx\ude42 split by a letter`,
	} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(`"`+raw+`"`), &want), raw)
		for i := 0; i <= len(raw); i++ {
			got, used, ok, _ := decodeInPieces(raw, i)
			require.True(t, ok, "%q cut at %d", raw, i)
			assert.Equal(t, len(raw), used, "%q cut at %d", raw, i)
			assert.Equal(t, want, got, "%q cut at %d", raw, i)
			for j := i; j <= len(raw); j++ {
				got, _, _, _ := decodeInPieces(raw, i, j)
				assert.Equal(t, want, got, "%q cut at %d and %d", raw, i, j)
			}
		}
	}
}

func TestTheStringDecoderStopsAtAnInvalidEscapeWhereverItIsCut(t *testing.T) {
	for _, c := range []struct{ raw, bad string }{
		{`ab\x rest`, `\x`},
		{`ab\u12g4 rest`, `\u12g4`},
		{`ab\uZ rest`, `\uZ re`},
		{"ab\x01 rest", "\x01"},
	} {
		at := strings.Index(c.raw, c.bad)
		for i := 0; i <= len(c.raw); i++ {
			got, used, ok, bad := decodeInPieces(c.raw, i)
			require.False(t, ok, "%q cut at %d", c.raw, i)
			assert.Equal(t, c.bad, bad, "%q cut at %d", c.raw, i)
			assert.Equal(t, at+len(c.bad), used, "%q cut at %d: used counts the bad bytes", c.raw, i)
			assert.Equal(t, "ab", got, "%q cut at %d", c.raw, i)
		}
	}
}

func TestTheStringDecoderFindsTheClosingQuoteAfterAnEscapeSplitAcrossPieces(t *testing.T) {
	raw := `a\"b\u0022c\\` + `"after`
	closing := strings.LastIndex(raw, `"`)
	for i := 1; i < closing; i++ {
		var d stringDecoder
		w := &stringCutter{keep: 1 << 20, max: 1 << 20}
		first := []byte(raw[:i])
		require.Equal(t, len(first), d.end(first), "cut at %d: no quote in the first piece", i)
		_, ok := d.decode(first, w)
		require.True(t, ok)
		rest := []byte(raw[i:])
		assert.Equal(t, closing-i, d.end(rest), "cut at %d", i)
	}
}

func TestAnEscapeCheckAcceptsWhatJSONAcceptsByteByByte(t *testing.T) {
	for _, c := range []struct {
		esc   string
		valid bool
	}{
		{`\"`, true}, {`\\`, true}, {`\/`, true}, {`\b`, true}, {`\f`, true}, {`\n`, true}, {`\r`, true}, {`\t`, true},
		{`\u00e9`, true}, {`\uABCD`, true}, {`\x`, false}, {`\U0041`, false}, {`\u00g9`, false}, {`\u12`, true},
	} {
		var e escapeCheck
		e.start(c.esc[0])
		require.True(t, e.open(), c.esc)
		ok := true
		for i := 1; i < len(c.esc) && ok; i++ {
			ok = e.add(c.esc[i])
		}
		assert.Equal(t, c.valid, ok, c.esc)
		if !ok {
			assert.True(t, strings.HasPrefix(c.esc, string(e.buf)), "%q keeps the bytes read: %q", c.esc, e.buf)
			continue
		}
		complete := len(c.esc) == 2 || len(c.esc) == 6
		assert.Equal(t, !complete, e.open(), "%q: open until its last byte", c.esc)
		if complete {
			assert.Equal(t, c.esc, string(e.buf))
		}
	}
	var e escapeCheck
	e.start('\\')
	e.reset()
	assert.False(t, e.open())
	assert.Empty(t, e.buf)
}

func TestEndsInHighSurrogateReadsOnlyAnEscapeThatStarts(t *testing.T) {
	for raw, want := range map[string]bool{
		`\ud83d`:      true,
		`abc\uD83D`:   true,
		`\udbff`:      true,
		`\uDAFF`:      true,
		`\ud93d`:      true,
		`\ud83`:       false, // too short
		`\ude42`:      false, // a low half
		`\uc83d`:      false,
		`\ue83d`:      false,
		`x\u0041`:     false,
		`\\ud83d`:     false, // the backslash is escaped: text, not an escape
		`\\\ud83d`:    true,
		`a\\\\\ud83d`: true,
		`a\\\\ud83d`:  false,
		`/ud83d`:      false,
		`\Ud83d`:      false,
		`\u_83d`:      false,
	} {
		assert.Equal(t, want, endsInHighSurrogate([]byte(raw)), "%s", raw)
	}
}

func TestStartsJSONSkipsOnlyWhiteSpaceBeforeABracket(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"a":1}`:    true,
		`[1]`:        true,
		`  \n\t\r {`: true,
		`\n[`:        true,
		``:           false,
		`   `:        false,
		`\n`:         false,
		`x{`:         false,
		`\"{`:        false,
		`\u0020{`:    false,
		`\`:          false,
		`"[`:         false,
		`1`:          false,
	} {
		assert.Equal(t, want, startsJSON([]byte(raw)), "%s", raw)
	}
}
