// Package collect is the OTLP/HTTP receiver behind "retrievaltest
// collect": agents post their spans and log events to it while they run,
// and it writes them as trace files that package trace reads.
//
// # Protocol
//
// A Receiver is an http.Handler that speaks OTLP/HTTP as the OpenTelemetry
// protocol specification defines it:
//
//   - POST /v1/traces takes an ExportTraceServiceRequest, POST /v1/logs an
//     ExportLogsServiceRequest; /v1/metrics is not served (metrics record
//     no tool calls), so an exporter of metrics gets 404.
//   - The body is binary protobuf (Content-Type application/x-protobuf) or
//     OTLP/JSON (application/json), optionally gzip-compressed
//     (Content-Encoding gzip). Messages are read with a table of every
//     field of OTLP's traces and logs, generated from
//     go.opentelemetry.io/proto/otlp and checked against it by a test, so
//     every field an exporter may send is understood; unknown fields are
//     ignored, as the specification asks of receivers. A protobuf body is
//     transcoded: its wire format is walked once and written straight to
//     OTLP/JSON, without building a Go value per span, attribute and
//     value. A body in an encoding no exporter writes (a singular field
//     sent twice, to be merged; a repeated field's elements apart) is
//     first written again as a protobuf decoder reads it, and a JSON body
//     is read as the protobuf JSON mapping reads it, into the protobuf
//     encoding: both are then transcoded. The tests hold all three to
//     what the OTLP types, proto and protojson make of the same bodies.
//   - A success is 200 with an ExportTraceServiceResponse (or
//     ExportLogsServiceResponse) in the request's encoding. Spans that
//     cannot be kept (a trace id that is not 16 bytes, or all zero) are
//     counted in its partial_success, with the reason; the others are
//     written.
//   - A failure carries a google.rpc.Status whose message says what was
//     wrong (in protobuf for a protobuf request, else in JSON): 400 for a
//     body that does not decode (nothing of it is written), 401 without
//     the bearer token, 404, 405, 413 for a body over
//     Options.MaxRequestBytes (compressed or not, so a gzip bomb is
//     refused) or with too many messages (see Limits), 415 for another
//     content type or encoding, 421 for a Host that a Server on loopback
//     does not answer, 429 with Retry-After when the memory budget is
//     taken, 500 when the file system refuses a write, 503 once the
//     receiver is closed. Nothing of a refused request is written.
//
// # Files
//
// Every request is split by trace: Options.Group ByTrace (the default)
// writes each trace id to DIR/<trace id>.jsonl; BySession writes each
// service.name and session (the session.id or gen_ai.conversation.id
// attribute of the span or record, else of its resource) to
// DIR/<service>_<session>.jsonl, so that one agent session that starts a
// trace per turn stays one file. A log record goes by its session, since
// an agent may log one session under many traces: to
// DIR/session-<session.id>.jsonl (BySession: its service and session),
// where the OTel reader of package trace makes the tool_result and
// tool_call events of Claude Code and Gemini CLI calls. A record without
// a session goes to its trace's file, and one with neither to
// DIR/service-<service.name>.jsonl.
//
// A file is OTLP JSON Lines: each line is one complete
// ExportTraceServiceRequest or ExportLogsServiceRequest in OTLP/JSON (ids
// in hex, enums as numbers), holding the part of one request that belongs
// to the file. It is the format the OpenTelemetry Collector's file
// exporter writes, and trace.Read (format "otel") reads it at any moment,
// while the receiver keeps appending.
//
// Names come from ids and attributes that a client chose, so they are
// sanitised: only ASCII letters, digits, '.', '-' and '_' are kept (a
// name never starts with '.'), at most 64 of them; a name that had to be
// changed gets a hash of the original so that two names never meet in
// one file. No part of a request is ever a path.
//
// # Durability
//
// Each request is decoded and split completely before anything is
// written. Then each file gets its lines in a single write to a file
// opened for appending, followed by fsync, and only then does the client
// get its 200. The requests for one file commit as a group: those that
// arrive while the file is being written and synced wait, and then go to
// it together, their lines in one write and one fsync, each answered
// only once that fsync has returned; one commit is written at a time per
// file, so requests never interleave their lines. With one client a
// commit is its request alone; many clients of one file share an fsync
// instead of queueing for one each. A crash (or kill -9) therefore loses
// at most the requests in flight, whose clients have had no answer and
// retry; the reader skips a last line cut short, with a warning, and
// keeps every line before it. (A request that spans several files and is
// cut between two of them is retried whole, so the files already written
// get its lines twice; the OTel reader of package trace reads a span id
// once, with a warning.)
// Files are closed after each write, so there is nothing left to flush
// at shutdown: Close (and a Server's shutdown) cuts the bodies still being
// read, whose clients have had no answer and retry, and waits for the
// requests read to be written and answered.
//
// # Limits
//
// Decoding multiplies a body: each message (a span, an attribute, a
// value) becomes a Go struct, and an empty attribute is 2 bytes of
// protobuf, so 16 MiB of them took 1.4 GB. The receiver therefore bounds
// what it takes before it decodes:
//
//   - Options.MaxRequestBytes (default 16 MiB) bounds a body, before and
//     after decompression (413).
//   - A body holds at most MaxRequestBytes/BytesPerMessage messages
//     (262,144 under the default limit), counted in the wire format or as
//     the JSON objects before decoding (413).
//   - Each request is charged an estimate of its memory: the bytes of its
//     body, sent and decompressed, as they are read, then 8 bytes per
//     byte of body and 256 per message for decoding and writing; at most
//     14 times MaxRequestBytes. Options.MaxMemory (default 32 times
//     MaxRequestBytes, 512 MiB) bounds the charges of all the requests in
//     flight: a request that does not fit is answered 429 with
//     Retry-After: 1, which OTLP exporters retry; one that could never
//     fit, 413.
//   - A body is read before its request takes a turn; Options.MaxConcurrent
//     (default 8) bounds the requests decoded and written at once, and
//     further ones wait.
//
// A Server also bounds the open connections (Options.MaxConnections,
// default 256), the time a client may take to send its headers
// (HeaderTimeout, 10 s) and its whole request (ReadTimeout, 30 s), and how
// long its shutdown waits for the requests read to be written
// (ShutdownTimeout, 30 s); since a slow body holds no turn, a client that
// trickles its request delays no other.
//
// # Security
//
// Listen binds 127.0.0.1:4318 by default. Options.Token, when set, is the
// bearer token every request must carry (Authorization: Bearer TOKEN);
// Listen refuses to bind an address that is not loopback without one,
// since an agent's traces hold the code it read. A Server on a loopback
// address answers only requests whose Host is localhost, 127.0.0.1 or
// [::1], with or without a port (421 otherwise): a web page can make a
// browser post to 127.0.0.1 through a name of its own (DNS rebinding),
// but not with one of these names as the Host. A Receiver mounted in a
// server of the caller's own does the same whenever it has no token,
// wherever it listens; Options.Hosts names the other hosts it may answer
// ("*" for any).
//
// # Recording one command
//
// RunCommand listens on a free loopback port, runs a command with the
// standard exporter variables pointing at it (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, OTEL_TRACES_EXPORTER and
// OTEL_LOGS_EXPORTER=otlp), stops when the command exits (after the
// requests it sent have been written) and returns the files written.
// Record does the same for an exec.Cmd of the caller's: it is the
// expectations.Recorder that records a scenario's run key (the command
// passes it as expectations.EvalOptions.Recorder; a go test gate as
// retrievaltest.Options.Recorder), so that expectations itself links no
// receiver.
package collect
