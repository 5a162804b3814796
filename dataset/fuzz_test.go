package dataset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/dataset"
)

// FuzzValidate feeds arbitrary files to Validate and Export: neither may
// panic, every problem names a line of the file, and an export holds
// exactly the complete rows.
func FuzzValidate(f *testing.F) {
	f.Add(completeRow + "\n")
	f.Add(`{"caseId":"a","query":"","baseCommit":"b","filePaths":[{"path":""}]}` + "\n\nnot json\n")
	f.Add(`{"caseId":1,"lineRanges":{"x":1}}{"b":2}`)
	f.Add(`{"caseId":"x","query":"q","baseCommit":"b","lineRanges":[{"path":"a","startLine":-1,"endLine":1e400}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		name := filepath.Join(dir, "rows.jsonl")
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := dataset.Validate(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(data, "\n") + 1
		for _, p := range rep.Problems {
			if p.Line < 1 || p.Line > lines || len(p.Missing) == 0 {
				t.Fatalf("problem %+v: expected a line of the file and what is missing", p)
			}
		}
		out := filepath.Join(dir, "export.jsonl")
		if _, err := dataset.Export(name, out); err != nil {
			t.Fatal(err)
		}
		exported, err := dataset.Validate(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(exported.Problems) != 0 || exported.Rows != rep.Complete() {
			t.Fatalf("export of %q holds %d rows with %d problems; expected the %d complete rows", data, exported.Rows, len(exported.Problems), rep.Complete())
		}
	})
}
