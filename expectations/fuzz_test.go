package expectations

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

// FuzzParse feeds scenario files to the loader. It must return a scenario
// or errors that each name the file, never panic, hang or blow up.
func FuzzParse(f *testing.F) {
	names, _ := filepath.Glob("testdata/scenarios/*.yaml")
	more, _ := filepath.Glob("testdata/scenarios/*/*.yaml")
	for _, name := range append(names, more...) {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"name: self\ntrace: t.jsonl\nexpectations:\n  - &a\n    type: recall\n    <<: *a\n",
		"base: &b {type: budget, max_calls: 3}\ntrace: ../traces/grep-then-read.toolcalls.json\nexpectations:\n  - {<<: *b}\n  - <<: *b\n    max_calls: 4\n",
		"tags: [[[[[[[[[[]]]]]]]]]]\n",
		"ground_truth: [a.go, *x]\n",
	} {
		f.Add([]byte(s))
	}
	// The scenario sits in testdata/scenarios so that its relative trace
	// paths can name the test traces.
	const file = "testdata/scenarios/fuzz.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(file, data, LoadOptions{})
		if err == nil {
			return
		}
		var errs Errors
		if !errors.As(err, &errs) {
			t.Fatalf("error is not Errors: %v", err)
		}
		for _, e := range errs {
			var ye *yamlerr.Error
			if !errors.As(e, &ye) || !strings.HasPrefix(ye.Error(), file) {
				t.Fatalf("error does not name the file: %v", e)
			}
		}
	})
}
