package groundtruth

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// yamlPaths reads the form a large ground truth takes when written as YAML,
// without the YAML parser: a block list of paths, one "- path" a line, at
// the top level or under the keys files and expected_edit_files. The YAML
// parser takes hundreds of bytes a token, so a list of half a million paths
// took over a gigabyte; this reader holds the paths and little more.
//
// It accepts only what it can read exactly as the YAML parser would: plain
// paths that YAML does not take for a number, a boolean, a null or a date,
// 'single-quoted' paths, "double-quoted" paths without escapes, comments
// and blank lines. ok is false for anything else (a flow list, a mapping
// entry with a grade, another key, a key given twice, a tab, an indicator
// it does not know); decodeYAML then reads the file and reports its
// problems at their place, so the two readers never disagree on what they
// both accept.
func yamlPaths(data []byte) (f truthFile, ok bool) {
	// One copy of the document, which the paths are slices of: a path
	// costs its place in the list, not an allocation of its own.
	doc := string(data)
	if !plainText(doc) {
		return f, false
	}
	lines := strings.Count(doc, "\n") + 1
	var (
		key      string // the mapping key whose list is being read; "" at the top level
		seen     = map[string]bool{}
		topList  bool // the document is a list
		indent   = -1 // the indent of the current list's items; -1 before the first
		files    []File
		edits    []string
		sawValue bool // some content line was read
	)
	for len(doc) > 0 {
		var line string
		if i := strings.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
		} else {
			line, doc = doc, ""
		}
		line = strings.TrimSuffix(line, "\r")
		if strings.ContainsAny(line, "\t\r") {
			return f, false
		}
		body := strings.TrimLeft(line, " ")
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		depth := len(line) - len(body)
		if body[0] != '-' {
			// A mapping key: only at the top, of a document that is a
			// mapping, one of the two list keys, each once.
			if depth != 0 || topList {
				return f, false
			}
			k, rest, found := strings.Cut(body, ":")
			if !found || !emptyOrComment(rest) {
				return f, false
			}
			key = k
			if (key != "files" && key != "expected_edit_files") || seen[key] {
				return f, false
			}
			seen[key] = true
			indent = -1
			sawValue = true
			continue
		}
		// A list item.
		if !sawValue {
			topList = true
		}
		sawValue = true
		if !topList && key == "" {
			return f, false
		}
		if indent < 0 {
			indent = depth
		}
		if depth != indent || (topList && depth != 0) {
			return f, false
		}
		if len(body) < 2 || body[1] != ' ' {
			return f, false
		}
		path, ok := yamlScalar(strings.TrimLeft(body[2:], " "))
		if !ok {
			return f, false
		}
		// Room for every line at the first item, so that the list never
		// grows by copies.
		if key == "expected_edit_files" {
			if edits == nil {
				edits = make([]string, 0, lines)
			}
			edits = append(edits, path)
		} else {
			if files == nil {
				files = make([]File, 0, lines)
			}
			files = append(files, File{Path: path, Grade: 1})
		}
	}
	if !sawValue {
		return f, false
	}
	// A key with no item holds null, which the YAML reader reads as an
	// empty list too; a list with no item cannot be written this way.
	return truthFile{Files: files, ExpectedEditFiles: edits}, true
}

// plainText reports whether doc is UTF-8 made of printable characters,
// spaces, tabs and line ends, without the characters YAML may take for a
// line break or a byte-order mark.
func plainText(doc string) bool {
	for _, r := range doc {
		switch {
		case r == utf8.RuneError, r == 0x85, r == 0x2028, r == 0x2029, r == 0xFEFF:
			return false // U+FFFD itself is refused too: it cannot be told from a bad byte here
		case r < 0x20 && r != '\n' && r != '\r' && r != '\t', r == 0x7F, r >= 0x80 && r < 0xA0:
			return false
		}
	}
	return true
}

// emptyOrComment reports whether rest, what follows a key's colon or a
// scalar, holds nothing but spaces and a comment.
func emptyOrComment(rest string) bool {
	if len(rest) == 0 {
		return true
	}
	// A comment is set apart from what it follows by a space.
	if rest[0] != ' ' {
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	return len(rest) == 0 || rest[0] == '#'
}

// yamlScalar reads one path of a list item; ok is false when the YAML
// parser might read the text otherwise.
func yamlScalar(s string) (string, bool) {
	if len(s) == 0 {
		return "", false
	}
	switch s[0] {
	case '\'':
		return singleQuoted(s)
	case '"':
		end := strings.IndexByte(s[1:], '"')
		if end < 0 || strings.IndexByte(s[1:end+1], '\\') >= 0 || !emptyOrComment(s[end+2:]) {
			return "", false
		}
		return s[1 : end+1], end > 0
	}
	return plainScalar(s)
}

func singleQuoted(s string) (string, bool) {
	var b strings.Builder
	i := 1
	for {
		j := strings.IndexByte(s[i:], '\'')
		if j < 0 {
			return "", false
		}
		b.WriteString(s[i : i+j])
		i += j + 1
		if i < len(s) && s[i] == '\'' { // '' is a quote
			b.WriteByte('\'')
			i++
			continue
		}
		break
	}
	if !emptyOrComment(s[i:]) {
		return "", false
	}
	if j := strings.IndexByte(s[1:], '\''); j == i-2 {
		return s[1 : i-1], i > 2 // no doubled quote: a slice of the document
	}
	return b.String(), b.Len() > 0
}

// plainScalar reads an unquoted path. It refuses anything that starts with
// a YAML indicator, holds one that could end or split the scalar, or that
// YAML resolves to something other than a string.
func plainScalar(s string) (string, bool) {
	if strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", s[0]) >= 0 {
		return "", false
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " ")
	if strings.ContainsAny(s, ",[]{}") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return "", false
	}
	return s, plainString(s)
}

// plainString reports whether YAML reads the plain scalar v as a string:
// not a null, a boolean, a number (in any base, with underscores, or an
// infinity or NaN) and not a date or a time.
func plainString(v string) bool {
	// Characters the parser would quote a string for, wherever they are.
	if strings.ContainsAny(v, "#\\") || strings.Contains(v, "- ") {
		return false
	}
	if len(v) <= 5 {
		for _, w := range [...]string{"~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", "+.inf", ".nan"} {
			if strings.EqualFold(v, w) {
				return false
			}
		}
	}
	// Only a digit, a sign or a dot starts a number, a date or a time; the
	// checks of those forms allocate, so the paths that start otherwise
	// (nearly all) skip them.
	if c := v[0]; !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
		return true
	}
	// The parser's own rule of which strings must be quoted to stay
	// strings covers its number syntax ("+-0" is a number to it) and its
	// dates; the checks below add Go's number forms and sexagesimals.
	if token.IsNeedQuoted(v) {
		return false
	}
	// The parser drops underscores anywhere in a number ("0_x0" is 0).
	for _, n := range []string{v, strings.ReplaceAll(v, "_", "")} {
		if number(n) {
			return false
		}
	}
	// Dates, times and sexagesimal numbers: digits first, then only
	// digits and the marks those forms use.
	if v[0] >= '0' && v[0] <= '9' && strings.Trim(v, "0123456789-:.TtZz+ _") == "" {
		return false
	}
	return true
}

// number reports whether v reads as a Go number: a float, or an integer in
// any base, signed or not.
func number(v string) bool {
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseInt(v, 0, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(v, 0, 64)
	return err == nil
}
