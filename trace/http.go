package trace

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// A trace may be served over HTTP: a harness that exposes each run's tool
// calls at a URL (a /trace endpoint that returns {"toolCalls":[…]}), or a
// file server. ReadFile and ReadFileAll read an http:// or https:// name
// through the URLOpener registered with RegisterURLOpener, then detect the
// format of the body as for a file. Package trace/httpsource registers one
// GET when it is imported; this package links no HTTP client, so that a
// program that reads only files (a go test gate over local traces) does
// not compile or initialize one.

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

// A URLOpener opens the trace at an http:// or https:// URL for reading,
// with opts' HTTPHeader and HTTPTimeout: the timeout bounds the whole read,
// body included, until the body is closed. Its errors name the URL (a
// status other than 200 is an *HTTPStatusError).
type URLOpener func(url string, opts Options) (io.ReadCloser, error)

var urlOpener atomic.Pointer[URLOpener]

// RegisterURLOpener makes ReadFile and ReadFileAll read http:// and
// https:// names with open, replacing the one registered before. Package
// trace/httpsource registers its GET when imported:
//
//	import _ "github.com/agentretrieval/agentretrieval/trace/httpsource"
//
// The retrievaltest command imports it.
func RegisterURLOpener(open URLOpener) {
	urlOpener.Store(&open)
}

// ErrNoURLOpener is the error of reading a URL when no URLOpener is
// registered.
var ErrNoURLOpener = errors.New(`reading a trace over HTTP needs package trace/httpsource: ` +
	`import _ "github.com/agentretrieval/agentretrieval/trace/httpsource"`)

// readURL reads every session of the trace at an http(s) URL.
func readURL(url string, opts *Options, one bool) ([]*Session, error) {
	open := urlOpener.Load()
	if open == nil || *open == nil {
		return nil, fmt.Errorf("%s: %w", url, ErrNoURLOpener)
	}
	body, err := (*open)(url, *opts)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return readAll(input.LimitReader(body, url, opts.maxInputSize()), opts, one)
}
