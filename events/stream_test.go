package events

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/agentretrieval/agentretrieval/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertStreamMatchesNormalize reads data twice, once keeping every result
// and once through a Stream, and checks that the documents are the same.
func assertStreamMatchesNormalize(t *testing.T, name string, read func(trace.Options) ([]*trace.Session, error), opts Options) {
	t.Helper()
	all, err := read(trace.Options{Source: name})
	if err != nil {
		return // not a trace
	}
	want := NormalizeAll(all, name, opts)

	st := NewStream(opts)
	released := 0
	streamed, err := read(trace.Options{Source: name, CallDone: func(s *trace.Session, i int) bool {
		ok := st.CallDone(s, i)
		if ok {
			released++
		}
		return ok
	}})
	require.NoError(t, err, name)
	got := st.NormalizeAll(streamed, name)
	require.Len(t, got, len(want), name)
	for i := range want {
		var w, g bytes.Buffer
		require.NoError(t, want[i].WriteJSON(&w))
		require.NoError(t, got[i].WriteJSON(&g))
		assert.Equal(t, w.String(), g.String(), name)
	}
	calls, holding := 0, 0
	for _, s := range streamed {
		for _, c := range s.Calls {
			calls++
			if c.Result != "" || c.Arguments != nil {
				holding++
			}
		}
	}
	assert.LessOrEqual(t, holding, calls-released, "%s: released calls keep neither result nor arguments", name)
}

func fromBytes(data []byte) func(trace.Options) ([]*trace.Session, error) {
	return func(o trace.Options) ([]*trace.Session, error) { return trace.ReadAll(bytes.NewReader(data), o) }
}

func TestAStreamMakesTheDocumentsNormalizeMakes(t *testing.T) {
	gt := &GroundTruth{Files: []string{"/path/to/Demo/app0/src/components/TodoItem0.tsx", "src/x.go"}}
	assertStreamMatchesNormalize(t, "real-shaped", fromBytes(benchgen.RealShaped(1<<20)), Options{GroundTruth: gt})
	assertStreamMatchesNormalize(t, "large results", fromBytes(benchgen.LargeResults(1<<20)), Options{Paths: PathNormalizer{CWD: "/workspace"}})

	// The working directory comes after the first calls: they wait for it.
	late := strings.Join([]string{
		`{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.go"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"     1→package a"}]}}`,
		`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"x"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"cat b.go"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"/w/c.go:3:x"}]}}`,
	}, "\n")
	assertStreamMatchesNormalize(t, "late cwd", fromBytes([]byte(late)), Options{})

	// Every trace fixture, in every format, and the shared samples.
	var files []string
	for _, root := range []string{"../trace/testdata", "../testdata", "../../shared/samples"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() > 16<<20 {
			continue
		}
		assertStreamMatchesNormalize(t, f, func(o trace.Options) ([]*trace.Session, error) { return trace.ReadFileAll(f, o) }, Options{})
	}
}
