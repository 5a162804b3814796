package trace

import (
	"bytes"
	"testing"
)

func FuzzToolCalls(f *testing.F) {
	atifFuzzSeeds(f, "toolcalls")
	f.Add([]byte(`[{"tool":"a","timestamp":1e300},{"tool":"b","timestamp":"-99999999999999999"},{"tool":"c","cumulativeTokens":"x"}]`))
	f.Add([]byte(`{"toolCalls":{"tool":"a"},"tools":"x","agent":7}`))
	f.Add([]byte(`[[],{},null,"x"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ToolCalls{}.Detect(data)
		s, err := ToolCalls{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 0)
	})
}
