package groundtruth

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// jsonPaths decodes the forms a large ground truth takes, a JSON list of
// paths or a JSON object whose only keys are files and expected_edit_files
// holding lists of paths (or null). ok is false for anything else (another
// key, an entry that is not a string, a key given twice, invalid JSON); the
// YAML reader then decodes the file and reports its problems at their
// place, so the two readers never disagree on what they both accept.
//
// Reading a million paths as YAML takes seconds and gigabytes; here a path
// is a slice of one copy of the document unless it has escapes to decode,
// so a list takes a small multiple of the file.
func jsonPaths(data []byte) (f truthFile, ok bool) {
	// JSON's own white space only: YAML and bytes.TrimSpace take more.
	start := bytes.TrimLeft(data, " \t\r\n")
	if len(start) == 0 || (start[0] != '[' && start[0] != '{') || !json.Valid(data) {
		return f, false
	}
	r := jsonReader{data: data, doc: string(data)}
	r.sc.Reset(data)
	addFile := func(n int) func(string) {
		f.Files = make([]File, 0, n)
		return func(p string) { f.Files = append(f.Files, File{Path: p, Grade: 1}) }
	}
	if start[0] == '[' {
		return f, r.list(addFile) && r.sc.End()
	}
	if !r.sc.Object() {
		return f, false
	}
	addEdit := func(n int) func(string) {
		f.ExpectedEditFiles = make([]string, 0, n)
		return func(p string) { f.ExpectedEditFiles = append(f.ExpectedEditFiles, p) }
	}
	seen := map[string]bool{}
	for key, more := r.sc.NextKey(); more; key, more = r.sc.NextKey() {
		k := string(key)
		if seen[k] || (k != "files" && k != "expected_edit_files") {
			return f, false
		}
		seen[k] = true
		if r.sc.Null() {
			continue
		}
		add := addFile
		if k == "expected_edit_files" {
			add = addEdit
		}
		if !r.list(add) {
			return f, false
		}
	}
	return f, r.sc.End()
}

// jsonReader reads lists of paths out of a document checked to be valid
// JSON.
type jsonReader struct {
	sc   jsonscan.Scanner
	data []byte
	doc  string // the document, which plain paths are slices of
}

// list reads a list of strings, passing each to the function that start
// returns once it knows how many there are; ok is false for anything else
// (a null entry would be "" to encoding/json, and is not a path). The
// list is counted first, so that what holds it never grows by copies.
func (r *jsonReader) list(start func(n int) func(string)) bool {
	if r.sc.Peek() != jsonscan.Array {
		return false
	}
	var count jsonscan.Scanner
	count.Reset(r.data[r.sc.Offset():])
	n := 0
	for count.Array(); count.NextElem(); count.Skip() {
		n++
	}
	add := start(n)
	r.sc.Array()
	for r.sc.NextElem() {
		if r.sc.Peek() != jsonscan.String {
			return false
		}
		raw := r.sc.Raw()
		end := r.sc.Offset()
		var p string
		if plainJSONString(raw) {
			p = r.doc[end-len(raw)+1 : end-1]
		} else if json.Unmarshal(raw, &p) != nil {
			return false
		}
		add(p)
	}
	return r.sc.Err() == nil
}

// plainJSONString reports whether a JSON string token reads as its bytes
// between the quotes: no escape, no control character, valid UTF-8.
func plainJSONString(raw []byte) bool {
	if len(raw) < 2 {
		return false
	}
	inner := raw[1 : len(raw)-1]
	for _, b := range inner {
		if b == '\\' || b < 0x20 {
			return false
		}
	}
	return utf8.Valid(inner)
}
