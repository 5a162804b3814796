package events

import (
	"strings"
)

// cmdGit recognizes git subcommands that read (show, diff, log -p, blame),
// search (grep, log) and list (ls-files).
func cmdGit(a *shellAnalyzer, s *stage, args []shellWord, body string) {
	dir, i, ok := gitGlobalOptions(args, s.dir)
	if !ok {
		return
	}
	s.dir = dir
	sub, rest := args[i].text, args[i+1:]
	switch sub {
	case "show":
		gitShow(a, s, rest)
	case "diff":
		gitDiffLog(a, s, rest, true)
	case "log", "whatchanged":
		gitDiffLog(a, s, rest, false)
	case "blame", "annotate":
		gitBlame(a, s, rest)
	case "grep":
		gitGrep(a, s, rest)
	case "ls-files", "ls-tree":
		opts, ops := parseArgs(rest, "x", []string{"exclude", "exclude-from", "format", "abbrev"})
		paths := ops
		if sub == "ls-tree" && len(ops) > 0 {
			paths = ops[1:]
		}
		listStage(a, s, paths, "")
		if sub == "ls-tree" && !hasOpt(opts, "name-only", "name-status") {
			s.format = formPaths
		}
	case "apply", "am":
		setWrite(s)
		a.patchBody(body, dir)
	case "checkout", "restore":
		_, ops := parseArgs(rest, "sb", []string{"source"})
		if hasDashDash(rest) || sub == "restore" {
			setWrite(s)
			for _, w := range afterDashDash(rest, ops, sub == "restore") {
				a.written(w, dir)
			}
		}
	}
}

// gitGlobalOptions skips git's options before the subcommand; -C DIR
// changes the directory. It returns the subcommand's index.
func gitGlobalOptions(args []shellWord, dir string) (string, int, bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-C":
			if i+1 >= len(args) || args[i+1].dynamic {
				return "", 0, false
			}
			i++
			dir = cleanDir(joinDir(dir, args[i].text))
		case t == "-c" || t == "--git-dir" || t == "--work-tree" || t == "--namespace":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return dir, i, true
		}
	}
	return "", 0, false
}

func hasDashDash(args []shellWord) bool {
	for _, w := range args {
		if w.text == "--" {
			return true
		}
	}
	return false
}

// afterDashDash returns the path operands of a git command: the words
// after "--", or (when all is set or there is no "--") the operands.
func afterDashDash(args, ops []shellWord, all bool) []shellWord {
	for i, w := range args {
		if w.text == "--" {
			return args[i+1:]
		}
	}
	if all {
		return ops
	}
	return nil
}

var gitRevOpts = []string{"format", "pretty", "since", "until", "after", "before", "author", "committer", "grep", "max-count", "skip", "date", "diff-filter", "encoding", "stat", "abbrev", "relative", "output", "src-prefix", "dst-prefix"}

// gitPaths splits git operands into revisions and paths: paths follow
// "--" or look like files.
func (a *shellAnalyzer) gitPaths(s *stage, args []shellWord) (opts []option, revs []shellWord, paths []string) {
	opts, ops := parseArgs(args, "nSGLUOM", gitRevOpts)
	dashed := afterDashDash(args, nil, false)
	for _, w := range ops {
		isPath := false
		for _, d := range dashed {
			if d == w {
				isPath = true
			}
		}
		if !isPath && looksFile(w.text) && !strings.Contains(w.text, "..") {
			isPath = true
		}
		if !isPath {
			revs = append(revs, w)
			continue
		}
		if p, ok := a.surfaced(w, s.dir, FromArgument); ok {
			paths = append(paths, p)
		}
	}
	return opts, revs, paths
}

// gitShow: `git show REV:path` prints a file at a revision; `git show REV
// -- path` prints a commit's diff of path; `git show REV` a commit.
func gitShow(a *shellAnalyzer, s *stage, args []shellWord) {
	opts, revs, paths := a.gitPaths(s, args)
	s.passes = true
	s.operands = true
	var blobs []string
	for _, w := range revs {
		_, p, ok := strings.Cut(w.text, ":")
		if !ok || w.dynamic {
			continue
		}
		// REV:path is relative to the repository root; REV:./path to the
		// current directory.
		dir := ""
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			dir = s.dir
		}
		if np, ok := a.surfaced(shellWord{text: p}, dir, FromArgument); ok {
			blobs = append(blobs, np)
		}
	}
	switch {
	case len(blobs) > 0:
		setRead(s)
		s.shows = append(blobs, paths...)
		s.content = true
	case len(paths) > 0:
		setRead(s)
		s.shows = paths
		s.format = formDiff
	default:
		s.rank, s.category, s.class = 3, CommitSearch, FileLevel
		s.format = formDiff
	}
	if hasOpt(opts, "name-only") {
		s.format |= formPaths
	}
}

// gitDiffLog: git diff / git log. With paths and a patch (diff always
// prints one; log with -p or -L) the named files are read; otherwise the
// call searches history.
func gitDiffLog(a *shellAnalyzer, s *stage, args []shellWord, diff bool) {
	opts, _, paths := a.gitPaths(s, args)
	s.passes = true
	s.operands = true
	s.format = formDiff
	if hasOpt(opts, "name-only") {
		s.format |= formPaths
	}
	patch := diff || hasOpt(opts, "p", "u", "patch", "L")
	if q, ok := optVal(opts, "grep", "S", "G"); ok {
		s.query = q
	}
	// git log -L 10,20:file and -L :func:file follow lines of one file.
	if v, ok := optVal(opts, "L"); ok {
		if i := strings.LastIndexByte(v, ':'); i >= 0 {
			if p, ok := a.surfaced(shellWord{text: v[i+1:]}, s.dir, FromArgument); ok {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) > 0 && patch && !hasOpt(opts, "name-only", "name-status", "stat", "shortstat", "numstat") {
		setRead(s)
		s.shows = paths
		return
	}
	s.rank, s.category, s.class = 3, CommitSearch, FileLevel
}

// gitBlame: git blame [-L A,B] FILE prints the file's lines with their
// commits.
func gitBlame(a *shellAnalyzer, s *stage, args []shellWord) {
	opts, ops := parseArgs(args, "LSCM", []string{"contents", "date", "ignore-rev", "ignore-revs-file", "since"})
	s.passes = true
	s.operands = true
	setRead(s)
	var file string
	for k := len(ops) - 1; k >= 0; k-- {
		if p, ok := a.path(ops[k], s.dir, FromArgument); ok && looksFile(ops[k].text) || ok && k == len(ops)-1 && len(ops) == 1 {
			a.col.addFile(p, false, false, false)
			file = p
			break
		}
	}
	if file == "" {
		return
	}
	s.shows = []string{file}
	s.content = true
	if v, ok := optVal(opts, "L"); ok {
		first, rest, _ := strings.Cut(v, ",")
		f, j := leadingInt(first)
		if j == 0 || j != len(first) {
			return
		}
		last := f
		if rest != "" {
			plus := strings.HasPrefix(rest, "+")
			n, k := leadingInt(strings.TrimPrefix(rest, "+"))
			if k == 0 {
				return
			}
			last = n
			if plus {
				last = f + n - 1
			}
		}
		if f >= 1 && last >= f {
			s.ranges = append(s.ranges, LineRange{Path: file, Start: f, End: last})
		}
	}
}

// gitGrep: git grep [-n] PATTERN [REV...] [-- PATH...].
func gitGrep(a *shellAnalyzer, s *stage, args []shellWord) {
	opts, ops := parseArgs(args, "efmABCO", []string{"max-depth", "threads", "max-count", "after-context", "before-context", "context", "open-files-in-pager"})
	g := grepLike{
		recursive: true,
		list:      hasOpt(opts, "l", "L", "name-only", "files-with-matches", "files-without-match", "c", "count"),
		quiet:     hasOpt(opts, "q", "quiet"),
	}
	if v, ok := optVal(opts, "e"); ok {
		g.pattern = v
	} else if len(ops) > 0 {
		g.pattern, ops = ops[0].text, ops[1:]
	}
	for _, w := range ops {
		if looksFile(w.text) || !w.dynamic && hasDashDash(args) {
			g.ops = append(g.ops, w)
		}
	}
	a.grepStage(s, g)
	s.single = ""
}
