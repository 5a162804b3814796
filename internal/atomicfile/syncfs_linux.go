package atomicfile

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// syncFS makes durable everything written to the file system holding the
// open folder d, and reports a write-back error on that file system since
// d was opened. Before Linux 5.8 syncfs(2) reported no write-back error
// at all; there it returns errors.ErrUnsupported, and the caller syncs
// each file instead.
func syncFS(d *os.File) error {
	if !syncfsReportsErrors() {
		return errors.ErrUnsupported
	}
	rc, err := d.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = unix.Syncfs(int(fd))
			if serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr == unix.ENOSYS {
		return errors.ErrUnsupported
	}
	return serr
}

// syncfsReportsErrors says whether the running kernel is Linux 5.8 or
// later, whose syncfs(2) reports write-back errors.
var syncfsReportsErrors = sync.OnceValue(func() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
})

// kernelAtLeast reports whether a kernel release ("6.18.44-generic")
// is major.minor or later; a release it cannot read is not.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	num := func(s string) (int, bool) {
		end := 0
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(s[:end])
		return n, err == nil
	}
	ma, ok1 := num(parts[0])
	mi, ok2 := num(parts[1])
	if !ok1 || !ok2 {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
