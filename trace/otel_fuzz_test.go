package trace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

func FuzzOTel(f *testing.F) {
	fuzzSeeds(f, filepath.Join("testdata", "otel", "*"),
		[]func([]byte) []byte{fuzzCut, fuzzReplace("\n", ""), fuzzReplace(`"parentSpanId"`, `"spanId"`)})
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"a","parentSpanId":"b","name":"execute_tool x"},{"traceId":"01","spanId":"b","parentSpanId":"a","name":"invoke_agent"}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"a","startTimeUnixNano":"-5","attributes":[{"value":{"kvlistValue":{"values":[{"value":{"arrayValue":{}}}]}},"key":"gen_ai.tool.call.arguments"}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		OTel{}.Detect(data)
		all, err := OTel{}.ReadAll(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckReadAll(t, all, err, 16)
		for _, s := range all {
			for _, c := range s.Calls {
				if c.Arguments != nil && !json.Valid(c.Arguments) {
					t.Fatalf("arguments are not JSON: %q", c.Arguments)
				}
			}
		}
	})
}
