package trace

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

func TestIsURLTakesHTTPAndHTTPSOnly(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"http://h/x": true, "HTTPS://h/x": true, "ftp://h/x": false, "http.jsonl": false, "./http://x": false} {
		assert.Equal(t, want, IsURL(name), name)
	}
}

// This package links no HTTP client: a URL is read by the registered
// URLOpener (package httpsource's GET, tested there), and without one it
// is an error that says which package to import. Not parallel: it
// registers openers.
func TestAURLIsReadByTheRegisteredOpener(t *testing.T) {
	const url = "https://harness.example/steps/1/trace"
	t.Cleanup(func() { RegisterURLOpener(nil) })

	RegisterURLOpener(nil)
	_, err := ReadFile(url, Options{})
	require.ErrorIs(t, err, ErrNoURLOpener)
	assert.Contains(t, err.Error(), url)
	assert.Contains(t, err.Error(), `import _ "github.com/agentretrieval/agentretrieval/trace/httpsource"`)

	var got Options
	closed := false
	RegisterURLOpener(func(name string, opts Options) (io.ReadCloser, error) {
		got = opts
		if name != url {
			return nil, &HTTPStatusError{URL: name, Status: "404 Not Found", Code: 404, Body: "no such step"}
		}
		return readCloser{strings.NewReader(`{"toolCalls":[{"tool":"Read","arguments":{"path":"a.go"}},{"tool":"Grep"}]}`), &closed}, nil
	})
	s, err := ReadFile(url, Options{HTTPHeader: map[string][]string{"X-Api-Key": {"k"}}, HTTPTimeout: 7})
	require.NoError(t, err)
	assert.Equal(t, url, s.Source)
	assert.Equal(t, "tool-calls", s.Format)
	assert.Len(t, s.Calls, 2)
	assert.True(t, closed, "the body is closed once read")
	assert.Equal(t, []string{"k"}, got.HTTPHeader["X-Api-Key"], "the opener gets the options")
	assert.EqualValues(t, 7, got.HTTPTimeout)

	all, err := ReadFileAll(url, Options{})
	require.NoError(t, err)
	assert.Len(t, all, 1)

	_, err = ReadFile(url, Options{MaxInputSize: 10})
	assert.True(t, errors.Is(err, input.ErrTooLarge), "the body is read within the size limit: %v", err)

	_, err = ReadFile(url+"/2", Options{})
	var se *HTTPStatusError
	require.ErrorAs(t, err, &se)
	assert.EqualError(t, err, "GET "+url+"/2: 404 Not Found: no such step")
}

type readCloser struct {
	io.Reader
	closed *bool
}

func (r readCloser) Close() error { *r.closed = true; return nil }
