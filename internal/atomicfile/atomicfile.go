// Package atomicfile writes files so that a reader never sees one half
// written: the content goes to a temporary file in the same folder, is
// synced to disk, and is renamed over the target. Every artifact, report
// and baseline the project writes goes through it. A Batch writes many
// files the same way at a lower cost, making their content durable
// together.
//
// # What the target may be
//
// Write looks at the target before writing, following symbolic links:
//
//   - missing: it is created, readable by everyone (0644);
//   - a regular file: it is replaced and keeps its permission bits; a
//     file without any write permission bit (chmod 444), or one this
//     process may not open for writing, is refused and left as it was;
//   - a symbolic link to a regular file: the file it points to is
//     replaced (the link stays a link);
//   - a character device or a named pipe (/dev/null, /dev/stdout,
//     /proc/self/fd/1, a FIFO, or a link to one): written through
//     directly, without a temporary file, since a device cannot be
//     renamed over and a reader of a pipe only ever sees a stream. A
//     named pipe that no process opens for reading within PipeWait is an
//     error saying so, where opening it would otherwise wait for ever;
//   - a folder, a block device, a socket, a link to a missing file: an
//     error, and nothing is written.
//
// Errors name the path the caller gave, never the temporary file.
//
// # Temporary files
//
// The temporary file is ".NAME.tmp-DIGITS" beside the target. A run that
// ends normally, with or without an error, leaves none. A run killed
// while writing leaves one (a Batch, every file waiting for its commit);
// the next write to the same target removes
// every file with exactly that name pattern that has not been modified
// for StaleAfter (a younger one may belong to another process writing
// the same target at the same time, and is left alone).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// StaleAfter is how long a temporary file of a target must have been
// left unmodified before a later write to that target removes it.
const StaleAfter = time.Minute

// Write writes the file at path through write (see the package comment
// for what path may name). For a regular file the content goes to a
// temporary file in the same folder (a rename is atomic only within one
// file system), is synced to disk, and the temporary file is renamed over
// the file. On any error the temporary file is removed and the file is
// left as it was. Every error is prefixed with path; an error from write
// is wrapped. The folder must exist.
func Write(path string, write func(io.Writer) error) error {
	p, err := prepare(path, write, nil)
	if err != nil || p.tmp == "" {
		return err
	}
	if err := os.Rename(p.tmp, p.target); err != nil {
		os.Remove(p.tmp)
		return pathError(path, err)
	}
	SyncDir(p.dir)
	return nil
}

// writers are the buffers files are written through, kept for the next
// file: a batch writes thousands.
var writers = sync.Pool{New: func() any { return bufio.NewWriter(nil) }}

// pending is a file written to its temporary file, not yet renamed.
type pending struct {
	path             string // as the caller gave it, for errors
	tmp, target, dir string
}

// prepare writes the content of path to a temporary file beside its
// target and closes it; with a nil batch the content is synced first,
// with a batch the folder is registered with it before the temporary
// file is created (see Batch.Commit). For a device or a pipe, written
// through, the pending file has no tmp. On error nothing is left behind.
func prepare(path string, write func(io.Writer) error, b *Batch) (p pending, err error) {
	target, mode, direct, err := resolve(path)
	if err != nil {
		return p, err
	}
	if direct {
		return p, writeThrough(path, target, write)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	if b != nil {
		b.watch(dir)
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return p, pathError(path, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		// Also on a panic in write: no temporary file outlives the call.
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(f)
	defer func() {
		bw.Reset(nil)
		writers.Put(bw)
	}()
	if err = write(bw); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return p, pathError(path, err)
	}
	// CreateTemp makes the file private (0600).
	if err = f.Chmod(mode); err != nil {
		return p, pathError(path, err)
	}
	if b == nil {
		if err = f.Sync(); err != nil {
			return p, pathError(path, err)
		}
	}
	if err = f.Close(); err != nil {
		return p, pathError(path, err)
	}
	done = true
	return pending{path: path, tmp: tmp, target: target, dir: dir}, nil
}

// WriteBytes writes data to path atomically (see Write).
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// resolve says where and how path is written: target is the file to
// replace (path, or what a symbolic link at path points to), mode the
// permission bits it gets, direct whether it is a device or pipe written
// through.
func resolve(path string) (target string, mode fs.FileMode, direct bool, err error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, 0o644, false, nil
	case err != nil:
		return "", 0, false, pathError(path, err)
	case info.Mode()&fs.ModeSymlink == 0:
		// Not a link: the file is replaced in the folder path names,
		// whatever links lead to that folder, so there is nothing to
		// resolve.
		return check(path, path, info)
	}
	info, err = os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		dest, _ := os.Readlink(path)
		return "", 0, false, fmt.Errorf("%s: symbolic link to %s, which does not exist", path, dest)
	}
	if err != nil {
		return "", 0, false, pathError(path, err)
	}
	if info.Mode().IsRegular() {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return "", 0, false, pathError(path, err)
		}
	}
	return check(path, target, info)
}

// check is resolve for the file info describes, which target (path, or
// the file a link at path leads to) names.
func check(path, target string, info fs.FileInfo) (string, fs.FileMode, bool, error) {
	m := info.Mode()
	switch {
	case m.IsDir():
		return "", 0, false, fmt.Errorf("%s is a folder, not a file", path)
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return path, 0, true, nil
	case !m.IsRegular():
		return "", 0, false, fmt.Errorf("%s is a %s, not a file; give a file, a character device or a named pipe", path, kind(m))
	}
	if m.Perm()&0o222 == 0 {
		return "", 0, false, fmt.Errorf("%s is read-only (mode %04o); make it writable or remove it to replace it", path, m.Perm())
	}
	// Opening for writing without truncating changes nothing, and tells
	// whether this process may write the file (a rename would replace a
	// file the process may not write whenever the folder is writable).
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return "", 0, false, pathError(path, err)
	}
	f.Close()
	return target, m.Perm(), false, nil
}

// PipeWait is how long Write waits for a reader of a named pipe.
const PipeWait = 30 * time.Second

// writeThrough writes to a device or a named pipe as it is.
func writeThrough(path, target string, write func(io.Writer) error) error {
	f, err := openThrough(path, target, PipeWait)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return pathError(path, err)
	}
	return pathError(path, f.Close())
}

// kind names a file type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeIrregular != 0:
		return "special file"
	}
	return "file of type " + m.Type().String()
}

// pathError prefixes err with the path the caller gave, dropping the
// path (possibly the temporary file's) an *fs.PathError or *os.LinkError
// carries. The underlying error stays wrapped for errors.Is.
func pathError(path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", path, bare(err))
}

// bare drops the path an *fs.PathError or *os.LinkError carries (perhaps
// a temporary file's), keeping the error underneath.
func bare(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// tempPrefix is the start of the name of a temporary file of base; the
// rest is the decimal digits os.CreateTemp puts in place of "*".
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// IsTemp reports whether name is the name of a temporary file of the
// target named base: "." + base + ".tmp-" followed by digits only.
func IsTemp(name, base string) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix(base))
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// leftovers lists, per folder, the names in it that look like temporary
// files of this package, read once per process: a run writing thousands
// of artifacts into one folder reads the folder once, not once a file.
var leftovers struct {
	sync.Mutex
	byDir map[string][]string
}

// removeStale removes the temporary files of base in dir left by a write
// that never finished, when unmodified for StaleAfter. Failing to remove
// one is not an error: the write goes on.
func removeStale(dir, base string) {
	leftovers.Lock()
	names, ok := leftovers.byDir[dir]
	if !ok {
		names = scanTemps(dir)
		if leftovers.byDir == nil {
			leftovers.byDir = map[string][]string{}
		}
		leftovers.byDir[dir] = names
	}
	leftovers.Unlock()
	for _, name := range names {
		if !IsTemp(name, base) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Lstat(p)
		if err != nil || !info.Mode().IsRegular() || time.Since(info.ModTime()) < StaleAfter {
			continue
		}
		os.Remove(p)
	}
}

// scanTemps lists the names in dir of the form ".NAME.tmp-DIGITS".
func scanTemps(dir string) []string {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	var out []string
	for {
		names, err := d.Readdirnames(1024)
		for _, n := range names {
			if i := strings.LastIndex(n, ".tmp-"); i > 1 && n[0] == '.' && IsTemp(n, n[1:i]) {
				out = append(out, n)
			}
		}
		if err != nil {
			return out
		}
	}
}

// SyncDir makes the names created or renamed in dir durable, where the
// platform allows syncing a folder; where it does not (Windows), a rename
// is still atomic and a file's data is synced on its own.
func SyncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
