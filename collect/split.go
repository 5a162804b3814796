package collect

import (
	"cmp"
	"encoding/hex"
)

// validTraceID reports whether id is a trace id: 16 bytes, not all zero
// (the specification's "invalid" id).
func validTraceID(id []byte) bool {
	if len(id) != 16 {
		return false
	}
	for _, b := range id {
		if b != 0 {
			return true
		}
	}
	return false
}

// fileName chooses the file of a span or log record (see the package
// documentation). traceID is empty or valid.
func fileName(g Group, service, session string, traceID []byte) string {
	service = cmp.Or(service, "unknown_service")
	switch {
	case g == BySession && session != "":
		return sanitize(service) + "_" + sanitize(session) + ".jsonl"
	case len(traceID) > 0:
		return hex.EncodeToString(traceID) + ".jsonl"
	case session != "":
		return "session-" + sanitize(session) + ".jsonl"
	}
	return "service-" + sanitize(service) + ".jsonl"
}
