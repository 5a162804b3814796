package expectations

import (
	"cmp"
	"errors"
	"fmt"
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

// A ScenarioError is a scenario file that could not be checked: it did not
// load, or a trace it names could not be read. The check command reports
// it as a row of its own and goes on with the other scenarios.
type ScenarioError struct {
	File string
	// Name is the scenario's name; "" when the file did not load.
	Name string
	// Errs are the problems, each naming its file:line:col when it has one
	// (a *yamlerr.Error, as Load and Evaluate return them).
	Errs []error
}

// NewScenarioError splits err, as Load or Evaluate returned it for the
// scenario file, into one problem per position.
func NewScenarioError(file, name string, err error) *ScenarioError {
	out := &ScenarioError{File: file, Name: name}
	var list Errors
	if errors.As(err, &list) {
		for _, e := range list {
			out.Errs = append(out.Errs, e)
		}
	} else {
		out.Errs = []error{err}
	}
	return out
}

// Error returns the problems one per line.
func (e *ScenarioError) Error() string { return errors.Join(e.Errs...).Error() }

// Unwrap returns the problems.
func (e *ScenarioError) Unwrap() []error { return e.Errs }

// Problems returns each problem's position ("file:line:col", or the file
// alone when the problem has no line) and message, without the position.
func (e *ScenarioError) Problems() (pos, msg []string) {
	for _, err := range e.Errs {
		var ye *yamlerr.Error
		switch {
		case errors.As(err, &ye) && ye.Line > 0:
			pos = append(pos, fmt.Sprintf("%s:%d:%d", ye.File, ye.Line, ye.Col))
			msg = append(msg, ye.Msg)
		case errors.As(err, &ye):
			pos = append(pos, cmp.Or(ye.File, e.File))
			msg = append(msg, ye.Msg)
		default:
			pos = append(pos, e.File)
			msg = append(msg, err.Error())
		}
	}
	return pos, msg
}
