package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Not parallel: -max-input-size sets process-wide limits for the run of
// the command; parallel tests start only after this one has ended.
func TestMaxInputSizeBoundsEveryInput(t *testing.T) {
	big := strings.Repeat("# a comment line that pads the file\n", 4)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	qrels := write("big.qrels", big+"q 0 d 1\n")
	const (
		taxonomyFile = "../../testdata/scenarios/indexed-grep.taxonomy.yaml"
		symbolFile   = "../../testdata/scenarios/auth.symbols"
		scenarioFile = "../../testdata/gate/retrieval.yaml"
	)
	tests := []struct {
		name  string
		stdin string
		args  []string
		path  string
	}{
		{"a trace", "", []string{"events", "-max-input-size", "1KiB", exampleTrace}, exampleTrace},
		{"a trace on standard input", strings.Repeat("x", 2048), []string{"events", "-max-input-size", "1KiB", "-"}, "-"},
		{"a ground-truth file", "", []string{"events", "-max-input-size", "100B", "-gt", exampleGT, auraTrace}, exampleGT},
		{"a taxonomy", "", []string{"events", "-max-input-size", "20", "-taxonomy", taxonomyFile, exampleTrace}, taxonomyFile},
		{"a symbol file", "", []string{"metrics", "-max-input-size", "20", "-symbols", symbolFile, exampleTrace}, symbolFile},
		{"a scenario", "", []string{"check", "-max-input-size", "20", scenarioFile}, scenarioFile},
		{"a qrels file, with the flag among trec_eval's", "", []string{"trec", qrels, "-max-input-size", "64", "../../testdata/trec/cases.run"}, qrels},
		{"a qrels file on standard input", big, []string{"trec", "-max-input-size", "64", "-", "../../testdata/trec/cases.run"}, "<stdin>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, strings.NewReader(tt.stdin), tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.path+": larger than the input size limit of")
			assert.Contains(t, stderr, "raise it with -max-input-size")
		})
	}
	// The limits are restored once the command has run.
	code, _, stderr := runCLI(t, nil, "events", "-gt", exampleGT, exampleTrace)
	assert.Equal(t, exitOK, code, stderr)
}

func TestMaxInputSizeRejectsABadSize(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"lots", "0", "12 parsecs"} {
		code, _, stderr := runCLI(t, nil, "events", "-max-input-size", bad, exampleTrace)
		assert.Equal(t, exitBadInput, code, bad)
		assert.Contains(t, stderr, "invalid value", bad)
	}
	code, _, stderr := runCLI(t, nil, "events", "-max-input-size", "2GiB", exampleTrace)
	assert.Equal(t, exitOK, code, stderr)
}
