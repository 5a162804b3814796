// Package yamlerr turns YAML decoding errors into errors that name the file,
// line and column, the form every configuration error of the project takes:
//
//	scenarios/fix-bug.yaml:12:5: unknown key "min_ratio" (known: ...)
package yamlerr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// An Error is a problem at one place of a YAML file. Line and Col are
// 1-based; 0 when unknown.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string
	// Err is the cause when the problem is another error placed in the
	// file (a trace the scenario names cannot be read); Msg is its text.
	Err error
}

// Unwrap returns the cause, so that errors.Is and errors.As see through
// the position.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}

// At returns an error at the position of a node.
func At(file string, node ast.Node, format string, args ...any) *Error {
	e := &Error{File: file, Msg: fmt.Sprintf(format, args...)}
	if node != nil {
		setPos(e, node.GetToken())
	}
	return e
}

// AtToken returns an error at the position of a token.
func AtToken(file string, tk *token.Token, format string, args ...any) *Error {
	e := &Error{File: file, Msg: fmt.Sprintf(format, args...)}
	setPos(e, tk)
	return e
}

func setPos(e *Error, tk *token.Token) {
	if tk != nil && tk.Position != nil {
		e.Line, e.Col = tk.Position.Line, tk.Position.Column
	}
}

// From converts an error returned by goccy/go-yaml into an *Error naming
// the file. Errors that already are *Error get the file name filled in;
// others are wrapped with the file name only.
func From(file string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.File == "" {
			e.File = file
		}
		return e
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		out := &Error{File: file, Msg: cleanMessage(ye.GetMessage())}
		setPos(out, ye.GetToken())
		return out
	}
	return &Error{File: file, Msg: err.Error()}
}

// cleanMessage rewrites the decoder's messages, which speak of Go types, into
// the vocabulary of a YAML file.
func cleanMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	msg = strings.Replace(msg, "unknown field", "unknown key", 1)
	// "sequence was used where mapping is expected"
	if got, want, ok := strings.Cut(msg, " was used where "); ok {
		if want, ok := strings.CutSuffix(want, " is expected"); ok {
			return "expected " + nodeWord(want) + ", got " + gotWord(nodeWord(got))
		}
	}
	// "cannot unmarshal string into Go struct field T.A of type int",
	// "cannot unmarshal -42 into Go value of type uint ( overflow )"
	if rest, ok := strings.CutPrefix(msg, "cannot unmarshal "); ok {
		got, rest, _ := strings.Cut(rest, " into Go ")
		_, goType, ok := strings.Cut(rest, " of type ")
		if !ok {
			return msg
		}
		goType, overflow := strings.CutSuffix(goType, " ( overflow )")
		if overflow {
			return fmt.Sprintf("%s is out of range for %s", got, goWord(goType))
		}
		return "expected " + goWord(goType) + ", got " + gotWord(goWord(got))
	}
	return msg
}

// gotWord is a kind's name for what a file holds.
func gotWord(word string) string {
	if word == "true or false" {
		return "a boolean"
	}
	return word
}

// nodeWord names a kind of YAML node as the decoder writes it.
func nodeWord(kind string) string {
	switch kind {
	case "sequence":
		return "a list"
	case "mapping":
		return "a mapping"
	case "string", "scalar":
		return "a string"
	case "int":
		return "a whole number"
	case "float", "inf", "nan":
		return "a number"
	case "boolean":
		return "true or false"
	case "null":
		return "nothing"
	}
	return kind
}

// goWord names what a Go type holds in the words of a YAML file.
func goWord(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"), strings.Contains(t, "."):
		return "a mapping"
	}
	return t
}
