package input

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spoolOf fills a spool in a folder of its own with r; the folder is
// returned to check what is left in it.
func spoolOf(t *testing.T, r io.Reader) (*Spool, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := NewSpool(dir)
	require.NoError(t, err)
	require.NoError(t, s.Fill(r))
	return s, dir
}

func assertEmptyDir(t *testing.T, dir, msg string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, msg)
}

func TestASpoolReadsBackWhatItHolds(t *testing.T) {
	t.Parallel()
	data := strings.Repeat("0123456789", 100_000) // past Fill's buffer
	s, dir := spoolOf(t, iotest.HalfReader(strings.NewReader(data)))
	defer s.Close()
	assert.Equal(t, int64(len(data)), s.Size())

	got, err := io.ReadAll(s.Reader())
	require.NoError(t, err)
	assert.Equal(t, data, string(got), "read from the first byte to the end")
	got, err = io.ReadAll(s.Reader())
	require.NoError(t, err)
	assert.Equal(t, data, string(got), "each reader starts at the first byte")
	assert.NoError(t, iotest.TestReader(s.Reader(), []byte(data)))

	p := make([]byte, 4)
	n, err := s.ReadAt(p, 12)
	assert.Equal(t, 4, n)
	assert.NoError(t, err)
	assert.Equal(t, "2345", string(p))
	n, err = s.ReadAt(p, int64(len(data))-2)
	assert.Equal(t, 2, n)
	assert.Equal(t, io.EOF, err, "a read past the end stops at the last byte held")
	assert.Equal(t, "89", string(p[:n]))
	n, err = s.ReadAt(p, int64(len(data)))
	assert.Equal(t, 0, n)
	assert.Equal(t, io.EOF, err)

	assertEmptyDir(t, dir, "the file has no name while it is read, where the system allows it")
	require.NoError(t, s.Close())
	assertEmptyDir(t, dir, "nothing is left once closed")
}

func TestASpoolEndsAsItsStreamEnded(t *testing.T) {
	t.Parallel()
	cut := errors.New("connection reset")
	s, dir := spoolOf(t, io.MultiReader(strings.NewReader("abc\ndef"), iotest.ErrReader(cut)))
	defer s.Close()
	assert.Equal(t, int64(7), s.Size(), "the bytes before the error are held")
	got, err := io.ReadAll(s.Reader())
	assert.Equal(t, "abc\ndef", string(got))
	assert.ErrorIs(t, err, cut, "the error comes after the bytes read before it")
	got, err = io.ReadAll(iotest.OneByteReader(s.Reader()))
	assert.Equal(t, "abc\ndef", string(got), "read a byte at a time")
	assert.ErrorIs(t, err, cut, "only at the end")

	limited, _ := spoolOf(t, LimitReader(strings.NewReader("abcdef"), "-", 4))
	defer limited.Close()
	got, err = io.ReadAll(limited.Reader())
	assert.Equal(t, "abcd", string(got))
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl, "a stream past its limit ends at the limit")
	assert.Equal(t, "-", tl.Path)

	require.NoError(t, s.Close())
	assertEmptyDir(t, dir, "a stream cut short leaves nothing")
}

func TestASpoolThatCannotBeWrittenSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := NewSpool(dir)
	require.NoError(t, err)
	s.f.Close() // as a full disk would refuse the write
	err = s.Fill(strings.NewReader("abc"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holding the input in a temporary file (set TMPDIR to a folder with room)")
	s.Close()
	assertEmptyDir(t, dir, "a spool that failed leaves nothing")
}

func TestASpoolIsNotMadeWhereNoFileCanBe(t *testing.T) {
	t.Parallel()
	_, err := NewSpool(t.TempDir() + "/missing")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestClosingASpoolRemovesAFileThatStillHasItsName(t *testing.T) {
	t.Parallel()
	// As on a system where an open file cannot be removed.
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "spool-")
	require.NoError(t, err)
	s := &Spool{f: f, name: f.Name()}
	require.NoError(t, s.Fill(strings.NewReader("abc")))
	require.NoError(t, s.Close())
	assertEmptyDir(t, dir, "Close removes the file")
	assert.Error(t, s.Close(), "a second Close reports the closed file")
}
