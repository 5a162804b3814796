package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/printable"
)

// A trace may be served over HTTP: a harness that exposes each run's tool
// calls at a URL (a /trace endpoint that returns {"toolCalls":[…]}), or a
// file server. ReadFile and ReadFileAll read an http:// or https:// name
// with one GET, then detect the format of the body as for a file.

// DefaultHTTPTimeout is the default Options.HTTPTimeout.
const DefaultHTTPTimeout = 2 * time.Minute

// HTTPHeaderEnvPrefix starts the environment variables whose values are
// sent as request headers when a trace is read from a URL and
// Options.HTTPHeader is nil: RETRIEVALTEST_HTTP_HEADER_AUTHORIZATION="Bearer
// …" sends "Authorization: Bearer …" (underscores in the name become
// hyphens: RETRIEVALTEST_HTTP_HEADER_X_API_KEY sends X-Api-Key). The
// headers follow a redirect only within the first URL's origin.
const HTTPHeaderEnvPrefix = "RETRIEVALTEST_HTTP_HEADER_"

// IsURL reports whether name is read over HTTP: it starts with http:// or
// https://.
func IsURL(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

// HTTPHeaderFromEnv returns the headers the RETRIEVALTEST_HTTP_HEADER_*
// variables of env (as os.Environ gives it) name.
func HTTPHeaderFromEnv(env []string) http.Header {
	h := http.Header{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, HTTPHeaderEnvPrefix) || len(k) == len(HTTPHeaderEnvPrefix) {
			continue
		}
		h.Add(strings.ReplaceAll(k[len(HTTPHeaderEnvPrefix):], "_", "-"), v)
	}
	return h
}

// HTTPStatusError is a response other than 200 OK to the GET of a trace.
type HTTPStatusError struct {
	URL    string
	Status string // "404 Not Found"
	Code   int
	Body   string // the start of the body, printable, for the server's reason
}

func (e *HTTPStatusError) Error() string {
	msg := fmt.Sprintf("GET %s: %s", e.URL, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// readURL reads every session of the trace at an http(s) URL.
func readURL(url string, opts *Options, one bool) ([]*Session, error) {
	timeout := opts.HTTPTimeout
	if timeout <= 0 {
		timeout = DefaultHTTPTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", url, err)
	}
	header := opts.HTTPHeader
	if header == nil {
		header = HTTPHeaderFromEnv(os.Environ())
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	client := &http.Client{CheckRedirect: func(next *http.Request, via []*http.Request) error {
		return checkRedirect(next, via, header)
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, timeoutError(err, timeout))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return nil, &HTTPStatusError{URL: url, Status: resp.Status, Code: resp.StatusCode,
			Body: printable.Line(strings.TrimSpace(string(b)))}
	}
	return readAll(&ctxReader{r: input.LimitReader(resp.Body, url, opts.maxInputSize()), timeout: timeout}, opts, one)
}

// maxRedirects is the number of redirects followed, as http.Client does
// by default.
const maxRedirects = 10

// checkRedirect drops every configured header from a redirected request
// once the chain has left the origin (scheme, host and port) of the first
// request: a key meant for one server must not reach another it redirects
// to. net/http strips only Authorization, Cookie and WWW-Authenticate, and
// only when the host name changes: X-Api-Key would follow to any host, and
// Authorization to another port. The client copies the first request's
// headers onto every hop, hence the whole chain is checked, not the last
// hop alone: a key does not come back on a redirect home.
func checkRedirect(next *http.Request, via []*http.Request, header http.Header) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := origin(via[0].URL)
	cross := origin(next.URL) != first
	for _, r := range via[1:] {
		cross = cross || origin(r.URL) != first
	}
	if cross {
		for k := range header {
			next.Header.Del(k)
		}
	}
	return nil
}

// origin is a URL's scheme, host and port, the port made explicit so that
// http://h and http://h:80 are one origin.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// ctxReader words a body cut by the timeout.
type ctxReader struct {
	r       io.Reader
	timeout time.Duration
}

func (c *ctxReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = timeoutError(err, c.timeout)
	}
	return n, err
}

func timeoutError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %v (the timeout): %w", timeout, err)
	}
	return err
}
