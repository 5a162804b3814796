package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A validLongLine is a record of a valid trace whose one string runs to
// hundreds of megabytes: head, then pattern repeated to size bytes (valid
// string content), then tail, inserted after line `after` of the fixture.
type validLongLine struct {
	format, fixture string
	after           int
	head, pattern   string
	tail            string
	size            int64
	// check says what must hold of what was read.
	check func(all []*Session) error
}

// plainText is string content with escapes, non-ASCII text and a newline;
// jsonText is the same once more escaped, as a string inside a JSON text
// that is itself a string.
const (
	plainText = `log line \"q\" caf\u00e9 日本 \\ end\n`
	jsonText  = `log line \\\"q\\\" caf\\u00e9 日本 \\\\ end\\n`
)

// plainDecoded is plainText read.
const plainDecoded = "log line \"q\" café 日本 \\ end\n"

var validLongLines = map[string]validLongLine{
	// The output of a Codex function call is a JSON text in a string: its
	// exit code comes after the output, so it is kept only if the string
	// is read as JSON.
	"codex output holding JSON": {
		format: "codex", fixture: "testdata/codex/minimal.rollout.jsonl", after: 4,
		head: `{"timestamp":"2025-11-20T09:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cat big.log\"],\"workdir\":\"/work/shop\"}","call_id":"call_big"}}` + "\n" +
			`{"timestamp":"2025-11-20T09:00:03.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_big","output":"{\"output\":\"`,
		size: 300 << 20, pattern: jsonText, tail: `\",\"metadata\":{\"exit_code\":3,\"duration_seconds\":0.5}}"}}`,
		check: func(all []*Session) error {
			c, err := callNamed(all, "call_big")
			if err != nil {
				return err
			}
			if !c.IsError {
				return errors.New("the exit code after the long output was lost")
			}
			return resultCut(c)
		},
	},
	"gemini-cli session document": {
		format: "gemini-cli",
		head: `{"sessionId":"s1","projectHash":"p","startTime":"2026-02-01T09:00:00.000Z","messages":[{"id":"g9","timestamp":"2026-02-01T09:00:06.000Z","type":"gemini","content":"","toolCalls":[` +
			`{"id":"read_file-9","name":"read_file","args":{"file_path":"/work/app/big.go"},"status":"success","timestamp":"2026-02-01T09:00:07.000Z","result":[{"functionResponse":{"id":"read_file-9","name":"read_file","response":{"output":"`,
		size: 300 << 20, pattern: plainText, tail: `"}}}]}]}]}`,
		check: func(all []*Session) error {
			c, err := callNamed(all, "read_file-9")
			if err != nil {
				return err
			}
			return resultCut(c)
		},
	},
	"gemini-cli result": {
		format: "gemini-cli", fixture: "testdata/gemini-cli/minimal.session.jsonl", after: 3,
		head: `{"id":"g9","timestamp":"2026-02-01T09:00:06.000Z","type":"gemini","content":"","toolCalls":[{"id":"read_file-9","name":"read_file","args":{"file_path":"/work/app/big.go"},"status":"success","timestamp":"2026-02-01T09:00:07.000Z","result":[{"functionResponse":{"id":"read_file-9","name":"read_file","response":{"output":"`,
		size: 300 << 20, pattern: plainText, tail: `"}}}]}]}`,
		check: func(all []*Session) error {
			c, err := callNamed(all, "read_file-9")
			if err != nil {
				return err
			}
			return resultCut(c)
		},
	},
	"otel tool result": {
		format: "otel", fixture: "testdata/otel/two-traces.collector.jsonl", after: 1,
		head: `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"coding-agent"}}]},"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"e0000000000000ff","name":"execute_tool grep","kind":1,"startTimeUnixNano":"1760000002000000000","endTimeUnixNano":"1760000003000000000","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"grep"}},{"key":"gen_ai.tool.call.id","value":{"stringValue":"call_big"}},{"key":"gen_ai.tool.call.result","value":{"stringValue":"`,
		size: 300 << 20, pattern: plainText, tail: `"}},{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"pattern\":\"x\"}"}}]}]}]}]}`,
		check: func(all []*Session) error {
			c, err := callNamed(all, "call_big")
			if err != nil {
				return err
			}
			if !strings.Contains(string(c.Arguments), `"pattern"`) {
				return fmt.Errorf("the arguments after the long result were lost: %s", c.Arguments)
			}
			return resultCut(c)
		},
	},
	// The model's output messages are a JSON text in a string attribute:
	// a tool call after a long text part is read only if the string is
	// read as JSON.
	"otel messages holding JSON": {
		format: "otel", fixture: "testdata/otel/two-traces.collector.jsonl", after: 1,
		head: `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"c0000000000000ff","name":"chat gpt-4.1","kind":1,"startTimeUnixNano":"1760000002000000000","endTimeUnixNano":"1760000003000000000","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"`,
		size: 300 << 20, pattern: jsonText, tail: `\"},{\"type\":\"tool_call\",\"id\":\"call_big\",\"name\":\"get_file\",\"arguments\":{\"path\":\"big.go\"}}]}]"}}]}]}]}]}`,
		check: func(all []*Session) error {
			c, err := callNamed(all, "call_big")
			if err != nil {
				return err
			}
			if c.Name != "get_file" || !strings.Contains(string(c.Arguments), "big.go") {
				return fmt.Errorf("the call after the long text is not whole: %s %s", c.Name, c.Arguments)
			}
			return nil
		},
	},
}

// callNamed finds the call with id.
func callNamed(all []*Session, id string) (*ToolCall, error) {
	for _, s := range all {
		for i := range s.Calls {
			if s.Calls[i].ID == id {
				return &s.Calls[i], nil
			}
		}
	}
	return nil, fmt.Errorf("no call %s", id)
}

// resultCut checks that a result kept what the command keeps, and read
// the start of the long string right.
func resultCut(c *ToolCall) error {
	if !c.HasResult || len(c.Result) > cliResultBytes || len(c.Result) < cliResultBytes-len(plainDecoded) {
		return fmt.Errorf("the result of %s has %d bytes, not about %d", c.ID, len(c.Result), cliResultBytes)
	}
	if !strings.HasPrefix(c.Result, strings.Repeat(plainDecoded, 3)) {
		return fmt.Errorf("the result of %s starts %q", c.ID, c.Result[:min(len(c.Result), 100)])
	}
	return nil
}

// input returns the case's trace as a stream, and the fixture alone.
func (c validLongLine) input(t testing.TB) (io.Reader, []byte) {
	var data []byte
	if c.fixture != "" {
		var err error
		data, err = os.ReadFile(c.fixture)
		require.NoError(t, err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	before := bytes.Join(lines[:c.after], nil)
	after := bytes.Join(lines[c.after:], nil)
	fill := c.size - c.size%int64(len(c.pattern)) // whole patterns, so that no escape is split
	return io.MultiReader(bytes.NewReader(before), strings.NewReader(c.head), &filler{pattern: []byte(c.pattern), n: fill},
		strings.NewReader(c.tail+"\n"), bytes.NewReader(after)), data
}

func TestAValidLineOfHundredsOfMegabytesIsReadInBoundedMemory(t *testing.T) {
	if os.Getenv("TRACE_MEMORY_CASE") != "" {
		runMemoryChild(t, func(name string) ([]*Session, error) {
			c := validLongLines[name]
			r, _ := c.input(t)
			all, err := ReadAll(r, Options{Format: c.format, Source: "in", MaxResultBytes: cliResultBytes})
			if err == nil {
				err = c.check(all)
			}
			return all, err
		})
		return
	}
	if testing.Short() {
		t.Skip("reads lines of 300 MB")
	}
	for name, c := range validLongLines {
		t.Run(name, func(t *testing.T) {
			_, fixture := c.input(t)
			var want []*Session
			if len(fixture) > 0 {
				var err error
				want, err = ReadAll(bytes.NewReader(fixture), Options{Format: c.format, Source: "in", MaxResultBytes: cliResultBytes})
				require.NoError(t, err)
			}
			wantCalls := 0
			for _, s := range want {
				wantCalls += len(s.Calls)
			}
			got := inChild(t, "TestAValidLineOfHundredsOfMegabytesIsReadInBoundedMemory", name)
			require.Empty(t, got.Err)
			t.Logf("%s: Sys %d MiB, HeapSys %d MiB", name, got.Sys>>20, got.HeapSys>>20)
			assert.Less(t, got.Sys, uint64(memoryLimit), "memory taken by the read")
			assert.Equal(t, wantCalls+1, got.Calls, "the long line's call and those around it are read")
			found := false
			for _, w := range got.Warnings {
				found = found || strings.Contains(w.Message, "was read with its long strings cut")
			}
			assert.True(t, found, "a warning says what was cut: %v", got.Warnings)
		})
	}
}
