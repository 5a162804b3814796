package events

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/agentretrieval/agentretrieval/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeWhole is how WriteJSON used to write a document: all of it through
// one indenting json.Encoder.
func encodeWhole(t *testing.T, d *Document) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(d))
	return buf.Bytes()
}

func assertWritesLikeOneEncoder(t *testing.T, name string, d *Document) {
	t.Helper()
	var got bytes.Buffer
	require.NoError(t, d.WriteJSON(&got))
	if !bytes.Equal(encodeWhole(t, d), got.Bytes()) {
		assert.Equal(t, string(encodeWhole(t, d)), got.String(), name)
	}
}

func TestWriteJSONWritesTheBytesOfOneIndentingEncoder(t *testing.T) {
	gt := &GroundTruth{Files: []string{"src/a.go"}, Symbols: []Symbol{{File: "src/a.go", Symbol: "F"}}, ExpectedEditFiles: []string{"src/a.go"}}
	assertWritesLikeOneEncoder(t, "a degraded document", Degraded("no usable trace", Options{GroundTruth: gt}))
	assertWritesLikeOneEncoder(t, "a document with null events", &Document{SchemaVersion: SchemaVersion})
	s, err := trace.Read(bytes.NewReader(benchgen.RealShaped(1<<20)), trace.Options{Source: "gen <&>"})
	require.NoError(t, err)
	assertWritesLikeOneEncoder(t, "a generated session", Normalize(s, Options{GroundTruth: gt}))

	// Every trace fixture of the repository, and the shared samples.
	var files []string
	for _, root := range []string{"../trace/testdata", "../testdata", "../../shared/samples"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() > 16<<20 {
			continue
		}
		all, err := trace.ReadFileAll(f, trace.Options{})
		if err != nil {
			continue // not a trace
		}
		for _, d := range NormalizeAll(all, f, Options{}) {
			assertWritesLikeOneEncoder(t, f, d)
		}
	}
}

func TestEventsEncodeAsEncodingJSONDoes(t *testing.T) {
	// appendEvent writes each field by hand: a field added to Event must
	// be added there too.
	require.Equal(t, 20, reflect.TypeFor[Event]().NumField(), "Event changed: update appendEvent and this test")
	tokens := int64(-12345)
	strs := []string{"", "plain/path.go", `q"uote\back\u003c`, "<b>&amp;</b>", "tab\tnl\nctl\x01\x1f del\x7f", "naïve 日本 🙂", "bad \xff\xfe utf8", "line\u2028sep\u2029", "\\u0026 literal"}
	var evs []Event
	for i, s := range strs {
		for _, sec := range []float64{0, -0.5, 1e-7, 123.456, 1e21, 3e-300, 12} {
			sec := sec
			evs = append(evs, Event{
				StepIndex: i, ToolName: s, ToolCategory: Category(s), IsMCP: i%2 == 0, TargetFiles: []string{s, "x"},
				HitsGroundTruth: true, CumulativeTokens: &tokens, ElapsedSeconds: &sec, ToolClass: Class(s), CallID: s,
				Unclassified: true, IsError: i%3 == 0, IsSubagent: true, ParentCallID: s, FilesRead: []string{s},
				FilesWritten: []string{s, s}, LineRanges: []LineRange{{Path: s, Start: 1, End: 2}, {Path: "y", Start: -3, End: 0}},
				Symbols: []string{s}, Query: s, GroundTruthHits: []string{s},
			})
		}
		evs = append(evs, Event{ToolName: s}, Event{ToolName: s, TargetFiles: []string{}, FilesRead: []string{}, LineRanges: []LineRange{}})
	}
	assertWritesLikeOneEncoder(t, "every field, every kind of string", &Document{SchemaVersion: SchemaVersion, Events: evs})
}
