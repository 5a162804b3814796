package collect

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// tooLargeError is a body over the limit, sent or decompressed.
type tooLargeError struct {
	limit        int64
	decompressed bool
}

func (e *tooLargeError) Error() string {
	if e.decompressed {
		return fmt.Sprintf("the body is over the limit of %d bytes once decompressed", e.limit)
	}
	return fmt.Sprintf("the body is over the limit of %d bytes", e.limit)
}

// readBody reads a request body of at most max bytes, and at most max
// bytes once decompressed: a small gzip body that inflates to gigabytes
// is refused when it passes the limit, not after. Every byte read, sent
// or decompressed, is charged to c as it arrives (errBusy when the
// budget has no room).
func readBody(w http.ResponseWriter, body io.ReadCloser, length int64, gz bool, max int64, c *charge) ([]byte, error) {
	data, err := readAll(&chargedReader{r: http.MaxBytesReader(w, body, max), c: c}, length)
	if err != nil {
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			return nil, &tooLargeError{limit: max}
		case errors.Is(err, errBusy):
			return nil, err
		}
		return nil, fmt.Errorf("reading the body: %v", err)
	}
	if !gz {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the body is not gzip data (Content-Encoding says gzip): %v", err)
	}
	out, err := readAll(&chargedReader{r: io.LimitReader(zr, max+1), c: c}, 4*int64(len(data)))
	putBuffer(data)
	if errors.Is(err, errBusy) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("decompressing the body: %v", err)
	}
	if int64(len(out)) > max {
		return nil, &tooLargeError{limit: max, decompressed: true}
	}
	return out, nil
}

// maxPrealloc bounds the buffer a body is read into before its bytes
// arrive: a Content-Length is only a claim, and 256 connections that
// claim 16 MiB each must not take 4 GiB.
const maxPrealloc = 256 << 10

// readAll is io.ReadAll into a buffer of the expected length (up to
// maxPrealloc), which a body usually fills in one go, instead of one
// that starts small and is copied as it doubles.
func readAll(r io.Reader, expect int64) ([]byte, error) {
	b := getBuffer(int(min(max(expect+1, 512), maxPrealloc)))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// A request's body, the JSON of its spans and its lines are byte slices
// reused from one request to the next. Made anew for each, they were
// hundreds of kilobytes a request over a live heap of a few megabytes, so
// the garbage collector ran every few requests and took a third of the
// receiver's CPU time.
var buffers sync.Pool // of *[]byte

// maxPooled bounds the buffers kept for reuse: a rare large body is left
// to the collector.
const maxPooled = 1 << 20

// getBuffer returns an empty slice with room for n bytes.
func getBuffer(n int) []byte {
	if p, _ := buffers.Get().(*[]byte); p != nil && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// putBuffer keeps b for reuse; the caller must hold no other reference
// to its bytes.
func putBuffer(b []byte) {
	if cap(b) > 0 && cap(b) <= maxPooled {
		buffers.Put(&b)
	}
}

// OTLP/JSON differs from protobuf's own JSON mapping in one point that
// matters here: trace and span ids are hex strings, not base64. protojson
// knows only base64, so the ids are converted around it, in place:
//
//   - Decoding reads a 32-digit hex trace id as base64, which gives 24
//     bytes (16 for a span id: 12). Hex digits are all base64 letters and
//     32 of them carry exactly 24 bytes, so encoding those bytes again
//     gives back the very digits, which are then read as hex. A real id
//     is never 24 (or 12) bytes long, so nothing else is changed, and an
//     exporter that sends base64 anyway is read as it is.
//   - Encoding does the reverse: the id is replaced by the bytes whose
//     base64 spelling is its hex spelling, so protojson writes the hex.
//
// The OpenTelemetry Collector carries its own JSON codec for the same
// reason; these two functions are the whole of ours.

// idFromJSON undoes protojson's base64 reading of a hex id of n bytes.
func idFromJSON(b []byte, n int) []byte {
	if len(b) != n*3/2 {
		return b
	}
	if id, err := hex.DecodeString(base64.StdEncoding.EncodeToString(b)); err == nil && len(id) == n {
		return id
	}
	return b
}

// batch is a decoded request, split by file.
type batch struct {
	parts    []*part
	response exportResponse
}

// part is what one request adds to one file.
type part struct {
	name  string
	lines []byte // one OTLP/JSON request and a newline
}

// The bodies the receiver answers with are small messages of scalar
// fields: ExportTraceServiceResponse and ExportLogsServiceResponse (an
// optional partial_success holding a count and a message) and
// google.rpc.Status (a code and a message; no details are sent). They are
// encoded here, in protobuf and in OTLP/JSON, so that the receiver needs
// neither the collector services' generated types (which link gRPC) nor
// the googleapis ones.

// exportResponse is an Export*ServiceResponse.
type exportResponse struct {
	rejectedName string // the JSON name of the count: rejectedSpans, rejectedLogRecords
	rejected     int64
	message      string
}

// marshal encodes the response in enc and returns it with its
// Content-Type. A full success is the empty message.
func (r exportResponse) marshal(enc encoding) ([]byte, string) {
	partial := r.rejected != 0 || r.message != ""
	if enc == protoEncoding {
		var b []byte
		if partial {
			// partial_success = 1 { rejected_* = 1; error_message = 2 }
			var inner []byte
			if r.rejected != 0 {
				inner = protowire.AppendTag(inner, 1, protowire.VarintType)
				inner = protowire.AppendVarint(inner, uint64(r.rejected))
			}
			inner = appendString(inner, 2, r.message)
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendBytes(b, inner)
		}
		return b, "application/x-protobuf"
	}
	if !partial {
		return []byte("{}"), "application/json"
	}
	// int64 is a decimal string in the protobuf JSON mapping.
	inner := map[string]any{r.rejectedName: strconv.FormatInt(r.rejected, 10)}
	if r.message != "" {
		inner["errorMessage"] = r.message
	}
	return mustJSON(map[string]any{"partialSuccess": inner}), "application/json"
}

// statusBody encodes a google.rpc.Status in enc and returns it with its
// Content-Type.
func statusBody(c rpcStatus, message string, enc encoding) ([]byte, string) {
	if enc == protoEncoding {
		var b []byte
		if c != 0 {
			b = protowire.AppendTag(b, 1, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(c))
		}
		return appendString(b, 2, message), "application/x-protobuf"
	}
	m := map[string]any{"message": message}
	if c != 0 {
		m["code"] = int32(c)
	}
	return mustJSON(m), "application/json"
}

// appendString appends a string field, left out when empty as proto3
// does.
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// mustJSON encodes a map of strings and numbers, which cannot fail.
func mustJSON(v map[string]any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// fail answers with an error status and a google.rpc.Status that says
// why, as the specification asks of an OTLP/HTTP failure.
func fail(w http.ResponseWriter, asProto bool, httpStatus int, format string, args ...any) {
	enc := jsonEncoding
	if asProto {
		enc = protoEncoding
	}
	body, ctype := statusBody(rpcCode(httpStatus), fmt.Sprintf(format, args...), enc)
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(httpStatus)
	_, _ = w.Write(body)
}

// rpcStatus is a google.rpc.Code.
type rpcStatus int32

// The codes of google.rpc.Code that the receiver answers with.
const (
	codeInvalidArgument   rpcStatus = 3
	codePermissionDenied  rpcStatus = 7
	codeResourceExhausted rpcStatus = 8
	codeUnimplemented     rpcStatus = 12
	codeInternal          rpcStatus = 13
	codeUnavailable       rpcStatus = 14
	codeUnauthenticated   rpcStatus = 16
)

// rpcCode is the gRPC code that goes with an HTTP status.
func rpcCode(httpStatus int) rpcStatus {
	switch httpStatus {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		return codeInvalidArgument
	case http.StatusUnauthorized:
		return codeUnauthenticated
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return codeUnimplemented
	case http.StatusRequestEntityTooLarge:
		return codeResourceExhausted
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		return codeUnavailable
	case http.StatusMisdirectedRequest:
		return codePermissionDenied
	}
	return codeInternal
}
