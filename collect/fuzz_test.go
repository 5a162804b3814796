package collect

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecode feeds arbitrary bodies, as protobuf and as JSON, to the
// trace and log decoders: they never panic, and whatever they accept
// becomes lines that are each one JSON object of the request's kind.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"x"}]}]}]}`), false)
	f.Add([]byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"gemini_cli.tool_call","attributes":[{"key":"session.id","value":{"stringValue":"../s"}}]}]}]}]}`), false)
	f.Add(mustProto(f, traceRequest("a", toolSpan(traceID(1), 1, "c1", "a.go"))), true)
	f.Fuzz(func(t *testing.T, body []byte, asProto bool) {
		enc := jsonEncoding
		if asProto {
			enc = protoEncoding
		}
		for _, sig := range []signalKind{traces, logs} {
			for _, g := range []Group{ByTrace, BySession} {
				b, err := decode(body, enc, sig, g)
				if err != nil {
					continue
				}
				for _, p := range b.parts {
					if p.name != sanitizeCheck(p.name) {
						t.Fatalf("file name %q is not safe", p.name)
					}
					if bytes.Count(p.lines, []byte("\n")) != 1 || !json.Valid(p.lines) {
						t.Fatalf("%s: not one JSON line: %q", p.name, p.lines)
					}
				}
			}
		}
	})
}

// sanitizeCheck returns name when it is a safe file name, else "".
func sanitizeCheck(name string) string {
	if name == "" || name[0] == '.' {
		return ""
	}
	for _, c := range []byte(name) {
		if !(c == '-' || c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return ""
		}
	}
	return name
}
