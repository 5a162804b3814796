package expectations

import (
	"errors"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

// Errors is every problem found in one scenario file, each at its
// file:line:col. Error joins them one per line.
type Errors []*yamlerr.Error

// Error returns the problems one per line, in file order.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, err := range e {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, so that errors.As finds a *yamlerr.Error.
func (e Errors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}

func asYAMLErr(file string, err error) *yamlerr.Error {
	var ye *yamlerr.Error
	if errors.As(yamlerr.From(file, err), &ye) {
		return ye
	}
	return &yamlerr.Error{File: file, Msg: err.Error()}
}
