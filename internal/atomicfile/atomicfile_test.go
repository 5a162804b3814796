package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteLeavesTheOldFileOnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	err := Write(path, func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return assert.AnError
	})
	require.ErrorIs(t, err, assert.AnError)
	assert.Contains(t, err.Error(), path, "the error names the file")
	data, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(data))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "the temporary file is removed")
}

func TestWriteBytesReplacesTheFileReadableByAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.run")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
	require.NoError(t, WriteBytes(path, []byte("new\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(data))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestWriteIntoAMissingFolderFails(t *testing.T) {
	t.Parallel()
	err := WriteBytes(filepath.Join(t.TempDir(), "no", "such", "f"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
}
