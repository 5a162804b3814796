//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteToANamedPipeWritesThroughIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		got <- string(data)
	}()
	require.NoError(t, WriteBytes(fifo, []byte("through the pipe\n")))
	select {
	case s := <-got:
		assert.Equal(t, "through the pipe\n", s)
	case <-time.After(10 * time.Second):
		t.Fatal("nothing came through the pipe")
	}
	info, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeNamedPipe, "the pipe is still a pipe")
	assertOnlyEntries(t, dir, "pipe")
}

func TestWriteRefusesASocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skipf("no unix sockets: %v", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Skipf("cannot bind a unix socket: %v", err)
	}
	err = WriteBytes(path, []byte("x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+" is a socket")
}

func TestWriteIntoAReadOnlyFolderNamesThePathGiven(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root may write into any folder; this case needs an unprivileged user")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.md")
	require.NoError(t, os.WriteFile(path, []byte("keep"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	err := WriteBytes(path, []byte("new"))
	require.ErrorIs(t, err, os.ErrPermission)
	assert.Equal(t, path+": permission denied", err.Error())
	data, _ := os.ReadFile(path)
	assert.Equal(t, "keep", string(data))
}

func TestWriteToANamedPipeWithoutAReaderGivesUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openThrough(fifo, fifo, 100*time.Millisecond)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Equal(t, fifo+" is a named pipe that no process opened for reading within 100ms; start its reader first, or write to a file", err.Error())
	case <-time.After(10 * time.Second):
		t.Fatal("the open of a named pipe without a reader did not give up")
	}
	assertOnlyEntries(t, dir, "pipe")
}

func TestWriteToANamedPipeWaitsForAReaderThatComesLate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		got <- string(data)
	}()
	// More than a pipe's buffer (64 KiB on Linux): the writes must wait
	// for the reader, not fail because the pipe was opened non-blocking.
	data := []byte(strings.Repeat("through the pipe\n", 20000))
	require.NoError(t, WriteBytes(fifo, data))
	select {
	case s := <-got:
		assert.Equal(t, string(data), s)
	case <-time.After(10 * time.Second):
		t.Fatal("nothing came through the pipe")
	}
}
