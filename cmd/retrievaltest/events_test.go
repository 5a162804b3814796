package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/schematest"
	"github.com/agentretrieval/agentretrieval/trace"
)

const (
	exampleTrace = "../../testdata/examples/fix-token-expiry.claude.jsonl"
	exampleGT    = "../../testdata/examples/fix-token-expiry.groundtruth.json"
	auraTrace    = "../../testdata/examples/add-coupon-support.aura.toolcalls.json"
)

// runCLI runs the command line and returns exit code, stdout and stderr.
func runCLI(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// decodeDocs splits the concatenated JSON documents of events' output and
// validates each against the schema.
func decodeDocs(t *testing.T, out string) []events.Document {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var docs []events.Document
	for dec.More() {
		var raw json.RawMessage
		require.NoError(t, dec.Decode(&raw))
		schematest.ValidateEvents(t, raw)
		var d events.Document
		require.NoError(t, json.Unmarshal(raw, &d))
		docs = append(docs, d)
	}
	return docs
}

func TestEventsOnTheExample(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "events", "-gt", exampleGT, exampleTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	docs := decodeDocs(t, out)
	require.Len(t, docs, 1)
	d := docs[0]
	assert.Equal(t, "fix-token-expiry", d.Provenance.TaskName)
	assert.Len(t, d.Events, 5)
	assert.Equal(t, []string{"pkg/auth/token.go", "pkg/auth/errors.go"}, d.GroundTruth.Files)
	require.NotNil(t, d.Summary.FirstGroundTruthHitStep)
	assert.Equal(t, 0, *d.Summary.FirstGroundTruthHitStep)
}

func TestEventsReadsStandardInput(t *testing.T) {
	t.Parallel()
	f, err := os.Open(auraTrace)
	require.NoError(t, err)
	defer f.Close()
	code, out, stderr := runCLI(t, f, "events", "-")
	require.Equal(t, exitOK, code, stderr)
	docs := decodeDocs(t, out)
	require.Len(t, docs, 1)
	assert.Equal(t, "tool-calls", docs[0].Provenance.TraceFormat)
	assert.Equal(t, "-", docs[0].Provenance.TraceFile)
}

func TestEventsWritesOneDocumentPerTrace(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "events", exampleTrace, auraTrace)
	require.Equal(t, exitOK, code, stderr)
	docs := decodeDocs(t, out)
	require.Len(t, docs, 2)
	assert.Equal(t, "fix-token-expiry", docs[0].Provenance.TaskName)
	assert.Equal(t, "add-coupon-support", docs[1].Provenance.TaskName)
}

func TestEventsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	unknown := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(unknown, []byte("just some notes\n"), 0o644))
	badTax := filepath.Join(dir, "bad.taxonomy.yaml")
	require.NoError(t, os.WriteFile(badTax, []byte("tools:\n  - {match: Read, category: reading, class: file_level}\n"), 0o644))
	badGT := filepath.Join(dir, "gt.json")
	require.NoError(t, os.WriteFile(badGT, []byte(`{"fils": ["a.go"]}`), 0o644))

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a missing file", []string{"events", filepath.Join(dir, "nope.jsonl")}, "nope.jsonl: no such file"},
		{"an empty file", []string{"events", empty}, "empty.jsonl: trace is empty"},
		{"a file in no known format names the formats tried", []string{"events", unknown}, "notes.txt: not a known trace format (tried " + strings.Join(trace.DefaultRegistry().Names(), ", ") + ")"},
		{"an unknown forced format", []string{"events", "-format", "no-such-format", exampleTrace}, `unknown trace format "no-such-format"`},
		{"an unknown profile", []string{"events", "-profile", "windsurf", exampleTrace}, `unknown taxonomy profile "windsurf"`},
		{"a bad taxonomy names file:line:col", []string{"events", "-taxonomy", badTax, exampleTrace}, "bad.taxonomy.yaml:2:29: unknown category \"reading\""},
		{"a bad ground truth names file:line:col", []string{"events", "-gt", badGT, exampleTrace}, `gt.json:1:2: unknown key "fils"`},
		{"no trace", []string{"events"}, "no trace given"},
		{"an unknown flag", []string{"events", "-frobnicate", exampleTrace}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

func TestEventsKeepsGoingPastAnUnreadableTrace(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "events", "does-not-exist.jsonl", exampleTrace)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "does-not-exist.jsonl")
	assert.Len(t, decodeDocs(t, out), 1, "the readable trace is still written")
}

func TestEventsReportsSkippedLines(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(exampleTrace)
	require.NoError(t, err)
	// Cut the last line in half, as a run killed mid-write leaves it.
	cut := data[:len(data)-40]
	code, out, stderr := runCLI(t, bytes.NewReader(cut), "events", "-")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "warning: -:13:")
	docs := decodeDocs(t, out)
	require.Len(t, docs, 1)
	require.NotNil(t, docs[0].Coverage.DegradedReason)
	assert.Len(t, docs[0].Coverage.Warnings, 1)
}

func TestEventsHelp(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, nil, "events", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "Usage: retrievaltest events")
	code, out, _ := runCLI(t, nil, "help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "events")
	assert.Contains(t, out, "trec")
	code, _, stderr = runCLI(t, nil, "frob")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `unknown command "frob"`)
}

// Every flag changes the output: each case runs with and without it.
func TestEventsFlagsChangeTheOutcome(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tax := filepath.Join(dir, "grep-is-semantic.yaml")
	require.NoError(t, os.WriteFile(tax, []byte("tools:\n  - {match: Grep, category: code_search, class: semantic}\n"), 0o644))
	upper := filepath.Join(dir, "upper.txt")
	require.NoError(t, os.WriteFile(upper, []byte("PKG/AUTH/TOKEN.GO\n"), 0o644))

	one := func(t *testing.T, args ...string) events.Document {
		t.Helper()
		code, out, stderr := runCLI(t, nil, append([]string{"events"}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		docs := decodeDocs(t, out)
		require.Len(t, docs, 1)
		return docs[0]
	}
	grepClass := func(d events.Document) events.Class { return d.Events[2].ToolClass }
	readTarget := func(d events.Document) []string { return d.Events[1].TargetFiles }

	t.Run("-profile limits the classifying profiles", func(t *testing.T) {
		assert.Empty(t, one(t, auraTrace).Summary.UnclassifiedTools)
		assert.Len(t, one(t, "-profile", "claude-code", auraTrace).Summary.UnclassifiedTools, 5)
	})
	t.Run("-taxonomy rules come first", func(t *testing.T) {
		assert.Equal(t, events.FileLevel, grepClass(one(t, exampleTrace)))
		assert.Equal(t, events.Semantic, grepClass(one(t, "-taxonomy", tax, exampleTrace)))
	})
	t.Run("-gt marks ground-truth hits", func(t *testing.T) {
		assert.False(t, one(t, exampleTrace).Events[1].HitsGroundTruth)
		assert.True(t, one(t, "-gt", exampleGT, exampleTrace).Events[1].HitsGroundTruth)
	})
	t.Run("-cwd overrides the trace's working directory", func(t *testing.T) {
		assert.Equal(t, []string{"pkg/auth/token.go"}, readTarget(one(t, exampleTrace)))
		assert.Equal(t, []string{"auth/token.go"}, readTarget(one(t, "-cwd", "/workspace/pkg", exampleTrace)))
	})
	t.Run("-prefixes replaces the stripped workspace prefixes of a trace without a working directory", func(t *testing.T) {
		// A known working directory decides alone: a path outside it stays
		// absolute. Prefixes apply only when the trace does not say where
		// the agent worked.
		noCWD := filepath.Join(dir, "no-cwd.toolcalls.json")
		require.NoError(t, os.WriteFile(noCWD, []byte(`{"toolCalls": [{"tool": "Read", "arguments": {"file_path": "/workspace/pkg/auth/token.go"}}]}`), 0o644))
		target := func(d events.Document) []string { return d.Events[0].TargetFiles }
		assert.Equal(t, []string{"auth/token.go"}, target(one(t, "-prefixes", "/workspace/pkg/", noCWD)))
		assert.Equal(t, []string{"pkg/auth/token.go"}, target(one(t, noCWD)))
	})
	t.Run("-fold-case compares paths case-insensitively", func(t *testing.T) {
		assert.False(t, one(t, "-gt", upper, exampleTrace).Events[1].HitsGroundTruth)
		assert.True(t, one(t, "-fold-case", "-gt", upper, exampleTrace).Events[1].HitsGroundTruth)
	})
	t.Run("-task and -config set the provenance", func(t *testing.T) {
		d := one(t, "-task", "T-17", "-config", "mcp-remote", exampleTrace)
		assert.Equal(t, "T-17", d.Provenance.TaskName)
		assert.Equal(t, "mcp-remote", d.Provenance.ConfigName)
	})
	t.Run("-format forces a reader", func(t *testing.T) {
		code, _, stderr := runCLI(t, nil, "events", "-format", "atif", exampleTrace)
		assert.Equal(t, exitBadInput, code)
		assert.Contains(t, stderr, "fix-token-expiry.claude.jsonl")
		assert.Equal(t, "claude-code", one(t, "-format", "claude-code", exampleTrace).Provenance.TraceFormat)
	})
}

func TestEventsGroundTruthFromADiff(t *testing.T) {
	t.Parallel()
	diff := filepath.Join(t.TempDir(), "fix.patch")
	require.NoError(t, os.WriteFile(diff, []byte("diff --git a/pkg/auth/token.go b/pkg/auth/token.go\n--- a/pkg/auth/token.go\n+++ b/pkg/auth/token.go\n@@ -44,1 +44,1 @@\n-\tif now.After(tok.ExpiresAt) {\n+\tif !now.Before(tok.ExpiresAt) {\n"), 0o644))
	code, out, stderr := runCLI(t, nil, "events", "-gt", diff, exampleTrace)
	require.Equal(t, exitOK, code, stderr)
	d := decodeDocs(t, out)[0]
	assert.Equal(t, []string{"pkg/auth/token.go"}, d.GroundTruth.Files)
	assert.Equal(t, []events.LineRange{{Path: "pkg/auth/token.go", Start: 44, End: 44}}, d.GroundTruth.Chunks)
	assert.Equal(t, []string{"pkg/auth/token.go"}, d.GroundTruth.ExpectedEditFiles)
}
