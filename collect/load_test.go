package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
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

// slowClients opens n connections that each post a 100 KB body one byte
// at a time, every 100 ms, until the test ends or the server cuts them.
// It returns once every one has sent its headers and a byte of its body.
func slowClients(t *testing.T, srv *testServer, n int) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(done); wg.Wait() })
	start := srv.recv.mem.inUse()
	for range n {
		conn, err := net.Dial("tcp", srv.Addr().String())
		require.NoError(t, err)
		_, err = fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ctProto, 100_000)
		require.NoError(t, err)
		wg.Go(func() {
			defer conn.Close()
			for range 100_000 {
				if _, err := conn.Write([]byte{0}); err != nil {
					return // cut by the server
				}
				select {
				case <-done:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		})
	}
	// Each byte received is charged to the budget: once n are, every
	// slow request is being read.
	deadline := time.Now().Add(time.Minute)
	for srv.recv.mem.inUse() < start+int64(n) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	require.GreaterOrEqual(t, srv.recv.mem.inUse(), start+int64(n), "the slow clients' bodies are being read")
}

// 50 clients post 10,000 spans between them (200 batches each) while 50 others trickle their
// bodies a byte at a time: a slow body holds no turn, so every normal
// request is answered (well before the slow ones reach their read
// deadline, which a client timeout below it detects) and every
// acknowledged span is written.
func TestNormalClientsAreAnsweredWhileSlowClientsTrickle(t *testing.T) {
	t.Parallel()
	const workers, perWorker = 50, 200
	srv := startServer(t, Options{})
	slowClients(t, srv, 50)
	c := loadClient()
	c.Timeout = ReadTimeout * 2 / 3
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
	assert.Len(t, callIDs(t, srv.recv.opts.Dir), workers*perWorker)
}

// Stopping a server while clients trickle their bodies returns without
// waiting for them (they have had no answer, and retry), and every span
// acknowledged before is in the files.
func TestStoppingWhileSlowClientsTrickleReturns(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	slowClients(t, srv, 10)
	c := loadClient()
	for i := range 20 {
		ok, err := postSpan(c, srv.Endpoint(), 1, i)
		require.True(t, ok, "%v", err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- srv.stop() }()
	// Only to catch a hang: a slow body used to hold Serve until its
	// read deadline and beyond.
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(ReadTimeout * 2 / 3):
		t.Fatal("Serve did not return while slow clients were sending")
	}
	assert.Len(t, callIDs(t, srv.recv.opts.Dir), 20)
}

// 20 clients post spans of one trace while each fsync takes 5 ms, so
// that requests commit in groups; the server is stopped under load.
// Every span acknowledged is in the file afterwards, and the requests
// took fewer fsyncs than there were requests.
func TestEverySpanAcknowledgedUnderGroupCommitIsWritten(t *testing.T) {
	t.Parallel()
	const workers = 20
	srv, err := Listen("127.0.0.1:0", Options{Dir: t.TempDir()})
	require.NoError(t, err)
	var syncs atomic.Int64
	srv.recv.files.sync = func(f *os.File) error {
		syncs.Add(1)
		time.Sleep(5 * time.Millisecond)
		return f.Sync()
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	c := loadClient()
	var acked atomic.Int64
	var mu sync.Mutex
	ackedIDs := map[string]bool{}
	enough := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range 1000 {
				id := fmt.Sprintf("w%d-%d", w, i)
				body, err := protoMarshal(traceRequest("load", toolSpan(traceID(1), uint64(w*1000+i), id, "f.go")))
				if err != nil {
					return
				}
				resp, err := c.Post(srv.Endpoint()+"/v1/traces", ctProto, bytes.NewReader(body))
				if err != nil {
					return // the server is gone
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return
				}
				mu.Lock()
				ackedIDs[id] = true
				mu.Unlock()
				if acked.Add(1) >= 300 {
					once.Do(func() { close(enough) })
				}
			}
		})
	}
	<-enough
	cancel()
	require.NoError(t, <-served)
	wg.Wait()
	written := map[string]bool{}
	for _, id := range callIDs(t, srv.recv.opts.Dir) {
		assert.False(t, written[id], "call %s written twice", id)
		written[id] = true
	}
	for id := range ackedIDs {
		assert.True(t, written[id], "call %s was acknowledged and is not in the file", id)
	}
	assert.Less(t, syncs.Load(), acked.Load(), "requests arriving during an fsync commit together")
}
