package collect

import (
	"cmp"
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
)

// Group says how spans and log records are split into files.
type Group int

const (
	// ByTrace writes one file per trace id (log records without one: per
	// session.id).
	ByTrace Group = iota
	// BySession writes one file per service.name and session attribute.
	BySession
)

// String returns "trace" or "session", the names ParseGroup reads.
func (g Group) String() string {
	if g == BySession {
		return "session"
	}
	return "trace"
}

// ParseGroup reads "trace" or "session".
func ParseGroup(s string) (Group, error) {
	switch s {
	case "trace", "":
		return ByTrace, nil
	case "session":
		return BySession, nil
	}
	return 0, fmt.Errorf("unknown grouping %q (want trace or session)", s)
}

// Defaults of Options.
const (
	DefaultAddr            = "127.0.0.1:4318"
	DefaultMaxRequestBytes = 16 << 20
	DefaultMaxConcurrent   = 8
	DefaultMaxConnections  = 256
)

// Options configure a Receiver (and a Server).
type Options struct {
	// Dir is the folder the trace files are written to; it is created
	// when missing.
	Dir string
	// Group chooses the files: ByTrace (the default) or BySession.
	Group Group
	// MaxRequestBytes bounds a request body, both as sent and once
	// decompressed; 0 means DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// MaxConcurrent bounds the requests read, decoded and written at
	// once; 0 means DefaultMaxConcurrent.
	MaxConcurrent int
	// MaxConnections bounds a Server's open connections; 0 means
	// DefaultMaxConnections.
	MaxConnections int
	// Token, when not empty, is the bearer token every request must
	// carry. Listen requires one to bind an address that is not loopback.
	Token string
}

func (o Options) withDefaults() Options {
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	return o
}

// Receiver is the OTLP/HTTP handler: it decodes the requests posted to
// /v1/traces and /v1/logs and appends them to trace files (see the
// package documentation). It is safe for concurrent use.
type Receiver struct {
	opts  Options
	slots chan struct{} // one token per request being handled
	files *fileSet

	mu       sync.Mutex
	closed   bool
	inFlight sync.WaitGroup
}

// NewReceiver returns a receiver that writes to opts.Dir, creating it.
func NewReceiver(opts Options) (*Receiver, error) {
	opts = opts.withDefaults()
	if opts.Dir == "" {
		return nil, errors.New("no output folder given")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	return &Receiver{opts: opts, slots: make(chan struct{}, opts.MaxConcurrent), files: newFileSet(opts.Dir)}, nil
}

// Files returns the paths of the files written to so far, sorted.
func (r *Receiver) Files() []string { return r.files.paths() }

// Close makes further requests fail with 503 and waits for the requests
// being handled to be written. Every file is closed after each write, so
// nothing is left to flush.
func (r *Receiver) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.inFlight.Wait()
	return nil
}

// enter registers a request; it reports false once the receiver is closed.
func (r *Receiver) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.inFlight.Add(1)
	return true
}

// signalKind is what a path receives.
type signalKind int

const (
	traces signalKind = iota
	logs
)

// ServeHTTP handles one export request.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var sig signalKind
	switch req.URL.Path {
	case "/v1/traces":
		sig = traces
	case "/v1/logs":
		sig = logs
	default:
		fail(w, false, http.StatusNotFound, "no such path: %s (this receiver takes POST /v1/traces and /v1/logs)", req.URL.Path)
		return
	}
	enc, encErr := encodingOf(req.Header.Get("Content-Type"))
	asProto := enc == protoEncoding
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, asProto, http.StatusMethodNotAllowed, "method %s not allowed; OTLP exports are POSTed", req.Method)
		return
	}
	if !r.authorized(req) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="retrievaltest collect"`)
		fail(w, asProto, http.StatusUnauthorized, "missing or wrong bearer token (send Authorization: Bearer TOKEN)")
		return
	}
	if encErr != nil {
		fail(w, asProto, http.StatusUnsupportedMediaType, "%v", encErr)
		return
	}
	gz, err := gzipped(req.Header.Get("Content-Encoding"))
	if err != nil {
		fail(w, asProto, http.StatusUnsupportedMediaType, "%v", err)
		return
	}
	if req.ContentLength > r.opts.MaxRequestBytes {
		fail(w, asProto, http.StatusRequestEntityTooLarge, "the body is %d bytes, over the limit of %d", req.ContentLength, r.opts.MaxRequestBytes)
		return
	}
	if !r.enter() {
		fail(w, asProto, http.StatusServiceUnavailable, "the receiver is shutting down")
		return
	}
	defer r.inFlight.Done()
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-req.Context().Done():
		return // the client has gone; nobody reads an answer
	}
	body, err := readBody(w, req.Body, gz, r.opts.MaxRequestBytes)
	if err != nil {
		var big *tooLargeError
		if errors.As(err, &big) {
			fail(w, asProto, http.StatusRequestEntityTooLarge, "%v", err)
		} else {
			fail(w, asProto, http.StatusBadRequest, "%v", err)
		}
		return
	}
	var b *batch
	switch sig {
	case traces:
		b, err = decodeTraces(body, enc, r.opts.Group)
	case logs:
		b, err = decodeLogs(body, enc, r.opts.Group)
	}
	if err != nil {
		fail(w, asProto, http.StatusBadRequest, "%v", err)
		return
	}
	for _, p := range b.parts {
		if err := r.files.append(p.name, p.lines); err != nil {
			fail(w, asProto, http.StatusInternalServerError, "writing %s: %v", p.name, err)
			return
		}
	}
	reply(w, enc, b.response)
}

func (r *Receiver) authorized(req *http.Request) bool {
	if r.opts.Token == "" {
		return true
	}
	h := req.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(r.opts.Token)) == 1
}

// encoding is the body's encoding.
type encoding int

const (
	jsonEncoding encoding = iota
	protoEncoding
)

// encodingOf reads the Content-Type of a request.
func encodingOf(contentType string) (encoding, error) {
	mt, _, err := mime.ParseMediaType(cmp.Or(contentType, "(none)"))
	switch {
	case err == nil && mt == "application/x-protobuf":
		return protoEncoding, nil
	case err == nil && mt == "application/json":
		return jsonEncoding, nil
	}
	return jsonEncoding, fmt.Errorf("unsupported Content-Type %q (want application/x-protobuf or application/json)", contentType)
}

// gzipped reads the Content-Encoding of a request.
func gzipped(ce string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(ce)) {
	case "", "identity":
		return false, nil
	case "gzip":
		return true, nil
	}
	return false, fmt.Errorf("unsupported Content-Encoding %q (want gzip or none)", ce)
}

// reply writes a successful response in the request's encoding.
func reply(w http.ResponseWriter, enc encoding, m proto.Message) {
	body, ctype, err := marshalReply(m, enc)
	if err != nil {
		fail(w, enc == protoEncoding, http.StatusInternalServerError, "encoding the response: %v", err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
