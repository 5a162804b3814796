package scenariorun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A suite of good and bad scenario files, and YAML files that are not
// scenarios, in folders: loaded at any number of jobs, the scenarios, the
// errors and the skipped files come back in file order, the same as one
// at a time.
func TestLoadingInParallelKeepsFileOrder(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../testdata/examples/fix-token-expiry.claude.jsonl")
	require.NoError(t, err)
	dir := t.TempDir()
	var files []string
	for i := range 40 {
		sub := filepath.Join(dir, fmt.Sprint("d", i%3))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		name := fmt.Sprintf("s%02d", i)
		switch i % 7 {
		case 3:
			files = append(files, writeScenario(t, sub, name, "trace: "+root+"\nexpectations:\n  - type: no_such_type\n"))
		case 5:
			require.NoError(t, os.WriteFile(filepath.Join(sub, name+".yaml"), []byte("services: {db: {image: postgres}}\n"), 0o644))
		default:
			files = append(files, writeScenario(t, sub, name, "trace: "+root+"\nexpectations:\n  - type: tools\n    max_calls: "+fmt.Sprint(i)+"\n"))
		}
	}
	one, err := FindJobs(1, dir)
	require.NoError(t, err)
	assert.Len(t, one.Files, len(files))
	assert.Len(t, one.Skipped, 40-len(files))
	s1, e1 := LoadAll(one.Files, Options{Jobs: 1})
	r1, b1 := CheckFiles(context.Background(), one.Files, nil, Options{Jobs: 1})
	require.NotEmpty(t, e1)
	require.NotEmpty(t, b1)
	for _, jobs := range []int{2, 8, 0} {
		found, err := FindJobs(jobs, dir)
		require.NoError(t, err)
		assert.Equal(t, one, found, "jobs %d", jobs)
		s, e := LoadAll(found.Files, Options{Jobs: jobs})
		require.Len(t, s, len(s1))
		for i := range s {
			assert.Equal(t, s1[i].File, s[i].File, "jobs %d", jobs)
		}
		assert.Equal(t, fmt.Sprint(e1), fmt.Sprint(e), "jobs %d", jobs)
		r, b := CheckFiles(context.Background(), found.Files, nil, Options{Jobs: jobs})
		require.Len(t, r, len(r1))
		for i := range r {
			assert.Equal(t, r1[i].Name, r[i].Name, "jobs %d", jobs)
			assert.Equal(t, r1[i].Failed(), r[i].Failed(), "jobs %d", jobs)
		}
		require.Len(t, b, len(b1))
		for i := range b {
			assert.Equal(t, b1[i].Error(), b[i].Error(), "jobs %d", jobs)
		}
	}
}
