package collect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// spanBody is the protobuf of an ExportTraceServiceRequest holding one
// span with n empty attributes and, when fill > 0, one more attribute
// whose value is fill control characters (each of which OTLP/JSON writes
// as six).
func spanBody(t testing.TB, n, fill int) []byte {
	t.Helper()
	span := mustProto(t, toolSpan(traceID(1), 1, "c1", "a.go"))
	span = append(span, bytes.Repeat([]byte{9<<3 | 2, 0}, n)...)
	if fill > 0 {
		var value, kv []byte
		value = protowire.AppendTag(value, 1, protowire.BytesType)
		value = protowire.AppendBytes(value, bytes.Repeat([]byte{1}, fill))
		kv = protowire.AppendTag(kv, 1, protowire.BytesType)
		kv = protowire.AppendString(kv, "big")
		kv = protowire.AppendTag(kv, 2, protowire.BytesType)
		kv = protowire.AppendBytes(kv, value)
		span = protowire.AppendTag(span, 9, protowire.BytesType)
		span = protowire.AppendBytes(span, kv)
	}
	wrap := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	return wrap(1, wrap(2, wrap(2, span)))
}

// memResult is what the child process of TestMemoryIsBoundedUnderHostileBodies reports.
type memResult struct {
	Statuses map[int]int // answers by HTTP status
	PeakHeap uint64      // the most HeapInuse seen, above the start
	Sys      uint64      // memory obtained from the system, above the start
}

// The memory tests run in a child process of their own, so that what
// the runtime reports is the receiver's alone.
const memChildEnv = "COLLECT_TEST_MEMORY_CHILD"

// runMemChild runs the test named in a child process with the scenario
// and returns its report.
func runMemChild(t *testing.T, scenario string) memResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.v")
	cmd.Env = append(os.Environ(), memChildEnv+"="+scenario)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, res, ok := strings.Cut(string(out), "MEMRESULT ")
	require.True(t, ok, "%s", out)
	res, _, _ = strings.Cut(res, "\n")
	var r memResult
	require.NoError(t, json.Unmarshal([]byte(res), &r), res)
	t.Logf("%s: %+v (heap %d MiB, sys %d MiB)", scenario, r.Statuses, r.PeakHeap>>20, r.Sys>>20)
	return r
}

// TestMemoryChild is the child of the memory tests; it does nothing
// unless run by one. It posts eight bodies of its scenario at once to a
// receiver with the default options and reports the statuses and the
// memory taken.
func TestMemoryChild(t *testing.T) {
	scenario := os.Getenv(memChildEnv)
	if scenario == "" {
		t.Skip("run by the memory tests")
	}
	var body []byte
	switch scenario {
	case "empty-attributes": // the whole limit in 2-byte attributes
		body = spanBody(t, (DefaultMaxRequestBytes-1024)/2, 0)
	case "at-the-message-limit": // as many messages as allowed, the rest one long string
		n := DefaultMaxRequestBytes/BytesPerMessage - 1000
		body = spanBody(t, n, DefaultMaxRequestBytes-2*n-2048)
	default:
		t.Fatalf("unknown scenario %q", scenario)
	}
	require.LessOrEqual(t, len(body), DefaultMaxRequestBytes)
	srv := startServer(t, Options{})
	runtime.GC()
	var start runtime.MemStats
	runtime.ReadMemStats(&start)
	peak := start.HeapInuse
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	c := loadClient()
	for range 8 {
		wg.Go(func() {
			resp, err := c.Post(srv.Endpoint()+"/v1/traces", ctProto, bytes.NewReader(body))
			if !assert.NoError(t, err) {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	out, err := json.Marshal(memResult{Statuses: statuses, PeakHeap: peak - start.HeapInuse, Sys: end.Sys - start.Sys})
	require.NoError(t, err)
	fmt.Printf("MEMRESULT %s\n", out)
}

// Eight bodies at once, each the whole 16 MiB limit in empty attributes
// (about a hundred times their size once decoded), are refused as too
// large without being decoded; eight bodies at the message limit are
// decoded a few at a time within the memory budget, the others told to
// retry. Either way the heap stays within the budget and the bodies in
// flight, where it used to reach gigabytes.
func TestMemoryIsBoundedUnderHostileBodies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("posts 256 MiB")
	}
	budget := uint64(32 * DefaultMaxRequestBytes)
	bodies := uint64(8 * DefaultMaxRequestBytes)
	r := runMemChild(t, "empty-attributes")
	assert.Equal(t, map[int]int{http.StatusRequestEntityTooLarge: 8}, r.Statuses)
	// A body is read by appending, which may hold two copies at once.
	assert.Less(t, r.PeakHeap, 3*bodies, "bodies are read, never decoded")

	r = runMemChild(t, "at-the-message-limit")
	assert.Equal(t, 8, r.Statuses[http.StatusOK]+r.Statuses[http.StatusTooManyRequests], "%v", r.Statuses)
	assert.Positive(t, r.Statuses[http.StatusOK], "%v", r.Statuses)
	// Twice the budget: the garbage collector lets the heap grow to
	// twice what is live.
	assert.Less(t, r.PeakHeap, 2*budget+2*bodies)
}

// A body with more messages than MaxRequestBytes/BytesPerMessage is too
// large, in protobuf and in JSON, and nothing of it is written.
func TestABodyWithTooManyMessagesIsTooLarge(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	srv := startServer(t, Options{MaxRequestBytes: limit})
	n := limit/BytesPerMessage + 1
	jsonBody := `{"resourceSpans":[` + strings.Repeat(`{},`, n) + `{}]}`
	for _, tc := range []struct{ ctype, body string }{
		{ctProto, string(spanBody(t, n, 0))},
		{ctJSON, jsonBody},
	} {
		req, err := http.NewRequest("POST", srv.Endpoint()+"/v1/traces", strings.NewReader(tc.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", tc.ctype)
		resp, err := client.Do(req)
		require.NoError(t, err)
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, tc.ctype)
		assert.Contains(t, readStatus(t, resp).GetMessage(), "messages", tc.ctype)
		resp.Body.Close()
	}
	assert.Empty(t, dirNames(t, srv.recv.opts.Dir))
	// A span of fewer empty attributes is taken.
	code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, spanBody(t, n-20, 0))
	assert.Equal(t, http.StatusOK, code, "%s", out)
}

// The counters count messages, not bytes fields or strings that look
// like messages, and stop at the limit.
func TestCountingMessages(t *testing.T) {
	t.Parallel()
	md := messages()[tracesDataName] // read as the request (see decodeTraces)
	// Request, resource spans, scope spans, span, 4 attributes with a
	// value each, and the resource, its attribute and value, the scope.
	body := mustProto(t, traceRequest("svc", toolSpan(traceID(1), 1, "c1", "a.go")))
	n, err := countMessages(body, md, 100)
	require.NoError(t, err)
	assert.Equal(t, 3+3+8+1, n)
	_, err = countMessages(body, md, 10)
	assert.ErrorAs(t, err, new(*tooManyError))

	n, err = countJSONObjects([]byte(`{"a":[{"k":"{{{\"{"},{}]}`), 100)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	_, err = countJSONObjects([]byte(`{"a":[{},{}]}`), 2)
	assert.ErrorAs(t, err, new(*tooManyError))
}

// While the memory budget is taken by a body being read, a request that
// does not fit is told to retry (429 with Retry-After and a status), and
// is taken once the budget is free.
func TestARequestOverTheMemoryBudgetIsToldToRetry(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	srv := startServer(t, Options{MaxRequestBytes: limit, MaxMemory: maxCostFactor * limit})
	// Clients that send most of a body each, most of the budget in all,
	// and stall.
	const stalled, each = maxCostFactor, limit - 1<<10
	var conns []net.Conn
	for range stalled {
		conn, err := net.Dial("tcp", srv.Addr().String())
		require.NoError(t, err)
		conns = append(conns, conn)
		fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ctProto, limit)
		_, err = conn.Write(make([]byte, each))
		require.NoError(t, err)
	}
	deadline := time.Now().Add(time.Minute)
	for srv.recv.mem.inUse() < stalled*each && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	body := mustProto(t, traceRequest("a", toolSpan(traceID(1), 1, "c1", "a.go", str("pad", strings.Repeat("x", 8<<10)))))
	for _, ct := range []string{ctProto, ctJSON} {
		req, err := http.NewRequest("POST", srv.Endpoint()+"/v1/traces", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", ct)
		resp, err := client.Do(req)
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, ct)
		assert.Equal(t, "1", resp.Header.Get("Retry-After"))
		assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), ct), resp.Header.Get("Content-Type"))
		assert.Contains(t, readStatus(t, resp).GetMessage(), "retry", ct)
		resp.Body.Close()
	}
	assert.Empty(t, dirNames(t, srv.recv.opts.Dir))
	for _, conn := range conns {
		require.NoError(t, conn.Close())
	}
	for srv.recv.mem.inUse() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, body)
	assert.Equal(t, http.StatusOK, code, "%s", out)
}
