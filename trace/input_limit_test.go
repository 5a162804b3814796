package trace_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/trace"
)

// A stream that passes the limit after format detection must fail with the
// limit's error, not end as if the trace were complete: every JSON Lines
// fixture, repeated past DetectSize, is read through a limit just short of
// its length.
func TestReadAllFailsWhenAStreamPassesTheLimit(t *testing.T) {
	t.Parallel()
	var files []string
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no JSON Lines fixture: %v", err)
	}
	for _, p := range files {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			one, err := os.ReadFile(p)
			if err != nil || len(one) == 0 {
				t.Skip("empty fixture")
			}
			if one[len(one)-1] != '\n' {
				one = append(one, '\n')
			}
			data := bytes.Repeat(one, trace.DetectSize/len(one)+2)
			r := input.LimitReader(bytes.NewReader(data), p, int64(len(data)-len(one)/2))
			_, err = trace.ReadAll(r, trace.Options{Source: p})
			if !errors.Is(err, input.ErrTooLarge) {
				t.Fatalf("got %v, want the limit's error", err)
			}
		})
	}
}
