package trace

import (
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geminiInputs are the recordings and documents a stream is checked on:
// every fixture, the shared samples, generated sessions in both formats,
// and the documents written for the cases a streamed read must get right.
func geminiInputs(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := geminiDocuments(t)
	found, _ := filepath.Glob(filepath.Join(geminiFixtures, "*.jsonl"))
	for _, p := range found {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		inputs[p] = data
	}
	lines, _ := geminiGenerateSession(1 << 20)
	inputs["generated lines"] = lines
	inputs["a recording whose last line is cut short"] = lines[:len(lines)-100]
	return inputs
}

// plainReader hides every method of a reader but Read, as a pipe or an
// HTTP body offers.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// geminiReadEach reads data as a file (written to a temporary folder),
// as a stream held in a temporary file, and as a stream read as it comes,
// with opts and the same Source, and returns the three results.
func geminiReadEach(t *testing.T, data []byte, opts Options) (file, spooled, held *Session, errs [3]error) {
	t.Helper()
	opts.Source = "in"
	path := filepath.Join(t.TempDir(), "in")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	file, errs[0] = ReadFile(path, opts)
	o := opts
	o.spool = spoolAlways
	spooled, errs[1] = Read(plainReader{strings.NewReader(string(data))}, o)
	o.spool = spoolNever
	held, errs[2] = Read(plainReader{strings.NewReader(string(data))}, o)
	return file, spooled, held, errs
}

func TestAGeminiStreamHeldInATemporaryFileReadsAsItsFile(t *testing.T) {
	t.Parallel()
	inputs := geminiInputs(t)
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, opts := range []Options{{}, {MaxResultBytes: 3, SkipMessages: true}} {
				file, spooled, held, errs := geminiReadEach(t, data, opts)
				require.Equal(t, errs[0], errs[1], "%+v", opts)
				require.Equal(t, errs[0], errs[2], "%+v", opts)
				assert.Equal(t, file, spooled, "%+v", opts)
				assert.Equal(t, file, held, "%+v", opts)
			}

			// Handed over as a command reads: each call once, in order,
			// and dropped.
			var calls [3][]ToolCall
			var sessions [3]*Session
			for k := range 3 {
				release := Options{DropReleased: true, SkipMessages: true, CallDone: func(s *Session, i int) bool {
					c := *s.Call(i)
					c.CumulativeTokens = nil // set once the session is read
					calls[k] = append(calls[k], c)
					return true
				}}
				file, spooled, held, _ := geminiReadEach(t, data, release)
				sessions[k] = [3]*Session{file, spooled, held}[k]
			}
			for k := 1; k < 3; k++ {
				assert.Equal(t, calls[0], calls[k], "read %d: the calls handed over", k)
				if sessions[0] == nil {
					assert.Nil(t, sessions[k])
					continue
				}
				assert.Equal(t, sessions[0].Warnings, sessions[k].Warnings)
				assert.Equal(t, sessions[0].NumCalls(), sessions[k].NumCalls())
				assert.Equal(t, sessions[0].Usage, sessions[k].Usage)
				assert.Equal(t, sessions[0].Answer, sessions[k].Answer)
			}
		})
	}
}

func TestAGeminiStreamCutShortByAnErrorEndsWhereItWasCut(t *testing.T) {
	t.Parallel()
	lines, _ := geminiGenerateSession(256 << 10)
	doc := geminiDocument(t, lines)
	cut := errors.New("connection reset by peer")
	for _, tt := range []struct {
		name string
		data []byte
		at   int
	}{
		{"a recording cut between lines", lines, 100 << 10},
		{"a recording cut within a line", lines, 100<<10 + 17},
		{"a document cut within its messages", doc, len(doc) / 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stream := func() io.Reader {
				return io.MultiReader(strings.NewReader(string(tt.data[:tt.at])), iotest.ErrReader(cut))
			}
			var got [2]*Session
			var errs [2]error
			for k, mode := range []spoolMode{spoolAlways, spoolNever} {
				got[k], errs[k] = Read(stream(), Options{Source: "-", spool: mode})
			}
			require.Error(t, errs[0])
			assert.ErrorIs(t, errs[0], cut)
			assert.Equal(t, errs[1], errs[0], "the error, and the line it names, are those of the stream read as it comes")
			assert.Regexp(t, `^-(:\d+)?: `, errs[0].Error(), "the error names the input")
			assert.Equal(t, got[1], got[0])

			limited := input.LimitReader(strings.NewReader(string(tt.data)), "-", int64(tt.at))
			_, err := Read(limited, Options{Source: "-", spool: spoolAlways})
			var tl *input.TooLargeError
			require.ErrorAs(t, err, &tl, "a stream past the size limit ends at the limit")
			_, held := Read(input.LimitReader(strings.NewReader(string(tt.data)), "-", int64(tt.at)), Options{Source: "-", spool: spoolNever})
			assert.Equal(t, held, err)
		})
	}
}

func TestAGeminiStreamCutShortReportsTheLine(t *testing.T) {
	t.Parallel()
	data := []byte(geminiMeta + geminiCallLine("g1", "c1", "x") + geminiCallLine("g2", "c2", "y")[:30])
	s, err := Read(plainReader{strings.NewReader(string(data))}, Options{Source: "-", spool: spoolAlways})
	require.NoError(t, err)
	require.Len(t, s.Calls, 1)
	assert.Len(t, s.Warnings, 1)
	assert.Regexp(t, `^-:3: the last line is cut short or malformed`, s.Warnings[0].String())

	doc := []byte("{\n" + `"sessionId":"s","projectHash":"p","messages":[` + "\n" + `{"id":"g1","type":"gemini","content":"x"},` + "\n" + `{"id":"g2","ty`)
	s, err = Read(plainReader{strings.NewReader(string(doc))}, Options{Source: "-", spool: spoolAlways})
	require.NoError(t, err)
	require.Len(t, s.Warnings, 1)
	assert.Regexp(t, `^-:4: session is cut short or malformed`, s.Warnings[0].String())
}

// openSpools lists the temporary files of dir that the process holds open
// (Linux: /proc/self/fd), removed or not.
func openSpools(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, filepath.Join(dir, "retrievaltest-input-")) {
			open = append(open, target)
		}
	}
	return open
}

// These tests set TMPDIR, so they do not run in parallel.

func TestALongGeminiStreamIsReadFromATemporaryFileThatIsLeftNowhere(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the open files are listed from /proc")
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	lines, _ := geminiGenerateSession(2 << 20)
	short := []byte(geminiMeta + geminiCallLine("g1", "c1", "x"))
	for _, tt := range []struct {
		name    string
		data    []byte
		spooled bool
	}{
		{"a recording longer than the read buffer", lines, true},
		{"a document longer than the read buffer", geminiDocument(t, lines), true},
		{"a recording that ends within the read buffer", short, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var during []string
			s, err := Read(plainReader{strings.NewReader(string(tt.data))}, Options{Source: "-", CallDone: func(*Session, int) bool {
				if during == nil {
					during = append(openSpools(t, dir), "")
				}
				return true
			}})
			require.NoError(t, err)
			require.NotZero(t, s.NumCalls())
			if tt.spooled {
				require.Len(t, during, 2, "the stream is read from a temporary file")
				assert.True(t, strings.HasSuffix(during[0], " (deleted)"), "the file has no name while it is read: %s", during[0])
			} else {
				assert.Equal(t, []string{""}, during, "a stream held in the read buffer is read from it")
			}
			assert.Empty(t, openSpools(t, dir), "the file is closed once the stream is read")
			assertNothingIn(t, dir)
		})
	}
}

func TestAGeminiStreamThatFailsLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	lines, _ := geminiGenerateSession(256 << 10)
	for name, r := range map[string]io.Reader{
		"a stream cut by an error":      io.MultiReader(strings.NewReader(string(lines[:1000])), iotest.ErrReader(errors.New("reset"))),
		"a stream past its limit":       input.LimitReader(strings.NewReader(string(lines)), "-", 1000),
		"a stream that is no recording": strings.NewReader(strings.Repeat("not json\n", 1000)),
		"a document that is no session": strings.NewReader("{\n" + `"sessionId":"s","projectHash":"p",` + "\n" + strings.Repeat(" ", 100) + `"messages":[}`),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(r, Options{Source: "-", Format: "gemini-cli", spool: spoolAlways})
			require.Error(t, err)
			assertNothingIn(t, dir)
			if runtime.GOOS == "linux" {
				assert.Empty(t, openSpools(t, dir))
			}
		})
	}
}

func TestAGeminiStreamIsReadAsItComesWhereNoTemporaryFileCanBeMade(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	lines, calls := geminiGenerateSession(256 << 10)
	s, err := Read(plainReader{strings.NewReader(string(lines))}, Options{Source: "-"})
	require.NoError(t, err)
	assert.Len(t, s.Calls, calls)
}

func assertNothingIn(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no temporary file is left")
}
