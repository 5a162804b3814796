package trace

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hugeResultRecords is a tool-calls document whose first record has a
// result of size bytes, streamed, between records of normal size.
func hugeResultRecords(size int64) io.Reader {
	return io.MultiReader(
		strings.NewReader("{\"agent\": \"harness\",\n \"toolCalls\": [\n  {\"tool\": \"Read\", \"arguments\": {\"path\": \"a.go\"}, \"result\": \""),
		&filler{pattern: []byte("plain output, caf\xc3\xa9 \\n \\\"quoted\\\" \\u00e9 "), n: size},
		strings.NewReader("\"},\n  {\"tool_name\": \"Grep\", \"Output\": \"ok\", \"isError\": false}\n]}\n"),
	)
}

func TestAHugeToolCallsResultIsCutAsItStreams(t *testing.T) {
	if os.Getenv("TRACE_MEMORY_CASE") != "" {
		runMemoryChild(t, func(string) ([]*Session, error) {
			s, err := ToolCalls{}.Read(hugeResultRecords(300<<20), Options{Source: "in", MaxResultBytes: cliResultBytes})
			if err != nil {
				return nil, err
			}
			if len(s.Calls) > 0 && len(s.Calls[0].Result) != cliResultBytes {
				s.Warnf(0, "first result of %d bytes", len(s.Calls[0].Result))
			}
			return []*Session{s}, nil
		})
		return
	}
	if testing.Short() {
		t.Skip("reads a result of 300 MB")
	}
	got := inChild(t, "TestAHugeToolCallsResultIsCutAsItStreams", "tool-calls")
	require.Empty(t, got.Err)
	t.Logf("Sys %d MiB, HeapSys %d MiB", got.Sys>>20, got.HeapSys>>20)
	assert.Less(t, got.Sys, uint64(memoryLimit), "memory taken by the read")
	assert.Equal(t, 2, got.Calls)
	assert.Empty(t, got.Warnings, "the first result is cut to MaxResultBytes")
}

// readToolCallsBothWays reads data with and without compaction.
func readToolCallsBothWays(data []byte, opts Options) (want, got *Session, wantErr, gotErr error) {
	toolCallsCompacting = false
	want, wantErr = ToolCalls{}.Read(bytes.NewReader(data), opts)
	toolCallsCompacting = true
	got, gotErr = ToolCalls{}.Read(bytes.NewReader(data), opts)
	return
}

// assertToolCallsCompactingReadsTheSame checks that compacting changes
// nothing the reader returns: calls, results, warnings and their lines,
// errors.
func assertToolCallsCompactingReadsTheSame(t *testing.T, data []byte) {
	t.Helper()
	for _, max := range []int{1, 7, 64} {
		want, got, wantErr, gotErr := readToolCallsBothWays(data, Options{Source: "in", MaxResultBytes: max})
		if wantErr != nil {
			require.Error(t, gotErr)
			assert.Equal(t, wantErr.Error(), gotErr.Error())
			continue
		}
		require.NoError(t, gotErr)
		assert.Equal(t, want, got, "MaxResultBytes %d", max)
	}
}

var toolCallsCompactSeeds = []string{
	`{"toolCalls":[{"tool":"a","result":"0123456789\u00e9\ud83d\ude00abc\\n\"q\" tail and more text"},{"tool":"b","output":"caf` + "\xc3\xa9 \xff\xfe" + ` bad utf8 and more"}]}`,
	`[{"toolName":"a","Result":"a long result that is cut","arguments":"{\"x\":\"a long argument kept whole\"}"},{"tool":"b","result":{"obj":"a long string in an object"}}]`,
	"[{\"tool\":\"a\",\"result\":\"a control \x01 char far in the result\"},{\"tool\":\"b\"}]",
	`[{"tool":"a","result":"a bad escape \q far in the result"}]`,
	`[{"tool":"a","result":"cut off \u00`,
	"{\"toolCalls\":[\n{\"tool\":\"a\",\n\"result\":\"line numbers after a long result\"},\n{\"tool\":7}\n]}",
	`{"tools":["x"],"toolCalls":[{"tool":"a","result":"x","res\u0075lt":"an escaped key is kept whole"}],"prompt":"a prompt longer than the cap"}`,
}

func TestCompactingToolCallsChangesNothingTheReaderReturns(t *testing.T) {
	for _, seed := range toolCallsCompactSeeds {
		assertToolCallsCompactingReadsTheSame(t, []byte(seed))
	}
}

func FuzzToolCallsCompactedReadsTheSame(f *testing.F) {
	for _, seed := range toolCallsCompactSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assertToolCallsCompactingReadsTheSame(t, data)
	})
}
