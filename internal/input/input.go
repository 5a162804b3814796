// Package input opens the files the tool reads (traces, ground truth,
// diffs, taxonomies, scenarios, symbol, qrels and run files, run results)
// so that no input can hang a run or exhaust its memory:
//
//   - only regular files are read: a named pipe (FIFO), a device or a
//     socket is refused with an error naming the path and what it is,
//     because reading one may never end (a FIFO with no writer) or never
//     reach end of file (/dev/zero). A symbolic link is followed and judged
//     by its target. Standard input, which callers accept as "-", is read
//     through [LimitReader] instead;
//   - files under /proc, /sys and /dev are refused, whatever their type,
//     with a *SystemFileError: the kernel makes them up (a process's
//     environment, its memory maps), they hold secrets more often than
//     data, and a parse error quoting one would print them. A symbolic
//     link into them is refused too;
//   - every read is bounded: a file larger than its limit is refused before
//     it is read when its size is known, and a file that grows past the
//     limit while being read (or standard input) fails at the limit with a
//     [TooLargeError], instead of reading on.
//
// An error that quotes what it could not parse quotes an [Excerpt]: at
// most [MaxExcerpt] bytes, escaped.
//
// The default limit depends on what the input is (see the constants); the
// public packages let a caller raise them, and the command-line tool has a
// -max-input-size flag that sets all of them.
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// Units of size.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

// Default limits, by kind of input.
const (
	// TraceLimit bounds a trace file, each file of a trace stored as a
	// folder, and a trial's trace in a run: agent traces of hundreds of
	// megabytes are common, and they are streamed.
	TraceLimit = 4 * GiB
	// DataLimit bounds line-oriented data: unified diffs, SWE-bench
	// instance files (JSON Lines), dataset files, TREC qrels and run files,
	// index symbol files.
	DataLimit = 1 * GiB
	// TruthLimit bounds a ground-truth document read whole (a JSON, YAML
	// or text list of files, a task folder's files, a SWE-bench instance
	// object): about four million paths.
	TruthLimit = 256 * MiB
	// ConfigLimit bounds small documents written by hand or by the tool:
	// scenario files, taxonomy files, a trial's result.json, run summaries.
	ConfigLimit = 64 * MiB
)

// Flag is the command-line flag that raises every limit; errors name it so
// that a user knows what to do.
const Flag = "-max-input-size"

// ErrNotRegular and ErrTooLarge are matched, with errors.Is, by
// *NotRegularError and *TooLargeError.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("input larger than its size limit")
	// ErrFolder is matched by the error for a folder where a file is read.
	ErrFolder = errors.New("is a folder, not a file")
	// ErrSystemFile is matched by *SystemFileError.
	ErrSystemFile = errors.New("a file of /proc, /sys or /dev")
)

// systemRoots are the folders whose files are refused as inputs.
var systemRoots = []string{"/proc", "/sys", "/dev"}

// A SystemFileError reports an input under /proc, /sys or /dev.
type SystemFileError struct {
	Path string
	Root string // "/proc"
}

func (e *SystemFileError) Error() string {
	return fmt.Sprintf("%s: is under %s, which the system fills (process environments, device state), not an input file; only files written for the tool are read (pipe data to standard input with -)", e.Path, e.Root)
}

// Is makes errors.Is(err, ErrSystemFile) true.
func (e *SystemFileError) Is(target error) bool { return target == ErrSystemFile }

// checkPath refuses a name under one of systemRoots, as written (made
// absolute) or once its symbolic links are resolved.
func checkPath(name string) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil // the open that follows reports it
	}
	paths := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		paths = append(paths, real)
	}
	for _, p := range paths {
		p = filepath.ToSlash(p)
		for _, root := range systemRoots {
			if p == root || strings.HasPrefix(p, root+"/") {
				return &SystemFileError{Path: name, Root: root}
			}
		}
	}
	return nil
}

// MaxExcerpt is the most bytes of an input that an error quotes.
const MaxExcerpt = 64

// Excerpt quotes s, a piece of an input an error reports (a line that does
// not parse), for the message: its first MaxExcerpt bytes at most, cut
// between characters, quoted and escaped as by strconv.Quote, followed by
// "…" when cut. A file that is not what the tool expects may hold anything,
// a key or an environment, and a message should show only enough of it to
// find the place.
func Excerpt(s string) string {
	if len(s) <= MaxExcerpt {
		return strconv.Quote(s)
	}
	cut := MaxExcerpt
	for cut > MaxExcerpt-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// A NotRegularError reports an input that is not a regular file.
type NotRegularError struct {
	Path string
	// What says what the path is: "a named pipe (FIFO)", "a character
	// device", …
	What string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file; only regular files are read (pipe data to standard input with -)", e.Path, e.What)
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// A TooLargeError reports an input larger than its limit.
type TooLargeError struct {
	Path  string
	Limit int64
	// Folder is set when Path is a folder whose files, in all, are larger
	// than the limit (see Budget).
	Folder bool
}

func (e *TooLargeError) Error() string {
	what := "larger than"
	if e.Folder {
		what = "a folder whose files are, in all, larger than"
	}
	return fmt.Sprintf("%s: %s the input size limit of %s; raise it with %s", e.Path, what, FormatSize(e.Limit), Flag)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// describe says what a non-regular file is.
func describe(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeIrregular != 0:
		return "a special file"
	}
	return "not a file"
}

// check refuses a file that is neither regular nor, with dirOK, a folder,
// and one whose size is known to exceed limit.
func check(name string, info fs.FileInfo, limit int64, dirOK bool) error {
	mode := info.Mode()
	switch {
	case mode.IsRegular():
		if info.Size() > limit {
			return &TooLargeError{Path: name, Limit: limit}
		}
		return nil
	case mode.IsDir():
		if dirOK {
			return nil
		}
		return fmt.Errorf("%s: %w", name, ErrFolder)
	}
	return &NotRegularError{Path: name, What: describe(mode)}
}

// Stat is os.Stat (a symbolic link is judged by its target) that also
// refuses a path that is neither a regular file nor a folder, and one under
// /proc, /sys or /dev. Callers that accept a folder use it before choosing
// how to read the path.
func Stat(name string) (fs.FileInfo, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := check(name, info, 1<<62, true); err != nil {
		return nil, err
	}
	if err := checkPath(name); err != nil {
		return nil, err
	}
	return info, nil
}

// Open opens the named regular file for reading; reads fail with a
// *TooLargeError past limit bytes. A non-positive limit is no limit.
func Open(name string, limit int64) (io.ReadCloser, error) {
	limit = orNoLimit(limit)
	info, err := os.Stat(name)
	if err != nil {
		// Say "open", as os.Open would: the caller asked to read.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, err
	}
	if err := check(name, info, limit, false); err != nil {
		return nil, err
	}
	if err := checkPath(name); err != nil {
		return nil, err
	}
	f, err := openFile(name)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced between the two calls: judge what
	// was opened.
	if info, err = f.Stat(); err == nil {
		err = check(name, info, limit, false)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &file{Reader: LimitReader(f, name, limit), f: f}, nil
}

type file struct {
	io.Reader
	f *os.File
}

func (f *file) Close() error { return f.f.Close() }

// ReadAt reads the file at an offset, for formats read by position (an
// SQLite database). Open has checked the file's size against the limit.
func (f *file) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }

// ReadFile reads the named regular file whole, refusing one larger than
// limit bytes. A non-positive limit is no limit.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := Open(name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadFileFS is ReadFile on a file of fsys (a trace stored as a folder,
// read through os.DirFS).
func ReadFileFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, _, err := OpenFileFS(fsys, name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenFileFS opens a file of fsys to be read streaming, with the checks of
// ReadFileFS, and returns its size: reading past limit bytes fails with a
// *TooLargeError naming it.
func OpenFileFS(fsys fs.FS, name string, limit int64) (io.ReadCloser, int64, error) {
	limit = orNoLimit(limit)
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, 0, err
	}
	if err := check(name, info, limit, false); err != nil {
		return nil, 0, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, 0, err
	}
	if info, err = f.Stat(); err == nil {
		err = check(name, info, limit, false)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return struct {
		io.Reader
		io.Closer
	}{LimitReader(f, name, limit), f}, info.Size(), nil
}

// A Budget bounds what is read, in all, from the files of one input
// stored as a folder (a trace written as one file per event): each file
// read takes its size from what is left, so that a folder of many files
// each under the limit is still refused past it.
type Budget struct {
	folder string
	limit  int64
	used   int64
}

// NewBudget returns the budget of the folder, for messages, with limit
// bytes in all; a non-positive limit is no limit.
func NewBudget(folder string, limit int64) *Budget {
	return &Budget{folder: folder, limit: orNoLimit(limit)}
}

// ReadFileFS is ReadFileFS within what is left of the budget. Past it, the
// error is a *TooLargeError naming the folder.
func (b *Budget) ReadFileFS(fsys fs.FS, name string) ([]byte, error) {
	f, _, err := b.OpenFileFS(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenFileFS is OpenFileFS within what is left of the budget: what is
// read is taken from it, and reading past it fails with a *TooLargeError
// naming the folder.
func (b *Budget) OpenFileFS(fsys fs.FS, name string) (io.ReadCloser, int64, error) {
	// At least one byte may be asked for, as 0 would mean no limit; the
	// total is checked as the file is read.
	f, size, err := OpenFileFS(fsys, name, max(b.limit-b.used, 1))
	if err != nil {
		return nil, 0, b.folderError(err)
	}
	return &budgetReader{f: f, b: b}, size, nil
}

func (b *Budget) folderError(err error) error {
	if errors.Is(err, ErrTooLarge) {
		return &TooLargeError{Path: b.folder, Limit: b.limit, Folder: true}
	}
	return err
}

// budgetReader takes what it reads from its budget.
type budgetReader struct {
	f io.ReadCloser
	b *Budget
}

func (r *budgetReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.b.used += int64(n)
	if r.b.used > r.b.limit {
		err = ErrTooLarge
	}
	return n, r.b.folderError(err)
}

func (r *budgetReader) Close() error { return r.f.Close() }

// LimitReader returns a reader of r that fails with a *TooLargeError,
// naming name, once more than limit bytes would be read. The bytes up to
// the limit are returned. A non-positive limit is no limit.
func LimitReader(r io.Reader, name string, limit int64) io.Reader {
	return &limitReader{r: r, name: name, left: orNoLimit(limit), limit: orNoLimit(limit)}
}

type limitReader struct {
	r     io.Reader
	name  string
	left  int64 // bytes that may still be read
	limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if l.left <= 0 {
		// Read one byte more than allowed to tell a file of exactly
		// the limit from a longer one.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, &TooLargeError{Path: l.name, Limit: l.limit}
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func orNoLimit(limit int64) int64 {
	if limit <= 0 {
		return 1<<63 - 1
	}
	return limit
}

// A Max is a caller's override of a package's default limits, safe for
// concurrent use; the zero value keeps the defaults.
type Max struct{ n atomic.Int64 }

// Set overrides the defaults with n bytes; zero or less restores them.
func (m *Max) Set(n int64) { m.n.Store(max(n, 0)) }

// Or returns the override, or def when none is set.
func (m *Max) Or(def int64) int64 {
	if n := m.n.Load(); n > 0 {
		return n
	}
	return def
}

// Or returns n when positive, else def: a zero options field means the
// default.
func Or(n, def int64) int64 {
	if n > 0 {
		return n
	}
	return def
}

// FormatSize writes n bytes in the largest binary unit that divides it
// ("4 GiB", "64 MiB", "1000 bytes").
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ParseSize reads a size: a whole number of bytes, optionally followed by a
// binary unit (KiB, MiB, GiB, TiB, or K, M, G, T; B for bytes), with or
// without a space: "64MiB", "2 GiB", "1048576".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with an optional unit (64MiB, 2GiB)", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	unit := strings.TrimSpace(t[i:])
	var mult int64
	switch strings.ToLower(unit) {
	case "", "b":
		mult = 1
	case "k", "kib":
		mult = KiB
	case "m", "mib":
		mult = MiB
	case "g", "gib":
		mult = GiB
	case "t", "tib":
		mult = TiB
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, KiB, MiB, GiB or TiB)", s, unit)
	}
	if n > (1<<63-1)/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q: must be more than 0", s)
	}
	return n * mult, nil
}

// Parse calls parse on the named file, or on stdin for "-" (named "<stdin>"
// in error messages), reading at most limit bytes. Only a regular file is
// opened: a named pipe, a device or a file under /proc, /sys or /dev is
// refused.
func Parse(name string, stdin io.Reader, limit int64, parse func(r io.Reader, name string) error) error {
	if name == "-" {
		return parse(LimitReader(stdin, "<stdin>", limit), "<stdin>")
	}
	f, err := Open(name, limit)
	if err != nil {
		return err
	}
	defer f.Close()
	return parse(f, name)
}
