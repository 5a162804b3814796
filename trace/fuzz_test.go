package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fuzz targets of the readers share their seeding and the contract
// they check on every read; each format's file adds its own seeds and
// checks.

// fuzzCut, fuzzCutByOne and fuzzBrackets break a fixture the ways a
// streaming reader must survive: cut in half, cut by one byte, and with its
// arrays turned into objects.
func fuzzCut(data []byte) []byte      { return data[:len(data)/2] }
func fuzzCutByOne(data []byte) []byte { return data[:len(data)-1] }
func fuzzBrackets(data []byte) []byte { return bytes.ReplaceAll(data, []byte("["), []byte("{")) }

// fuzzReplace returns a variant that replaces every old with new.
func fuzzReplace(old, new string) func([]byte) []byte {
	return func(data []byte) []byte { return bytes.ReplaceAll(data, []byte(old), []byte(new)) }
}

// fuzzSeeds adds every file matching pattern, and each variant of it, to
// the seed corpus, and then the literal seeds; it fails when no file
// matches.
func fuzzSeeds(f *testing.F, pattern string, variants []func([]byte) []byte, seeds ...string) {
	f.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures match %s: %v", pattern, err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, v := range variants {
			f.Add(v(data))
		}
	}
	for _, seed := range seeds {
		f.Add([]byte(seed))
	}
}

// fuzzCheckRead fails when a reader broke its contract on any input: it
// returns a session or an error, never both and never neither, the calls
// are indexed in order, no result is longer than the limit (0: none), and
// the messages are in call order, placed among the calls, trimmed, cut to
// MaxMessageBytes and of a known role and kind.
func fuzzCheckRead(t *testing.T, s *Session, err error, maxResult int) {
	t.Helper()
	if err != nil {
		if s != nil {
			t.Fatalf("both a session and an error: %v", err)
		}
		return
	}
	if s == nil {
		t.Fatal("neither a session nor an error")
	}
	for i, c := range s.Calls {
		if c.Index != i {
			t.Fatalf("Calls[%d].Index = %d", i, c.Index)
		}
		if maxResult > 0 && len(c.Result) > maxResult {
			t.Fatalf("result of %d bytes kept with MaxResultBytes %d", len(c.Result), maxResult)
		}
	}
	before := 0
	for i, m := range s.Messages {
		switch {
		case m.Before < before || m.Before > s.NumCalls():
			t.Fatalf("Messages[%d].Before = %d, after %d, with %d calls", i, m.Before, before, s.NumCalls())
		case m.Text == "" || len(m.Text) > MaxMessageBytes || trimSpace(m.Text) != m.Text || m.Cut < 0:
			t.Fatalf("Messages[%d] keeps %d bytes (cut %d): %q", i, len(m.Text), m.Cut, m.Text)
		case m.Role != RoleUser && m.Role != RoleAssistant, m.Kind != KindText && m.Kind != KindReasoning:
			t.Fatalf("Messages[%d] is %s %s", i, m.Role, m.Kind)
		}
		before = m.Before
	}
}

// fuzzCheckReadAll is fuzzCheckRead for a reader of several sessions.
func fuzzCheckReadAll(t *testing.T, all []*Session, err error, maxResult int) {
	t.Helper()
	if err != nil {
		if all != nil {
			t.Fatalf("both sessions and an error: %v", err)
		}
		return
	}
	if len(all) == 0 {
		t.Fatal("neither a session nor an error")
	}
	for _, s := range all {
		fuzzCheckRead(t, s, nil, maxResult)
	}
}

// fuzzLines splits a line-based input into its lines and reports whether
// any of them is a JSON object, as a JSON Lines reader sees them (a byte
// order mark before the first is dropped).
func fuzzLines(data []byte) (lines [][]byte, anyObject bool) {
	lines = bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if i == 0 {
			l = bytes.TrimPrefix(l, []byte(bom))
		}
		l = bytes.Trim(l, " \t\r")
		if len(l) > 0 && l[0] == '{' && json.Valid(l) {
			anyObject = true
		}
	}
	return lines, anyObject
}

// fuzzCheckResultLimit reads data again with a result limit and checks
// that it cuts results and changes nothing else than s, the session read
// without one.
func fuzzCheckResultLimit(t *testing.T, format Format, data []byte, s *Session) {
	t.Helper()
	cut, err := format.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 3})
	require.NoError(t, err)
	require.Len(t, cut.Calls, len(s.Calls))
	for i, c := range cut.Calls {
		assert.LessOrEqual(t, len(c.Result), 3)
		assert.True(t, strings.HasPrefix(s.Calls[i].Result, c.Result), "call %d: %q is not a prefix of %q", i, c.Result, s.Calls[i].Result)
		assert.Equal(t, s.Calls[i].HasResult, c.HasResult)
		assert.Equal(t, s.Calls[i].IsError, c.IsError)
	}
	assert.Equal(t, len(s.Warnings), len(cut.Warnings))
}

// fuzzSameRead fails when a read with a small buffer differs from a read
// with the usual one: a streaming reader must not depend on where its
// buffer cuts the input.
func fuzzSameRead(t *testing.T, s *Session, err error, small *Session, smallErr error) {
	t.Helper()
	if (err == nil) != (smallErr == nil) {
		t.Fatalf("errors differ with a small buffer: %v / %v", err, smallErr)
	}
	if err != nil {
		if err.Error() != smallErr.Error() {
			t.Fatalf("errors differ with a small buffer:\n%v\n%v", err, smallErr)
		}
		return
	}
	if !reflect.DeepEqual(s, small) {
		t.Fatalf("sessions differ with a small buffer:\n%+v\n%+v", s, small)
	}
}
