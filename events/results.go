package events

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Result scanning is bounded so that one enormous tool output (a 64 MB
// `cat` of a log, a `find /`) cannot stall extraction: only the first
// maxResultBytes bytes and maxResultLines lines of a result are read, a
// JSON result is decoded only when it fits in maxResultBytes, and a JSON
// walk visits at most maxJSONNodes values. Files and ranges past the cap
// are not seen.
const (
	maxResultBytes = 8 << 20
	maxResultLines = 200_000
	maxJSONNodes   = 1_000_000
	maxJSONDepth   = 64
	maxTextNesting = 4
)

// ResultBytesRead is how much of a tool result Extract uses. A trace read
// with trace.Options.MaxResultBytes set to it gives the same events while
// keeping at most that much of each result, so a gigabyte of tool output
// costs megabytes. It is one byte more than what is scanned, so that a cut
// result is still known to be cut.
const ResultBytesRead = maxResultBytes + 1

// resultForm is a set of output shapes a result may take.
type resultForm uint

const (
	// formPaths: one path per line (find, fd, Glob, grep -l, rg --files).
	formPaths resultForm = 1 << iota
	// formGrep: "path:N:content", "path-N-content" (context), "path:N"
	// (counts), "path:content", and "N:content" for a single file.
	formGrep
	// formLsLong: `ls -l` lines; only regular files count.
	formLsLong
	// formLsShort: plain `ls` / `ls -F` names in columns.
	formLsShort
	// formTree: `tree` box drawing and Claude Code's LS "- name" tree.
	formTree
	// formDiff: unified diff headers, `--stat` and `--name-status` lines.
	formDiff
	// formNumbered: the content of a single file with line numbers
	// (Claude Code "  12→", `cat -n` "  12<TAB>").
	formNumbered
	// formFileLines: "File: path" + "Lines: A-B" (the evaldata pipeline's
	// tool results), SWE-agent's "[File: path (N lines total)]" + "12:"
	// and its search_file "Line 12:" hits.
	formFileLines
	// formCounts: `wc` output, "  12 path".
	formCounts
	// formJSON: a JSON document (MCP servers) walked for file hits.
	formJSON
	// formDiag: what programs print about files: Python traceback frames
	// (with the line they quote), compiler and linter diagnostics
	// ("a.c:12:5: error: …", with gcc's quoted "   12 | text"), pytest's
	// rootdir/configfile header and test ids.
	formDiag
)

// resultScan says how to read one result.
type resultScan struct {
	forms resultForm
	// dir is what relative paths in the result are relative to (the
	// directory a shell command ran in); "" leaves them as written.
	dir string
	// bareDir is joined to names without a slash: listing tools print the
	// entries of the directory they were asked about.
	bareDir string
	// joinBare enables bareDir (set for listing tools).
	joinBare bool
	// single is the normalized file the output is about when it names no
	// file itself (numbered content, grep over one file).
	single string
	// read marks a file whose numbered content appears as Read.
	read bool
	// grepList means grep printed file names (-l, -c) and no content.
	grepList bool
	// lsDir is the directory an ls listing's names belong to; treeRoot the
	// directory a tree was drawn from. Both are raw (resolved with dir).
	lsDir    string
	treeRoot string
	// treeFull is set for `tree -f`, which prints each entry's full path.
	treeFull bool
	// noRelative drops relative paths: the shell changed to a directory
	// whose name is not known, so they cannot be resolved.
	noRelative bool
	// strictJSON walks a JSON result only when it is shaped like a tool
	// response (file or content keys at the top): a read tool that returns
	// a package.json verbatim has not named the files its keys mention.
	strictJSON bool
	// nesting counts text found inside JSON that is scanned again.
	nesting int
}

// scanResult reads a tool result in the forms s allows.
func (c *collector) scanResult(text string, s resultScan) {
	c.noRelative = s.noRelative
	text = capResult(text)
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return
	}
	if s.forms&formJSON != 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if v, err := decodeJSON(trimmed); err == nil {
			if !s.strictJSON || toolResponseJSON(v) {
				c.walkJSON(v, jsonCtx{}, &s, 0)
			}
			return
		}
	}
	c.scanText(text, s)
}

// capResult cuts a result to maxResultBytes at a line boundary.
func capResult(text string) string {
	if len(text) <= maxResultBytes {
		return text
	}
	text = text[:maxResultBytes]
	if i := strings.LastIndexByte(text, '\n'); i > 0 {
		text = text[:i]
	}
	return text
}

// textState is what the line scanner remembers between lines.
type textState struct {
	// cur is the file named by the last "File:" / "[File: ...]" header.
	cur string
	// swe is set after a SWE-agent "[File: ...]" header, whose content
	// lines are numbered "12:".
	swe bool
	// heading is the last bare path line (rg --heading, SWE-agent
	// search_dir), to which "N:content" lines belong.
	heading string
	// grepFiles maps the raw path prefix of grep lines to the normalized
	// file, so that context lines "path-N-content" can be recognized. It
	// is made with the first grep line: most results have none.
	grepFiles map[string]string
	prevMinus bool
	// hunkFile is the file of the diff being read; hunkNew the new-side
	// number of the next line of its hunk, and hunkOld, hunkLeft the
	// old- and new-side lines the hunk header says are still to come.
	hunkFile          string
	hunkNew           int
	hunkOld, hunkLeft int
	lsDir             string
	// frame is the file and line of the traceback frame or diagnostic
	// on the line before, whose text the next line may quote.
	frame     string
	frameLine int
	pyFrame   bool
	// rootdir is the directory pytest reported its paths relative to.
	rootdir   string
	treeStack []string
	dashRoot  string
	dashStack []string
}

func (c *collector) scanText(text string, s resultScan) {
	st := textState{lsDir: s.lsDir}
	lines := 0
	for len(text) > 0 && lines < maxResultLines {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		lines++
		line = strings.TrimRight(line, "\r")
		if st.hunkOld > 0 || st.hunkLeft > 0 {
			if c.hunkLine(line, &st) {
				continue
			}
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, ok := cutMarker(line); ok {
			st.cut()
			continue
		}
		c.scanLine(line, &s, &st)
	}
}

func (c *collector) scanLine(line string, s *resultScan, st *textState) {
	if s.forms&formDiag != 0 {
		c.diagLine(line, s, st)
		return
	}
	if s.forms&formDiff != 0 && c.diffLine(line, s, st) {
		return
	}
	if s.forms&formFileLines != 0 && c.fileLinesLine(line, s, st) {
		return
	}
	if s.forms&formNumbered != 0 && s.single != "" {
		if n, ok := numberedLine(line); ok {
			c.addFile(s.single, s.read, false, true)
			c.addResultRange(s.single, n, n)
			return
		}
	}
	if s.forms&formLsLong != 0 && c.lsLongLine(line, s, st) {
		return
	}
	if s.forms&formTree != 0 && c.treeLine(line, s, st) {
		return
	}
	if s.forms&formGrep != 0 && c.grepLine(line, s, st) {
		return
	}
	if s.forms&formCounts != 0 && c.countLine(line, s) {
		return
	}
	if s.forms&formPaths != 0 && c.pathLine(line, s, st) {
		return
	}
	if s.forms&formLsShort != 0 {
		c.lsShortLine(line, s, st)
	}
}

// resolve normalizes a raw path from a result, joining relative paths to
// the directory the output is relative to.
func (c *collector) resolve(raw string, dir string, origin PathOrigin, noRelative bool) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	if noRelative && !isAbsPath(raw) && !strings.HasPrefix(raw, "~") {
		return "", false
	}
	if dir != "" && origin != FromDiff && !isAbsPath(raw) && !strings.HasPrefix(raw, "~") {
		raw = path.Join(dir, raw)
	}
	return c.n.File(raw, origin)
}

// surface records a file named only by the result.
func (c *collector) surface(raw, dir string, origin PathOrigin, read bool) (string, bool) {
	p, ok := c.resolve(raw, dir, origin, c.noRelative)
	if !ok {
		return "", false
	}
	return p, c.addFile(p, read, false, true)
}

// numberedLine parses a line of numbered file content: Claude Code's Read
// ("     12→text") or `cat -n` / str_replace_editor view ("    12\ttext").
func numberedLine(line string) (int, bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	n, j := leadingInt(line[i:])
	if j == 0 {
		return 0, false
	}
	rest := line[i+j:]
	if strings.HasPrefix(rest, "\t") || strings.HasPrefix(rest, "→") {
		return n, n >= 1
	}
	return 0, false
}

// consecutiveNumbered recognizes file content numbered "12: text" or
// "12|text" (formats of read tools other than Claude Code's). Such prefixes
// also occur in ordinary text, so the numbers must cover nearly every
// non-empty line and count up by one.
func consecutiveNumbered(text string) (first, last int, ok bool) {
	text = capResult(text)
	total, numbered, lines := 0, 0, 0
	for len(text) > 0 && lines < maxResultLines {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		lines++
		t := strings.TrimLeft(strings.TrimRight(line, "\r"), " ")
		if t == "" {
			continue
		}
		total++
		n, j := leadingInt(t)
		if j == 0 || j == len(t) || (t[j] != ':' && t[j] != '|') {
			continue
		}
		if numbered > 0 && n != last+1 {
			return 0, 0, false
		}
		if numbered == 0 {
			first = n
		}
		last = n
		numbered++
	}
	return first, last, numbered > 0 && first >= 1 && numbered*10 >= total*9
}

// lastNumberedLine returns the largest line number shown in numbered
// content, 0 when there is none.
func lastNumberedLine(text string) int {
	text = capResult(text)
	last, lines := 0, 0
	for len(text) > 0 && lines < maxResultLines {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		lines++
		if n, ok := numberedLine(line); ok && n > last {
			last = n
		}
	}
	return last
}

// countLines counts the lines of a result (a final line without a newline
// counts; a trailing newline does not add one).
func countLines(text string) int {
	text = capResult(text)
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return min(n, maxResultLines)
}

// leadingInt parses the decimal digits at the start of s. It returns the
// number and how many bytes it used (0 when s does not start with a digit
// or the number is not a plausible line number).
func leadingInt(s string) (int, int) {
	n, i := 0, 0
	for i < len(s) && isDigit(s[i]) {
		n = n*10 + int(s[i]-'0')
		i++
		if n > maxLineNumber {
			return 0, 0
		}
	}
	return n, i
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// diffLine reads unified-diff headers. Files in a diff are shown with
// their changed lines, so they count as read.
func (c *collector) diffLine(line string, s *resultScan, st *textState) bool {
	prevMinus := st.prevMinus
	st.prevMinus = false
	switch {
	case strings.HasPrefix(line, "diff --git "):
		rest := line[len("diff --git "):]
		// "a/x b/x": the new name follows the last " b/".
		st.hunkFile = ""
		if i := strings.LastIndex(rest, " b/"); i >= 0 {
			st.hunkFile, _ = c.surface(rest[i+1:], s.dir, FromDiff, true)
		} else if f := strings.Fields(rest); len(f) == 2 {
			st.hunkFile, _ = c.surface(f[1], s.dir, FromDiff, true)
		}
		return true
	case strings.HasPrefix(line, "--- "):
		st.prevMinus = true
		return true
	case strings.HasPrefix(line, "+++ ") && prevMinus:
		p := line[len("+++ "):]
		// GNU diff appends a tab and a timestamp to the name.
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		if np, _ := c.surface(p, s.dir, FromDiff, true); np != "" {
			st.hunkFile = np
		}
		return true
	case strings.HasPrefix(line, "@@ -") && st.hunkFile != "":
		// "@@ -a,b +c,d @@": the hunk's new side starts at line c.
		_, newSide, _ := strings.Cut(line[len("@@ -"):], " +")
		oldSide := line[len("@@ -"):]
		st.hunkOld = hunkCount(oldSide)
		if n, j := leadingInt(newSide); j > 0 {
			st.hunkNew, st.hunkLeft = n, hunkCount(newSide)
		}
		return true
	case strings.HasPrefix(line, "rename from ") || strings.HasPrefix(line, "rename to "):
		_, p, _ := strings.Cut(line[len("rename "):], " ")
		c.surface(p, "", FromArgument, false)
		return true
	}
	// git log --stat: " path/to/file.go | 12 +++---".
	if strings.HasPrefix(line, " ") {
		if before, after, ok := strings.Cut(line, " | "); ok {
			after = strings.TrimSpace(after)
			name := strings.TrimSpace(before)
			// FromText: a markdown table row looks the same.
			if after != "" && (isDigit(after[0]) || strings.HasPrefix(after, "Bin")) && !strings.HasPrefix(name, "...") {
				if _, ok := c.surface(name, "", FromText, false); ok {
					return true
				}
			}
		}
	}
	// git log --name-status: "M\tpath", "R100\told\tnew".
	if len(line) > 2 && strings.IndexByte("AMDRCTU", line[0]) >= 0 {
		if i := strings.IndexByte(line, '\t'); i > 0 && allDigitsOrEmpty(line[1:i]) {
			f := strings.Split(line[i+1:], "\t")
			c.surface(f[len(f)-1], "", FromArgument, false)
			return true
		}
	}
	return false
}

func allDigitsOrEmpty(s string) bool { return s == "" || allDigits(s) }

// mayOpenFileHeader reports whether line, trimmed as strings.TrimSpace
// trims it, may start with "File: ", "[File: " or "Found ": its first
// byte past ASCII white space is F or [, or a byte past ASCII, which may
// be the first of a Unicode space TrimSpace would trim too.
func mayOpenFileHeader(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			return c == 'F' || c == '[' || c >= utf8.RuneSelf
		}
	}
	return false
}

// fileLinesLine reads "File: path" / "Lines: A-B" blocks and SWE-agent's
// file viewer and search_file output.
func (c *collector) fileLinesLine(line string, s *resultScan, st *textState) bool {
	// Most lines met here are a file's numbered content: until a header
	// has named a file, only a line whose text starts with F or [ can be
	// read, and the others are refused before they are trimmed.
	if st.cur == "" && !mayOpenFileHeader(line) {
		return false
	}
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "File: "):
		// FromText: prose says "File: not found" too.
		st.swe = false
		st.cur = ""
		if p, ok := c.surface(t[len("File: "):], s.dir, FromText, false); ok {
			st.cur = p
		}
		return true
	case strings.HasPrefix(t, "[File: ") && strings.HasSuffix(t, "]"):
		// "[File: src/x.py (1997 lines total)]"
		name := t[len("[File: ") : len(t)-1]
		if i := strings.LastIndex(name, " ("); i > 0 {
			name = name[:i]
		}
		st.cur = ""
		st.swe = false
		if p, ok := c.surface(name, s.dir, FromArgument, false); ok {
			st.cur, st.swe = p, true
		}
		return true
	case strings.HasPrefix(t, "Found ") && strings.Contains(t, " matches for ") && strings.HasSuffix(t, ":"):
		// SWE-agent search_file / search_dir / find_file header:
		// `Found 2 matches for "x" in /testbed/a.py:`.
		st.cur, st.swe = "", false
		if i := strings.LastIndex(t, " in "); i > 0 {
			if p, ok := c.surface(t[i+4:len(t)-1], s.dir, FromText, false); ok {
				st.cur = p
			}
		}
		return true
	}
	if st.cur == "" {
		return false
	}
	if rest, ok := cutPrefixFold(t, "lines:"); ok {
		return c.lineSpec(st.cur, rest)
	}
	if rest, ok := cutPrefixFold(t, "line:"); ok {
		return c.lineSpec(st.cur, rest)
	}
	if rest, ok := strings.CutPrefix(t, "L"); ok && len(rest) > 0 && isDigit(rest[0]) {
		// Gemini CLI's search_file_content hit: "L12: content".
		if n, j := leadingInt(rest); j > 0 && strings.HasPrefix(rest[j:], ":") {
			c.addFile(st.cur, true, false, true)
			c.addResultRange(st.cur, n, n)
			return true
		}
	}
	if rest, ok := strings.CutPrefix(t, "Line "); ok {
		// search_file hit: "Line 12:    content".
		if n, j := leadingInt(rest); j > 0 && strings.HasPrefix(rest[j:], ":") {
			c.addFile(st.cur, true, false, true)
			c.addResultRange(st.cur, n, n)
			return true
		}
	}
	if st.swe {
		if n, j := leadingInt(line); j > 0 && strings.HasPrefix(line[j:], ":") {
			c.addFile(st.cur, true, false, true)
			c.addResultRange(st.cur, n, n)
			return true
		}
	}
	return false
}

// editedFileHeader records the file of SWE-agent's "[File: path (N lines
// total)]" header in an edit result as written, unless the result says the
// edit was refused for a syntax error (it then shows the file as it would
// have looked).
func (c *collector) editedFileHeader(result string) {
	result = capResult(result)
	if strings.Contains(result, "Your proposed edit has introduced") {
		return
	}
	i := strings.Index(result, "[File: ")
	if i < 0 {
		return
	}
	line := result[i+len("[File: "):]
	if j := strings.IndexAny(line, "]\n"); j >= 0 {
		line = line[:j]
	}
	if k := strings.LastIndex(line, " ("); k > 0 {
		line = line[:k]
	}
	if p, ok := c.n.File(line, FromArgument); ok {
		c.addFile(p, false, true, true)
	}
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// lineSpec records "10-25", "10 - 25" or "12" as a range of file.
func (c *collector) lineSpec(file, spec string) bool {
	spec = strings.TrimSpace(spec)
	a, i := leadingInt(spec)
	if i == 0 {
		return false
	}
	b := a
	rest := strings.TrimSpace(spec[i:])
	if r, ok := strings.CutPrefix(rest, "-"); ok {
		r = strings.TrimSpace(r)
		if n, j := leadingInt(r); j > 0 {
			b = n
		}
	}
	c.addFile(file, true, false, true)
	c.addResultRange(file, a, b)
	return true
}

// hunkCount reads the line count of one side of a hunk header ("12,5" is
// 5 lines, "12" one).
func hunkCount(side string) int {
	_, j := leadingInt(side)
	if j == 0 {
		return 0
	}
	if rest, ok := strings.CutPrefix(side[j:], ","); ok {
		n, k := leadingInt(rest)
		if k > 0 {
			return n
		}
		return 0
	}
	return 1
}

// hunkLine reads one line of a diff hunk: a context or added line shows
// the new side's line. It returns false at a line that is not part of the
// hunk.
func (c *collector) hunkLine(line string, st *textState) bool {
	switch {
	case strings.HasPrefix(line, `\`):
		return true // "\ No newline at end of file"
	case strings.HasPrefix(line, "-") && st.hunkOld > 0:
		st.hunkOld--
		return true
	case strings.HasPrefix(line, "+") && st.hunkLeft > 0,
		(line == "" || strings.HasPrefix(line, " ")) && st.hunkLeft > 0 && st.hunkOld > 0:
		if st.hunkNew > 0 {
			c.addFile(st.hunkFile, true, false, true)
			c.addResultRange(st.hunkFile, st.hunkNew, st.hunkNew)
			st.hunkNew++
		}
		st.hunkLeft--
		if line == "" || line[0] == ' ' {
			st.hunkOld--
		}
		return true
	}
	st.hunkOld, st.hunkLeft = 0, 0
	return false
}
