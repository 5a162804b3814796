package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	assertOnlyEntries(t, dir, "f.json")
}

func TestWriteLeavesNoTemporaryFileWhenTheWriterPanics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	func() {
		defer func() { assert.NotNil(t, recover()) }()
		_ = Write(path, func(w io.Writer) error {
			_, _ = w.Write([]byte("half"))
			panic("writer failed")
		})
	}()
	data, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(data))
	assertOnlyEntries(t, dir, "f.json")
}

func TestWriteBytesCreatesANewFileReadableByAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.run")
	require.NoError(t, WriteBytes(path, []byte("new\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(data))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	assertOnlyEntries(t, dir, "agent.run")
}

func TestWriteBytesReplacesAFileKeepingItsMode(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o600, 0o640, 0o664, 0o200} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "report.md")
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
			require.NoError(t, os.Chmod(path, mode))
			require.NoError(t, WriteBytes(path, []byte("new\n")))
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, mode, info.Mode().Perm())
			require.NoError(t, os.Chmod(path, 0o600))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new\n", string(data))
			assertOnlyEntries(t, dir, "report.md")
		})
	}
}

func TestWriteRefusesAReadOnlyFileAndLeavesItIntact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.json")
	require.NoError(t, os.WriteFile(path, []byte("keep"), 0o644))
	require.NoError(t, os.Chmod(path, 0o444))
	err := WriteBytes(path, []byte("new"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "read-only")
	data, _ := os.ReadFile(path)
	assert.Equal(t, "keep", string(data))
	info, _ := os.Stat(path)
	assert.Equal(t, os.FileMode(0o444), info.Mode().Perm())
	assertOnlyEntries(t, dir, "baseline.json")
}

func TestWriteToAFolderSaysItIsAFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := WriteBytes(dir, []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir+" is a folder")
	assert.NotContains(t, err.Error(), ".tmp-")
}

func TestWriteIntoAMissingFolderFailsNamingThePathGiven(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "f")
	err := WriteBytes(path, nil)
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, path+": no such file or directory", err.Error(), "the error names the path given, not the temporary file")
}

func TestWriteToDevNullWritesThroughTheDevice(t *testing.T) {
	// Safe to run against the real /dev/null: it must stay a device.
	t.Parallel()
	before, err := os.Stat(os.DevNull)
	if err != nil || before.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	require.NoError(t, WriteBytes(os.DevNull, []byte("discarded\n")))
	after, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.Equal(t, before.Mode(), after.Mode(), "the device is still a device")

	link := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.Symlink(os.DevNull, link))
	require.NoError(t, WriteBytes(link, []byte("discarded\n")))
	li, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, li.Mode()&os.ModeSymlink, "a link to a device stays a link")
	assertOnlyEntries(t, filepath.Dir(link), "out")
}

func TestWriteThroughALinkReplacesTheFileItPointsTo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "real.md")
	link := filepath.Join(dir, "link.md")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o640))
	require.NoError(t, os.Symlink("real.md", link))
	require.NoError(t, WriteBytes(link, []byte("new")))
	li, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, li.Mode()&os.ModeSymlink, "the link stays a link")
	data, _ := os.ReadFile(target)
	assert.Equal(t, "new", string(data))
	info, _ := os.Stat(target)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
	assertOnlyEntries(t, dir, "link.md", "real.md")
}

func TestWriteIntoALinkedFolderReplacesTheFileInTheFolderItLeadsTo(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dest := filepath.Join(root, "real")
	require.NoError(t, os.Mkdir(dest, 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(root, "via")))
	require.NoError(t, os.WriteFile(filepath.Join(dest, "f.json"), []byte("old"), 0o640))
	for _, p := range []string{filepath.Join(root, "via", "f.json"), filepath.Join(root, "via", "..", "real", "g.json")} {
		require.NoError(t, WriteBytes(p, []byte("new")))
		var batch Batch
		require.NoError(t, batch.Write(p, func(w io.Writer) error { _, err := w.Write([]byte("batch")); return err }))
		require.NoError(t, batch.Commit())
	}
	for _, name := range []string{"f.json", "g.json"} {
		data, err := os.ReadFile(filepath.Join(dest, name))
		require.NoError(t, err)
		assert.Equal(t, "batch", string(data))
	}
	info, err := os.Stat(filepath.Join(dest, "f.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm(), "the file replaced keeps its mode")
	assertOnlyEntries(t, dest, "f.json", "g.json")
	li, err := os.Lstat(filepath.Join(root, "via"))
	require.NoError(t, err)
	assert.NotZero(t, li.Mode()&os.ModeSymlink, "the link stays a link")
}

func TestWriteThroughADanglingLinkIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(dir, "out.json")
	require.NoError(t, os.Symlink("missing.json", link))
	err := WriteBytes(link, []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), link+": symbolic link to missing.json, which does not exist")
	assertOnlyEntries(t, dir, "out.json")
}

func TestWriteRemovesStaleTemporaryFilesOfTheSameTargetOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	files := map[string]bool{ // name: removed by a write of r.md
		".r.md.tmp-123":    true,  // left by a killed run
		".r.md.tmp-":       false, // not os.CreateTemp's pattern
		".r.md.tmp-12a":    false,
		".q.md.tmp-123":    false, // another target's
		".r.md.tmp-456":    false, // young: may be another writer's
		"r.md.tmp-789":     false,
		".r.md.bak.tmp-12": false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, nil, 0o600))
		if name != ".r.md.tmp-456" {
			require.NoError(t, os.Chtimes(p, old, old))
		}
	}
	require.NoError(t, WriteBytes(filepath.Join(dir, "r.md"), []byte("x")))
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.Equal(t, removed, os.IsNotExist(err), name)
	}
}

func TestIsTempMatchesOnlyTheTemporaryNamePattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, base string
		want       bool
	}{
		{".a.json.tmp-0123456789", "a.json", true},
		{".a.json.tmp-", "a.json", false},
		{".a.json.tmp-1x", "a.json", false},
		{"a.json.tmp-1", "a.json", false},
		{".b.json.tmp-1", "a.json", false},
	} {
		assert.Equal(t, tc.want, IsTemp(tc.name, tc.base), tc.name)
	}
}

// assertOnlyEntries checks that dir holds exactly the named entries: no
// temporary file is left behind.
func assertOnlyEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
