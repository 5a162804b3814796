package collect

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadClient is an HTTP client that keeps a connection per worker.
func loadClient() *http.Client {
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// postSpan posts one span of worker w, request i, and reports whether
// the receiver took it.
func postSpan(c *http.Client, url string, w, i int) (bool, error) {
	n := uint64(w*1000 + i)
	sp := toolSpan(traceID(uint64(w%10)), n, fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("f%d.go", i))
	req := traceRequest("load", sp)
	var body []byte
	var err error
	ctype := ctProto
	if w%2 == 0 {
		body, err = protoMarshal(req)
	} else {
		ctype = ctJSON
		body, err = jsonMarshalOTLP(req)
	}
	if err != nil {
		return false, err
	}
	resp, err := c.Post(url+"/v1/traces", ctype, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("status %d", resp.StatusCode)
	}
	return true, nil
}

// callIDs reads every file of dir through the trace package and returns
// the call ids, failing on any warning (a line cut short, a bad line).
func callIDs(t *testing.T, dir string) []string {
	t.Helper()
	var ids []string
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	for _, name := range names {
		for _, s := range readSessions(t, name) {
			assert.Empty(t, s.Warnings, name)
			for _, c := range s.Calls {
				ids = append(ids, c.ID)
			}
		}
	}
	return ids
}

// 2,000 spans from 50 clients posting at once, over ten traces: every
// one is in the files, once.
func TestNoSpanIsLostWhenFiftyClientsPostAtOnce(t *testing.T) {
	t.Parallel()
	const workers, perWorker = 50, 40
	srv := startServer(t, Options{})
	c := loadClient()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				if _, err := postSpan(c, srv.Endpoint(), w, i); err != nil {
					errs <- fmt.Errorf("worker %d request %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, srv.stop())
	ids := callIDs(t, srv.recv.opts.Dir)
	assert.Len(t, ids, workers*perWorker)
	seen := map[string]bool{}
	for _, id := range ids {
		assert.False(t, seen[id], "call %s written twice", id)
		seen[id] = true
	}
	assert.Len(t, srv.Files(), 10)
}

// Stopping the server while clients post leaves every file whole: each
// line reads without a warning, and every span the server acknowledged
// is in the files.
func TestStoppingUnderLoadLeavesCompleteFiles(t *testing.T) {
	t.Parallel()
	const workers = 20
	srv := startServer(t, Options{MaxConcurrent: 4})
	c := loadClient()
	var acked atomic.Int64
	enough := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; i < 1000; i++ {
				ok, _ := postSpan(c, srv.Endpoint(), w, i)
				if !ok {
					return // the server is gone
				}
				if acked.Add(1) >= 200 {
					once.Do(func() { close(enough) })
				}
			}
		})
	}
	<-enough
	require.NoError(t, srv.stop())
	wg.Wait()
	ids := callIDs(t, srv.recv.opts.Dir)
	// A request the server wrote whose answer the client never read is in
	// the files without being counted; at most one per client.
	assert.GreaterOrEqual(t, int64(len(ids)), acked.Load())
	assert.LessOrEqual(t, int64(len(ids)), acked.Load()+workers)
}

// A file whose last line was cut short (a crash in the middle of a
// write) still reads: the reader keeps every line before it and warns.
func TestAFileCutShortByACrashKeepsItsWholeLines(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	id := traceID(3)
	for i := range 3 {
		code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, mustProto(t, traceRequest("a", toolSpan(id, uint64(i+1), fmt.Sprint("c", i), "a.go"))))
		require.Equal(t, http.StatusOK, code, "%s", out)
	}
	path := traceFile(srv.recv.opts.Dir, id)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := append(append([]byte{}, lines[0]...), lines[1]...)
	cut = append(cut, lines[2][:len(lines[2])/2]...)
	require.NoError(t, os.WriteFile(path, cut, 0o644))
	s := readSessions(t, path)[0]
	assert.Len(t, s.Calls, 2)
	require.NotEmpty(t, s.Warnings)
	assert.Contains(t, s.Warnings[0].Message, "cut short")
}
