package groundtruth

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

// addSeeds adds the files matching the globs (relative to the repository's
// testdata) to the corpus.
func addSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		names, _ := filepath.Glob(filepath.Join("..", "testdata", g))
		for _, name := range names {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
}

// FuzzParse feeds JSON and YAML ground truth to Parse. It must return a
// Truth or an error naming the file, never panic, hang or blow up; and when
// the JSON reader takes a document, the YAML reader must read the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`["a.go", "pkg/b.go"]`,
		`{"files": ["a.go", {"path": "b.go", "grade": 2}], "expected_edit_files": ["a.go"]}`,
		"files:\n  - a.go\n  - {path: b.go, grade: 0}\nsymbols:\n  - {file: a.go, symbol: F}\nchunks:\n  - {path: a.go, start: 1, end: 2}\n",
		"base: &b {grade: 2}\nfiles:\n  - {<<: *b, path: a.go}\n",
		"files:\n  - &a\n    path: x\n    <<: *a\n",
		"[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]",
		`{"files": ["a.go"], "files": ["b.go"]}`,
		`["a.go", null]`,
	} {
		f.Add([]byte(s))
	}
	addSeeds(f, "tasks/*/*.json", "tasks/*/*.yaml", "groundtruth/*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		truth, err := Parse("gt.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "gt.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, fl := range truth.Files {
			if fl.Grade < 0 {
				t.Fatalf("negative grade: %+v", fl)
			}
		}
		_ = truth.Events()
		_ = truth.Grades(events.PathNormalizer{})

		trimmed := bytes.TrimSpace(data)
		fast, ok := jsonPaths(data)
		if !ok {
			return
		}
		slow, err := decodeYAML("gt.json", data, trimmed)
		if err != nil {
			t.Fatalf("the JSON reader took %q, the YAML reader refused it: %v", data, err)
		}
		if !sameFiles(fast, slow) {
			t.Fatalf("the readers disagree on %q:\njson %+v\nyaml %+v", data, fast, slow)
		}
	})
}

func sameFiles(a, b truthFile) bool {
	if len(a.Files) != len(b.Files) || len(a.ExpectedEditFiles) != len(b.ExpectedEditFiles) {
		return false
	}
	for i := range a.Files {
		if a.Files[i] != b.Files[i] {
			return false
		}
	}
	for i := range a.ExpectedEditFiles {
		if a.ExpectedEditFiles[i] != b.ExpectedEditFiles[i] {
			return false
		}
	}
	return len(b.Symbols) == 0 && len(b.Chunks) == 0
}

// FuzzLoaders feeds one input to the other ground-truth readers: plain
// text, a SWE-bench instance, an evaluation-data row and each benchmark
// task file. Each must return a Truth or an error naming its file.
func FuzzLoaders(f *testing.F) {
	for _, s := range []string{
		"pkg/a.go\n# comment\n\n/testbed/pkg/b.go\n",
		`{"instance_id": "x__y-1", "patch": "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,2 @@\n x\n+y\n"}`,
		`{"caseId": "c1", "filePaths": [{"path": "a.go", "sources": ["golden"]}], "lineRanges": [{"path": "a.go", "startLine": 1, "endLine": 3, "sources": ["golden"]}]}`,
		`{"files": [{"file": "a.go"}], "buggy_functions": [{"name": "F"}], "file_references": [{"patterns": ["pkg/a\\.go"]}]}`,
	} {
		f.Add([]byte(s))
	}
	addSeeds(f, "tasks/*/*", "groundtruth/*", "groundtruth/evaldata/*")
	named := func(t *testing.T, name string, err error) {
		t.Helper()
		if err != nil && !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name %s: %v", name, err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseText("gt.txt", data)
		named(t, "gt.txt", err)
		_, err = ParseSWEBench("inst.json", data)
		named(t, "inst.json", err)

		d := &dataset{cases: map[string]*Truth{}, sources: map[string][]string{}, fallback: map[string]bool{}}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				named(t, "rows.jsonl", d.row("rows.jsonl", i+1, line))
			}
		}
		for _, truth := range d.cases {
			named(t, "rows.jsonl", truth.normalize(false))
		}

		for name, parse := range map[string]func(string, []byte) (*Truth, error){
			"ground_truth.json":     parseBenchTruth,
			"expected_defects.json": parseDefects,
			"expected_changes.json": parseChanges,
			"instruction.md":        parseInstruction,
		} {
			_, err := parse(name, data)
			var ye *yamlerr.Error
			if errors.As(err, &ye) && ye.File == "" {
				t.Fatalf("%s: error names no file: %v", name, err)
			}
			named(t, name, err)
		}
	})
}
