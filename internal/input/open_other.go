//go:build !unix

package input

import "os"

func openFile(name string) (*os.File, error) { return os.Open(name) }
