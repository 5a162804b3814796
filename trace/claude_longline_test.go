package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readCompactingEveryLine reads data with every line going through the
// long-line compactor, as only lines past claudeLongLine do otherwise.
func readCompactingEveryLine(format Format, data []byte, opts Options) (*Session, error) {
	saved := claudeLongLine
	claudeLongLine = 0
	defer func() { claudeLongLine = saved }()
	return format.Read(bytes.NewReader(data), opts)
}

// assertCompactingReadsTheSame checks that compacting the lines of data
// changes nothing the reader returns: calls, results, warnings (with
// their offsets in the line), errors.
func assertCompactingReadsTheSame(t *testing.T, format Format, data []byte) {
	t.Helper()
	for _, max := range []int{0, 1, 7, 1 << 20} {
		opts := Options{Source: "in", MaxResultBytes: max}
		want, wantErr := format.Read(bytes.NewReader(data), opts)
		got, gotErr := readCompactingEveryLine(format, data, opts)
		if wantErr != nil {
			require.Error(t, gotErr)
			assert.Equal(t, wantErr.Error(), gotErr.Error())
			continue
		}
		require.NoError(t, gotErr)
		assert.Equal(t, want, got, "MaxResultBytes %d", max)
	}
}

var compactSeeds = []string{
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"0123456789\u00e9\ud83d\ude00abc\\n\"q\" tail"}]},"toolUseResult":{"stdout":"0123456789 \u0041 \\ \/ end","n":[1,2,{"x":"y"}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"first text block"},{"type":"image"},{"text":"late type","type":"text"}]}]}}`,
	"{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":\"caf\xc3\xa9 \xff\xfe bad utf8 and more\"}]}}",
	"{\"type\":\"user\",\"toolUseResult\":\"a control \x01 char far in\",\"message\":{}}",
	`{"type":"user","toolUseResult":"a bad escape \q far in","message":{}}`,
	`{"type":"user","toolUseResult":"a bad unicode escape \u12G4 far in","message":{}}`,
	`{"type":"user","toolUseResult":"cut off \u00`,
	`{"type":"user","toolUseResult":{"a":"long string value here","b":[1,2,3]},"message":{"content":[{"type":"tool_result","content":"x"}]}} trailing`,
	"\xef\xbb\xbf{\"type\":\"user\",\"toolUseResult\":\"after a byte order mark \x02\"}",
	`{"type":"user","toolUseResult":"x","cont\u0065nt":"escaped key","message":{"content":[{"type":"tool_result","tool_use_id":"t","cont\u0065nt":"an escaped key is the same key"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"a long command that is kept whole"}}]},"toolUseResult":[[[[["deep"]]]]]}`,
	`[{"toolUseResult":"not an object line"}]`,
}

func TestCompactingLongLinesChangesNothingTheReaderReturns(t *testing.T) {
	for _, seed := range compactSeeds {
		call := `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/a"}}]}}` + "\n"
		assertCompactingReadsTheSame(t, ClaudeCode{}, []byte(call+seed))
		assertCompactingReadsTheSame(t, ClaudeStreamJSON{}, []byte(call+seed))
	}
	assertCompactingReadsTheSame(t, ClaudeCode{}, benchgen.RealShaped(1<<20))
	assertCompactingReadsTheSame(t, ClaudeCode{}, benchgen.LargeResults(1<<20))
	files, _ := filepath.Glob(filepath.Join(claudeFixtures, "*.jsonl"))
	samples, _ := filepath.Glob("../../shared/samples/claude-*/*.jsonl")
	for _, f := range append(files, samples...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		format := Format(ClaudeCode{})
		if strings.Contains(f, "stream") {
			format = ClaudeStreamJSON{}
		}
		assertCompactingReadsTheSame(t, format, data)
	}
}

func TestACompactedLineKeepsOnlyWhatTheReaderUses(t *testing.T) {
	c := newClaudeCompactor(4) // keeps 4+8 bytes of a result
	line := `{"type":"user","toolUseResult":{"stdout":"dropped entirely"},"message":{"content":[{"type":"tool_result","content":"kept for twelve bytes and no more"}]}}`
	c.write([]byte(line))
	compacted := `{"type":"user","toolUseResult":{"stdout":""},"message":{"content":[{"type":"tool_result","content":"kept for twe"}]}}`
	assert.Equal(t, compacted, string(c.out))
	// The closing quote of the result is where it was in the line.
	assert.Equal(t, strings.Index(line, `more"`)+4, c.original(strings.Index(compacted, `twe"`)+3))
}

func FuzzClaudeCompactedLinesReadTheSame(f *testing.F) {
	for _, seed := range compactSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assertCompactingReadsTheSame(t, ClaudeCode{}, data)
	})
}
