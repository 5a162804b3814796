package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipe hides every method of a reader but Read, as standard input from a
// pipe offers.
type pipe struct{ r io.Reader }

func (p pipe) Read(b []byte) (int, error) { return p.r.Read(b) }

// geminiMadeLong repeats the messages of a Gemini CLI recording or session
// document, their ids made unique per copy, until it is past size bytes:
// past the read buffer, a stream is read through a temporary file.
func geminiMadeLong(t *testing.T, data []byte, size int) []byte {
	t.Helper()
	unique := func(msg []byte, k int) []byte {
		return bytes.ReplaceAll(msg, []byte(`"id":"`), fmt.Appendf(nil, `"id":"%d-`, k))
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{\n")) {
		var doc struct {
			SessionID   string            `json:"sessionId"`
			ProjectHash string            `json:"projectHash"`
			StartTime   string            `json:"startTime"`
			Messages    []json.RawMessage `json:"messages"`
			Kind        string            `json:"kind"`
		}
		require.NoError(t, json.Unmarshal(data, &doc))
		msgs := doc.Messages
		doc.Messages = nil
		for k := 0; len(doc.Messages) < size/256; k++ {
			for _, m := range msgs {
				var b bytes.Buffer
				require.NoError(t, json.Compact(&b, m))
				doc.Messages = append(doc.Messages, unique(b.Bytes(), k))
			}
		}
		out, err := json.MarshalIndent(doc, "", "  ")
		require.NoError(t, err)
		require.Greater(t, len(out), size)
		return out
	}
	meta, rest, _ := bytes.Cut(data, []byte("\n"))
	out := append(append([]byte(nil), meta...), '\n')
	for k := 0; len(out) < size; k++ {
		out = append(out, unique(rest, k)...)
	}
	return out
}

// traceFiles lists the trace files of the readers' fixtures (not those of
// a trace stored as a folder, nor the fuzzers' corpus) and of the shared
// samples.
func traceFiles(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, root := range []string{"../../trace/testdata", "../../../shared/samples"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil // no samples
			case d.IsDir() && (d.Name() == "fuzz" || p != root && isFolderTrace(p)):
				return filepath.SkipDir
			case !d.IsDir() && !strings.HasSuffix(p, ".md"):
				paths = append(paths, p)
			}
			return nil
		})
	}
	require.NotEmpty(t, paths)
	return paths
}

// isFolderTrace reports whether a folder holds a trace stored as a folder
// (OpenHands V1 events, a Cline task).
func isFolderTrace(dir string) bool {
	for _, name := range []string{"events", "base_state.json", "api_conversation_history.json", "ui_messages.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

func TestEventsReadsAStreamAsItsFile(t *testing.T) {
	t.Parallel()
	paths := traceFiles(t)
	dir := t.TempDir()
	for _, p := range []string{"../../trace/testdata/gemini-cli/conversation.session.jsonl", "../../trace/testdata/gemini-cli/document.session.json"} {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		long := filepath.Join(dir, "long-"+filepath.Base(p))
		require.NoError(t, os.WriteFile(long, geminiMadeLong(t, data, 3<<20), 0o644))
		paths = append(paths, long)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			// A trace that names no task is named after its file; a
			// stream has no name.
			stem, _, _ := strings.Cut(filepath.Base(p), ".")
			named := `"task_name": ` + strconv.Quote(stem)
			for _, cmd := range [][]string{{"events"}, {"metrics", "-cwd", "/w"}} {
				fileCode, fileOut, fileErr := runCLI(t, nil, append(cmd, p)...)
				code, out, stderr := runCLI(t, pipe{bytes.NewReader(data)}, append(cmd, "-")...)
				assert.Equal(t, fileCode, code, "%s: exit status", cmd[0])
				fileOut = strings.ReplaceAll(strings.ReplaceAll(fileOut, p, "-"), named, `"task_name": ""`)
				// and each session of a file of several after both.
				fileOut = strings.ReplaceAll(fileOut, named[:len(named)-1]+"/", `"task_name": "`)
				assertSameText(t, fileOut, out, cmd[0]+": output")
				assertSameText(t, strings.ReplaceAll(fileErr, p, "-"), stderr, cmd[0]+": messages")
			}
		})
	}
}

// assertSameText compares two long texts and shows the first line that
// differs, not the whole texts.
func assertSameText(t *testing.T, want, got, what string) {
	t.Helper()
	if want == got {
		return
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			t.Errorf("%s: line %d is %q, want %q", what, i+1, g[i], w[i])
			return
		}
	}
	t.Errorf("%s: %d lines, want %d", what, len(g), len(w))
}
