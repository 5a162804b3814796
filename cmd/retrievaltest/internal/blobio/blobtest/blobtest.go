// Package blobtest starts an S3 API server on loopback for tests: the
// in-memory server of github.com/johannesboyne/gofakes3 behind
// net/http/httptest, reached through the AWS SDK client that gocloud's
// s3blob driver uses, with fake static credentials from the environment.
package blobtest

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// A Server is one S3 API server holding one bucket.
type Server struct {
	Bucket   string
	Endpoint string // http://127.0.0.1:PORT
	backend  *s3mem.Backend
}

// Start starts a server with an empty bucket, closed when the test ends.
// wrap, when not nil, wraps its handler (to delay or fail requests).
// It sets the AWS environment (fake keys, a region, no shared config
// files, no instance metadata) with t.Setenv, so the test cannot be
// parallel.
func Start(t testing.TB, bucket string, wrap func(http.Handler) http.Handler) *Server {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "test-key",
		"AWS_SECRET_ACCESS_KEY":       "test-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  "us-east-1",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	h := gofakes3.New(backend).Server()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h) // listens on 127.0.0.1 only
	t.Cleanup(srv.Close)
	return &Server{Bucket: bucket, Endpoint: srv.URL, backend: backend}
}

// URL is the s3:// URL of key, with the query that points the client at
// the server.
func (s *Server) URL(key string) string {
	q := url.Values{
		"endpoint":       {s.Endpoint},
		"use_path_style": {"true"},
		"disable_https":  {"true"},
		"region":         {"us-east-1"},
	}
	u := "s3://" + s.Bucket
	if key != "" {
		u += "/" + key
	}
	return u + "?" + q.Encode()
}

// Put stores an object.
func (s *Server) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	if _, err := s.backend.PutObject(s.Bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

// PutDir stores every file under dir as an object under prefix.
func (s *Server) PutDir(t testing.TB, dir, prefix string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.Put(t, prefix+"/"+filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Get returns an object's content, and false when there is no object.
func (s *Server) Get(t testing.TB, key string) ([]byte, bool) {
	t.Helper()
	obj, err := s.backend.GetObject(s.Bucket, key, nil)
	if gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchKey) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Contents.Close()
	data, err := io.ReadAll(obj.Contents)
	if err != nil {
		t.Fatal(err)
	}
	return data, true
}

// Keys lists the bucket's keys under prefix, sorted.
func (s *Server) Keys(t testing.TB, prefix string) []string {
	t.Helper()
	list, err := s.backend.ListBucket(s.Bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range list.Contents {
		keys = append(keys, c.Key)
	}
	sort.Strings(keys)
	return keys
}
