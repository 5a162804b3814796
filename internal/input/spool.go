package input

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// A Spool holds a stream (standard input, an HTTP body) in a temporary
// file, for a reader that reads its input by position: one that walks it
// once to find a field written at its end, or keeps places in it to read
// again. Such a reader reads a pipe as it reads a file, in memory that
// does not grow with the input; the disk holds the copy.
//
// The file is made private (0600) and its name removed as soon as it is
// made, where the system allows it (Unix), so that nothing is left behind
// however the program ends; elsewhere Close removes it.
type Spool struct {
	f    *os.File
	name string // removed by Close; empty once removed
	// held reads the bytes held, once Fill is done.
	held *io.SectionReader
	// err is the error that ended the stream before its end (a size
	// limit, a broken connection), handed to the reader where it was met.
	err error
}

// NewSpool makes an empty spool in dir (os.TempDir when empty). Nothing
// is read until Fill, so that a caller that cannot make one can still
// read its stream another way.
func NewSpool(dir string) (*Spool, error) {
	f, err := os.CreateTemp(dir, "retrievaltest-input-")
	if err != nil {
		return nil, err
	}
	s := &Spool{f: f, name: f.Name()}
	if os.Remove(s.name) == nil {
		s.name = ""
	}
	return s, nil
}

// Fill copies r to the spool up to its end. An error reading r is not
// returned: it is kept, and Reader returns it after the bytes read before
// it, so that what reads the spool meets it where it would have met it in
// the stream. An error writing the file (a full disk) is returned, and
// the spool is then unusable.
func (s *Spool) Fill(r io.Reader) error {
	buf := make([]byte, 256<<10)
	var size int64
	for {
		n, rerr := r.Read(buf)
		if _, err := s.f.Write(buf[:n]); err != nil {
			return fmt.Errorf("holding the input in a temporary file (set TMPDIR to a folder with room): %w", err)
		}
		size += int64(n)
		if rerr != nil {
			if rerr != io.EOF {
				s.err = rerr
			}
			s.held = io.NewSectionReader(s.f, 0, size)
			return nil
		}
	}
}

// Size returns the number of bytes held.
func (s *Spool) Size() int64 { return s.held.Size() }

// ReadAt reads the bytes held at off.
func (s *Spool) ReadAt(p []byte, off int64) (int, error) { return s.held.ReadAt(p, off) }

// Reader returns a reader of the bytes held, from the first, that ends
// as the stream did: with io.EOF, or with the error that cut it short.
func (s *Spool) Reader() io.Reader {
	return &spoolReader{s: s, r: io.NewSectionReader(s.f, 0, s.held.Size())}
}

type spoolReader struct {
	s *Spool
	r *io.SectionReader
}

func (r *spoolReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF && r.s.err != nil {
		err = r.s.err
	}
	return n, err
}

// Close closes the file, and removes it if NewSpool could not.
func (s *Spool) Close() error {
	err := s.f.Close()
	if s.name != "" {
		err = errors.Join(err, os.Remove(s.name))
		s.name = ""
	}
	return err
}
