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

// fileSet appends to the files of one folder, one writer at a time per
// file.
type fileSet struct {
	dir string

	mu      sync.Mutex
	locks   map[string]*sync.Mutex
	written map[string]bool
}

func newFileSet(dir string) *fileSet {
	return &fileSet{dir: dir, locks: map[string]*sync.Mutex{}, written: map[string]bool{}}
}

func (fs *fileSet) lock(name string) *sync.Mutex {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	l := fs.locks[name]
	if l == nil {
		l = &sync.Mutex{}
		fs.locks[name] = l
	}
	return l
}

// append adds data to the file name of the folder with one write, then
// syncs it to disk before it returns. The first time a file is written,
// the folder is synced too, so that the file's name survives a crash.
func (fs *fileSet) append(name string, data []byte) error {
	// Names are built from sanitised parts; this guards the rule that no
	// request names a path.
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("refusing file name %q", name)
	}
	l := fs.lock(name)
	l.Lock()
	defer l.Unlock()
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
		err = f.Sync()
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
