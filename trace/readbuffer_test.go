package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoSessionKeepsTheReadBuffer reads every file of the repository's
// testdata folders and of the samples beside the repository (every format,
// and files that are no trace), as standard input is read and, when big
// enough, as a file, and then fills the buffers they were read through
// with other bytes, as the next trace read through them does: no session
// may change. Not parallel: it replaces the pool every read shares.
func TestNoSessionKeepsTheReadBuffer(t *testing.T) {
	var mu sync.Mutex
	var made []*bufio.Reader
	saved := readBuffers
	t.Cleanup(func() { readBuffers = saved })
	readBuffers = &sync.Pool{New: func() any {
		br := bufio.NewReaderSize(nil, DetectSize)
		mu.Lock()
		made = append(made, br)
		mu.Unlock()
		return br
	}}
	scribble := bytes.Repeat([]byte(`{"x":"\u00ff"}`+"\n"), DetectSize/10)
	// check reads the session, then fills every buffer the pool made.
	check := func(path string, all []*Session) {
		t.Helper()
		before, err := json.Marshal(all)
		require.NoError(t, err)
		for _, br := range made {
			br.Reset(bytes.NewReader(scribble))
			_, _ = br.Peek(DetectSize)
		}
		after, err := json.Marshal(all)
		require.NoError(t, err)
		assert.Equal(t, string(before), string(after), "%s: the session changed with the buffer it was read through", path)
	}
	read, files := 0, 0
	for _, root := range []string{"../testdata", "../../shared/samples"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if os.IsNotExist(err) && path == root {
				return fs.SkipDir // no samples beside the repository
			}
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil || info.Size() > 16<<20 {
				return err
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, opts := range []Options{{Source: path}, {Source: path, SkipMessages: true}} {
				if all, err := ReadAll(bytes.NewReader(data), opts); err == nil {
					check(path, all)
					read++
				}
				if info.Size()+4096 < pooledReadSize {
					continue // read from the file through a buffer of its own
				}
				if all, err := ReadFileAll(path, opts); err == nil {
					check(path, all)
					files++
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	assert.GreaterOrEqual(t, read, 100, "traces read")
	assert.NotEmpty(t, made, "buffers taken from the pool")
	t.Logf("%d reads of standard input, %d of files", read, files)
}

func TestAReadBufferHoldsTheWholeTraceAndGoesBackToThePool(t *testing.T) {
	t.Parallel()
	small := readBuffer(bytes.NewReader(nil), 4096)
	assert.Equal(t, 4096, small.Size(), "a small trace: a buffer of its size")
	freeReadBuffer(small)
	br := readBuffer(bytes.NewReader([]byte("abc")), pooledReadSize)
	assert.Equal(t, DetectSize, br.Size(), "from the pool")
	b, err := br.ReadByte()
	require.NoError(t, err)
	assert.Equal(t, byte('a'), b, "reading what it was given")
	assert.Equal(t, 2, br.Buffered())
	freeReadBuffer(br)
	assert.Zero(t, br.Buffered(), "freed: it holds nothing of the trace")
}
