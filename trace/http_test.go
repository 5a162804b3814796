package trace

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// endpointBody is what a harness's /trace endpoint returns.
const endpointBody = `{"toolCalls":[
 {"tool":"aura_search","arguments":{"query":"where are orders created"},"result":"src/Orders/OrderService.cs:24: public Order Create()","timestamp":"2026-09-14T09:12:05Z"},
 {"tool":"file.read","arguments":{"path":"src/Orders/OrderService.cs"},"result":"…"}]}`

// traceServer serves the /trace endpoint shape on loopback, and the
// variants the tests need.
func traceServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/api/steps/1/trace", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, endpointBody)
	})
	mux.HandleFunc("/private/trace", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k3y" || r.Header.Get("X-Api-Key") != "v" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, endpointBody)
	})
	mux.HandleFunc("/failing/trace", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database is down\x1b[31m", http.StatusInternalServerError)
	})
	mux.HandleFunc("/slow/trace", func(w http.ResponseWriter, r *http.Request) {
		select { // answers only once the client has given up
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/slow-body/trace", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"toolCalls":[`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/big/trace", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"toolCalls":[`+strings.Repeat(`{"tool":"Read","arguments":{}},`, 1000)+`{"tool":"Read"}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}

func TestReadFileReadsTheTraceEndpointOverHTTP(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	url := srv.URL + "/api/steps/1/trace"
	s, err := ReadFile(url, Options{})
	require.NoError(t, err)
	assert.Equal(t, "tool-calls", s.Format)
	assert.Equal(t, url, s.Source)
	require.Len(t, s.Calls, 2)
	assert.Equal(t, "aura_search", s.Calls[0].Name)
	assert.Equal(t, "file.read", s.Calls[1].Name)
	all, err := ReadFileAll(url, Options{})
	require.NoError(t, err)
	assert.Len(t, all, 1)
}

func TestReadFileOverHTTPSendsTheHeadersOfTheEnvironment(t *testing.T) {
	srv := traceServer(t)
	url := srv.URL + "/private/trace"
	_, err := ReadFile(url, Options{})
	var se *HTTPStatusError
	require.ErrorAs(t, err, &se, "no header, no entry")
	assert.Equal(t, http.StatusUnauthorized, se.Code)

	t.Setenv("RETRIEVALTEST_HTTP_HEADER_AUTHORIZATION", "Bearer k3y")
	t.Setenv("RETRIEVALTEST_HTTP_HEADER_X_API_KEY", "v")
	s, err := ReadFile(url, Options{})
	require.NoError(t, err)
	assert.Len(t, s.Calls, 2)

	_, err = ReadFile(url, Options{HTTPHeader: http.Header{}})
	assert.ErrorAs(t, err, &se, "Options.HTTPHeader replaces the environment")
}

func TestReadFileOverHTTPNamesTheURLAndTheStatusOfAFailure(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	url := srv.URL + "/failing/trace"
	_, err := ReadFile(url, Options{})
	var se *HTTPStatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 500, se.Code)
	assert.Equal(t, "GET "+url+`: 500 Internal Server Error: database is down\u001b[31m`, err.Error())

	_, err = ReadFile(srv.URL+"/no/such/trace", Options{})
	assert.ErrorContains(t, err, "GET "+srv.URL+"/no/such/trace: 404 Not Found")
}

func TestReadFileOverHTTPGivesUpAfterTheTimeout(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	for _, path := range []string{"/slow/trace", "/slow-body/trace"} {
		_, err := ReadFile(srv.URL+path, Options{HTTPTimeout: 50 * time.Millisecond})
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), "within 50ms (the timeout)", path)
		assert.Contains(t, err.Error(), srv.URL+path)
	}
}

func TestReadFileOverHTTPStopsAtTheSizeLimit(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	url := srv.URL + "/big/trace"
	_, err := ReadFile(url, Options{MaxInputSize: 4096})
	require.Error(t, err)
	assert.True(t, errors.Is(err, input.ErrTooLarge), "%v", err)
	assert.Contains(t, err.Error(), url)
	s, err := ReadFile(url, Options{})
	require.NoError(t, err)
	assert.Len(t, s.Calls, 1001)
}

func TestHTTPHeaderFromEnvTurnsUnderscoresIntoHyphens(t *testing.T) {
	t.Parallel()
	h := HTTPHeaderFromEnv([]string{"PATH=/bin", "RETRIEVALTEST_HTTP_HEADER_X_API_KEY=a=b", "RETRIEVALTEST_HTTP_HEADER_=x", "RETRIEVALTEST_HTTP_HEADER_AUTHORIZATION=Bearer t"})
	assert.Equal(t, http.Header{"X-Api-Key": {"a=b"}, "Authorization": {"Bearer t"}}, h)
}

func TestIsURLTakesHTTPAndHTTPSOnly(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"http://h/x": true, "HTTPS://h/x": true, "ftp://h/x": false, "http.jsonl": false, "./http://x": false} {
		assert.Equal(t, want, IsURL(name), name)
	}
}
