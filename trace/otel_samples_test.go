package trace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otelGenericCount decodes an OTLP/JSON document with encoding/json,
// independently of the reader: its distinct trace ids, its spans, and the
// spans that follow the GenAI conventions (an execute_tool span or a gen_ai.*
// attribute).
func otelGenericCount(t *testing.T, file string) (traces []string, spans, genAI, tools int) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					TraceID    string `json:"traceId"`
					Name       string `json:"name"`
					Attributes []struct {
						Key   string `json:"key"`
						Value struct {
							StringValue string `json:"stringValue"`
						} `json:"value"`
					} `json:"attributes"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	seen := map[string]bool{}
	for _, rs := range doc.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				spans++
				id := strings.ToLower(sp.TraceID)
				if !seen[id] {
					seen[id] = true
					traces = append(traces, id)
				}
				tool := strings.HasPrefix(sp.Name, "execute_tool")
				gen := tool
				for _, a := range sp.Attributes {
					gen = gen || strings.HasPrefix(a.Key, "gen_ai.")
					tool = tool || a.Key == "gen_ai.operation.name" && a.Value.StringValue == "execute_tool"
				}
				if gen {
					genAI++
				}
				if tool {
					tools++
				}
			}
		}
	}
	return traces, spans, genAI, tools
}

// The OTLP specification's example trace has one server span and no GenAI
// attribute. It is valid OTLP/JSON, so it reads without error, as one
// session with no calls and a warning that says why: an error would tell a
// user that the file is broken, when it only is not an agent's trace.
func TestOTelSpecificationExampleIsASessionWithoutCalls(t *testing.T) {
	t.Parallel()
	for _, file := range sampleFiles(t, "otel/*.json") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			traces, spans, genAI, tools := otelGenericCount(t, file)
			require.Equal(t, 0, genAI, "the sample has no GenAI span")

			all, err := ReadFileAll(file, Options{})
			require.NoError(t, err)
			require.Len(t, all, len(traces))
			for i, s := range all {
				assert.Equal(t, "otel", s.Format)
				assert.Equal(t, traces[i], s.ID)
				assert.Len(t, s.Calls, tools)
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, "follows the OpenTelemetry GenAI conventions")
				assert.Contains(t, s.Warnings[0].Message, fmt.Sprintf("none of its %d spans", spans))
				assert.False(t, s.Start.IsZero(), "the span's start time is the session's")
			}
		})
	}
}
