// Package atomicfile writes files so that a reader never sees one half
// written: the content goes to a temporary file in the same folder, is
// synced to disk, and is renamed over the target. Every artifact, report
// and baseline the project writes goes through it.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes the file at path through write. The content goes to a
// temporary file in the same folder (a rename is atomic only within one
// file system), is synced to disk, and the temporary file is renamed over
// path. On any error the temporary file is removed and path is left as it
// was; an error from write is wrapped with the path. The folder must
// exist. The file is readable by everyone (0644), as artifacts are for
// everyone who can read the run.
func Write(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	// CreateTemp makes the file private (0600).
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// WriteBytes writes data to path atomically (see Write).
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// syncDir makes the rename durable where the platform allows syncing a
// folder; where it does not (Windows), the rename is still atomic.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
