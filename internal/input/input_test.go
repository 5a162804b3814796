package input

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func devZero(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	return "/dev/zero"
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	link := func(t *testing.T, target string) string {
		p := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("symlink: %v", err)
		}
		return p
	}
	tests := []struct {
		name string
		path func(t *testing.T) string
		what string
	}{
		{"a named pipe is refused without being opened", fifo, "a named pipe (FIFO)"},
		{"a character device is refused", devZero, "a character device"},
		{"a symbolic link to a named pipe is judged by its target", func(t *testing.T) string { return link(t, fifo(t)) }, "a named pipe (FIFO)"},
		{"a symbolic link to a device is judged by its target", func(t *testing.T) string { return link(t, devZero(t)) }, "a character device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.path(t)
			for _, read := range []func() error{
				func() error { _, err := ReadFile(p, MiB); return err },
				func() error { _, err := Open(p, MiB); return err },
				func() error { _, err := ReadFileFS(os.DirFS(filepath.Dir(p)), filepath.Base(p), MiB); return err },
			} {
				err := read()
				if !errors.Is(err, ErrNotRegular) {
					t.Fatalf("got %v, want a not-a-regular-file error", err)
				}
				if !strings.Contains(err.Error(), tt.what) {
					t.Errorf("error %q does not say the path is %s", err, tt.what)
				}
			}
		})
	}
}

func TestStatAcceptsFilesAndFoldersOnly(t *testing.T) {
	t.Parallel()
	if _, err := Stat(t.TempDir()); err != nil {
		t.Errorf("folder: %v", err)
	}
	if _, err := Stat(write(t, "f", "x")); err != nil {
		t.Errorf("file: %v", err)
	}
	p := fifo(t)
	if _, err := Stat(p); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
		t.Errorf("FIFO: got %v, want an error naming %s", err, p)
	}
}

func TestReadFileEnforcesTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		limit   int64
		wantErr bool
	}{
		{"a file of exactly the limit is read", "12345", 5, false},
		{"a file one byte over the limit is refused", "123456", 5, true},
		{"a non-positive limit is no limit", strings.Repeat("x", 1000), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := write(t, "f", tt.content)
			data, err := ReadFile(p, tt.limit)
			if tt.wantErr {
				var tl *TooLargeError
				if !errors.As(err, &tl) || tl.Path != p || tl.Limit != tt.limit {
					t.Fatalf("got %v, want a too-large error naming %s and the limit", err, p)
				}
				if !strings.Contains(err.Error(), Flag) {
					t.Errorf("error %q does not say how to raise the limit", err)
				}
				return
			}
			if err != nil || string(data) != tt.content {
				t.Fatalf("got %q, %v; want the content", data, err)
			}
		})
	}
}

func TestLimitReaderStopsAStreamAtTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		r       io.Reader
		limit   int64
		want    string
		wantErr bool
	}{
		{"a stream shorter than the limit is read whole", strings.NewReader("abc"), 4, "abc", false},
		{"a stream of exactly the limit is read whole", iotest.OneByteReader(strings.NewReader("abcd")), 4, "abcd", false},
		{"an endless stream fails at the limit", zeros{}, 1000, strings.Repeat("\x00", 1000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := io.ReadAll(LimitReader(tt.r, "-", tt.limit))
			if (err != nil) != tt.wantErr || (tt.wantErr && !errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error %v, want error: %v", err, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Errorf("read %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestParseSizeReadsUnits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
	}{
		{"64MiB", 64 * MiB}, {"2GiB", 2 * GiB}, {"2 GiB", 2 * GiB}, {"512k", 512 * KiB},
		{"1048576", MiB}, {"10B", 10}, {"1TiB", TiB},
	}
	for _, tt := range tests {
		if got, err := ParseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "MiB", "-1MiB", "0", "1.5GiB", "3 parsecs", "9999999999999999999", "9000000TiB"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, got)
		}
	}
}

func TestFormatSizeUsesTheLargestUnitThatDivides(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{4 * GiB: "4 GiB", 64 * MiB: "64 MiB", 1536 * MiB: "1536 MiB", 1000: "1000 bytes", 3 * KiB: "3 KiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseReadsAFileOrStandardInput(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.txt")
	require.NoError(t, os.WriteFile(path, []byte("from the file"), 0o644))
	read := func(name string, stdin io.Reader, limit int64) (string, error) {
		var got string
		err := Parse(name, stdin, limit, func(r io.Reader, n string) error {
			b, err := io.ReadAll(r)
			got = n + ": " + string(b)
			return err
		})
		return got, err
	}
	got, err := read(path, nil, 100)
	require.NoError(t, err)
	assert.Equal(t, path+": from the file", got)
	got, err = read("-", strings.NewReader("from stdin"), 100)
	require.NoError(t, err)
	assert.Equal(t, "<stdin>: from stdin", got)
	_, err = read(path, nil, 4)
	assert.ErrorIs(t, err, ErrTooLarge)
	_, err = read("-", strings.NewReader("from stdin"), 4)
	assert.ErrorIs(t, err, ErrTooLarge, "standard input is bounded too")
}

func TestOpenRefusesTheFilesOfProcSysAndDev(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	link := filepath.Join(t.TempDir(), "truth.json")
	if err := os.Symlink("/proc/self/environ", link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	tests := []struct {
		name, path, root string
	}{
		{"a process's environment is refused", "/proc/self/environ", "/proc"},
		{"a path that only reaches /proc through .. is refused", "/tmp/../proc/self/environ", "/proc"},
		{"a symbolic link to a process's environment is judged by its target", link, "/proc"},
		{"a file of /sys is refused", "/sys/kernel/mm/transparent_hugepage/enabled", "/sys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat(tt.path); err != nil {
				t.Skipf("%s: %v", tt.path, err)
			}
			for _, read := range []func() error{
				func() error { _, err := ReadFile(tt.path, MiB); return err },
				func() error { _, err := Open(tt.path, MiB); return err },
				func() error { _, err := Stat(tt.path); return err },
				func() error {
					return Parse(tt.path, nil, MiB, func(io.Reader, string) error { return nil })
				},
			} {
				err := read()
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrSystemFile), "%v", err)
				var se *SystemFileError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, tt.root, se.Root)
				assert.Contains(t, err.Error(), tt.path+": is under "+tt.root)
			}
		})
	}
	t.Run("a folder of /proc is refused where folders are read", func(t *testing.T) {
		t.Parallel()
		_, err := Stat("/proc/self")
		assert.True(t, errors.Is(err, ErrSystemFile), "%v", err)
	})
	t.Run("standard input is still read with -", func(t *testing.T) {
		t.Parallel()
		var got string
		err := Parse("-", strings.NewReader("a.go\n"), MiB, func(r io.Reader, name string) error {
			b, err := io.ReadAll(r)
			got = string(b)
			return err
		})
		require.NoError(t, err)
		assert.Equal(t, "a.go\n", got)
	})
}

func TestExcerptQuotesAtMost64BytesEscaped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"a short line is quoted whole", "a.go", `"a.go"`},
		{"controls and NULs are escaped", "K=v\x00\x1b[2J", `"K=v\x00\x1b[2J"`},
		{"64 bytes are quoted whole", strings.Repeat("x", 64), `"` + strings.Repeat("x", 64) + `"`},
		{"a longer line is cut at 64 bytes", "SECRET=" + strings.Repeat("s", 57) + "TAIL", `"SECRET=` + strings.Repeat("s", 57) + `"…`},
		{"a cut never splits a character", strings.Repeat("x", 63) + "é", `"` + strings.Repeat("x", 63) + `"…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Excerpt(tt.in))
		})
	}
}

func TestOpenFileFSStreamsAFileWithinTheLimit(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"a.json": {Data: []byte("12345")}, "dir": {Mode: fs.ModeDir}}
	f, size, err := OpenFileFS(fsys, "a.json", 5)
	require.NoError(t, err)
	assert.Equal(t, int64(5), size)
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(data))
	require.NoError(t, f.Close())

	_, _, err = OpenFileFS(fsys, "a.json", 4)
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl, "refused at once by its size")
	assert.Equal(t, "a.json", tl.Path)
	_, _, err = OpenFileFS(fsys, "dir", 0)
	assert.Error(t, err, "a folder is not read")
	_, _, err = OpenFileFS(fsys, "missing.json", 0)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestABudgetTakesWhatEachFileReadsAndRefusesPastIt(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"a": {Data: []byte("123")}, "b": {Data: []byte("4567")}, "c": {Data: []byte("8")}}
	b := NewBudget("run/folder", 8)
	f, size, err := b.OpenFileFS(fsys, "a")
	require.NoError(t, err)
	assert.Equal(t, int64(3), size)
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "123", string(data))
	data, err = b.ReadFileFS(fsys, "b")
	require.NoError(t, err)
	assert.Equal(t, "4567", string(data))
	data, err = b.ReadFileFS(fsys, "c")
	require.NoError(t, err, "8 bytes in all: exactly the budget")
	assert.Equal(t, "8", string(data))

	_, err = b.ReadFileFS(fsys, "c")
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl, "one byte past the budget")
	assert.Equal(t, &TooLargeError{Path: "run/folder", Limit: 8, Folder: true}, tl)

	// What is streamed is taken from the budget as it is read.
	b = NewBudget("run/folder", 5)
	f, _, err = b.OpenFileFS(fsys, "b")
	require.NoError(t, err)
	_, err = io.ReadAll(iotest.OneByteReader(f))
	require.NoError(t, err)
	_, _, err = b.OpenFileFS(fsys, "a")
	require.ErrorAs(t, err, &tl, "4 bytes read, 3 more asked for")
	assert.True(t, tl.Folder)
	data, err = b.ReadFileFS(fsys, "c")
	require.NoError(t, err)
	assert.Equal(t, "8", string(data))
}
