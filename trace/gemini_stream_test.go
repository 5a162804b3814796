package trace

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geminiHandedOver reads with a CallDone that releases every call and
// drops it, and returns the session and the calls in the order they were
// handed over, each with the CumulativeTokens the session gives it.
func geminiHandedOver(t *testing.T, read func(Options) (*Session, error)) (*Session, []ToolCall) {
	t.Helper()
	var got []ToolCall
	s, err := read(Options{DropReleased: true, CallDone: func(s *Session, i int) bool {
		got = append(got, *s.Call(i))
		return true
	}})
	require.NoError(t, err)
	for k := range got {
		got[k].CumulativeTokens = s.CallTokens(got[k].Index)
	}
	return s, got
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// geminiReadDocument reads a session document with the Gemini CLI reader,
// from the file it is (a ReaderAt, as ReadFile reads a regular file) or
// from a stream read as it comes (not held in a temporary file, unless
// opts.spool says so). It returns the session and how many bytes of the input
// had been read when the first call was handed over (-1: none was).
func geminiReadDocument(t *testing.T, data []byte, fromFile bool, opts Options) (*Session, int) {
	t.Helper()
	opts.Source = "doc.json"
	if fromFile {
		opts.file, opts.fileSize = bytes.NewReader(data), int64(len(data))
	} else if opts.spool == spoolLong {
		opts.spool = spoolNever
	}
	in := &countingReader{r: bytes.NewReader(data)}
	first := -1
	if done := opts.CallDone; done != nil {
		opts.CallDone = func(s *Session, i int) bool {
			if first < 0 {
				first = in.n
			}
			return done(s, i)
		}
	}
	s, err := GeminiCLI{}.Read(in, opts)
	require.NoError(t, err)
	return s, first
}

// geminiDocuments are the session documents the streamed read is checked
// on: the fixtures, the shared samples, a generated session and documents
// written for the cases a stream must get right.
func geminiDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	var paths []string
	for _, pattern := range []string{filepath.Join(geminiFixtures, "*.json"), filepath.Join("..", "..", "shared", "samples", "gemini-cli", "*.json")} {
		found, _ := filepath.Glob(pattern)
		paths = append(paths, found...)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		docs[p] = data
	}
	lines, _ := geminiGenerateSession(1 << 20)
	docs["generated"] = geminiDocument(t, lines)
	call := func(msg, id string) string {
		return `{"id":"` + msg + `","type":"gemini","content":"done","timestamp":"2026-02-01T09:00:05Z","tokens":{"input":10,"output":2},` +
			`"toolCalls":[{"id":"` + id + `","name":"read_file","args":{"file_path":"/w/a.go"},"status":"success",` +
			`"result":[{"functionResponse":{"response":{"output":"package a"}}}]}]}`
	}
	user := `{"id":"u1","type":"user","content":"Read a.go"}`
	docs["a subagent's document names its kind after the messages"] = []byte("{\n" +
		`"sessionId":"s","projectHash":"p","messages":[` + user + ",\n" + call("g1", "c1") + ",\n" + call("g2", "c2") + `],"kind":"subagent"` + "\n}\n")
	docs["a kind of null after the messages leaves the one before them"] = []byte("{\n" +
		`"sessionId":"s","projectHash":"p","kind":"subagent","messages":[` + call("g1", "c1") + `],"kind":null` + "\n}\n")
	docs["a repeated message id"] = []byte("{\n" +
		`"sessionId":"s","projectHash":"p","messages":[` + call("g1", "c1") + ",\n" + user + ",\n" + call("g1", "c2") + `]` + "\n}\n")
	docs["a document cut short in its messages"] = []byte("{\n" +
		`"sessionId":"s","projectHash":"p","messages":[` + call("g1", "c1") + ",\n" + call("g2", "c2")[:40])
	docs["a document with data after it"] = []byte("{\n" +
		`"sessionId":"s","projectHash":"p","messages":[` + call("g1", "c1") + "]\n}\n{}\n")
	docs["a document whose messages are not an array"] = []byte("{\n" + `"sessionId":"s","projectHash":"p","messages":7,"kind":"subagent"` + "\n}\n")
	return docs
}

func TestAGeminiDocumentStreamedFromItsFileReadsAsWhenHeld(t *testing.T) {
	t.Parallel()
	for name, data := range geminiDocuments(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			held, _ := geminiReadDocument(t, data, false, Options{})
			streamed, _ := geminiReadDocument(t, data, true, Options{})
			assert.Equal(t, held, streamed)

			for _, fromFile := range []bool{false, true} {
				s, got := geminiHandedOver(t, func(o Options) (*Session, error) {
					s, _ := geminiReadDocument(t, data, fromFile, o)
					return s, nil
				})
				want := slices.Clone(held.Calls)
				if len(want) == 0 {
					want = nil
				}
				assert.Equal(t, want, got, "from a file: %v: every call is handed over once, in order", fromFile)
				assert.Empty(t, s.Calls, "from a file: %v: every call is dropped", fromFile)
				assert.Equal(t, held.NumCalls(), s.NumCalls())
				assert.Equal(t, held.Usage, s.Usage)
				assert.Equal(t, held.Answer, s.Answer)
				assert.Equal(t, held.Prompt, s.Prompt)
				assert.Equal(t, held.Warnings, s.Warnings)
			}
		})
	}
}

func TestAGeminiDocumentFromAFileHandsItsCallsOverAsItIsRead(t *testing.T) {
	t.Parallel()
	lines, _ := geminiGenerateSession(2 << 20)
	doc := geminiDocument(t, lines)
	release := Options{CallDone: func(*Session, int) bool { return true }, DropReleased: true}
	_, first := geminiReadDocument(t, doc, true, release)
	assert.Less(t, first, len(doc)/4, "the first call is handed over once its message is read")
	_, first = geminiReadDocument(t, doc, false, release)
	assert.Equal(t, len(doc), first, "read from a stream, the document's kind comes after its messages: they wait for it")

	sub := []byte(`{"sessionId":"s","projectHash":"p","messages":[` + "\n" +
		`{"id":"g1","type":"gemini","content":"found it","toolCalls":[{"id":"c1","name":"glob","args":{"pattern":"*"}}]}` +
		"\n" + strings.Repeat(" ", 1<<17) + `],"kind":"subagent"}`)
	s, got := geminiHandedOver(t, func(o Options) (*Session, error) {
		s, first := geminiReadDocument(t, sub, true, o)
		assert.Less(t, first, len(sub)/2, "handed over before the kind is read")
		return s, nil
	})
	require.Len(t, got, 1)
	assert.True(t, got[0].Subagent, "the kind after the messages marks the calls handed over before it")
	assert.Empty(t, s.Answer, "a subagent's text is not the session's answer")
}

func TestGeminiDocumentKindIsReadAheadOnlyFromAWholeDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, kind string
		ok              bool
	}{
		{"a kind after the messages", `{"messages":[{"id":"a","kind":"x"}],"kind":"subagent"}`, "subagent", true},
		{"the last kind wins", `{"kind":"main","messages":[],"kind":"subagent"}`, "subagent", true},
		{"null leaves the kind before it", `{"kind":"subagent","kind":null}`, "subagent", true},
		{"no kind", `{"sessionId":"s","messages":[{"id":"a"}]}`, "", true},
		{"a byte order mark", bom + ` {"kind":"main"}`, "main", true},
		{"messages that are not an array", `{"messages":{"kind":"x"},"kind":"main"}`, "main", true},
		{"a document cut short", `{"messages":[{"id":"a"`, "", false},
		{"data after the document", `{"kind":"main"} {}`, "", false},
		{"an array", `[{"kind":"main"}]`, "", false},
		{"a bad key", `{kind:"main"}`, "", false},
		{"a message cut short", `{"messages":[{"id":"a"},{"id":`, "", false},
		{"a kind cut short", `{"kind":"ma`, "", false},
		{"a kind that is not JSON", `{"kind":mai}`, "", false},
		{"messages without a comma between them", `{"messages":[{} {}],"kind":"main"}`, "", false},
		{"messages cut short after one", `{"messages":[{}`, "", false},
		{"another value cut short", `{"kind":"main","sessionId":"ab`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, ok := geminiDocumentKind(strings.NewReader(tt.doc), int64(len(tt.doc)))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.kind, kind)
		})
	}
}

// geminiRewindModel is the list of message ids a recording leaves, each
// message being the record "m<k>" that makes call "c<k>": what Gemini CLI
// does with the records, written out independently of the reader.
type geminiRewindModel []string

func (m geminiRewindModel) put(id string) geminiRewindModel {
	if slices.Contains(m, id) {
		return m
	}
	return append(m, id)
}

func (m geminiRewindModel) rewind(id string) geminiRewindModel {
	if i := slices.Index(m, id); i >= 0 {
		return m[:i]
	}
	return nil
}

func TestGeminiRewindsArrivingAnywhereDropTheCallsAfterTheirTarget(t *testing.T) {
	t.Parallel()
	line := func(k int) string {
		return geminiCallLine(fmt.Sprintf("m%d", k), fmt.Sprintf("c%d", k), fmt.Sprintf("out %d", k))
	}
	const n = 5
	type recording struct {
		name, doc string
		want      []string
	}
	var recs []recording
	// A rewind after each message to each message before it, or to one
	// that is not there, then two more messages, one of them an earlier
	// id recorded again.
	for at := 1; at <= n; at++ {
		for target := 1; target <= at+1; target++ {
			var b strings.Builder
			var model geminiRewindModel
			b.WriteString(geminiMeta)
			for k := 1; k <= at; k++ {
				b.WriteString(line(k))
				model = model.put(fmt.Sprintf("m%d", k))
			}
			id := fmt.Sprintf("m%d", target)
			if target > at {
				id = "unknown"
			}
			b.WriteString(`{"$rewindTo":"` + id + `"}` + "\n")
			model = model.rewind(id)
			for _, k := range []int{n + 1, 1} {
				b.WriteString(line(k))
				model = model.put(fmt.Sprintf("m%d", k))
			}
			var want []string
			for _, m := range model {
				want = append(want, "c"+m[1:])
			}
			recs = append(recs, recording{fmt.Sprintf("after m%d, to %s", at, id), b.String(), want})
		}
	}
	// Two rewinds in a row, the second to a message the first dropped, and
	// a rewind before any message.
	recs = append(recs,
		recording{"a second rewind to a message the first dropped", geminiMeta + line(1) + line(2) + line(3) +
			`{"$rewindTo":"m2"}` + "\n" + `{"$rewindTo":"m3"}` + "\n" + line(4), []string{"c4"}},
		recording{"a rewind before any message", geminiMeta + `{"$rewindTo":"m1"}` + "\n" + line(1) + line(2), []string{"c1", "c2"}},
	)
	for _, rec := range recs {
		t.Run(rec.name, func(t *testing.T) {
			t.Parallel()
			whole := geminiRead(t, rec.doc, Options{})
			var ids []string
			for _, c := range whole.Calls {
				ids = append(ids, c.ID)
			}
			assert.Equal(t, rec.want, ids)
			for _, fromFile := range []bool{false, true} {
				s, got := geminiHandedOver(t, func(o Options) (*Session, error) {
					return geminiReadLines(t, []byte(rec.doc), fromFile, o), nil
				})
				if len(whole.Calls) == 0 {
					assert.Empty(t, got)
				} else {
					assert.Equal(t, whole.Calls, got, "from a file: %v: the calls handed over are those the rewinds leave, in order", fromFile)
				}
				assert.Equal(t, whole.Warnings, s.Warnings)
			}
		})
	}
}

// geminiReadLines reads a line recording with the Gemini CLI reader, from
// the file it is (a ReaderAt, as ReadFile reads a regular file: each
// message is read again from its line at the end) or from a stream read as
// it comes (see geminiReadDocument).
func geminiReadLines(t *testing.T, data []byte, fromFile bool, opts Options) *Session {
	t.Helper()
	opts.Source = "inline.jsonl"
	if fromFile {
		opts.file, opts.fileSize = bytes.NewReader(data), int64(len(data))
	} else if opts.spool == spoolLong {
		opts.spool = spoolNever
	}
	s, err := GeminiCLI{}.Read(bytes.NewReader(data), opts)
	require.NoError(t, err)
	return s
}

func TestAGeminiRecordingReadFromItsFileReadsAsWhenHeld(t *testing.T) {
	t.Parallel()
	recordings := map[string][]byte{}
	found, _ := filepath.Glob(filepath.Join(geminiFixtures, "*.jsonl"))
	for _, p := range found {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		recordings[p] = data
	}
	generated, _ := geminiGenerateSession(1 << 20)
	recordings["generated"] = generated
	recordings["windows line endings"] = bytes.ReplaceAll(generated[:64<<10], []byte("\n"), []byte("\r\n"))
	call := geminiCallLine("g1", "c1", "x")
	recordings["a line longer than a line is read whole, its strings cut"] = []byte(geminiMeta + call +
		geminiCallLine("g2", "c2", strings.Repeat("y", longLine+10)) + geminiCallLine("g3", "c3", "z"))
	recordings["the first line a message"] = []byte(call + geminiMeta + geminiCallLine("g2", "c2", "y"))
	recordings["a message among the rest of the first line"] = []byte(`{"sessionId":"s1","projectHash":"p","messages":[` + strings.TrimSpace(call) + "]}\n" + geminiCallLine("g2", "c2", "y"))
	for name, data := range recordings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, opts := range []Options{{}, {MaxResultBytes: 8 << 20}, {MaxResultBytes: 3, SkipMessages: true}} {
				held := geminiReadLines(t, data, false, opts)
				fromFile := geminiReadLines(t, data, true, opts)
				assert.Equal(t, held, fromFile, "%+v", opts)
			}
		})
	}
}

func TestAGeminiRecordingWhoseFileHasAByteOrderMarkIsReadAgainAtItsPlaces(t *testing.T) {
	t.Parallel()
	data := []byte(bom + geminiMeta + geminiCallLine("g1", "c1", "x") + geminiCallLine("g2", "c2", "y"))
	held := geminiReadLines(t, data, false, Options{})
	require.Len(t, held.Calls, 2)
	path := filepath.Join(t.TempDir(), "bom.jsonl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	s, err := ReadFile(path, Options{Source: "inline.jsonl"})
	require.NoError(t, err, "ReadFile drops the mark before the reader sees the stream")
	assert.Equal(t, held.Calls, s.Calls)
	assert.Empty(t, s.Warnings)

	// A reader handed the file's stream with its mark, a message on the
	// first line: that line is kept as read, the others at their places.
	data = []byte(bom + strings.TrimSpace(geminiCallLine("g0", "c0", "w")) + "\n" + geminiMeta + geminiCallLine("g1", "c1", "x"))
	s, err = GeminiCLI{}.Read(bytes.NewReader(data), Options{Source: "inline.jsonl", file: bytes.NewReader(data), fileSize: int64(len(data))})
	require.NoError(t, err)
	var ids []string
	for _, c := range s.Calls {
		ids = append(ids, c.ID)
	}
	assert.Equal(t, []string{"c0", "c1"}, ids)
	assert.Empty(t, s.Warnings)
}

func TestAGeminiLineThatChangedBeforeItIsReadAgainLosesItsMessage(t *testing.T) {
	t.Parallel()
	data := []byte(geminiMeta + geminiCallLine("g1", "c1", "x") + geminiCallLine("g2", "c2", "y"))
	changed := bytes.Replace(data, []byte(`"output":"y"`), []byte(`"output":"z"`), 1)
	s, err := GeminiCLI{}.Read(bytes.NewReader(data), Options{Source: "inline.jsonl", file: bytes.NewReader(changed), fileSize: int64(len(changed))})
	require.NoError(t, err)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, "c1", s.Calls[0].ID)
	assert.Equal(t, []string{`inline.jsonl:3: message "g2": the line changed while the recording was read; message left out`}, warningStrings(s))
}

func TestTheWorkingDirectoryOfAGeminiSessionIsSettledAsNone(t *testing.T) {
	t.Parallel()
	s := geminiRead(t, geminiMeta+geminiCallLine("g1", "c1", "x"), Options{})
	assert.Empty(t, s.CWD)
	assert.True(t, s.CWDSettled(), "Gemini CLI records no working directory")
	assert.False(t, (&Session{}).CWDSettled(), "a session whose reader may still find one")
	assert.True(t, (&Session{CWD: "/w"}).CWDSettled())
}
