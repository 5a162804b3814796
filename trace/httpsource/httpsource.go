// Package httpsource reads traces served over HTTP. Imported, it registers
// with package trace (trace.RegisterURLOpener) a GET with which
// trace.ReadFile and trace.ReadFileAll read an http:// or https:// name,
// and with them every scenario's trace: or traces: and every command's
// TRACE argument:
//
//	import _ "github.com/agentretrieval/agentretrieval/trace/httpsource"
//
// A harness that exposes each run's tool calls at a URL (a /trace endpoint
// that returns {"toolCalls":[…]}), or a file server, is read with one GET;
// the body's format is then detected as a file's. The request carries
// trace.Options.HTTPHeader, or, when that is nil, the headers the
// RETRIEVALTEST_HTTP_HEADER_* environment variables name (HeaderFromEnv);
// they follow a redirect only within the first URL's origin.
// trace.Options.HTTPTimeout (trace.DefaultHTTPTimeout when zero) bounds the
// whole GET, body included. A status other than 200 is a
// *trace.HTTPStatusError.
//
// It is a package of its own because net/http is most of what a program
// that reads traces would otherwise compile and initialize: a go test gate
// over local trace files links no HTTP client.
package httpsource

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

	"github.com/agentretrieval/agentretrieval/internal/printable"
	"github.com/agentretrieval/agentretrieval/trace"
)

func init() { trace.RegisterURLOpener(Open) }

// HeaderFromEnv returns the headers the RETRIEVALTEST_HTTP_HEADER_*
// variables of env (as os.Environ gives it) name: underscores in the name
// become hyphens (see trace.HTTPHeaderEnvPrefix).
func HeaderFromEnv(env []string) http.Header {
	h := http.Header{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, trace.HTTPHeaderEnvPrefix) || len(k) == len(trace.HTTPHeaderEnvPrefix) {
			continue
		}
		h.Add(strings.ReplaceAll(k[len(trace.HTTPHeaderEnvPrefix):], "_", "-"), v)
	}
	return h
}

// Open sends the GET of the trace at url and returns the body of a 200
// answer: a trace.URLOpener. Closing the body ends the request.
func Open(url string, opts trace.Options) (io.ReadCloser, error) {
	timeout := opts.HTTPTimeout
	if timeout <= 0 {
		timeout = trace.DefaultHTTPTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %v", url, err)
	}
	header := http.Header(opts.HTTPHeader)
	if header == nil {
		header = HeaderFromEnv(os.Environ())
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
		cancel()
		return nil, fmt.Errorf("GET %s: %w", url, timeoutError(err, timeout))
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return nil, &trace.HTTPStatusError{URL: url, Status: resp.Status, Code: resp.StatusCode,
			Body: printable.Line(strings.TrimSpace(string(b)))}
	}
	return &body{rc: resp.Body, cancel: cancel, timeout: timeout}, nil
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

// body is a response body whose read errors say when the timeout cut it,
// and whose Close ends the request's context.
type body struct {
	rc      io.ReadCloser
	cancel  context.CancelFunc
	timeout time.Duration
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = timeoutError(err, b.timeout)
	}
	return n, err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

func timeoutError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %v (the timeout): %w", timeout, err)
	}
	return err
}
