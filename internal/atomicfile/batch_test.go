package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeString is a writer of a fixed content.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// temps lists the temporary files in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestABatchPutsNoFileUnderItsNameBeforeCommit(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	oldPath := filepath.Join(a, "old.json")
	require.NoError(t, os.WriteFile(oldPath, []byte("old"), 0o600))
	var batch Batch
	paths := []string{filepath.Join(a, "1.json"), oldPath, filepath.Join(b, "2.json")}
	for _, p := range paths {
		require.NoError(t, batch.Write(p, writeString("new "+filepath.Base(p))))
	}
	assert.NoFileExists(t, paths[0], "a new file is not under its name before Commit")
	assert.NoFileExists(t, paths[2])
	data, err := os.ReadFile(oldPath)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data), "a replaced file keeps its content before Commit")
	assert.Len(t, temps(t, a), 2, "the content waits in temporary files")

	require.NoError(t, batch.Commit())
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, "new "+filepath.Base(p), string(data))
	}
	info, err := os.Stat(oldPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "a replaced file keeps its mode")
	assertOnlyEntries(t, a, "1.json", "old.json")
	assertOnlyEntries(t, b, "2.json")
	assert.Nil(t, batch.watched, "the last commit closes the folders it watched")
	require.NoError(t, batch.Commit(), "a second Commit has nothing to do")
}

func TestABatchSyncsEachFileWhereSyncfsIsNotUsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batch := Batch{noSyncfs: true}
	p := filepath.Join(dir, "f.json")
	require.NoError(t, batch.Write(p, writeString("x")))
	require.NoError(t, batch.Commit())
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
	assertOnlyEntries(t, dir, "f.json")
}

func TestABatchLeavesTheOldFileOnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	var batch Batch
	err := batch.Write(path, func(w io.Writer) error { return assert.AnError })
	require.ErrorIs(t, err, assert.AnError)
	assert.Contains(t, err.Error(), path, "the error names the file")
	assert.Empty(t, batch.sets, "nothing waits for the commit")
	require.NoError(t, batch.Commit())
	data, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(data))
	assertOnlyEntries(t, dir, "f.json")
}

func TestWriteAllLeavesNoFileOfTheGroupWhenOneCannotBeWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	require.NoError(t, os.Mkdir(second, 0o755))
	var batch Batch
	err := batch.WriteAll(File{first, writeString("a")}, File{second, writeString("b")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), second+" is a folder")
	require.NoError(t, batch.Commit())
	assertOnlyEntries(t, dir, "b.json")
}

func TestCommitNamesTheFileItCouldNotPutInPlaceAndSkipsTheRestOfItsGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, second, third := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	var batch Batch
	require.NoError(t, batch.WriteAll(File{first, writeString("a")}, File{second, writeString("b")}))
	require.NoError(t, batch.Write(third, writeString("c")))
	// A folder appears where the first file goes: its rename must fail.
	require.NoError(t, os.Mkdir(first, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(first, "x"), nil, 0o644))

	err := batch.Commit()
	require.Error(t, err)
	var fe *FileError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, first, fe.Path)
	assert.True(t, strings.HasPrefix(err.Error(), first+": "), "the error names the file as given: %v", err)
	assert.NotContains(t, err.Error(), ".tmp-", "the error does not name the temporary file")
	assert.NoFileExists(t, second, "the rest of the group is not put in place")
	data, err := os.ReadFile(third)
	require.NoError(t, err, "another group is")
	assert.Equal(t, "c", string(data))
	assertOnlyEntries(t, dir, "a.json", "c.json")
}

func TestSyncSetNamesTheFileItCouldNotSync(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := []pending{{path: "out/a.json", tmp: filepath.Join(dir, ".a.json.tmp-1"), target: filepath.Join(dir, "a.json"), dir: dir}}
	err := syncSet(set, map[string]bool{})
	var fe *FileError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "out/a.json", fe.Path)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.NoError(t, syncSet(set, map[string]bool{dir: true}), "a file whose file system was synced is not synced again")
}

func TestABatchCommitsByItselfOnceItsOldestFileWaitedLongEnough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var batch Batch
	first, second := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	require.NoError(t, batch.Write(first, writeString("a")))
	batch.mu.Lock()
	batch.oldest = time.Now().Add(-batchMaxAge)
	batch.mu.Unlock()
	require.NoError(t, batch.Write(second, writeString("b")))
	assert.FileExists(t, first)
	assert.FileExists(t, second)
	assert.Empty(t, temps(t, dir))
	require.NoError(t, batch.Commit())
}

func TestABatchCommitsByItselfOnceItHoldsEnoughFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var batch Batch
	for i := range batchMaxFiles {
		require.NoError(t, batch.Write(filepath.Join(dir, fmt.Sprintf("%d.json", i)), writeString("x")))
	}
	assert.FileExists(t, filepath.Join(dir, "0.json"))
	assert.Empty(t, temps(t, dir))
	require.NoError(t, batch.Commit())
}

func TestABatchIsSafeForSeveralWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var batch Batch
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 20 {
				p := filepath.Join(dir, fmt.Sprintf("%d-%d", w, i))
				assert.NoError(t, batch.WriteAll(File{p + ".a", writeString(p)}, File{p + ".b", writeString(p)}))
			}
		})
	}
	wg.Wait()
	require.NoError(t, batch.Commit())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 4*20*2)
	assert.Empty(t, temps(t, dir))
}

func TestANilBatchWritesAndSyncsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	var batch *Batch
	require.NoError(t, batch.Write(path, writeString("x")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "x", string(data), "in place before Commit")
	err = batch.WriteAll(File{filepath.Join(dir, "g.json"), writeString("g")}, File{dir, writeString("h")})
	require.Error(t, err, "the folder is refused")
	assert.FileExists(t, filepath.Join(dir, "g.json"), "a nil batch writes in order, as Write does")
	require.NoError(t, batch.Commit())
}

func TestABatchWritesThroughADeviceAtOnce(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(os.DevNull); err != nil || filepath.Separator != '/' {
		t.Skip("no /dev/null")
	}
	var batch Batch
	require.NoError(t, batch.Write(os.DevNull, writeString("x")))
	assert.Empty(t, batch.sets, "nothing waits for a device")
	require.NoError(t, batch.Commit())
}

func TestWithoutSyncfsAGroupWhoseFileCannotBeSyncedIsNotPutInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	batch := Batch{noSyncfs: true}
	for _, g := range []string{"a", "b", "c"} {
		require.NoError(t, batch.WriteAll(File{filepath.Join(dir, g+"1"), writeString(g)}, File{filepath.Join(dir, g+"2"), writeString(g)}))
	}
	// The temporary file of b2 vanishes before the commit syncs it.
	require.Len(t, batch.sets, 3)
	require.NoError(t, os.Remove(batch.sets[1][1].tmp))

	err := batch.Commit()
	var fe *FileError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, filepath.Join(dir, "b2"), fe.Path, "the error names the file that could not be synced")
	assertOnlyEntries(t, dir, "a1", "a2", "c1", "c2")
}
