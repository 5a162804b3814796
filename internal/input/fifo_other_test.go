//go:build !unix

package input

import "testing"

func fifo(t *testing.T) string {
	t.Helper()
	t.Skip("no named pipes in the file system")
	return ""
}
