package trace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// multiLines is a test format whose input is "multi:" then one session id a
// line; each session has one call named after its id.
type multiLines struct{}

func (multiLines) Name() string              { return "multi" }
func (multiLines) Detect(prefix []byte) bool { return strings.HasPrefix(string(prefix), "multi:") }
func (multiLines) Read(io.Reader, Options) (*Session, error) {
	panic("Read must not be called on a MultiFormat")
}
func (multiLines) ReadAll(r io.Reader, opts Options) ([]*Session, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var all []*Session
	for _, id := range strings.Fields(strings.TrimPrefix(string(data), "multi:")) {
		s := &Session{ID: id}
		s.AddCall(ToolCall{Name: "call-" + id})
		all = append(all, s)
	}
	if len(all) == 0 {
		return nil, errors.New("no session")
	}
	return all, nil
}

// folderFormat reads a folder holding events/*.txt, one call a file.
type folderFormat struct{ multiLines }

func (folderFormat) Name() string       { return "folder" }
func (folderFormat) Detect([]byte) bool { return false }
func (folderFormat) DetectDir(fsys fs.FS) bool {
	m, _ := fs.Glob(fsys, "events/*.txt")
	return len(m) > 0
}
func (folderFormat) ReadDir(fsys fs.FS, opts Options) (*Session, error) {
	m, err := fs.Glob(fsys, "events/*.txt")
	if err != nil {
		return nil, err
	}
	s := &Session{}
	for _, name := range m {
		s.AddCall(ToolCall{Name: filepath.Base(name)})
	}
	return s, nil
}

func TestReadPicksOneSessionOfAMultiSessionInput(t *testing.T) {
	t.Parallel()
	reg := NewRegistry(multiLines{})
	in := "multi: a b c"

	all, err := ReadAll(strings.NewReader(in), Options{Registry: reg, Source: "m"})
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, "call-b", all[1].Calls[0].Name)
	assert.Equal(t, "multi", all[1].Format, "the format is filled in for every session")
	assert.Equal(t, "m", all[2].Source)

	s, err := Read(strings.NewReader(in), Options{Registry: reg, Source: "m", SessionID: "b"})
	require.NoError(t, err)
	assert.Equal(t, "b", s.ID)

	only, err := ReadAll(strings.NewReader(in), Options{Registry: reg, Source: "m", SessionID: "c"})
	require.NoError(t, err)
	require.Len(t, only, 1)
	assert.Equal(t, "c", only[0].ID)

	_, err = Read(strings.NewReader(in), Options{Registry: reg, Source: "m"})
	var multi *MultiSessionError
	require.ErrorAs(t, err, &multi)
	assert.Equal(t, []string{"a", "b", "c"}, multi.IDs)
	assert.EqualError(t, err, "m: holds 3 sessions (a, b, c); pick one by its id, or read them all")

	_, err = Read(strings.NewReader(in), Options{Registry: reg, Source: "m", SessionID: "z"})
	assert.EqualError(t, err, `m: no session "z" among its 3 sessions (a, b, c)`)

	s, err = Read(strings.NewReader("multi: solo"), Options{Registry: reg, Source: "m"})
	require.NoError(t, err, "an input with one session reads without an id")
	assert.Equal(t, "solo", s.ID)
}

func TestSessionIDMustMatchASingleSessionInput(t *testing.T) {
	t.Parallel()
	in := `{"sessionId":"s1","toolCalls":[{"tool":"Read"}]}`
	s, err := Read(strings.NewReader(in), Options{Source: "t", SessionID: "s1"})
	require.NoError(t, err)
	assert.Equal(t, "s1", s.ID)
	_, err = Read(strings.NewReader(in), Options{Source: "t", SessionID: "s2"})
	assert.EqualError(t, err, `t: no session "s2" among its 1 sessions (s1)`)
}

func TestReadFileReadsAFolderWithADirFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "events"), 0o755))
	for _, n := range []string{"event-00001.txt", "event-00000.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "events", n), nil, 0o644))
	}
	reg := NewRegistry(multiLines{}, folderFormat{})
	s, err := ReadFile(dir, Options{Registry: reg})
	require.NoError(t, err)
	assert.Equal(t, "folder", s.Format)
	assert.Equal(t, dir, s.Source)
	require.Len(t, s.Calls, 2)
	assert.Equal(t, "event-00000.txt", s.Calls[0].Name)

	all, err := ReadFileAll(dir, Options{Registry: reg})
	require.NoError(t, err)
	assert.Len(t, all, 1)

	_, err = ReadFile(dir, Options{Registry: reg, Format: "multi"})
	assert.EqualError(t, err, dir+": is a folder, and the multi format is read from a file")

	empty := t.TempDir()
	_, err = ReadFile(empty, Options{Registry: reg})
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	assert.True(t, fe.Folder)
	assert.Equal(t, []string{"folder"}, fe.Tried)

}

// Every built-in format describes itself for retrievaltest formats.
func TestEveryBuiltInFormatDescribesItself(t *testing.T) {
	t.Parallel()
	for _, info := range DefaultRegistry().Infos() {
		t.Run(info.Name, func(t *testing.T) {
			assert.NotEmpty(t, info.Writer, "Writer")
			assert.NotEmpty(t, info.Detection, "Detection")
			assert.NotEmpty(t, info.Example, "Example")
		})
	}
}
