package groundtruth

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadDispatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		spec       func(t *testing.T) string
		wantPaths  []string
		wantSource func(spec string) string
	}{
		{
			name:       "a directory is a task folder",
			spec:       func(*testing.T) string { return taskDir("expected-changes") },
			wantPaths:  []string{"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto", "vendor/github.com/containerd/containerd/api/services/containers/v1/containers.proto"},
			wantSource: func(s string) string { return filepath.Join(s, "tests", "expected_changes.json") },
		},
		{
			name: "a .patch file is a diff",
			spec: func(*testing.T) string {
				return filepath.Join(taskDir("reference-fix-patch"), "tests", "reference_fix.patch")
			},
			wantPaths:  []string{"pkg/ratelimit/bucket.go"},
			wantSource: func(s string) string { return s },
		},
		{
			name:       "a .diff file is a diff",
			spec:       func(*testing.T) string { return filepath.Join(taskDir("expected-diff"), "tests", "expected.diff") },
			wantPaths:  []string{"torch/_dynamo/variables/dicts.py"},
			wantSource: func(s string) string { return s },
		},
		{
			name:       "a JSON object with instance_id and patch is a SWE-bench instance",
			spec:       func(*testing.T) string { return gtData("swebench-flask-4045.json") },
			wantPaths:  []string{"src/flask/blueprints.py"},
			wantSource: func(s string) string { return s + "#pallets__flask-4045" },
		},
		{
			name: "JSON Lines with one SWE-bench instance",
			spec: func(t *testing.T) string {
				return write(t, "one.jsonl", `{"instance_id": "a__b-1", "patch": "--- a/b/c.go\n+++ b/b/c.go\n@@ -1 +1 @@\n-a\n+b\n"}`+"\n")
			},
			wantPaths:  []string{"b/c.go"},
			wantSource: func(s string) string { return s + "#a__b-1" },
		},
		{
			name: "JSON Lines whose rows have a caseId are dataset rows, golden entries only",
			spec: func(t *testing.T) string {
				return write(t, "dataset_b.jsonl", "\n"+`{"caseId":"c1","lineRanges":[{"path":"b.go","startLine":3,"endLine":4,"sources":["golden_diff"]},{"path":"read.go","startLine":1,"endLine":9,"sources":["tool_call_args"]}]}`+"\n")
			},
			wantPaths:  []string{"b.go"},
			wantSource: func(s string) string { return s },
		},
		{
			name: "other JSON is a ground-truth file",
			spec: func(*testing.T) string {
				return filepath.Join("..", "testdata", "examples", "fix-token-expiry.groundtruth.json")
			},
			wantPaths:  []string{"pkg/auth/token.go", "pkg/auth/errors.go"},
			wantSource: func(s string) string { return s },
		},
		{
			name: "paths are normalized and duplicates merged whatever the loader",
			spec: func(t *testing.T) string {
				return write(t, "gt.yaml", "files:\n  - /testbed/src/a.py\n  - ./src/a.py\n  - {path: src//b.py, grade: 2}\n  - src/b.py\n")
			},
			wantPaths:  []string{"src/a.py", "src/b.py"},
			wantSource: func(s string) string { return s },
		},
		{
			name:       "a text file lists paths",
			spec:       func(t *testing.T) string { return write(t, "gt.txt", "a/x.go\n/workspace/a/x.go\n") },
			wantPaths:  []string{"a/x.go"}, // a real folder named "a" is kept
			wantSource: func(s string) string { return s },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec(t)
			got, err := Load(spec)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPaths, got.Paths())
			assert.Equal(t, tt.wantSource(spec), got.Source)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec func(t *testing.T) string
		want string
	}{
		{"a missing file", func(*testing.T) string { return "no-such-file.json" }, "no such file"},
		{"a directory in our own format is an error naming the entry", func(t *testing.T) string {
			return write(t, "gt.json", `{"files": ["pkg/auth/", "pkg/auth/token.go"]}`)
		}, `files[0] "pkg/auth/": expected a repository file path`},
		{"a long bad entry is quoted up to 64 bytes, never whole", func(t *testing.T) string {
			return write(t, "gt.json", `{"files": ["SECRET=`+strings.Repeat("s", 200)+`/"]}`)
		}, `files[0] "SECRET=` + strings.Repeat("s", 57) + `"…: expected a repository file path`},
		{"an unknown key in our own format", func(t *testing.T) string {
			return write(t, "gt.json", `{"files": ["a.go"], "buggy_files": ["b.go"]}`)
		}, `unknown key "buggy_files"`},
		{"dataset rows of several cases", func(t *testing.T) string {
			return write(t, "rows.jsonl", `{"caseId":"b","filePaths":[]}`+"\n"+`{"caseId":"a","filePaths":[]}`+"\n")
		}, "holds 2 cases (a, b): expected one"},
		{"JSON Lines with several instances", func(*testing.T) string { return gtData("swebench-two.jsonl") }, "expected an instance id to pick one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tt.spec(t))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseErrorFormat(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "x.diff:3: bad", (&ParseError{File: "x.diff", Line: 3, Msg: "bad"}).Error())
	assert.Equal(t, "x.diff: bad", (&ParseError{File: "x.diff", Msg: "bad"}).Error())
}
