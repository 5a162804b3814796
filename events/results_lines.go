package events

import (
	"path"
	"strings"
)

// lsLongLine reads one `ls -l` line, a "total N" line or a "dir:" header.
func (c *collector) lsLongLine(line string, s *resultScan, st *textState) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "total ") && allDigits(strings.TrimSpace(t[len("total "):])) {
		return true
	}
	// `ls -R` and `ls a b` print a "dir:" header before each directory.
	if strings.HasSuffix(t, ":") && !strings.ContainsAny(t, " \t") && len(t) > 1 {
		st.lsDir = joinDir(s.dir, t[:len(t)-1])
		return true
	}
	name, regular, ok := parseLsLong(line)
	if !ok {
		return false
	}
	if regular && name != "." && name != ".." {
		dir := st.lsDir
		if strings.Contains(name, "/") {
			// `ls -l src/a.go` prints the operand as given.
			dir = s.dir
		}
		c.surface(name, dir, FromArgument, false)
	}
	return true
}

// joinDir joins a listed directory to the directory a command ran in.
func joinDir(dir, sub string) string {
	sub = strings.TrimSpace(sub)
	if dir == "" || isAbsPath(sub) || strings.HasPrefix(sub, "~") {
		return sub
	}
	return path.Join(dir, sub)
}

// parseLsLong splits an `ls -l` line. The name is whatever follows the
// modification time, which GNU and BSD ls print as "Sep  3 09:47",
// "Sep  3  2024", "9  3 09:47" (numeric locales), or with --time-style
// long-iso / full-iso.
func parseLsLong(line string) (name string, regular bool, ok bool) {
	if len(line) < 10 || strings.IndexByte("-dlcbpsD", line[0]) < 0 {
		return "", false, false
	}
	type field struct {
		s     string
		start int
	}
	// Most lines of a result are not ls lines: their first field says so
	// before the others are split.
	first := strings.TrimLeft(line, " \t")
	if end := strings.IndexAny(first, " \t"); end >= 0 {
		first = first[:end]
	}
	if !isLsMode(first) {
		return "", false, false
	}
	var buf [12]field
	fields := buf[:0]
	for i := 0; i < len(line) && len(fields) < 12; {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fields = append(fields, field{line[i:j], i})
		i = j
	}
	if len(fields) < 6 || !isLsMode(fields[0].s) {
		return "", false, false
	}
	for t := 3; t < len(fields)-1; t++ {
		f := fields[t].s
		prev := fields[t-1].s
		isTime := isClock(f) && (isDay(prev) || isISODate(prev))
		isYear := len(f) == 4 && allDigits(f) && isDay(prev) && t >= 4
		if !isTime && !isYear {
			continue
		}
		n := t + 1
		if n < len(fields)-1 && len(fields[n].s) == 5 && (fields[n].s[0] == '+' || fields[n].s[0] == '-') && allDigits(fields[n].s[1:]) {
			n++ // full-iso time zone
		}
		// t < len(fields)-1, and the zone is skipped only before a last
		// field: fields[n] is there.
		name = line[fields[n].start:]
		return name, fields[0].s[0] == '-', true
	}
	return "", false, false
}

func isLsMode(m string) bool {
	if len(m) < 10 || strings.IndexByte("-dlcbpsD", m[0]) < 0 {
		return false
	}
	for i := 1; i < 10; i++ {
		if strings.IndexByte("rwxsStTl-", m[i]) < 0 {
			return false
		}
	}
	for i := 10; i < len(m); i++ {
		if strings.IndexByte("@+.", m[i]) < 0 {
			return false
		}
	}
	return true
}

func isDay(s string) bool { return len(s) <= 2 && allDigits(s) }

func isISODate(s string) bool {
	return len(s) == 10 && allDigits(s[:4]) && s[4] == '-' && allDigits(s[5:7]) && s[7] == '-' && allDigits(s[8:])
}

// isClock matches "09:47", "9:47", "09:47:12" and "09:47:12.123456789".
func isClock(s string) bool {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if !allDigits(s[i+1:]) {
			return false
		}
		s = s[:i]
	}
	// Two or three parts split at colons, walked without splitting: this
	// runs on every field of every line that looks like ls -l output.
	for k := 0; ; k++ {
		p, rest, more := strings.Cut(s, ":")
		if !allDigits(p) || len(p) > 2 || k > 0 && len(p) != 2 {
			return false
		}
		if !more {
			return k >= 1
		}
		if k == 2 {
			return false
		}
		s = rest
	}
}

// treeMarkers start an entry in `tree` output (Unicode and --charset ascii).
var treeMarkers = []string{"├── ", "└── ", "|-- ", "`-- "}

// treeLine reads `tree` output and Claude Code's LS tool output
// ("- /root/dir/" then "  - name" indented two spaces per level).
func (c *collector) treeLine(line string, s *resultScan, st *textState) bool {
	for _, m := range treeMarkers {
		i := strings.Index(line, m)
		if i < 0 {
			continue
		}
		prefix := line[:i]
		if strings.Trim(prefix, "│|   \u00a0") != "" {
			continue
		}
		depth := len([]rune(prefix))/4 + 1
		name := strings.TrimSpace(line[i+len(m):])
		if strings.Contains(name, " -> ") {
			return true // symbolic link
		}
		if depth-1 > len(st.treeStack) {
			return true // malformed nesting: skip rather than misplace
		}
		st.treeStack = st.treeStack[:depth-1]
		dir := joinDir(s.dir, s.treeRoot)
		for _, d := range st.treeStack {
			dir = joinDir(dir, d)
		}
		name = strings.TrimSuffix(name, "*")
		if s.treeFull {
			dir = s.dir
		}
		if !strings.HasSuffix(name, "/") && looksLikeFileName(path.Base(name)) {
			c.surface(name, dir, FromText, false)
		} else {
			st.treeStack = append(st.treeStack, strings.TrimSuffix(name, "/"))
		}
		return true
	}
	// Claude Code LS: "- name" entries, directories end with "/".
	t := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(t, "- ") {
		return false
	}
	indent := len(line) - len(t)
	name := strings.TrimSpace(t[2:])
	if indent%2 != 0 || name == "" {
		return false
	}
	depth := indent / 2
	if depth == 0 {
		st.dashRoot = joinDir(s.dir, strings.TrimSuffix(name, "/"))
		st.dashStack = st.dashStack[:0]
		return true
	}
	if depth-1 > len(st.dashStack) {
		return true
	}
	st.dashStack = st.dashStack[:depth-1]
	if strings.HasSuffix(name, "/") {
		st.dashStack = append(st.dashStack, strings.TrimSuffix(name, "/"))
		return true
	}
	dir := st.dashRoot
	if dir == "" {
		dir = s.dir
	}
	for _, d := range st.dashStack {
		dir = joinDir(dir, d)
	}
	c.surface(name, dir, FromArgument, false)
	return true
}

// grepLine reads one line of grep, ripgrep or git grep output.
func (c *collector) grepLine(line string, s *resultScan, st *textState) bool {
	if line == "--" || strings.HasPrefix(line, "Binary file ") {
		return true
	}
	single := s.single
	if single == "" {
		single = st.heading
	}
	if i := strings.IndexByte(line, ':'); i > 0 {
		pre, rest := line[:i], line[i+1:]
		n, j := leadingInt(rest)
		numbered := j > 0 && (j == len(rest) || rest[j] == ':')
		switch {
		case allDigits(pre):
			// "N:content": grep -n over a single file, or a line under an
			// rg --heading file name.
			if single == "" {
				return false
			}
			ln, _ := leadingInt(pre)
			c.addFile(single, !s.grepList, false, single != s.single)
			if !s.grepList {
				c.addResultRange(single, ln, ln)
			}
			return true
		case numbered && j == len(rest):
			// "path:N": a count (grep -c, Grep count mode).
			c.surface(pre, s.dir, FromText, false)
			return true
		case numbered:
			p, ok := c.surface(pre, s.dir, FromText, !s.grepList)
			if !ok {
				return false
			}
			if st.grepFiles == nil {
				st.grepFiles = map[string]string{}
			}
			st.grepFiles[pre] = p
			if !s.grepList {
				c.addResultRange(p, n, n)
			}
			return true
		default:
			// "path:content" (grep without -n over several files).
			if strings.ContainsAny(pre, " \t") && !looksFile(pre) {
				return false
			}
			_, ok := c.surface(pre, s.dir, FromText, !s.grepList)
			return ok
		}
	}
	// Context line "path-N-content", or "N-content" for a single file.
	if n, j := leadingInt(line); j > 0 && j < len(line) && line[j] == '-' && single != "" {
		if !s.grepList {
			c.addFile(single, true, false, single != s.single)
			c.addResultRange(single, n, n)
		}
		return true
	}
	for k, tries := 0, 0; k < len(line) && tries < 16; k++ {
		if line[k] != '-' {
			continue
		}
		tries++
		p, ok := st.grepFiles[line[:k]]
		if !ok {
			continue
		}
		rest := line[k+1:]
		if n, j := leadingInt(rest); j > 0 && j < len(rest) && rest[j] == '-' {
			c.addResultRange(p, n, n)
			return true
		}
	}
	return false
}

// countLine reads a `wc` line: "  12 path".
func (c *collector) countLine(line string, s *resultScan) bool {
	t := strings.TrimSpace(line)
	_, j := leadingInt(t)
	if j == 0 || j == len(t) || (t[j] != ' ' && t[j] != '\t') {
		return false
	}
	name := strings.TrimSpace(t[j:])
	if name == "total" {
		return true
	}
	_, ok := c.surface(name, s.dir, FromText, false)
	return ok
}

// pathLine reads a line holding one path (find, fd, Glob, grep -l).
func (c *collector) pathLine(line string, s *resultScan, st *textState) bool {
	t := strings.TrimSpace(line)
	// SWE-agent search_dir: "/testbed/a.py (3 matches)".
	if strings.HasSuffix(t, " matches)") || strings.HasSuffix(t, " match)") {
		if i := strings.LastIndex(t, " ("); i > 0 {
			t = t[:i]
		}
	}
	// A path printed alone on a line has no blanks unless a tool that
	// prints full paths wrote it; this keeps prose and code out.
	if hasBlank(t) && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "~/") {
		return false
	}
	dir := s.dir
	if s.joinBare && !strings.Contains(t, "/") && s.bareDir != "" {
		dir = joinDir(s.dir, s.bareDir)
	}
	p, ok := c.surface(t, dir, FromText, false)
	if ok {
		st.heading = p
	}
	return ok
}

// hasBlank reports whether s holds a blank or a tab, each looked for with
// IndexByte: most lines tested have neither, and are a path a hundred bytes
// long.
func hasBlank(s string) bool {
	return strings.IndexByte(s, ' ') >= 0 || strings.IndexByte(s, '\t') >= 0
}

// lsShortLine reads names printed in columns by plain `ls` or `ls -F`.
func (c *collector) lsShortLine(line string, s *resultScan, st *textState) {
	for _, name := range lsColumns(line) {
		if strings.HasSuffix(name, "/") || strings.HasSuffix(name, "@") || strings.HasSuffix(name, "|") || strings.HasSuffix(name, "=") {
			continue
		}
		name = strings.TrimSuffix(name, "*")
		if strings.Contains(name, "/") {
			c.surface(name, s.dir, FromText, false)
			continue
		}
		c.surface(name, st.lsDir, FromText, false)
	}
}

// cut is called at a marker that stands for output the agent framework
// left out. A tree's entries after it hang under ancestors that may have
// been cut: only the top level is still known. Other line context ends.
func (st *textState) cut() {
	st.treeStack = st.treeStack[:min(1, len(st.treeStack))]
	st.dashStack = st.dashStack[:min(1, len(st.dashStack))]
	st.heading, st.frame, st.frameLine = "", "", 0
	st.prevMinus = false
}

// diagLine reads what programs print about files: a Python traceback
// frame (`  File "a.py", line 12, in f`) followed by the text of that line,
// a diagnostic naming a file and line ("a.c:12:5: error: …", "a.py:12:
// AssertionError"), gcc's quoted source line ("   12 | text"), pytest's
// "rootdir:", "configfile:" and "inifile:" header and its test ids
// ("tests/a_test.py::test_x PASSED"). A frame or diagnostic names the
// file; it shows the line only when the next line quotes its text.
func (c *collector) diagLine(line string, s *resultScan, st *textState) {
	frame, frameLine, python := st.frame, st.frameLine, st.pyFrame
	if frame == "" && strings.IndexByte(line, ':') < 0 && !strings.Contains(line, `File "`) {
		// Every shape read here but a traceback frame and a quoted line
		// has a colon.
		return
	}
	st.frame, st.frameLine, st.pyFrame = "", 0, false
	t := strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(t, `File "`); ok {
		if name, after, ok := strings.Cut(rest, `", line `); ok {
			if n, j := leadingInt(after); j > 0 && n > 0 {
				if p, ok := c.surface(name, s.dir, FromText, false); ok {
					st.frame, st.frameLine, st.pyFrame = p, n, true
				}
			}
		}
		return
	}
	if frame != "" && strings.HasPrefix(line, " ") {
		// The frame's line, as the traceback quotes it; gcc quotes it as
		// "   12 | text".
		if n, j := leadingInt(t); j > 0 && n == frameLine && strings.HasPrefix(strings.TrimSpace(t[j:]), "|") {
			c.addFile(frame, true, false, true)
			c.addResultRange(frame, n, n)
			return
		}
		if python && !strings.HasPrefix(t, "^") && !strings.HasPrefix(t, "~") {
			c.addFile(frame, true, false, true)
			c.addResultRange(frame, frameLine, frameLine)
			return
		}
	}
	for _, key := range []string{"rootdir: ", "configfile: ", "inifile: "} {
		rest, ok := strings.CutPrefix(t, key)
		if !ok {
			continue
		}
		name, note, _ := strings.Cut(rest, " ")
		name = strings.TrimSuffix(name, ",")
		if key == "rootdir: " {
			st.rootdir = name
			return
		}
		dir := st.rootdir
		if dir == "" {
			dir = s.dir
		}
		c.surface(name, dir, FromText, false)
		// "(WARNING: ignoring pytest config in tox.ini!)"
		if _, other, ok := strings.Cut(note, "config in "); ok {
			other = strings.TrimRight(other, "!)")
			c.surface(other, dir, FromText, false)
		}
		return
	}
	// pytest: "tests/a_test.py::test_x PASSED", "FAILED tests/a_test.py::test_x - …",
	// "tests/a_test.py .F.".
	word := t
	if rest, ok := strings.CutPrefix(word, "FAILED "); ok {
		word = rest
	} else if rest, ok := strings.CutPrefix(word, "ERROR "); ok {
		word = rest
	}
	if i := strings.IndexByte(word, ' '); i > 0 {
		word = word[:i]
	}
	if name, _, ok := strings.Cut(word, "::"); ok && name != "" {
		c.surface(name, c.rootOr(st, s), FromText, false)
		return
	}
	// "a.c:12:5: error: …", "a.py:12: AssertionError", "a.go:3:1: …"
	if i := strings.IndexByte(t, ':'); i > 0 && !strings.HasPrefix(line, " ") {
		name := t[:i]
		if n, j := leadingInt(t[i+1:]); j > 0 && n > 0 && !strings.ContainsAny(name, " \t") {
			rest := t[i+1+j:]
			if strings.HasPrefix(rest, ":") {
				if p, ok := c.surface(name, c.rootOr(st, s), FromText, false); ok {
					st.frame, st.frameLine = p, n
				}
			}
		}
	}
}

// rootOr is the directory a program's relative paths are relative to.
func (c *collector) rootOr(st *textState, s *resultScan) string {
	if st.rootdir != "" {
		return st.rootdir
	}
	return s.dir
}

// lsColumns splits a line of plain ls output into its entries. Written to
// a pipe, as agents run it, ls prints one entry a line; on a terminal it
// pads columns with two spaces or more. A single space is part of a name
// ("LM Studio configuration.md").
func lsColumns(line string) []string {
	var out []string
	for _, f := range strings.Split(strings.ReplaceAll(line, "\t", "  "), "  ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
