package groundtruth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

// errNoChanges reports input with no file change in it: not a diff, or an
// empty one. The task-folder loader uses it to tell a shell here-document
// that holds a script from one that holds a patch.
var errNoChanges = errors.New("no file changes found: expected a unified diff (\"diff --git\" or \"---\"/\"+++\" headers)")

// ParseDiff reads a unified diff, git's or a plain one, streaming it from r.
// name is used in errors and as the Truth's Source.
//
// Files are every path the diff touches, in order of appearance, grade 1:
// the new path of a changed or new file, the old path of a deleted file,
// and both paths of a rename. A copy touches only its new path. Mode-only
// changes and binary files ("Binary files ... differ", "GIT binary patch")
// count as touched. Where a plain diff names different old and new paths
// without git's "rename from"/"rename to" lines, the new path is the file.
//
// Chunks are one line range per hunk. A hunk "@@ -a,b +c,d @@" with d > 0
// gives [c, c+d-1] on the new path: the lines a reader of the fixed code
// should look at. A pure-deletion hunk (d = 0) has no new lines, so it gives
// the old side [a, a+b-1] on the old path. An omitted count is 1, as in the
// format.
//
// EditFiles are the touched files, since a patch is the edit itself.
// Confidence is high.
//
// Paths in "diff --git", "---", "+++" and "Binary files" lines lose git's
// "a/" and "b/" prefixes (one of them, once); paths in "rename from/to" and
// "copy from/to" lines have none, so they are taken as written: a repository
// may have a real top-level folder named "a". CRLF line ends, "\ No newline
// at end of file" markers, C-quoted paths and the trailing tab git and GNU
// diff write after a name are understood. Text around the diff (a mail
// header, a commit message, a format-patch signature) is skipped.
//
// A malformed hunk header, or a hunk whose lines do not match the counts in
// its header, is a *ParseError naming the line and what was expected. Input
// with no file change in it is an error too.
func ParseDiff(name string, r io.Reader) (*Truth, error) {
	return parseDiff(name, r, 1)
}

// parseDiff is ParseDiff for a diff whose first line is line firstLine of
// name, so that errors in a patch embedded in a script name the script's
// line.
func parseDiff(name string, r io.Reader, firstLine int) (*Truth, error) {
	p := &diffParser{name: name, r: bufio.NewReader(r), lineNo: firstLine - 1, t: &Truth{Source: name, Confidence: High}, touched: map[string]bool{}}
	if err := p.run(); err != nil {
		return nil, err
	}
	if len(p.t.Files) == 0 {
		return nil, fmt.Errorf("%s: %w", name, errNoChanges)
	}
	return p.t, nil
}

// diffFile is one file's section of a diff while it is being read.
type diffFile struct {
	line             int    // where the section starts
	oldPath, newPath string // normalized; "" for /dev/null or unknown
	oldNull, newNull bool   // a side is /dev/null
	git              bool   // started by "diff --git"
	headers          bool   // "---"/"+++" seen
	rename           bool
	hunks            []hunk
}

type hunk struct {
	line                           int
	oldStart, oldN, newStart, newN int
}

type diffParser struct {
	name   string
	r      *bufio.Reader
	n      events.PathNormalizer
	t      *Truth
	lineNo int
	back   *string // one line of lookahead pushed back
	cur    *diffFile
	// touched are the files added to t, each once.
	touched map[string]bool
}

// next returns the next line without its line end ("\n" or "\r\n").
func (p *diffParser) next() (string, bool, error) {
	if p.back != nil {
		l := *p.back
		p.back = nil
		p.lineNo++
		return l, true, nil
	}
	l, err := p.r.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", false, fmt.Errorf("%s: %w", p.name, err)
	}
	if l == "" && err == io.EOF {
		return "", false, nil
	}
	p.lineNo++
	l = strings.TrimSuffix(l, "\n")
	l = strings.TrimSuffix(l, "\r")
	return l, true, nil
}

func (p *diffParser) unread(l string) {
	p.back = &l
	p.lineNo--
}

func (p *diffParser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *diffParser) run() error {
	// afterHunk is set while the line just read ended a hunk: a further
	// body line there means the header's counts were too small.
	afterHunk := 0
	for {
		l, ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return p.finish()
		}
		wasAfter := afterHunk
		afterHunk = 0
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if err := p.finish(); err != nil {
				return err
			}
			p.cur = &diffFile{line: p.lineNo, git: true}
			p.gitHeader(l[len("diff --git "):])
		case strings.HasPrefix(l, "--- "):
			nl, ok, err := p.next()
			if err != nil {
				return err
			}
			if !ok || !strings.HasPrefix(nl, "+++ ") {
				if ok {
					p.unread(nl)
				}
				if p.cur != nil && p.cur.git && !p.cur.headers {
					return p.errorf(p.lineNo, "%s is not followed by a \"+++ \" line: expected the new file's name after the old one's", input.Excerpt(l))
				}
				if wasAfter > 0 {
					return p.pastHunk(wasAfter, l)
				}
				continue // prose that happens to start with "--- "
			}
			if p.cur == nil || !p.cur.git || p.cur.headers {
				if err := p.finish(); err != nil {
					return err
				}
				p.cur = &diffFile{line: p.lineNo - 1}
			}
			p.cur.headers = true
			p.cur.oldPath, p.cur.oldNull = p.diffPath(l[4:])
			p.cur.newPath, p.cur.newNull = p.diffPath(nl[4:])
		case strings.HasPrefix(l, "@@"):
			end, err := p.hunk(l)
			if err != nil {
				return err
			}
			afterHunk = end
		case p.cur != nil && p.cur.git && !p.cur.headers:
			p.extendedHeader(l)
		case strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ"):
			// A plain diff's binary file: no "diff --git" section holds it.
			if err := p.finish(); err != nil {
				return err
			}
			old, nw, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(l, "Binary files "), " differ"), " and ")
			if ok {
				f := &diffFile{line: p.lineNo}
				f.oldPath, f.oldNull = p.diffPath(old)
				f.newPath, f.newNull = p.diffPath(nw)
				p.cur = f
				if err := p.finish(); err != nil {
					return err
				}
			}
		case wasAfter > 0 && (strings.HasPrefix(l, "+") || strings.HasPrefix(l, " ") ||
			strings.HasPrefix(l, "-") && l != "-- " && l != "--"):
			return p.pastHunk(wasAfter, l)
		}
	}
}

func (p *diffParser) pastHunk(hunkLine int, l string) error {
	return p.errorf(p.lineNo, "%s follows the hunk at line %d, which its header declares complete: expected the header's line counts to cover every line of the hunk", input.Excerpt(l), hunkLine)
}

// gitHeader takes provisional paths from "a/x b/y". Names with spaces are
// ambiguous there; the "---"/"+++" or rename lines that follow settle them.
func (p *diffParser) gitHeader(rest string) {
	var old, nw string
	switch {
	case strings.HasPrefix(rest, `"`):
		q, tail, ok := cutQuoted(rest)
		if !ok {
			return
		}
		old, nw = q, strings.TrimSpace(tail)
	case strings.Count(rest, " ") == 1:
		old, nw, _ = strings.Cut(rest, " ")
	default:
		// Same name on both sides: "a/<p> b/<p>".
		if (len(rest)-5)%2 != 0 || len(rest) < 7 {
			return
		}
		k := (len(rest) - 5) / 2
		if rest[:2] != "a/" || rest[2+k:5+k] != " b/" || rest[2:2+k] != rest[5+k:] {
			return
		}
		old, nw = rest[:2+k], rest[3+k:]
	}
	p.cur.oldPath, _ = p.diffPath(old)
	p.cur.newPath, _ = p.diffPath(nw)
}

// extendedHeader reads git's lines between "diff --git" and "---".
func (p *diffParser) extendedHeader(l string) {
	f := p.cur
	switch {
	case strings.HasPrefix(l, "new file mode "):
		f.oldNull, f.oldPath = true, ""
	case strings.HasPrefix(l, "deleted file mode "):
		f.newNull, f.newPath = true, ""
	case strings.HasPrefix(l, "rename from "):
		f.rename = true
		f.oldPath = p.plainPath(l[len("rename from "):])
	case strings.HasPrefix(l, "rename to "):
		f.rename = true
		f.newPath = p.plainPath(l[len("rename to "):])
	case strings.HasPrefix(l, "copy to "):
		f.newPath = p.plainPath(l[len("copy to "):])
	}
}

// hunk reads a hunk header and its body. It returns the header's line.
func (p *diffParser) hunk(header string) (int, error) {
	line := p.lineNo
	h, err := parseHunkHeader(header)
	if err != nil {
		return 0, p.errorf(line, "%v in %s", err, input.Excerpt(header))
	}
	h.line = line
	if p.cur == nil || p.cur.oldPath == "" && p.cur.newPath == "" {
		return 0, p.errorf(line, "hunk header %s before any file header: expected \"diff --git\" or \"---\"/\"+++\" lines naming the file first", input.Excerpt(header))
	}
	if h.oldN > 0 && p.cur.oldNull {
		return 0, p.errorf(line, "hunk %s removes lines from /dev/null: expected \"-0,0\" for a new file", input.Excerpt(header))
	}
	if h.newN > 0 && p.cur.newNull {
		return 0, p.errorf(line, "hunk %s adds lines to /dev/null: expected \"+0,0\" for a deleted file", input.Excerpt(header))
	}
	oldLeft, newLeft := h.oldN, h.newN
	for oldLeft > 0 || newLeft > 0 {
		l, ok, err := p.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, p.errorf(p.lineNo, "input ends inside the hunk at line %d: expected %d more old and %d more new lines", line, oldLeft, newLeft)
		}
		var c byte = ' ' // an empty line is a context line whose space was stripped in transit
		if l != "" {
			c = l[0]
		}
		switch c {
		case ' ':
			oldLeft--
			newLeft--
		case '-':
			oldLeft--
		case '+':
			newLeft--
		case '\\': // "\ No newline at end of file"
			continue
		default:
			return 0, p.errorf(p.lineNo, "%s inside the hunk at line %d: expected a line starting with ' ', '-', '+' or '\\' (%d old and %d new lines still to come)", input.Excerpt(l), line, oldLeft, newLeft)
		}
		if oldLeft < 0 || newLeft < 0 {
			return 0, p.errorf(p.lineNo, "the hunk at line %d has more lines than its header %s declares: expected %d old and %d new lines", line, input.Excerpt(header), h.oldN, h.newN)
		}
	}
	p.cur.hunks = append(p.cur.hunks, h)
	return line, nil
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@[ text]".
func parseHunkHeader(l string) (hunk, error) {
	const want = "malformed hunk header: expected \"@@ -start[,count] +start[,count] @@\""
	if strings.HasPrefix(l, "@@@") {
		return hunk{}, errors.New("combined-diff hunk (\"@@@\"): expected a two-way unified diff")
	}
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return hunk{}, errors.New(want)
	}
	spans, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return hunk{}, errors.New(want)
	}
	oldSpan, newSpan, ok := strings.Cut(spans, " +")
	if !ok {
		return hunk{}, errors.New(want)
	}
	var h hunk
	var err error
	for _, sp := range []struct {
		text         string
		start, count *int
	}{{"-" + oldSpan, &h.oldStart, &h.oldN}, {"+" + newSpan, &h.newStart, &h.newN}} {
		if *sp.start, *sp.count, err = parseSpan(sp.text[1:]); err != nil {
			if errors.Is(err, errNotDigits) {
				return hunk{}, errors.New(want)
			}
			return hunk{}, fmt.Errorf("hunk span %s: %v", input.Excerpt(sp.text), err)
		}
	}
	// A span with lines starts at line 1 or later; git writes start 0 only
	// for an empty side ("-0,0" of a new file).
	if h.oldN > 0 && h.oldStart < 1 || h.newN > 0 && h.newStart < 1 {
		return hunk{}, errors.New("hunk span with lines starting at line 0: expected start >= 1")
	}
	return h, nil
}

// parseSpan parses "start[,count]": decimal numbers, start >= 0 and
// count >= 0, whose last line (start+count-1) is a line number an int
// holds, so that no chunk end wraps around.
func parseSpan(s string) (start, n int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	if start, err = parseLineNumber(a); err != nil {
		return 0, 0, err
	}
	n = 1
	if hasCount {
		if n, err = parseLineNumber(b); err != nil {
			return 0, 0, err
		}
	}
	if n > 0 && start > math.MaxInt-(n-1) {
		return 0, 0, fmt.Errorf("its last line, %d + %d - 1, is past the largest line number %d", start, n, math.MaxInt)
	}
	return start, n, nil
}

var errNotDigits = errors.New("not a number of decimal digits")

// parseLineNumber parses a line number or count of a hunk header: decimal
// digits only (no sign), that fit an int.
func parseLineNumber(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errNotDigits
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s is larger than the largest line number %d", s, math.MaxInt)
	}
	return v, nil
}

// finish records the file section in progress.
func (p *diffParser) finish() error {
	f := p.cur
	p.cur = nil
	if f == nil {
		return nil
	}
	if f.oldPath == "" && f.newPath == "" {
		if f.git {
			return p.errorf(f.line, "cannot tell the file of this \"diff --git\" section: expected \"---\"/\"+++\" or \"rename from\"/\"rename to\" lines")
		}
		return nil // "--- /dev/null" and "+++ /dev/null": nothing touched
	}
	var touched []string
	switch {
	case f.rename && f.oldPath != "" && f.newPath != "":
		touched = []string{f.oldPath, f.newPath}
	case f.newNull || f.newPath == "":
		touched = []string{f.oldPath}
	default:
		touched = []string{f.newPath}
	}
	for _, path := range touched {
		if !p.touched[path] {
			p.touched[path] = true
			p.t.add(File{Path: path, Grade: 1})
			p.t.EditFiles = append(p.t.EditFiles, path)
		}
	}
	for _, h := range f.hunks {
		switch {
		case h.newN > 0:
			path := f.newPath
			if path == "" {
				path = f.oldPath
			}
			p.t.Chunks = append(p.t.Chunks, events.LineRange{Path: path, Start: h.newStart, End: h.newStart + h.newN - 1})
		case h.oldN > 0:
			// A pure deletion is placed on the old path when it is
			// touched (a deleted or renamed file); in a plain diff
			// between two names ("--- x.orig", "+++ x") the file
			// touched is the new one, and the chunk goes there.
			path := f.oldPath
			if !slices.Contains(touched, path) {
				path = touched[len(touched)-1]
			}
			p.t.Chunks = append(p.t.Chunks, events.LineRange{Path: path, Start: h.oldStart, End: h.oldStart + h.oldN - 1})
		}
	}
	return nil
}

// diffPath normalizes a path from a "---", "+++", "diff --git" or "Binary
// files" line, where git writes its a/ and b/ prefixes. It reports a
// /dev/null side.
func (p *diffParser) diffPath(s string) (string, bool) {
	s, quoted := unquoteName(s)
	if s == "/dev/null" {
		return "", true
	}
	if path, ok := p.n.File(s, events.FromDiff); ok {
		return path, false
	}
	if quoted {
		if path, ok := quotedPath(strings.TrimPrefix(strings.TrimPrefix(s, "a/"), "b/"), s); ok {
			return path, false
		}
	}
	// FromDiff also wants the last element to look like a file name, since
	// events meets diff paths in free text. A diff header names a file by
	// construction ("bin/run", "scripts/bootstrap"), so an extensionless
	// name is kept: strip the one prefix as FromDiff would and take the rest
	// as an argument.
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	path, _ := p.n.File(s, events.FromArgument)
	return path, false
}

// plainPath normalizes a path from a rename or copy line, which has no
// prefix to strip.
func (p *diffParser) plainPath(s string) string {
	s, quoted := unquoteName(s)
	path, ok := p.n.File(s, events.FromArgument)
	if !ok && quoted {
		path, _ = quotedPath(s, s)
	}
	return path
}

// quotedPath keeps a file name git quoted that the path normalizer refuses:
// a double quote, a backslash or a control character (a tab) is a
// character of the name there, not shell or free text around a path, and
// refusing it would leave the diff section without a file. The name must
// be relative and stay inside the repository. full is the name with its
// a/ or b/ prefix, for a workspace-absolute one.
func quotedPath(name, full string) (string, bool) {
	if name == "" || strings.HasPrefix(full, "/") || strings.ContainsRune(name, 0) {
		return "", false
	}
	name = path.Clean(name)
	if name == "." || name == ".." || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") {
		return "", false
	}
	return name, true
}

// unquoteName removes what diff tools write around a name: C-style quotes
// (git quotes names with unusual bytes) and a trailing tab, which git and
// GNU diff put after names with spaces and before timestamps. quoted says
// the name was C-quoted.
func unquoteName(s string) (name string, quoted bool) {
	if strings.HasPrefix(s, `"`) {
		if q, _, ok := cutQuoted(s); ok {
			return q, true
		}
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, " "), false
}

// cutQuoted reads a C-quoted string at the start of s and returns it
// unquoted with the rest of s. Git's quoting (quote_c_style in its quote.c)
// escapes a double quote and a backslash with a backslash, the controls
// with \a \b \t \n \v \f \r or three octal digits, and with
// core.quotePath every byte from 0x80 in octal too (a UTF-8 name byte by
// byte): all of these are Go's escapes as well, so strconv.Unquote reads
// them, and an octal escape gives the byte itself.
func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			q, err := strconv.Unquote(s[:i+1])
			return q, s[i+1:], err == nil
		}
	}
	return "", "", false
}
