//go:build !unix

package handoff

import "errors"

// Exec cannot replace the process here (Windows has no exec): Run runs
// bin as a child.
func Exec(string, []string) error { return errors.ErrUnsupported }
