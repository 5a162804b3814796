package events

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// JSON results: MCP servers answer with objects whose file is under one of
// these keys. Sourcegraph's keyword_search hits use "file" (an earlier
// parser looked only for "path" and missed every one of them).
var (
	jsonPathKeys    = []string{"file", "path", "filePath", "file_path", "filename", "fileName", "uri", "relativeWorkspacePath"}
	jsonRepoKeys    = []string{"repository", "repo", "repoName", "repo_name"}
	jsonContentKeys = []string{"content", "preview", "chunk", "snippet", "lines", "text", "code", "lineContent"}
	jsonStartKeys   = []string{"startLine", "start_line", "lineStart", "line_start", "lineNumber", "line_number", "line"}
	jsonEndKeys     = []string{"endLine", "end_line", "lineEnd", "line_end"}
)

// jsonCtx is the file an enclosing object named: match objects nested
// under a file hit (lineMatches, chunkMatches) belong to it.
type jsonCtx struct {
	file string
}

func (c *collector) walkJSON(v *jnode, ctx jsonCtx, s *resultScan, depth int) {
	if v == nil || depth > maxJSONDepth {
		return
	}
	switch v.kind {
	case jArray:
		for _, e := range v.vals {
			c.walkJSON(e, ctx, s, depth+1)
		}
	case jObject:
		c.walkObject(v, ctx, s, depth)
	}
}

func (c *collector) walkObject(m *jnode, ctx jsonCtx, s *resultScan, depth int) {
	// MCP content blocks carry their payload as text, often JSON itself.
	if m.str("type") == "text" {
		if t := m.get("text"); t != nil && t.kind == jString {
			c.nestedText(t.s, s)
			return
		}
	}
	content := jsonHasContent(m)
	pathKey := ""
	if raw, key := jsonPath(m); raw != "" {
		pathKey = key
		raw = stripRepo(raw, jsonRepo(m))
		if !jsonIsDir(m) {
			origin := FromText
			if content || jsonIsFile(m) {
				origin = FromArgument
			}
			if p, ok := c.n.File(raw, origin); ok && c.addFile(p, content, false, true) {
				ctx.file = p
			}
		}
	}
	if ctx.file != "" && !content && jsonEmptyLine(m) {
		// A hit's line without text ({"lineNumber": 286}, Cursor's grep and
		// codebase_search) is an empty line of the file, shown as such.
		content = true
	}
	if ctx.file != "" && content {
		if start, end, ok := jsonLines(m); ok {
			c.addFile(ctx.file, true, false, true)
			c.addResultRange(ctx.file, start, end)
		} else if pathKey == "" {
			c.addFile(ctx.file, true, false, true)
		}
	}
	for i, k := range m.keys {
		if k == pathKey {
			continue
		}
		child := m.vals[i]
		if k == "files" && child.kind == jArray {
			// A list of file names (Cursor's grep in files_with_matches
			// mode: {"files": ["src/a.rs", …]}) names each file.
			for _, e := range child.vals {
				if e.kind == jString {
					if p, ok := c.n.File(e.s, FromText); ok {
						c.addFile(p, false, false, true)
					}
				}
			}
		}
		switch child.kind {
		case jObject, jArray:
			c.walkJSON(child, ctx, s, depth+1)
		case jString:
			// A JSON document inside a string (a content block's text).
			if t := strings.TrimSpace(child.s); len(t) > 1 && (t[0] == '{' || t[0] == '[') && (k == "text" || k == "result" || k == "output") {
				c.nestedText(child.s, s)
			}
		}
	}
}

// nestedText scans text found inside a JSON result as a result of its own.
func (c *collector) nestedText(t string, s *resultScan) {
	if s.nesting >= maxTextNesting {
		return
	}
	inner := *s
	inner.nesting++
	c.scanResult(t, inner)
}

// toolResponseKeys mark the top of a JSON document as a tool's answer
// rather than file content.
var toolResponseKeys = []string{"results", "matches", "hits", "entries", "items"}

func toolResponseJSON(v *jnode) bool {
	if v.kind == jArray {
		return len(v.vals) > 0 && v.vals[0].kind == jObject && toolResponseJSON(v.vals[0])
	}
	if v.kind != jObject {
		return false
	}
	if v.str("type") == "text" {
		return true
	}
	for _, keys := range [][]string{jsonPathKeys, jsonContentKeys, toolResponseKeys} {
		for _, k := range keys {
			if v.get(k) != nil {
				return true
			}
		}
	}
	return false
}

func jsonPath(m *jnode) (string, string) {
	for _, k := range jsonPathKeys {
		if s := m.str(k); strings.TrimSpace(s) != "" {
			return s, k
		}
	}
	return "", ""
}

func jsonRepo(m *jnode) string {
	for _, k := range jsonRepoKeys {
		v := m.get(k)
		switch {
		case v == nil:
		case v.kind == jString:
			return v.s
		case v.kind == jObject:
			if s := v.str("name"); s != "" {
				return s
			}
		}
	}
	return ""
}

// stripRepo removes a repository name written in front of a path
// ("github.com/org/repo/src/a.go" with repository "github.com/org/repo").
// Sourcegraph blob addresses ("/-/blob/") are handled by the normalizer.
func stripRepo(p, repo string) string {
	repo = strings.Trim(strings.TrimSpace(repo), "/")
	if repo == "" {
		return p
	}
	for _, cand := range []string{repo + "/", "/" + repo + "/"} {
		if rest, ok := strings.CutPrefix(p, cand); ok && rest != "" {
			return rest
		}
	}
	return p
}

func jsonIsDir(m *jnode) bool {
	switch m.str("type") {
	case "dir", "directory", "tree", "folder":
		return true
	}
	for _, k := range []string{"isDirectory", "is_dir", "isDir", "directory"} {
		if v := m.get(k); v != nil && v.kind == jBool && v.b {
			return true
		}
	}
	return false
}

func jsonIsFile(m *jnode) bool {
	switch m.str("type") {
	case "file", "blob":
		return true
	}
	for _, k := range []string{"isFile", "is_file"} {
		if v := m.get(k); v != nil && v.kind == jBool && v.b {
			return true
		}
	}
	return false
}

func jsonHasContent(m *jnode) bool {
	for _, k := range jsonContentKeys {
		v := m.get(k)
		switch {
		case v == nil:
		case v.kind == jString && strings.TrimSpace(v.s) != "":
			return true
		case v.kind == jArray && len(v.vals) > 0:
			return true
		}
	}
	return false
}

// jsonLines reads an object's line range: start/end keys, a single line
// number, or a "lines": "10-25" string. A start without an end covers as
// many lines as the object's content has.
func jsonLines(m *jnode) (int, int, bool) {
	start, end := 0, 0
	for _, k := range jsonStartKeys {
		if n, ok := m.int(k); ok {
			start = n
			break
		}
	}
	for _, k := range jsonEndKeys {
		if n, ok := m.int(k); ok {
			end = n
			break
		}
	}
	if start == 0 {
		s := strings.TrimSpace(m.str("lines"))
		a, i := leadingInt(s)
		if i == 0 {
			return 0, 0, false
		}
		b := a
		if r, ok := strings.CutPrefix(strings.TrimSpace(s[i:]), "-"); ok {
			if n, j := leadingInt(strings.TrimSpace(r)); j > 0 {
				b = n
			}
		}
		return a, b, a >= 1 && b >= a
	}
	if end == 0 {
		end = start
		for _, k := range jsonContentKeys {
			if s := m.str(k); s != "" && k != "lines" {
				end = start + max(countLines(strings.TrimRight(s, "\n")), 1) - 1
				break
			}
		}
	}
	return start, end, start >= 1 && end >= start
}

// jnode is a decoded JSON value that keeps object keys in document order,
// so that files are listed in the order the result names them.
type jnode struct {
	kind jkind
	keys []string // object keys, parallel to vals
	vals []*jnode // object values or array elements
	s    string   // string value, or number literal
	b    bool
}

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

func (n *jnode) str(key string) string {
	if v := n.get(key); v != nil && v.kind == jString {
		return v.s
	}
	return ""
}

// int reads a number or a numeric string.
func (n *jnode) int(key string) (int, bool) {
	v := n.get(key)
	if v == nil || v.kind != jNumber && v.kind != jString {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
	if err != nil || f != f || f > maxLineNumber || f < -maxLineNumber || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

var errJSONTooBig = errors.New("JSON result exceeds the scan limits")

// decodeJSON decodes one JSON document in order, visiting at most
// maxJSONNodes values nested at most maxJSONDepth deep.
func decodeJSON(text string) (*jnode, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	budget := maxJSONNodes
	v, err := decodeValue(dec, &budget, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, budget *int, depth int) (*jnode, error) {
	if *budget <= 0 || depth > maxJSONDepth {
		return nil, errJSONTooBig
	}
	*budget--
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &jnode{kind: jObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, budget, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		case '[':
			n := &jnode{kind: jArray}
			for dec.More() {
				v, err := decodeValue(dec, budget, depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
		return nil, errors.New("unexpected delimiter")
	case string:
		return &jnode{kind: jString, s: t}, nil
	case json.Number:
		return &jnode{kind: jNumber, s: t.String()}, nil
	case bool:
		return &jnode{kind: jBool, b: t}, nil
	case nil:
		return &jnode{kind: jNull}, nil
	}
	return nil, errors.New("unexpected JSON token")
}

// jsonEmptyLine reports an object that gives a line number and nothing
// else but flags about the line: a line shown without text, an empty
// line.
func jsonEmptyLine(m *jnode) bool {
	number := false
	for i, k := range m.keys {
		switch k {
		case "lineNumber", "line_number":
			number = m.vals[i].kind == jNumber
		case "isContextLine", "isSignature":
		default:
			return false
		}
	}
	return number
}
