// Package blobio lets the commands read their inputs from, and write their
// outputs to, object storage buckets named by URL (s3://, gs://, azblob://),
// with the credentials of each cloud's usual environment.
//
// The drivers are not in this package: package clouds holds them (through
// gocloud.dev/blob, with the SDKs of the three clouds) and registers them
// here (Register). A program that links no driver, as the command does in its lean
// build, starts without the drivers' packages, whose initialization alone
// would cost every command, even "version", tens of megabytes; it finds
// bucket URLs in its arguments (NamesBucket) and hands them to a build
// that has the drivers.
//
// A bucket input is copied to a local temporary folder (a Stage) before it
// is read, and a bucket output is written to a local folder that is then
// uploaded. The run, trace and merge code works on os paths (walking
// folders, following symbolic links, checking with os.SameFile, writing
// atomically) and bounds every file by its kind; copying keeps all of that
// code and its checks as they are, for the price of disk space the size of
// the input. The copy is bounded too: an object larger than the stage's
// limit is refused before it is read, and a read that goes past it fails.
//
// A URL is the bucket URL gocloud opens, with the key (an object, or a
// prefix that holds objects as a folder holds files) as its path:
//
//	s3://bucket/runs/2026-01-15?region=eu-west-1
//	gs://bucket/runs/2026-01-15
//	azblob://container/runs/2026-01-15
//
// The query holds the driver's options (for S3: region, endpoint,
// use_path_style, disable_https, profile, …); it applies to the bucket and
// is left out of messages.
package blobio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// Schemes are the URL schemes read as buckets.
var Schemes = []string{"s3", "gs", "azblob"}

// A Bucket is an opened bucket, as a driver gives it: the operations a
// Stage makes on it. Keys are slash-separated.
type Bucket interface {
	// Size returns the size of the object key; an error that matches
	// fs.ErrNotExist when there is none.
	Size(ctx context.Context, key string) (int64, error)
	// List calls visit for every object whose key starts with prefix, in
	// the service's order, and stops at visit's first error. isDir marks
	// a folder marker rather than an object.
	List(ctx context.Context, prefix string, visit func(key string, size int64, isDir bool) error) error
	// NewReader opens the object key for reading.
	NewReader(ctx context.Context, key string) (io.ReadCloser, error)
	// NewRangeReader opens length bytes of the object key from offset for
	// reading; a negative length reads to the end.
	NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Upload writes r to the object key in one upload that the service
	// commits only when it completes: on an error from r or from the
	// service the upload is aborted and the object stays as it was.
	Upload(ctx context.Context, key string, r io.Reader) error
	Close() error
}

// An Opener opens a bucket from its URL: scheme://bucket?query, without
// the key.
type Opener func(ctx context.Context, bucketURL string) (Bucket, error)

var (
	driversMu sync.RWMutex
	drivers   = map[string]Opener{}
)

// Register makes open the driver of scheme, one of Schemes. Package
// clouds registers the three when it is linked in.
func Register(scheme string, open Opener) {
	if !slices.Contains(Schemes, scheme) {
		panic("blobio: Register of unknown scheme " + scheme)
	}
	driversMu.Lock()
	defer driversMu.Unlock()
	drivers[scheme] = open
}

// Linked reports whether a driver is registered for scheme.
func Linked(scheme string) bool {
	driversMu.RLock()
	defer driversMu.RUnlock()
	return drivers[scheme] != nil
}

// CloudsBinary is the name of the command's build that has the drivers;
// the release archives carry it beside retrievaltest.
const CloudsBinary = "retrievaltest-clouds"

// NamesBucket reports whether an argument is a bucket URL, alone or as
// the value of a -flag=value argument. It may see a URL where a command
// would not read one (a flag's value that only looks like one); it never
// misses one that a command reads.
func NamesBucket(args []string) bool {
	for _, a := range args {
		if IsURL(a) {
			return true
		}
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok && IsURL(v) {
				return true
			}
		}
	}
	return false
}

// ErrNotFound is matched by the error for a URL that names neither an
// object nor a prefix holding one.
var ErrNotFound = errors.New("no such object, and no object under it")

// IsURL reports whether name is a bucket URL rather than a path.
func IsURL(name string) bool {
	scheme, _, ok := strings.Cut(name, "://")
	return ok && slices.Contains(Schemes, scheme)
}

// Join appends a slash-separated elem to a path or to a URL's key,
// keeping the URL's query.
func Join(name, elem string) string {
	if !IsURL(name) {
		return filepath.Join(name, filepath.FromSlash(elem))
	}
	u, err := url.Parse(name)
	if err != nil {
		return name + "/" + elem // parse reports the error later
	}
	u.Path = path.Join("/", u.Path, elem)
	return u.String()
}

// location is a parsed URL: what gocloud opens, the key, and the name
// messages use.
type location struct {
	bucket, key, name string
	root              string // scheme://bucket
}

func parse(raw string) (location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return location{}, fmt.Errorf("bucket URL %q: %v", raw, err)
	}
	if u.Host == "" {
		return location{}, fmt.Errorf("bucket URL %q: no bucket name after %s://", raw, u.Scheme)
	}
	key := strings.Trim(u.Path, "/")
	root := u.Scheme + "://" + u.Host
	loc := location{bucket: root, key: key, name: root, root: root}
	q := u.Query()
	if u.Scheme == "s3" && !q.Has("response_checksum_validation") {
		// The AWS SDK validates a download's checksum when the response
		// has one, and otherwise logs a line to standard error, for every
		// object (those uploaded without a checksum, every object of
		// most S3-compatible services); those lines would drown the
		// tool's messages. Lengths are still checked, and the URL can ask
		// for when_supported.
		q.Set("response_checksum_validation", "when_required")
	}
	loc.bucket += "?" + q.Encode()
	if key != "" {
		loc.name += "/" + key
	}
	return loc, nil
}

// object names one object of the location in messages.
func (l location) object(key string) string { return l.root + "/" + key }

func (l location) open(ctx context.Context) (Bucket, error) {
	scheme, _, _ := strings.Cut(l.root, "://")
	driversMu.RLock()
	open := drivers[scheme]
	driversMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("%s: this build of retrievaltest has no bucket drivers (they would slow down every command's start); "+
			"run it through %s, which the release archives carry beside it, or build it with -tags allclouds "+
			"(go install -tags allclouds github.com/agentretrieval/agentretrieval/cmd/retrievaltest@latest)", l.name, CloudsBinary)
	}
	b, err := open(ctx, l.bucket)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.name, err)
	}
	return b, nil
}

// A Stage holds the local copies of bucket inputs, and the local folders
// whose files go to buckets, under one temporary folder that Close
// removes. Its zero value is ready to use; it is safe for concurrent use.
type Stage struct {
	// Limit bounds each object copied; zero or less means
	// input.TraceLimit, the largest default limit of an input.
	Limit int64
	// Keep, when set, chooses the objects of a prefix that Input copies,
	// by their slash-separated path relative to the prefix; for the
	// others it only makes their folder.
	Keep func(rel string) bool
	// Siblings, when set, gives for the base name of an object that Input
	// copies the base names of the objects beside it in the bucket to
	// copy beside it too, when they are there: the table of the trials
	// beside a run summary, the trials file beside a shard summary.
	Siblings func(base string) []string

	mu    sync.Mutex
	dir   string
	names []staged // local copies and the URLs they stand for
	outs  []staged // local output folders and their URLs
}

// NewStage returns a Stage with the limit, and w wrapped by its Writer.
func NewStage(limit int64, w io.Writer) (*Stage, io.Writer) {
	s := &Stage{Limit: limit}
	return s, s.Writer(w)
}

type staged struct {
	local string
	loc   location
}

// tempDir makes a new folder under the stage's temporary folder.
func (s *Stage) tempDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "retrievaltest-bucket-")
		if err != nil {
			return "", err
		}
		s.dir = dir
	}
	return os.MkdirTemp(s.dir, "")
}

func (s *Stage) remember(list *[]staged, local string, loc location) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*list = append(*list, staged{local, loc})
}

// Close removes the local copies and output folders.
func (s *Stage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir, s.names, s.outs = "", nil, nil
	return err
}

// Inputs is Input for each name, in order.
func (s *Stage) Inputs(ctx context.Context, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, name := range names {
		local, err := s.Input(ctx, name)
		if err != nil {
			return nil, err
		}
		out[i] = local
	}
	return out, nil
}

// Input returns name itself when it is a path. For a bucket URL it copies
// the object the URL names to a local file of the same base name, or, when
// there is no such object, every object under the URL's key (as a folder)
// to a local folder of the same base name, and returns the local path.
// Objects under a first-level folder named in skip are not copied. An
// error names the URL: one that names no object is ErrNotFound, one
// larger than the limit an *input.TooLargeError.
func (s *Stage) Input(ctx context.Context, name string, skip ...string) (string, error) {
	if !IsURL(name) {
		return name, nil
	}
	loc, b, local, err := s.target(ctx, name)
	if err != nil {
		return "", err
	}
	defer b.Close()
	if loc.key != "" {
		size, err := b.Size(ctx, loc.key)
		switch {
		case err == nil:
			if err := s.get(ctx, b, loc, loc.key, size, local); err != nil {
				return "", err
			}
			var siblings []string
			if s.Siblings != nil {
				siblings = s.Siblings(path.Base(loc.key))
			}
			for _, sib := range siblings {
				key := path.Join(path.Dir(loc.key), sib)
				if key == loc.key || !filepath.IsLocal(sib) {
					continue
				}
				size, err := b.Size(ctx, key)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err == nil {
					err = s.get(ctx, b, loc, key, size, filepath.Join(filepath.Dir(local), sib))
				}
				if err != nil {
					return "", fmt.Errorf("%s: %w", loc.object(key), err)
				}
			}
			s.remember(&s.names, local, loc)
			return local, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%s: %w", loc.name, err)
		}
	}
	prefix := loc.key
	if prefix != "" {
		prefix += "/"
	}
	n := 0
	var stop error // the first error of visit, which ends the listing
	visit := func(key string, size int64, isDir bool) error {
		rel := strings.TrimPrefix(key, prefix)
		if first, _, _ := strings.Cut(rel, "/"); slices.Contains(skip, first) {
			return nil
		}
		dst, ok, err := objectPath(loc, local, key, rel, isDir)
		if !ok {
			return err
		}
		n++
		if s.Keep != nil && !s.Keep(rel) {
			return os.MkdirAll(filepath.Dir(dst), 0o755)
		}
		return s.get(ctx, b, loc, key, size, dst)
	}
	err = b.List(ctx, prefix, func(key string, size int64, isDir bool) error {
		stop = visit(key, size, isDir)
		return stop
	})
	if stop != nil {
		return "", stop
	}
	if err != nil {
		return "", fmt.Errorf("%s: listing: %w", loc.name, err)
	}
	if n == 0 {
		return "", fmt.Errorf("%s: %w", loc.name, ErrNotFound)
	}
	s.remember(&s.names, local, loc)
	return local, nil
}

// target opens the bucket of a URL and names the local path its copy
// takes in the stage's temporary folder: the key's base name, or the
// bucket's for the whole bucket. The caller closes the bucket.
func (s *Stage) target(ctx context.Context, name string) (loc location, b Bucket, local string, err error) {
	if loc, err = parse(name); err != nil {
		return loc, nil, "", err
	}
	tmp, err := s.tempDir()
	if err != nil {
		return loc, nil, "", err
	}
	base := path.Base(loc.key)
	if loc.key == "" {
		base = path.Base(loc.name) // the whole bucket: its name
	}
	if !filepath.IsLocal(base) {
		return loc, nil, "", fmt.Errorf("%s: a key ending in %q cannot be copied to a file", loc.name, base)
	}
	if b, err = loc.open(ctx); err != nil {
		return loc, nil, "", err
	}
	return loc, b, filepath.Join(tmp, base), nil
}

// objectPath is where the object key, rel below the prefix being copied,
// goes under the local folder dir; ok is false for a folder marker (as
// consoles create), which is no file.
func objectPath(loc location, dir, key, rel string, isDir bool) (dst string, ok bool, err error) {
	if isDir || rel == "" || strings.HasSuffix(rel, "/") {
		return "", false, nil
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) || strings.Contains(rel, "\\") {
		return "", false, fmt.Errorf("%s: object key %q cannot be a file under the prefix", loc.name, key)
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), true, nil
}

// get copies one object to a new local file, bounded by the stage's limit.
func (s *Stage) get(ctx context.Context, b Bucket, loc location, key string, size int64, dst string) (err error) {
	name := loc.object(key)
	limit := input.Or(s.Limit, input.TraceLimit)
	if size > limit {
		return &input.TooLargeError{Path: name, Limit: limit}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	r, err := b.NewReader(ctx, key)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if _, err := io.Copy(f, input.LimitReader(r, name, limit)); err != nil {
		if errors.Is(err, input.ErrTooLarge) {
			return err
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Output returns name itself when it is a path. For a bucket URL it
// returns a new empty local folder whose files Commit uploads under the
// URL's key.
func (s *Stage) Output(name string) (string, error) {
	if !IsURL(name) {
		return name, nil
	}
	loc, err := parse(name)
	if err != nil {
		return "", err
	}
	tmp, err := s.tempDir()
	if err != nil {
		return "", err
	}
	local := filepath.Join(tmp, "out")
	if err := os.Mkdir(local, 0o755); err != nil {
		return "", err
	}
	s.remember(&s.names, local, loc)
	s.remember(&s.outs, local, loc)
	return local, nil
}

// Commit uploads the files of every output folder, each to one object
// whose key is the folder's URL key joined with the file's relative path.
// Files are uploaded in lexical order, except that those for which last
// returns true (given the slash-separated relative path) go after all the
// others: a summary that says the rest is complete is written only when
// the rest is.
//
// Each object is written in one upload that the service commits only when
// it completes; on an error the upload is aborted (its context canceled),
// so a failed or killed upload leaves the object as it was, never half
// written. Commit stops at the first error, which names the object.
func (s *Stage) Commit(ctx context.Context, last func(rel string) bool) error {
	s.mu.Lock()
	outs := slices.Clone(s.outs)
	s.mu.Unlock()
	for _, o := range outs {
		if err := put(ctx, o, last); err != nil {
			return err
		}
	}
	return nil
}

func put(ctx context.Context, o staged, last func(string) bool) error {
	var first, final []string
	err := filepath.WalkDir(o.local, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(o.local, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if last != nil && last(rel) {
			final = append(final, rel)
		} else {
			first = append(first, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b, err := o.loc.open(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, rel := range append(first, final...) {
		key := path.Join(o.loc.key, rel)
		f, err := os.Open(filepath.Join(o.local, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		err = b.Upload(ctx, key, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", o.loc.object(key), err)
		}
	}
	return nil
}

// Writer returns a writer to w that names the URLs instead of their local
// copies, so that messages about a copied input or an output folder name
// what the user gave. Each Write is rewritten whole, so each message must
// be written in one call, as fmt.Fprintf does.
func (s *Stage) Writer(w io.Writer) io.Writer { return &renamer{w: w, s: s} }

type renamer struct {
	w io.Writer
	s *Stage
}

func (r *renamer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.s.rename(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Name is the URL a local path of the stage stands for, or the path
// itself.
func (s *Stage) Name(local string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.names {
		if local == n.local {
			return n.loc.name
		}
		if rel, ok := strings.CutPrefix(local, n.local+string(filepath.Separator)); ok {
			return n.loc.name + "/" + filepath.ToSlash(rel)
		}
	}
	return local
}

// rename replaces the local copies in text by the URLs they stand for.
func (s *Stage) rename(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.names {
		text = strings.ReplaceAll(text, n.local, n.loc.name)
	}
	return text
}

// Err is err with the URLs instead of their local copies in its message;
// errors.Is and errors.As see err.
func (s *Stage) Err(err error) error {
	if err == nil {
		return nil
	}
	if msg := s.rename(err.Error()); msg != err.Error() {
		return &renamedError{msg: msg, err: err}
	}
	return err
}

type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// OutputFile returns name itself when it is a path. For a bucket URL it
// returns a path in a new empty local folder that Commit uploads to the
// object the URL names.
func (s *Stage) OutputFile(name string) (string, error) {
	if !IsURL(name) {
		return name, nil
	}
	u, err := url.Parse(name)
	if err != nil {
		return "", fmt.Errorf("bucket URL %q: %v", name, err)
	}
	base := path.Base(u.Path)
	if strings.Trim(u.Path, "/") == "" || !filepath.IsLocal(base) {
		return "", fmt.Errorf("%s: the URL names no object to write", name)
	}
	u.Path = path.Dir(u.Path)
	dir, err := s.Output(u.String())
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, base), nil
}

// Range returns a function that opens length bytes of the file or object
// name from offset (to its end when length is below zero), each read
// bounded by the stage's limit, and a function that releases what it
// holds. For a bucket URL each call is one ranged read of the object: a
// reader of part of a large object fetches that part alone.
func (s *Stage) Range(ctx context.Context, name string) (func(offset, length int64) (io.ReadCloser, error), func(), error) {
	limit := input.Or(s.Limit, input.TraceLimit)
	if !IsURL(name) {
		open := func(offset, length int64) (io.ReadCloser, error) {
			f, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
				f.Close()
				if err == nil {
					err = fmt.Errorf("%s: not a regular file", name)
				}
				return nil, err
			}
			if length < 0 {
				length = limit
			}
			return struct {
				io.Reader
				io.Closer
			}{input.LimitReader(io.NewSectionReader(f, offset, length), name, limit), f}, nil
		}
		return open, func() {}, nil
	}
	loc, err := parse(name)
	if err != nil {
		return nil, nil, err
	}
	b, err := loc.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	open := func(offset, length int64) (io.ReadCloser, error) {
		r, err := b.NewRangeReader(ctx, loc.key, offset, length)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", loc.name, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{input.LimitReader(r, loc.name, limit), r}, nil
	}
	return open, func() { b.Close() }, nil
}

// InputFolders is Input for the folders rels (slash-separated, relative
// to name) of a prefix, and nothing else of it: for a bucket URL it lists
// and copies the objects under each of them, and no other key of the
// prefix is listed. A path is returned as it is.
func (s *Stage) InputFolders(ctx context.Context, name string, rels []string) (string, error) {
	if !IsURL(name) {
		return name, nil
	}
	loc, b, local, err := s.target(ctx, name)
	if err != nil {
		return "", err
	}
	defer b.Close()
	if err := os.Mkdir(local, 0o755); err != nil {
		return "", err
	}
	for _, rel := range rels {
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return "", fmt.Errorf("%s: %q is not a folder under the prefix", loc.name, rel)
		}
		prefix := path.Join(loc.key, rel) + "/"
		var copyErr error // an object that could not be copied, not the listing
		err := b.List(ctx, prefix, func(key string, size int64, isDir bool) error {
			dst, ok, err := objectPath(loc, filepath.Join(local, filepath.FromSlash(rel)), key, strings.TrimPrefix(key, prefix), isDir)
			if ok {
				err = s.get(ctx, b, loc, key, size, dst)
			}
			copyErr = err
			return err
		})
		if copyErr != nil {
			return "", copyErr
		}
		if err != nil {
			return "", fmt.Errorf("%s: listing: %w", loc.object(prefix), err)
		}
	}
	s.remember(&s.names, local, loc)
	return local, nil
}

// Rel is the slash-separated path of target relative to base, two URLs
// of one bucket (same scheme, bucket and query), as a relative link from
// an object under base to one under target reads.
func Rel(base, target string) (string, error) {
	if !IsURL(base) || !IsURL(target) {
		return "", fmt.Errorf("%s and %s are not both bucket URLs", base, target)
	}
	b, err := parse(base)
	if err != nil {
		return "", err
	}
	t, err := parse(target)
	if err != nil {
		return "", err
	}
	if b.bucket != t.bucket {
		return "", fmt.Errorf("%s and %s are not in one bucket", b.name, t.name)
	}
	bs, ts := splitKey(b.key), splitKey(t.key)
	n := 0
	for n < len(bs) && n < len(ts) && bs[n] == ts[n] {
		n++
	}
	var parts []string
	for range bs[n:] {
		parts = append(parts, "..")
	}
	parts = append(parts, ts[n:]...)
	if len(parts) == 0 {
		return ".", nil
	}
	return strings.Join(parts, "/"), nil
}

func splitKey(key string) []string {
	if key == "" {
		return nil
	}
	return strings.Split(key, "/")
}
