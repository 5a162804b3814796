package trace

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// lineSpan locates a decoded string in lineScan.arena.
type lineSpan struct {
	off, end int
	// set is true when the field was present and not null.
	set bool
}

// lineFieldError reports a field whose JSON type is not the one the
// format uses.
type lineFieldError struct {
	Field    string
	Expected string
	Found    jsonscan.Kind
}

func (e *lineFieldError) Error() string {
	return fmt.Sprintf("field %s: expected %s, found %s", e.Field, e.Expected, e.Found)
}

// lineScan reads the fields of one JSON line in place; the strings it
// keeps are decoded into arena, which is reset for every line. The Claude
// and Codex readers use it. A field of the wrong type fails the line with
// a lineFieldError.
type lineScan struct {
	sc    jsonscan.Scanner
	arena []byte
	// name, when set, gives the name a field has in an error (Claude
	// numbers the content block it is in).
	name func(field string) string
	// offsets, when set, maps an offset in the line scanned to the
	// offset in the input line (Claude compacts long lines).
	offsets func(int) int
}

func (s *lineScan) reset(line []byte) {
	s.sc.Reset(line)
	s.arena = s.arena[:0]
}

func (s *lineScan) bytes(sp lineSpan) []byte { return s.arena[sp.off:sp.end] }

func (s *lineScan) text(sp lineSpan) string { return string(s.arena[sp.off:sp.end]) }

// is reports whether the span holds exactly want.
func (s *lineScan) is(sp lineSpan, want string) bool { return string(s.bytes(sp)) == want }

// str reads a string field into the arena; null leaves it unset.
func (s *lineScan) str(field string) lineSpan {
	switch s.sc.Peek() {
	case jsonscan.String:
		return s.decode(-1)
	case jsonscan.Null:
		s.sc.Null()
		return lineSpan{}
	}
	s.fieldError(field, "string")
	return lineSpan{}
}

// decode reads the string at the scanner into the arena, keeping at most
// max bytes when max >= 0.
func (s *lineScan) decode(max int) lineSpan {
	off := len(s.arena)
	s.arena, _ = s.sc.AppendString(s.arena, max)
	return lineSpan{off: off, end: len(s.arena), set: true}
}

// integer reads an integer field; null reads as unset.
func (s *lineScan) integer(field string) (int64, bool) {
	if s.sc.Null() {
		return 0, false
	}
	if s.sc.Peek() != jsonscan.Number {
		s.fieldError(field, "integer")
		return 0, false
	}
	raw := s.sc.Raw()
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil && s.sc.Err() == nil {
		s.fail(field, "integer", jsonscan.Number)
	}
	return v, err == nil
}

// boolean reads a boolean field; null is false.
func (s *lineScan) boolean(field string) bool {
	if s.sc.Null() {
		return false
	}
	if s.sc.Peek() != jsonscan.Bool {
		s.fieldError(field, "boolean")
		return false
	}
	v, _ := s.sc.Bool()
	return v
}

// object reads the opening brace of an object field. It returns false for
// null, and fails the line for any other kind.
func (s *lineScan) object(field string) bool {
	if s.sc.Null() {
		return false
	}
	if s.sc.Peek() != jsonscan.Object {
		s.fieldError(field, "object")
		return false
	}
	return s.sc.Object()
}

// array reads the opening bracket of an array field, like object.
func (s *lineScan) array(field string) bool {
	if s.sc.Null() {
		return false
	}
	if s.sc.Peek() != jsonscan.Array {
		s.fieldError(field, "array")
		return false
	}
	return s.sc.Array()
}

// fieldError stops the line with a lineFieldError for the value at the
// scanner, or with a syntax error when no value starts there.
func (s *lineScan) fieldError(field, expected string) {
	k := s.sc.Peek()
	if k == jsonscan.Invalid {
		s.sc.Skip() // records the syntax error
		return
	}
	s.fail(field, expected, k)
}

// fail stops the line with a lineFieldError.
func (s *lineScan) fail(field, expected string, found jsonscan.Kind) {
	if s.name != nil {
		field = s.name(field)
	}
	s.sc.Fail(&lineFieldError{Field: field, Expected: expected, Found: found})
}

// lineProblem describes why a line could not be used: broken JSON, a line
// that is not an object, or a field of the wrong type. object is false when
// the line is not a JSON object at all; cut is true when the JSON ends
// before the record does, as the last line of a file still being written.
func (s *lineScan) lineProblem(line []byte, err error) (msg string, object, cut bool) {
	var se *jsonscan.SyntaxError
	if !errors.As(err, &se) {
		// A type problem: tell it apart from broken JSON later in the line.
		s.sc.Reset(line)
		s.sc.Skip()
		s.sc.End()
		if verr := s.sc.Err(); verr != nil {
			err, se = verr, nil
			errors.As(verr, &se)
		}
	}
	var te *jsonscan.TypeError
	switch {
	case se != nil:
		cut := se.Offset >= len(line)
		if s.offsets != nil {
			se.Offset = s.offsets(se.Offset)
		}
		return fmt.Sprintf("invalid JSON: %v; line skipped", err), false, cut
	case errors.As(err, &te):
		return fmt.Sprintf("expected a JSON object, found %s; line skipped", te.Found), false, false
	}
	return fmt.Sprintf("%v; line skipped", err), true, false
}
