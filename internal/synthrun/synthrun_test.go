package synthrun

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree maps every file under dir to its content ("/" for a folder).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)] = "/"
			return nil
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

func TestWriteGivesTheSameRunForTheSameSeed(t *testing.T) {
	t.Parallel()
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	spec := Spec{Tasks: 20, Repeats: 2, Seed: 4}
	n, err := Write(filepath.Join(a, "run"), filepath.Join(a, "gt"), spec)
	require.NoError(t, err)
	assert.Equal(t, 3*20*2, n, "three configurations of 20 tasks run twice")
	_, err = Write(filepath.Join(b, "run"), filepath.Join(b, "gt"), spec)
	require.NoError(t, err)
	assert.Equal(t, tree(t, a), tree(t, b))
	spec.Seed = 5
	_, err = Write(filepath.Join(c, "run"), filepath.Join(c, "gt"), spec)
	require.NoError(t, err)
	assert.NotEqual(t, tree(t, filepath.Join(a, "run")), tree(t, filepath.Join(c, "run")), "another seed, other trials")
}

func TestWriteMixesTheKindsOfTrialARunHas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n, err := Write(filepath.Join(dir, "run"), filepath.Join(dir, "gt"), Spec{Tasks: 40, Repeats: 2, Seed: 9, Failed: true})
	require.NoError(t, err)
	assert.Equal(t, 3*40*2+1, n, "and the failed trial")
	files := tree(t, dir)
	var traj, trans, noTrace, gts int
	for p, content := range files {
		switch filepath.Base(p) {
		case "trajectory.json":
			traj++
		case "claude-code.txt":
			trans++
		case "ground_truth.json":
			gts++
		case "result.json":
			if content != "/" && filepath.Base(filepath.Dir(p)) != Batch {
				if _, ok := files[filepath.ToSlash(filepath.Join(filepath.Dir(p), "agent"))]; !ok {
					noTrace++
				}
			}
		}
	}
	assert.Equal(t, 36, gts, "every task but one in ten has ground truth")
	assert.Positive(t, trans, "some trials have both traces")
	assert.Less(t, trans, traj)
	assert.Positive(t, noTrace, "some trials have no trace")
	assert.Equal(t, "/", files["run/baseline-grep/"+Batch+"/broken__zz0/result.json"], "the failed trial's result.json is a folder")
}
