package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// describeInput says in a few words what the start of an input looks like,
// for the error about an input no reader recognizes: a user who passed the
// wrong file sees what they passed, and a user with a real trace in a new
// layout sees which keys were there.
func describeInput(prefix []byte) string {
	p := trimLeading(prefix)
	switch {
	case bytes.HasPrefix(p, []byte{0x1f, 0x8b}):
		return "gzip-compressed data (decompress it first)"
	case bytes.HasPrefix(p, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd-compressed data (decompress it first)"
	case bytes.HasPrefix(p, []byte("PK\x03\x04")):
		return "a zip archive (extract it first)"
	case bytes.IndexByte(p, 0) >= 0 || !utf8.Valid(p[:min(len(p), 512)]) && !utf8.Valid(p[:max(0, min(len(p), 512)-3)]):
		return "binary data"
	case len(p) > 0 && p[0] == '{':
		line, rest, multi := bytes.Cut(p, []byte{'\n'})
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if multi && json.Valid(line) && len(rest) > 0 && rest[0] == '{' {
			return "JSON Lines whose first record has " + describeKeys(line)
		}
		return "a JSON object with " + describeKeys(p)
	case len(p) > 0 && p[0] == '[':
		dec := json.NewDecoder(bytes.NewReader(p))
		dec.Token() // [
		if !dec.More() {
			return "an empty JSON array"
		}
		var first json.RawMessage
		if err := dec.Decode(&first); err == nil && len(first) > 0 && first[0] == '{' {
			return "a JSON array whose first element has " + describeKeys(first)
		}
		return "a JSON array"
	}
	line, _, _ := bytes.Cut(p, []byte{'\n'})
	text := strings.TrimSpace(string(line))
	if len(text) > 60 {
		text = text[:57] + "…"
	}
	return fmt.Sprintf("text starting %q", text)
}

// describeKeys lists the top-level keys of the JSON object data starts with
// (data may be cut short).
func describeKeys(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "no readable keys"
	}
	var keys []string
	more := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if len(keys) == 8 {
			more = true
			break
		}
		keys = append(keys, fmt.Sprintf("%q", tok))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	switch {
	case len(keys) == 0:
		return "no keys"
	case more:
		return "keys " + strings.Join(keys, ", ") + ", …"
	}
	return "keys " + strings.Join(keys, ", ")
}

// forcedReaders returns the formats that, forced, read at least one tool
// call from the input's prefix without an error, and more calls than
// warnings (a text file that quotes a few trace lines is not a trace). Detection is strict so
// that a file is never read as the wrong format; when it fails, this tells
// the user which -format would still work, and nothing when none would.
func forcedReaders(reg *Registry, prefix []byte, opts Options) []string {
	var names []string
	for _, f := range reg.formats {
		if readsCalls(f, prefix, opts) {
			names = append(names, f.Name())
		}
	}
	return names
}

func readsCalls(f Format, prefix []byte, opts Options) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	opts.Format = f.Name()
	// The sessions read here are not the caller's: none is handed over,
	// and none drops its calls (DropReleased), which would hide them.
	opts.CallDone, opts.DropReleased = nil, false
	if m, isMulti := f.(MultiFormat); isMulti {
		all, err := m.ReadAll(bytes.NewReader(prefix), opts)
		if err != nil {
			return false
		}
		calls, warnings := 0, 0
		for _, s := range all {
			calls += len(s.Calls)
			warnings += s.WarningCount()
		}
		return calls > warnings
	}
	s, err := f.Read(bytes.NewReader(prefix), opts)
	return err == nil && s != nil && len(s.Calls) > s.WarningCount()
}
