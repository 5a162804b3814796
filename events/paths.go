package events

import (
	"path"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/percent"
)

// DefaultWorkspacePrefixes are the directories agent harnesses mount the
// repository under. A path below one of them is made relative to it when it
// is not below the session's working directory.
var DefaultWorkspacePrefixes = []string{"/workspace/", "/repo_full/", "/testbed/", "/app/", "/tmp/agent_work/"}

// maxPathLen bounds the length of a path worth normalizing; longer strings
// are text, not paths (Linux's PATH_MAX is 4096).
const maxPathLen = 4096

// PathOrigin says where a path was found, which decides how much the
// normalizer trusts it to name a file.
type PathOrigin int

const (
	// FromArgument is a path the caller knows names a file: a file argument
	// of a read or write tool, a regular-file entry of an `ls -l` listing.
	FromArgument PathOrigin = iota
	// FromDiff is a path taken from a unified diff header, where git writes
	// `a/` and `b/` before the repository path.
	FromDiff
	// FromText is a path found in free-form output (a find listing, a
	// search scope): it counts as a file only when its last element looks
	// like a file name.
	FromText
)

// String names the origin for test and debug output.
func (o PathOrigin) String() string {
	switch o {
	case FromArgument:
		return "argument"
	case FromDiff:
		return "diff"
	case FromText:
		return "text"
	}
	return "unknown"
}

// PathNormalizer turns the paths agents write into repository-relative file
// paths, so that a Read of "/testbed/src/a.py", a grep hit "./src/a.py" and a
// ground-truth entry "src/a.py" compare equal.
//
// The rules, in order: a file:// URI loses its scheme and other URLs are
// rejected; a Sourcegraph blob address (".../-/blob/path") keeps only the
// path; an absolute path below CWD becomes relative to CWD, a path outside
// a known CWD stays absolute, and when the CWD is not known the first
// matching workspace prefix is stripped;
// diff paths lose a leading "a/" or "b/" (only diff paths: a repository may
// have a real top-level folder named "a"); the result is cleaned with
// path.Clean. Paths starting with "~" are kept as written. Globs, shell
// syntax ($VAR, backticks, pipes, redirections), grep fragments
// ("a.go:12"), control characters, and directories (a trailing "/", ".",
// "..", a workspace root itself) are not files.
type PathNormalizer struct {
	// CWD is the session's working directory ("" when unknown).
	CWD string
	// Prefixes lists workspace prefixes to strip; nil means
	// DefaultWorkspacePrefixes. An empty, non-nil slice strips nothing.
	Prefixes []string
	// FoldCase makes comparisons case-insensitive: Key lowercases, and
	// CWD and prefixes match regardless of case.
	FoldCase bool
}

// OrCWD returns n with CWD set to cwd when n has none: the working
// directory a session records stands in for one the caller did not give.
func (n PathNormalizer) OrCWD(cwd string) PathNormalizer {
	if n.CWD == "" {
		n.CWD = cwd
	}
	return n
}

// Key returns the comparison key of a normalized path: the path itself, or
// its lowercase form when FoldCase is set.
func (n PathNormalizer) Key(p string) string {
	if n.FoldCase {
		return strings.ToLower(p)
	}
	return p
}

// File normalizes p and reports whether it names a file. The returned path
// is repository-relative when p was inside the workspace, absolute (or
// "~"-relative) when it was outside, and always clean.
func (n PathNormalizer) File(p string, origin PathOrigin) (string, bool) {
	p = strings.TrimSpace(p)
	if p == "" || len(p) > maxPathLen {
		return "", false
	}
	classes := pathClasses(p)
	if classes&classControl != 0 {
		return "", false
	}
	raw := p
	// The classes spare the searches of most paths, which hold neither a
	// colon nor a dash (a scheme, a Sourcegraph "/-/blob/"), nor a
	// backslash (classShell), nor a quote.
	if classes&(classColon|classDash) != 0 {
		var ok bool
		if p, ok = stripScheme(p); !ok {
			return "", false
		}
	}
	if classes&classShell != 0 {
		p = windowsSlashes(p)
	}
	if p != raw {
		classes = pathClasses(p)
	}
	if classes&classShell != 0 || classes&classBracket != 0 && hasGlobClass(p) {
		return "", false
	}
	// A double quote is a character of a name only in an argument that
	// names a file exactly (`x"y.go`, which git writes as "x\"y.go"); in
	// text, or at either end, it is a quote around the path.
	if classes&classQuote != 0 && (origin != FromArgument || strings.HasPrefix(p, `"`) || strings.HasSuffix(p, `"`)) {
		return "", false
	}
	// An apostrophe inside a name is a character of it ("it's.md"); at
	// either end it is a quote around the path, not part of it.
	if strings.HasPrefix(p, "'") || strings.HasSuffix(p, "'") {
		return "", false
	}
	// A colon is a grep fragment ("a.go:12") or a git revision ("HEAD:a.go")
	// unless it is a Windows drive letter.
	if classes&classColon != 0 && !(strings.IndexByte(p, ':') == 1 && isDrivePath(p)) {
		return "", false
	}
	if strings.HasSuffix(p, "/") || p == "." || p == ".." || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") {
		return "", false
	}
	if origin == FromDiff {
		if p == "/dev/null" {
			return "", false
		}
		if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
			p = p[2:]
		}
	}
	if !isClean(p) {
		p = path.Clean(p)
	}
	switch {
	case p == "." || p == ".." || p == "/" || p == "~":
		return "", false
	case isAbsPath(p):
		rel, ok := n.relative(p)
		if !ok {
			return "", false
		}
		p = rel
	case strings.HasPrefix(p, "../") && n.cwd() != "":
		rel, ok := n.relative(path.Join(n.cwd(), p))
		if !ok {
			return "", false
		}
		p = rel
	}
	if origin != FromArgument && !looksLikeFileName(path.Base(p)) {
		return "", false
	}
	return p, true
}

// looksFile reports whether p, found in text, names a file rather than a
// directory, without normalizing it against a workspace.
func looksFile(p string) bool {
	_, ok := PathNormalizer{Prefixes: []string{}}.File(p, FromText)
	return ok
}

// cwd returns the cleaned working directory, or "" when it is unknown or
// the filesystem root (which would make every absolute path "relative").
func (n PathNormalizer) cwd() string {
	c := strings.TrimSpace(n.CWD)
	if c == "" {
		return ""
	}
	c = windowsSlashes(c)
	if !isAbsPath(c) {
		return ""
	}
	// Every path of a session is made relative to it: a clean one, as
	// sessions record it, is not cleaned again each time.
	if !isClean(c) {
		c = path.Clean(c)
	}
	if c == "/" || len(c) == 3 && isDrivePath(c) {
		return ""
	}
	return c
}

// relative maps an absolute, clean path into the workspace. It returns false
// when the path is the workspace directory itself.
func (n PathNormalizer) relative(p string) (string, bool) {
	if c := n.cwd(); c != "" {
		if n.equal(p, c) {
			return "", false
		}
		// p starts with c+"/", compared without making that string.
		if len(p) > len(c) && p[len(c)] == '/' && n.equal(p[:len(c)], c) {
			return p[len(c)+1:], true
		}
		// The working directory is known and the path is not below it: a
		// file outside the repository (/workspace/test.c when the
		// repository is /workspace/repo) stays absolute.
		return p, true
	}
	prefixes := n.Prefixes
	if prefixes == nil {
		prefixes = DefaultWorkspacePrefixes
	}
	for _, pre := range prefixes {
		pre = strings.TrimSpace(pre)
		if pre == "" {
			continue
		}
		pre = strings.TrimSuffix(path.Clean("/"+strings.TrimPrefix(pre, "/")), "/") + "/"
		if pre == "/" {
			continue
		}
		if n.equal(p+"/", pre) {
			return "", false
		}
		if n.hasPrefix(p, pre) {
			return p[len(pre):], true
		}
	}
	return p, true
}

func (n PathNormalizer) equal(a, b string) bool {
	if n.FoldCase {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func (n PathNormalizer) hasPrefix(s, pre string) bool {
	if len(s) < len(pre) {
		return false
	}
	return n.equal(s[:len(pre)], pre)
}

// stripScheme removes a file:// scheme and reduces a Sourcegraph blob
// address to its repository path. Other URLs are not files.
func stripScheme(p string) (string, bool) {
	if len(p) >= 7 && strings.EqualFold(p[:7], "file://") {
		rest := p[7:]
		// file://host/path: the host part is not part of the path.
		if !strings.HasPrefix(rest, "/") {
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				return "", false
			}
			rest = rest[i:]
		}
		rest = cutAny(rest, "?#")
		if u, err := percent.Decode(rest); err == nil {
			rest = u
		}
		return rest, rest != ""
	}
	// Sourcegraph addresses files as <repo>/-/blob/<path>, with or without
	// a host and scheme in front.
	if i := strings.Index(p, "/-/blob/"); i >= 0 {
		rest := cutAny(p[i+len("/-/blob/"):], "?#")
		return rest, rest != ""
	}
	if i := strings.Index(p, "://"); i > 0 && isScheme(p[:i]) {
		return "", false
	}
	return p, true
}

// cutAny returns s up to the first byte in chars.
func cutAny(s, chars string) string {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return s[:i]
	}
	return s
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c):
		case i > 0 && (isDigit(c) || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// windowsSlashes turns "C:\x\y" and a backslash-only relative path
// ("src\a.go") into forward-slash form; other backslashes are left alone
// and rejected later as shell escapes.
func windowsSlashes(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	if isDrivePath(p) || !strings.Contains(p, "/") {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

func isDrivePath(p string) bool {
	return len(p) >= 3 && isAlpha(p[0]) && p[1] == ':' && (p[2] == '/' || p[2] == '\\')
}

func isAbsPath(p string) bool {
	return strings.HasPrefix(p, "/") || isDrivePath(p)
}

// The classes of bytes File tells apart in one pass over a path.
const (
	classControl = 1 << iota // a control character: not a path
	classShell               // shell syntax or a glob: $`*?|;&<>{}\
	classBracket             // '[', which may open a glob class
	classQuote               // '"'
	classColon               // ':', of a scheme, a drive or a grep hit
	classDash                // '-', of a Sourcegraph "/-/blob/" address
)

var pathByteClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = classControl
	}
	t[0x7f] = classControl
	for _, c := range []byte("$`*?|;&<>{}\\") {
		t[c] = classShell
	}
	t['['] = classBracket
	t['"'] = classQuote
	t[':'] = classColon
	t['-'] = classDash
	return t
}()

// pathClasses returns the classes of the bytes of p, ORed together. It
// looks up four bytes a turn, into two accumulators: the paths of a find
// listing are a hundred bytes and more, and every one is tested.
func pathClasses(p string) uint8 {
	var a, b uint8
	for len(p) >= 4 {
		q := p[:4]
		a |= pathByteClass[q[0]] | pathByteClass[q[1]]
		b |= pathByteClass[q[2]] | pathByteClass[q[3]]
		p = p[4:]
	}
	for i := 0; i < len(p); i++ {
		a |= pathByteClass[p[i]]
	}
	return a | b
}

// isClean reports whether p is a path path.Clean leaves as it is because
// it has nothing to clean: no empty, "." or ".." element and no trailing
// slash. A path it does not accept may still be clean; it goes through
// path.Clean.
func isClean(p string) bool {
	if p == "" || p[len(p)-1] == '/' {
		return false
	}
	start := 0
	if p[0] == '/' {
		start = 1
	}
	for i := start; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

// hasGlobClass reports a bracket expression that reads as a glob character
// class ("[a-z]", "[!x]", "[0-9]"). Plain bracketed names such as Next.js
// route folders ("[id]", "[...slug]") are kept: they are real directories.
func hasGlobClass(p string) bool {
	for {
		i := strings.IndexByte(p, '[')
		if i < 0 {
			return false
		}
		p = p[i+1:]
		j := strings.IndexByte(p, ']')
		if j < 0 {
			return false
		}
		inner := p[:j]
		switch {
		case inner == "":
			return true
		case inner[0] == '!' || inner[0] == '^':
			return true
		case len(inner) >= 3 && inner[1] == '-' && sameClass(inner[0], inner[2]) && inner[0] <= inner[2]:
			return true
		}
	}
}

func sameClass(a, b byte) bool {
	return isDigit(a) && isDigit(b) ||
		'a' <= a && a <= 'z' && 'a' <= b && b <= 'z' ||
		'A' <= a && a <= 'Z' && 'A' <= b && b <= 'Z'
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// knownFileNames are extensionless names that are files, not directories,
// in nearly every repository. Matched exactly: a folder named "build" is
// not Bazel's BUILD file.
var knownFileNames = map[string]bool{
	"Makefile": true, "makefile": true, "GNUmakefile": true, "Dockerfile": true, "Containerfile": true,
	"LICENSE": true, "LICENCE": true, "License": true, "COPYING": true, "NOTICE": true, "PATENTS": true,
	"README": true, "CHANGELOG": true, "CHANGES": true, "HISTORY": true, "AUTHORS": true,
	"CONTRIBUTORS": true, "MAINTAINERS": true, "OWNERS": true, "CODEOWNERS": true,
	"VERSION": true, "INSTALL": true, "TODO": true,
	"Gemfile": true, "Rakefile": true, "Procfile": true, "Jenkinsfile": true,
	"Vagrantfile": true, "Brewfile": true, "Podfile": true, "Fastfile": true,
	"Guardfile": true, "Capfile": true, "Berksfile": true, "Pipfile": true,
	"Justfile": true, "justfile": true, "Earthfile": true, "Tiltfile": true, "Snakefile": true,
	"BUILD": true, "WORKSPACE": true, "configure": true, "gradlew": true, "mvnw": true,
	"license": true, "licence": true, "copying": true, "notice": true, "authors": true,
	"changelog": true, "readme": true,
}

// dotDirs are dot-named entries that are directories, so a listing that
// shows them has not surfaced a file.
var dotDirs = map[string]bool{
	".git": true, ".github": true, ".gitlab": true, ".vscode": true, ".idea": true,
	".claude": true, ".cursor": true, ".next": true, ".nuxt": true, ".cache": true,
	".venv": true, ".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true,
	".ruff_cache": true, ".circleci": true, ".husky": true, ".devcontainer": true,
	".config": true, ".local": true, ".npm": true, ".yarn": true, ".pnpm-store": true,
	".cargo": true, ".rustup": true, ".gradle": true, ".m2": true, ".svn": true, ".hg": true,
	".terraform": true, ".serverless": true, ".eggs": true, ".ipynb_checkpoints": true,
	".turbo": true, ".svelte-kit": true, ".angular": true, ".docusaurus": true,
}

// looksLikeFileName reports whether the last element of a path found in
// text names a file: it has an extension with a letter in it, is a dotfile
// that is not a well-known directory, or is a well-known extensionless file.
func looksLikeFileName(base string) bool {
	if base == "" || base == "." || base == ".." {
		return false
	}
	if base[0] == '.' {
		return !dotDirs[strings.ToLower(base)]
	}
	if knownFileNames[base] {
		return true
	}
	i := strings.LastIndexByte(base, '.')
	if i <= 0 || i == len(base)-1 {
		return false
	}
	ext := base[i+1:]
	if len(ext) > 16 {
		return false
	}
	letter := false
	for j := 0; j < len(ext); j++ {
		c := ext[j]
		switch {
		case isAlpha(c):
			letter = true
		case isDigit(c) || c == '_' || c == '-' || c == '~':
		default:
			return false
		}
	}
	return letter
}
