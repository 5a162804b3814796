//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// syncFS is Linux's syncfs(2); elsewhere each file is synced on its own.
func syncFS(*os.File) error { return errors.ErrUnsupported }
