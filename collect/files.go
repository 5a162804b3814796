package collect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
)

// maxNameBytes bounds the part of a file name taken from a request.
const maxNameBytes = 64

// sanitize turns a value a client chose (a session id, a service name)
// into a safe part of a file name: ASCII letters, digits, '.', '-' and
// '_' only, never starting with '.', at most maxNameBytes of them. A value
// that had to be changed gets a hash of itself, so that "a/b" and "a_b"
// do not share a file.
func sanitize(s string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' && b.Len() > 0
		if !ok {
			c, changed = '_', true
		}
		if b.Len() == maxNameBytes {
			changed = true
			break
		}
		b.WriteByte(c)
	}
	if s == "" {
		changed = true
	}
	if !changed {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return b.String() + "-" + hex.EncodeToString(sum[:4])
}

// fileSet appends to the files of one folder. Requests for one file
// commit as a group: the lines of the requests that arrive while the file
// is being written and synced wait, and then go to the file together, in
// one write and one fsync, before any of them is answered. With one
// client the group is its request alone; with many, a file takes one
// fsync for all the requests that came during the last one.
type fileSet struct {
	dir string
	// sync makes a file's data durable; tests replace it to hold a
	// commit or make it fail.
	sync func(*os.File) error

	mu      sync.Mutex
	files   map[string]*logFile
	written map[string]bool
}

// logFile is the commit state of one file.
type logFile struct {
	mu       sync.Mutex
	wake     sync.Cond // a commit of the file ended
	writing  bool      // a commit is being written and synced
	next     *commit   // the lines waiting for the next commit, nil when none
	requests int       // the requests waiting in next, for tests
}

// commit is the lines of one or more requests, written and synced
// together.
type commit struct {
	data []byte
	done bool
	err  error
}

func newFileSet(dir string) *fileSet {
	return &fileSet{dir: dir, sync: (*os.File).Sync, files: map[string]*logFile{}, written: map[string]bool{}}
}

func (fs *fileSet) file(name string) *logFile {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.files[name]
	if f == nil {
		f = &logFile{}
		f.wake.L = &f.mu
		fs.files[name] = f
	}
	return f
}

// append adds data to the file name of the folder and returns once it
// is on disk: written (with the lines of other requests for the same
// file, in one write) and synced. The first time a file is written, the
// folder is synced too, so that the file's name survives a crash. An
// error means the data may be missing; the client, answered 500,
// retries.
func (fs *fileSet) append(name string, data []byte) error {
	// Names are built from sanitised parts; this guards the rule that no
	// request names a path.
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("refusing file name %q", name)
	}
	f := fs.file(name)
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.next
	if c == nil {
		// The request's own lines, until another joins: then they are
		// copied, since the capacity beyond them is not ours.
		c = &commit{data: data[:len(data):len(data)]}
		f.next = c
	} else {
		c.data = append(c.data, data...)
	}
	f.requests++
	for !c.done {
		if f.writing || f.next != c {
			f.wake.Wait()
			continue
		}
		// No commit is being written and ours is next: write it, with
		// whatever joined it meanwhile.
		f.writing, f.next, f.requests = true, nil, 0
		f.mu.Unlock()
		err := fs.write(name, c.data)
		f.mu.Lock()
		c.done, c.err, f.writing = true, err, false
		f.wake.Broadcast()
	}
	return c.err
}

// write appends data to a file with one write and syncs it.
func (fs *fileSet) write(name string, data []byte) error {
	path := filepath.Join(fs.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	// os.File.Write of a regular file is one write(2) of the whole line
	// on the systems we run on; O_APPEND puts it at the end even if
	// another process appends too.
	_, err = f.Write(data)
	if err == nil {
		err = fs.sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fs.mu.Lock()
	first := !fs.written[name]
	fs.written[name] = true
	fs.mu.Unlock()
	if first {
		atomicfile.SyncDir(fs.dir)
	}
	return nil
}

// paths returns the files written, sorted.
func (fs *fileSet) paths() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []string
	for name := range fs.written {
		out = append(out, filepath.Join(fs.dir, name))
	}
	slices.Sort(out)
	return out
}
