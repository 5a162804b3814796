package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func FuzzOTel(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "otel", "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures in testdata/otel: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add(bytes.ReplaceAll(data, []byte("\n"), nil))
		f.Add(bytes.ReplaceAll(data, []byte(`"parentSpanId"`), []byte(`"spanId"`)))
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"a","parentSpanId":"b","name":"execute_tool x"},{"traceId":"01","spanId":"b","parentSpanId":"a","name":"invoke_agent"}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"a","startTimeUnixNano":"-5","attributes":[{"value":{"kvlistValue":{"values":[{"value":{"arrayValue":{}}}]}},"key":"gen_ai.tool.call.arguments"}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		OTel{}.Detect(data)
		all, err := OTel{}.ReadAll(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		if err != nil {
			if all != nil {
				t.Fatalf("both sessions and an error: %v", err)
			}
			return
		}
		if len(all) == 0 {
			t.Fatal("neither a session nor an error")
		}
		for _, s := range all {
			atifFuzzCheck(t, s, nil)
			for _, c := range s.Calls {
				if c.Arguments != nil && !json.Valid(c.Arguments) {
					t.Fatalf("arguments are not JSON: %q", c.Arguments)
				}
				if len(c.Result) > 16 {
					t.Fatalf("result of %d bytes kept with MaxResultBytes 16", len(c.Result))
				}
			}
		}
	})
}
