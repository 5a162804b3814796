package trace

import (
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generatedFS is a folder whose files are made as they are read: each is
// a head, a pattern repeated to fill bytes, and a tail.
type generatedFS map[string]generatedFile

type generatedFile struct {
	head, pattern, tail string
	fill                int64
}

func (g generatedFile) size() int64 { return int64(len(g.head)) + g.fill + int64(len(g.tail)) }

func (g generatedFS) Open(name string) (fs.File, error) {
	f, ok := g[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	r := io.MultiReader(strings.NewReader(f.head), &filler{pattern: []byte(f.pattern), n: f.fill}, strings.NewReader(f.tail))
	return &generatedOpen{Reader: r, name: name, size: f.size()}, nil
}

type generatedOpen struct {
	io.Reader
	name string
	size int64
}

func (f *generatedOpen) Stat() (fs.FileInfo, error) { return f, nil }
func (f *generatedOpen) Close() error               { return nil }
func (f *generatedOpen) Name() string               { return f.name }
func (f *generatedOpen) Size() int64                { return f.size }
func (f *generatedOpen) Mode() fs.FileMode          { return 0o644 }
func (f *generatedOpen) ModTime() time.Time         { return time.Time{} }
func (f *generatedOpen) IsDir() bool                { return false }
func (f *generatedOpen) Sys() any                   { return nil }

// clineTaskWithALongResult is a task folder whose one tool result, and
// one ui message's text, hold fill bytes of plainText.
func clineTaskWithALongResult(fill int64) generatedFS {
	fill -= fill % int64(len(plainText)) // whole patterns, so that no escape is split
	return generatedFS{
		clineHistory: {
			head: `[{"role":"user","content":[{"type":"text","text":"<task>read big.go</task>"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_big","name":"read_file","input":{"path":"big.go"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_big","content":"`,
			pattern: plainText, fill: fill,
			tail: `"}]},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_after","name":"list_files","input":{"path":"."}}]}]`,
		},
		clineUIMessages: {
			head:    `[{"ts":1760000000000,"type":"say","say":"text","text":"`,
			pattern: plainText, fill: fill,
			tail: `"},{"ts":1760000005000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":120,\"tokensOut\":30}"}]`,
		},
	}
}

func TestAClineTaskFolderWithALongResultIsReadCut(t *testing.T) {
	saved := longLine
	longLine = 1 << 20
	defer func() { longLine = saved }()
	task := clineTaskWithALongResult(3 << 20)
	s, err := Cline{}.ReadDir(task, Options{Source: "task", MaxResultBytes: 1000})
	require.NoError(t, err)
	require.Len(t, s.Calls, 2, "the call after the long result is read")
	big := s.Calls[0]
	assert.Equal(t, "toolu_big", big.ID)
	assert.True(t, strings.HasPrefix(big.Result, plainDecoded+plainDecoded), big.Result[:min(len(big.Result), 80)])
	assert.LessOrEqual(t, len(big.Result), 1000+len(plainDecoded))
	assert.Equal(t, "toolu_after", s.Calls[1].ID)
	assert.Equal(t, int64(120), s.Usage.InputTokens, "the ui messages after the long text are read")

	var cutWarnings []string
	for _, w := range s.Warnings {
		if strings.Contains(w.Message, "was read with its long strings cut") {
			cutWarnings = append(cutWarnings, w.Message)
		}
	}
	require.Len(t, cutWarnings, 2, "%v", s.Warnings)
	assert.True(t, strings.HasPrefix(cutWarnings[0], clineHistory+": "), cutWarnings[0])
	assert.True(t, strings.HasPrefix(cutWarnings[1], clineUIMessages+": "), cutWarnings[1])

	// A file no longer than a long line is read as it is.
	longLine = 8 << 20
	s, err = Cline{}.ReadDir(task, Options{Source: "task", MaxResultBytes: 1000})
	require.NoError(t, err)
	assert.Len(t, s.Calls, 2)
	for _, w := range s.Warnings {
		assert.NotContains(t, w.Message, "long strings cut")
	}
}

func TestAClineTaskFolderOfHundredsOfMegabytesIsReadInBoundedMemory(t *testing.T) {
	if os.Getenv("TRACE_MEMORY_CASE") != "" {
		runMemoryChild(t, func(string) ([]*Session, error) {
			s, err := Cline{}.ReadDir(clineTaskWithALongResult(300<<20), Options{Source: "task", MaxResultBytes: cliResultBytes})
			if err != nil {
				return nil, err
			}
			c, err := callNamed([]*Session{s}, "toolu_big")
			if err == nil {
				err = resultCut(c)
			}
			return []*Session{s}, err
		})
		return
	}
	if testing.Short() {
		t.Skip("reads a task folder of 600 MB")
	}
	got := inChild(t, "TestAClineTaskFolderOfHundredsOfMegabytesIsReadInBoundedMemory", "cline")
	require.Empty(t, got.Err)
	t.Logf("Sys %d MiB, HeapSys %d MiB", got.Sys>>20, got.HeapSys>>20)
	assert.Less(t, got.Sys, uint64(memoryLimit), "memory taken by the read")
	assert.Equal(t, 2, got.Calls)
}
