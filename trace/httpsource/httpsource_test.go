package httpsource

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/trace"
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
	s, err := trace.ReadFile(url, trace.Options{})
	require.NoError(t, err)
	assert.Equal(t, "tool-calls", s.Format)
	assert.Equal(t, url, s.Source)
	require.Len(t, s.Calls, 2)
	assert.Equal(t, "aura_search", s.Calls[0].Name)
	assert.Equal(t, "file.read", s.Calls[1].Name)
	all, err := trace.ReadFileAll(url, trace.Options{})
	require.NoError(t, err)
	assert.Len(t, all, 1)
}

func TestReadFileOverHTTPSendsTheHeadersOfTheEnvironment(t *testing.T) {
	srv := traceServer(t)
	url := srv.URL + "/private/trace"
	_, err := trace.ReadFile(url, trace.Options{})
	var se *trace.HTTPStatusError
	require.ErrorAs(t, err, &se, "no header, no entry")
	assert.Equal(t, http.StatusUnauthorized, se.Code)

	t.Setenv("RETRIEVALTEST_HTTP_HEADER_AUTHORIZATION", "Bearer k3y")
	t.Setenv("RETRIEVALTEST_HTTP_HEADER_X_API_KEY", "v")
	s, err := trace.ReadFile(url, trace.Options{})
	require.NoError(t, err)
	assert.Len(t, s.Calls, 2)

	_, err = trace.ReadFile(url, trace.Options{HTTPHeader: http.Header{}})
	assert.ErrorAs(t, err, &se, "Options.HTTPHeader replaces the environment")
}

func TestReadFileOverHTTPNamesTheURLAndTheStatusOfAFailure(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	url := srv.URL + "/failing/trace"
	_, err := trace.ReadFile(url, trace.Options{})
	var se *trace.HTTPStatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 500, se.Code)
	assert.Equal(t, "GET "+url+`: 500 Internal Server Error: database is down\u001b[31m`, err.Error())

	_, err = trace.ReadFile(srv.URL+"/no/such/trace", trace.Options{})
	assert.ErrorContains(t, err, "GET "+srv.URL+"/no/such/trace: 404 Not Found")
}

func TestReadFileOverHTTPGivesUpAfterTheTimeout(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	for _, path := range []string{"/slow/trace", "/slow-body/trace"} {
		_, err := trace.ReadFile(srv.URL+path, trace.Options{HTTPTimeout: 50 * time.Millisecond})
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), "within 50ms (the timeout)", path)
		assert.Contains(t, err.Error(), srv.URL+path)
	}
}

func TestReadFileOverHTTPStopsAtTheSizeLimit(t *testing.T) {
	t.Parallel()
	srv := traceServer(t)
	url := srv.URL + "/big/trace"
	_, err := trace.ReadFile(url, trace.Options{MaxInputSize: 4096})
	require.Error(t, err)
	assert.True(t, errors.Is(err, input.ErrTooLarge), "%v", err)
	assert.Contains(t, err.Error(), url)
	s, err := trace.ReadFile(url, trace.Options{})
	require.NoError(t, err)
	assert.Len(t, s.Calls, 1001)
}

func TestHeaderFromEnvTurnsUnderscoresIntoHyphens(t *testing.T) {
	t.Parallel()
	h := HeaderFromEnv([]string{"PATH=/bin", "RETRIEVALTEST_HTTP_HEADER_X_API_KEY=a=b", "RETRIEVALTEST_HTTP_HEADER_=x", "RETRIEVALTEST_HTTP_HEADER_AUTHORIZATION=Bearer t"})
	assert.Equal(t, http.Header{"X-Api-Key": {"a=b"}, "Authorization": {"Bearer t"}}, h)
}

// headerRecorder serves the /trace endpoint shape and records the headers of
// each request it receives.
type headerRecorder struct {
	mu  sync.Mutex
	got []http.Header
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.got = append(h.got, r.Header.Clone())
	h.mu.Unlock()
	io.WriteString(w, endpointBody)
}

func (h *headerRecorder) last() http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) == 0 {
		return nil
	}
	return h.got[len(h.got)-1]
}

func TestReadFileOverHTTPKeepsTheHeadersWithinTheirOrigin(t *testing.T) {
	t.Parallel()
	// Two servers on loopback differ by port only: two origins, one host name.
	other := &headerRecorder{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	home := &headerRecorder{}
	mux := http.NewServeMux()
	mux.Handle("/trace", home)
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/trace", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+"/trace", http.StatusFound)
	})
	homeSrv := httptest.NewServer(mux)
	t.Cleanup(homeSrv.Close)
	otherMux := http.NewServeMux()
	otherMux.Handle("/trace", other)
	otherMux.HandleFunc("/back", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, homeSrv.URL+"/trace", http.StatusFound)
	})
	otherSrv.Config.Handler = otherMux
	mux.HandleFunc("/away-and-back", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+"/back", http.StatusFound)
	})
	header := http.Header{"X-Api-Key": {"S"}, "Authorization": {"Bearer k3y"}}

	tests := []struct {
		name     string
		path     string
		recorder *headerRecorder
		keeps    bool
	}{
		{"a redirect within the origin keeps every header", "/same", home, true},
		{"a redirect to another origin drops every header", "/away", other, false},
		{"a redirect back home after leaving does not bring them back", "/away-and-back", home, false},
	}
	for _, tt := range tests {
		_, err := trace.ReadFile(homeSrv.URL+tt.path, trace.Options{HTTPHeader: header})
		require.NoError(t, err, tt.name)
		got := tt.recorder.last()
		require.NotNil(t, got, tt.name)
		if tt.keeps {
			assert.Equal(t, "S", got.Get("X-Api-Key"), tt.name)
			assert.Equal(t, "Bearer k3y", got.Get("Authorization"), tt.name)
		} else {
			assert.Empty(t, got.Values("X-Api-Key"), tt.name)
			assert.Empty(t, got.Values("Authorization"), tt.name)
		}
	}
}

func TestOriginMakesTheDefaultPortExplicit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"http://h/x", "http://H:80/y", true},
		{"https://h/x", "https://h:443/y", true},
		{"http://h/x", "https://h/x", false},
		{"http://h:8080/x", "http://h:8081/x", false},
		{"http://h/x", "http://h.evil/x", false},
	} {
		a, err := url.Parse(tt.a)
		require.NoError(t, err)
		b, err := url.Parse(tt.b)
		require.NoError(t, err)
		assert.Equal(t, tt.same, origin(a) == origin(b), "%s vs %s", tt.a, tt.b)
	}
}
