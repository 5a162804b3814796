package atomicfile

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// A Batch writes many files atomically, as Write does, for a fraction of
// the cost of writing them one by one. Write and WriteAll put each file's
// content in a temporary file beside it, unsynced; Commit then makes the
// content of all of them durable at once, renames each temporary file
// over its target, and syncs each folder it renamed files into once.
//
// Where the platform has syncfs(2) reporting write-back errors (Linux 5.8
// and later), the content is made durable by one syncfs per folder,
// instead of one fsync per file; the folder is opened before any of its
// temporary files is created, so an error writing any of them back is
// reported (syncfs also writes back what other programs left unsynced on
// that file system, so how long it takes depends on them too). Elsewhere,
// or once syncfs has reported an error, each temporary file is synced on
// its own (fsync, eight at a time), still before any rename.
//
// What a batch keeps: no file is ever seen under its name before its
// content is durable, so neither a reader nor a crash ever sees a half
// written file; once Commit returns, every file it put in place is
// durable. What it changes: a file is in place only after the Commit
// that follows its write (a batch also commits by itself once 2,048
// files wait, or when a write comes 15 seconds after the oldest file
// waiting); after a crash before that commit the file is
// missing, or still the version it was to replace, and its temporary
// file is left behind (removed by a later write to the same path, as
// Write's are). A program that writes a file telling that the batch is
// complete (a summary, an index) calls Commit first and writes that file
// last, so the file is never durable before the files it names.
//
// A Batch is safe for use by several goroutines at once; a Commit puts in
// place the files whose Write returned before it started. The zero value
// is ready to use; a nil *Batch writes each file at once, as Write does.
type Batch struct {
	mu sync.Mutex
	// sets are the written files waiting for a commit, in the groups
	// WriteAll was given.
	sets  [][]pending
	files int
	// oldest is when the first set of sets was written.
	oldest time.Time
	// watched holds every folder a temporary file was created in, opened
	// before that file was (nil when it could not be opened): syncfs on
	// it reports the write-back errors since it was opened.
	watched map[string]*os.File
	// noSyncfs is set once syncfs failed: every later file is synced on
	// its own, since an error syncfs reported is not reported again.
	noSyncfs bool
	// errs are the errors of commits WriteAll made, for Commit to return.
	errs []error

	committing sync.Mutex // one commit at a time
}

// A batch commits by itself once it holds batchMaxFiles files, or when a
// write comes batchMaxAge after the oldest file waiting: it bounds the
// temporary files a crash leaves behind, and keeps them younger than
// StaleAfter, so that another process writing the same paths never takes
// one for a leftover.
const (
	batchMaxFiles = 2048
	batchMaxAge   = StaleAfter / 4
)

// A File is one file of WriteAll: its path and what writes its content.
type File struct {
	Path  string
	Write func(io.Writer) error
}

// A FileError is a file a batch's Commit could not put in place.
type FileError struct {
	Path string // as the caller gave it
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// Write writes the file at path through write into a temporary file; the
// next Commit puts it in place. It is WriteAll of one file.
func (b *Batch) Write(path string, write func(io.Writer) error) error {
	return b.WriteAll(File{Path: path, Write: write})
}

// WriteAll writes files that are put in place together: each goes to a
// temporary file now (see Write for what a path may name; a device or a
// pipe is written through at once), and the next Commit renames them into
// place in the order given, unless one of them cannot be, in which case
// none of them is renamed after it. When one of them cannot be written,
// WriteAll returns its error (prefixed with its path) and leaves no
// temporary file of any of them. With a nil batch each file is written
// with Write, in order, stopping at the first error.
func (b *Batch) WriteAll(files ...File) error {
	if b == nil {
		for _, f := range files {
			if err := Write(f.Path, f.Write); err != nil {
				return err
			}
		}
		return nil
	}
	set := make([]pending, 0, len(files))
	for _, f := range files {
		p, err := prepare(f.Path, f.Write, b)
		if err != nil {
			removeTemps(set)
			return err
		}
		if p.tmp != "" {
			set = append(set, p)
		}
	}
	if len(set) == 0 {
		return nil
	}
	b.mu.Lock()
	if len(b.sets) == 0 {
		b.oldest = time.Now()
	}
	b.sets = append(b.sets, set)
	b.files += len(set)
	full := b.files >= batchMaxFiles || time.Since(b.oldest) >= batchMaxAge
	b.mu.Unlock()
	if full {
		if err := b.commit(false); err != nil {
			b.mu.Lock()
			b.errs = append(b.errs, err)
			b.mu.Unlock()
		}
	}
	return nil
}

// Commit puts in place every file written through the batch and not yet
// committed: it makes their content durable, renames them over their
// targets, and syncs each folder once. It returns nil, or an error
// joining one *FileError per group of WriteAll that could not be put in
// place (entirely, or from that file on); the commits the batch made by
// itself since the last Commit report theirs here too. A nil batch has
// nothing to commit.
func (b *Batch) Commit() error {
	if b == nil {
		return nil
	}
	return b.commit(true)
}

// commit commits the sets waiting; the last commit also closes the
// folders opened for syncfs, which the next write opens again.
func (b *Batch) commit(last bool) error {
	b.committing.Lock()
	defer b.committing.Unlock()
	b.mu.Lock()
	sets, watched, noSyncfs := b.sets, b.watched, b.noSyncfs
	b.sets, b.files = nil, 0
	var errs []error
	if last {
		errs, b.errs, b.watched = b.errs, nil, nil
	} else {
		watched = cloneMap(watched)
	}
	b.mu.Unlock()
	if last {
		defer func() {
			for _, d := range watched {
				if d != nil {
					d.Close()
				}
			}
		}()
	}

	// The content first, for every file: no rename before it is durable.
	synced := map[string]bool{}
	if !noSyncfs && len(sets) > 0 {
		for dir, d := range watched {
			if d == nil {
				continue
			}
			if err := syncFS(d); err != nil {
				if !errors.Is(err, errors.ErrUnsupported) {
					b.mu.Lock()
					b.noSyncfs = true
					b.mu.Unlock()
				}
				clear(synced)
				break
			}
			synced[dir] = true
		}
	}
	var ok [][]pending
	for i, err := range syncSets(sets, synced) {
		if err != nil {
			removeTemps(sets[i])
			errs = append(errs, err)
			continue
		}
		ok = append(ok, sets[i])
	}

	dirs := map[string]struct{}{}
	for _, set := range ok {
		for i, p := range set {
			if err := os.Rename(p.tmp, p.target); err != nil {
				errs = append(errs, &FileError{Path: p.path, Err: bare(err)})
				removeTemps(set[i:])
				break
			}
			dirs[p.dir] = struct{}{}
		}
	}
	for dir := range dirs {
		SyncDir(dir)
	}
	return errors.Join(errs...)
}

// syncers is how many files syncSets syncs at a time: fsync waits for
// the disk, and a few at once keep it busy.
const syncers = 8

// syncSets runs syncSet on every set, several at a time, and returns
// each set's error, in the order of sets.
func syncSets(sets [][]pending, synced map[string]bool) []error {
	errs := make([]error, len(sets))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(syncers, len(sets)) {
		wg.Go(func() {
			for i := range next {
				errs[i] = syncSet(sets[i], synced)
			}
		})
	}
	for i := range sets {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// syncSet syncs, one by one, the temporary files of set whose folder's
// file system was not synced as a whole.
func syncSet(set []pending, synced map[string]bool) error {
	for _, p := range set {
		if synced[p.dir] {
			continue
		}
		f, err := os.OpenFile(p.tmp, os.O_WRONLY, 0)
		if err == nil {
			err = f.Sync()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return &FileError{Path: p.path, Err: bare(err)}
		}
	}
	return nil
}

// watch opens dir for syncfs, once, before a temporary file is created
// in it.
func (b *Batch) watch(dir string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.watched[dir]; ok {
		return
	}
	if b.watched == nil {
		b.watched = map[string]*os.File{}
	}
	d, err := os.Open(dir)
	if err != nil {
		d = nil
	}
	b.watched[dir] = d
}

func removeTemps(set []pending) {
	for _, p := range set {
		os.Remove(p.tmp)
	}
}

func cloneMap(m map[string]*os.File) map[string]*os.File {
	out := make(map[string]*os.File, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
