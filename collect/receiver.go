package collect

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
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
	// MaxConcurrent bounds the requests decoded and written at once
	// (a body is read before its request takes a turn); 0 means
	// DefaultMaxConcurrent.
	MaxConcurrent int
	// MaxMemory bounds the memory, as estimated, of all the requests in
	// flight: the bodies being read, as they arrive, and the requests
	// being decoded and written. A request that does not fit is refused
	// with 429 and Retry-After; one that could never fit, with 413. 0
	// means 32 times MaxRequestBytes (512 MiB under the default limit),
	// and it is raised to the most one request can be charged,
	// MaxRequestBytes times 14.
	MaxMemory int64
	// MaxConnections bounds a Server's open connections; 0 means
	// DefaultMaxConnections.
	MaxConnections int
	// Token, when not empty, is the bearer token every request must
	// carry. Listen requires one to bind an address that is not loopback.
	Token string
	// Hosts are the host names (without a port) that a receiver with no
	// Token answers as the request's Host, besides localhost, 127.0.0.1
	// and [::1]; "*" answers any. A receiver with no token has nothing
	// else to tell a web page that reached it by DNS rebinding (a name of
	// the page's own that resolves to this machine) from a local client,
	// so by default it answers only the names of this machine, wherever
	// it is mounted; any other Host gets 421.
	Hosts []string
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
	if o.MaxMemory <= 0 {
		o.MaxMemory = 32 * o.MaxRequestBytes
	}
	o.MaxMemory = max(o.MaxMemory, maxCostFactor*o.MaxRequestBytes)
	return o
}

// Receiver is the OTLP/HTTP handler: it decodes the requests posted to
// /v1/traces and /v1/logs and appends them to trace files (see the
// package documentation). It is safe for concurrent use.
type Receiver struct {
	opts  Options
	slots chan struct{} // one token per request being decoded and written
	mem   *budget
	files *fileSet

	stopping context.Context // done once Close has begun
	stop     func()

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
	stopping, stop := context.WithCancel(context.Background())
	return &Receiver{opts: opts, slots: make(chan struct{}, opts.MaxConcurrent), mem: &budget{max: opts.MaxMemory},
		files: newFileSet(opts.Dir), stopping: stopping, stop: stop}, nil
}

// Files returns the paths of the files written to so far, sorted.
func (r *Receiver) Files() []string { return r.files.paths() }

// Close makes further requests fail with 503, cuts the bodies still
// being read (their clients have had no answer, and retry), and waits for
// the requests read to be written. Every file is closed after each write,
// so nothing is left to flush.
func (r *Receiver) Close() error {
	r.beginClose()
	r.inFlight.Wait()
	return nil
}

// beginClose is the first half of Close, which does not wait.
func (r *Receiver) beginClose() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.stop()
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

// hostServed reports whether a receiver without a token answers a
// request whose Host header is h.
func (r *Receiver) hostServed(h string) bool {
	if loopbackHost(h) {
		return true
	}
	name := h
	if host, _, err := net.SplitHostPort(h); err == nil {
		name = host
	}
	for _, allowed := range r.opts.Hosts {
		if allowed == "*" || (name != "" && strings.EqualFold(strings.Trim(allowed, "[]"), name)) {
			return true
		}
	}
	return false
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
	if r.opts.Token == "" && !r.hostServed(req.Host) {
		fail(w, asProto, http.StatusMisdirectedRequest,
			"host %q is not served; a receiver without a token answers only localhost, 127.0.0.1 and [::1] (and the names in Options.Hosts)", req.Host)
		return
	}
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
	// The body is read before the request takes a turn, so that clients
	// that trickle their bodies hold no turn; the read deadline of the
	// Server bounds them, and Close cuts them.
	rc := http.NewResponseController(w)
	cut := context.AfterFunc(r.stopping, func() { _ = rc.SetReadDeadline(time.Now()) })
	defer cut()
	mem := &charge{b: r.mem}
	defer mem.release()
	body, err := readBody(w, req.Body, req.ContentLength, gz, r.opts.MaxRequestBytes, mem)
	if err != nil {
		var big *tooLargeError
		switch {
		case errors.As(err, &big):
			fail(w, asProto, http.StatusRequestEntityTooLarge, "%v", err)
		case errors.Is(err, errBusy):
			busy(w, asProto)
		case r.stopping.Err() != nil:
			fail(w, asProto, http.StatusServiceUnavailable, "the receiver is shutting down")
		default:
			fail(w, asProto, http.StatusBadRequest, "%v", err)
		}
		return
	}
	// Nothing decoded from the body points into it (the lines are
	// copies), so it is reused once the request is answered.
	defer putBuffer(body)
	if !cut() {
		fail(w, asProto, http.StatusServiceUnavailable, "the receiver is shutting down")
		return
	}
	if err := r.charge(mem, body, enc, sig); err != nil {
		if errors.Is(err, errBusy) {
			busy(w, asProto)
		} else {
			fail(w, asProto, http.StatusRequestEntityTooLarge, "%v", err)
		}
		return
	}
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-req.Context().Done():
		return // the client has gone; nobody reads an answer
	}
	b, err := decode(body, enc, sig, r.opts.Group)
	if err != nil {
		fail(w, asProto, http.StatusBadRequest, "%v", err)
		return
	}
	defer func() {
		// A commit that took a request's lines is written before append
		// returns, so they are free again.
		for _, p := range b.parts {
			putBuffer(p.lines)
		}
	}()
	for _, p := range b.parts {
		if err := r.files.append(p.name, p.lines); err != nil {
			fail(w, asProto, http.StatusInternalServerError, "writing %s: %v", p.name, err)
			return
		}
	}
	reply(w, enc, b.response)
}

// decode splits a request body by file. A protobuf body is transcoded
// (see transcode); one in an irregular encoding is first written again
// in the regular one (see canonical), and a JSON body read into it (see
// jsonToWire).
func decode(body []byte, enc encoding, sig signalKind, g Group) (*batch, error) {
	// The request is read as a TracesData (LogsData), the message OTLP
	// defines for traces at rest: its one field has the number, type and
	// JSON name of the request's, so both encodings read the same.
	what, m := "ExportTraceServiceRequest", messages()[tracesDataName]
	if sig == logs {
		what, m = "ExportLogsServiceRequest", messages()[logsDataName]
	}
	if enc == protoEncoding {
		b, err := transcode(body, sig, g)
		if !errors.Is(err, errIrregular) {
			return b, err
		}
		if body, err = canonical(nil, body, m, 1); err != nil {
			return nil, fmt.Errorf("the body is not a protobuf %s: %v", what, err)
		}
	} else {
		var err error
		if body, err = jsonToWire(body, m); err != nil {
			return nil, fmt.Errorf("the body is not a OTLP/JSON %s: %v", what, err)
		}
	}
	b, err := transcodeUpTo(body, sig, g, maxMessageDepth)
	if err != nil {
		// The encoding is regular by construction.
		return nil, fmt.Errorf("transcoding the %s as read: %v", what, err)
	}
	return b, nil
}

// charge counts the messages of a body and charges the memory that
// decoding and writing it will take; a body with too many messages, or
// one whose charge could never fit the budget, is too large (413).
func (r *Receiver) charge(mem *charge, body []byte, enc encoding, sig signalKind) error {
	limit := int(r.opts.MaxRequestBytes / BytesPerMessage)
	var n int
	var err error
	if enc == jsonEncoding {
		n, err = countJSONObjects(body, limit)
	} else {
		md := messages()[tracesDataName] // the layout of the requests (see decodeTraces)
		if sig == logs {
			md = messages()[logsDataName]
		}
		n, err = countMessages(body, md, limit)
	}
	if err != nil {
		return err
	}
	cost := int64(len(body))*byteCost + int64(n)*messageCost
	if mem.taken+cost > r.mem.max {
		return fmt.Errorf("the body would take an estimated %d bytes to decode and write, over the memory limit of %d", mem.taken+cost, r.mem.max)
	}
	if !mem.take(cost) {
		return errBusy
	}
	return nil
}

// busy answers 429: the memory budget is taken for now. OTLP exporters
// retry after the time Retry-After says.
func busy(w http.ResponseWriter, asProto bool) {
	w.Header().Set("Retry-After", "1")
	fail(w, asProto, http.StatusTooManyRequests, "%v; retry later", errBusy)
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
func reply(w http.ResponseWriter, enc encoding, r exportResponse) {
	body, ctype := r.marshal(enc)
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
