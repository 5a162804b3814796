//go:build !unix

package main

import "errors"

// execve cannot replace the process here: runIn runs bin as a child.
func execve(string, []string) error { return errors.ErrUnsupported }
