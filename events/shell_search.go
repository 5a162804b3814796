package events

import (
	"strings"
)

// grepLike holds what grep, rg, ag and git grep have in common.
type grepLike struct {
	pattern   string
	ops       []shellWord
	recursive bool
	list      bool // -l, -L, -c: names (and counts), no content
	quiet     bool
	noNames   bool // -h
	withNames bool // -H
}

func (a *shellAnalyzer) grepStage(s *stage, g grepLike) {
	s.query = g.pattern
	s.rank, s.category, s.class = 3, CodeSearch, FileLevel
	// As a filter, grep passes matching lines on; -l, -c and -q print
	// names, counts or nothing instead.
	s.passes = !g.list && !g.quiet
	s.grepList = g.list
	if g.quiet {
		s.silent = true
	}
	var files []string
	dirs := 0
	for _, w := range g.ops {
		if p, ok := a.path(w, s.dir, FromText); ok {
			a.col.addFile(p, false, false, false)
			files = append(files, p)
		} else {
			dirs++
		}
	}
	s.operands = len(g.ops) > 0
	if !g.list && !g.quiet {
		s.shows = files
	}
	s.format = formGrep
	if g.list {
		s.format |= formPaths
	}
	if len(files) == 1 && dirs == 0 && !g.recursive && !g.withNames {
		s.single = files[0]
	}
}

// cmdGrep: grep PATTERN [FILE|DIR]...
func cmdGrep(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "efmABCdD", []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "include", "exclude", "exclude-dir", "exclude-from", "directories", "devices", "label", "binary-files"})
	g := grepLike{
		recursive: hasOpt(opts, "r", "R", "recursive", "dereference-recursive"),
		list:      hasOpt(opts, "l", "L", "c", "files-with-matches", "files-without-match", "count"),
		quiet:     hasOpt(opts, "q", "quiet", "silent"),
		noNames:   hasOpt(opts, "h", "no-filename"),
		withNames: hasOpt(opts, "H", "with-filename"),
	}
	if v, ok := optVal(opts, "e", "regexp"); ok {
		g.pattern = v
	} else if _, ok := optVal(opts, "f", "file"); !ok && len(ops) > 0 {
		g.pattern, ops = ops[0].text, ops[1:]
	}
	g.ops = ops
	a.grepStage(s, g)
}

// cmdRg: ripgrep. rg --files lists files instead of searching.
func cmdRg(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "efgtTmABCjMErd", []string{"regexp", "file", "glob", "iglob", "type", "type-not", "type-add", "max-count", "after-context", "before-context", "context", "threads", "max-columns", "encoding", "replace", "max-depth", "max-filesize", "sort", "sortr", "color", "colors", "context-separator", "field-match-separator", "path-separator", "pre", "pre-glob", "ignore-file", "dfa-size-limit", "regex-size-limit"})
	if hasOpt(opts, "files") {
		listStage(a, s, ops, "")
		return
	}
	g := grepLike{
		recursive: true,
		list:      hasOpt(opts, "l", "files-with-matches", "files-without-match", "c", "count", "count-matches"),
		quiet:     hasOpt(opts, "q", "quiet"),
		noNames:   hasOpt(opts, "I", "no-filename"),
		withNames: hasOpt(opts, "H", "with-filename"),
	}
	if v, ok := optVal(opts, "e", "regexp"); ok {
		g.pattern = v
	} else if _, ok := optVal(opts, "f", "file"); !ok && len(ops) > 0 {
		g.pattern, ops = ops[0].text, ops[1:]
	}
	g.ops = ops
	// rg searches a single file operand without printing its name, and
	// directories recursively.
	g.recursive = false
	a.grepStage(s, g)
	if hasOpt(opts, "heading", "p", "pretty") {
		// --heading prints each file's name on a line of its own above
		// its matches.
		s.format |= formPaths
	}
}

// cmdAg: the silver searcher and ack: PATTERN [PATH]...
func cmdAg(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "GABCmpg", []string{"ignore", "ignore-dir", "after", "before", "context", "max-count", "depth", "path-to-ignore", "file-search-regex", "type"})
	if v, ok := optVal(opts, "g"); ok {
		s.query = v
		listStage(a, s, ops, v)
		return
	}
	g := grepLike{list: hasOpt(opts, "l", "L", "c", "files-with-matches", "files-without-matches", "count")}
	if len(ops) > 0 {
		g.pattern, ops = ops[0].text, ops[1:]
	}
	g.ops = ops
	a.grepStage(s, g)
}

// listStage marks a file-listing command whose operands are scopes.
func listStage(a *shellAnalyzer, s *stage, ops []shellWord, query string) {
	s.rank, s.category, s.class = 3, FileSearch, FileLevel
	s.query = query
	s.format = formPaths
	s.passes = true
	s.operands = true // a listing starts a stream of its own
	for _, w := range ops {
		a.surfaced(w, s.dir, FromText)
	}
}

// cmdFind: find [START...] EXPRESSION. -name patterns are the query;
// -exec runs a command on each file, whose output the call then shows.
func cmdFind(a *shellAnalyzer, s *stage, args []shellWord, body string) {
	i := 0
	for i < len(args) && (args[i].text == "-H" || args[i].text == "-L" || args[i].text == "-P" || strings.HasPrefix(args[i].text, "-O")) {
		i++
	}
	if i < len(args) && args[i].text == "-D" {
		i += 2
	}
	var starts []shellWord
	for i < len(args) {
		t := args[i].text
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == "\\(" {
			break
		}
		starts = append(starts, args[i])
		i++
	}
	query := ""
	var exec []shellWord
	for ; i < len(args); i++ {
		t := args[i].text
		switch t {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname":
			if i+1 < len(args) {
				i++
				if query == "" {
					query = args[i].text
				}
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			if exec == nil && i+1 <= len(args) {
				exec = args[i+1 : j]
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				i++
				a.written(args[i], s.dir)
			}
		}
	}
	listStage(a, s, starts, query)
	// find decides the call's category before the command it runs.
	a.note(s)
	if len(exec) > 0 {
		if sub, ok := a.command(simpleCommand{words: exec}, maxShellDepth); ok && sub.format != 0 {
			s.format = sub.format
			s.grepList = sub.grepList
		} else if ok {
			s.format = 0
		}
	}
}

// cmdFd: fd [PATTERN] [PATH]...
func cmdFd(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-x" || t == "--exec" || t == "-X" || t == "--exec-batch":
			i = len(args)
		case contains([]string{"-e", "--extension", "-t", "--type", "-E", "--exclude", "-d", "--max-depth", "--min-depth", "--exact-depth", "-S", "--size", "--changed-within", "--changed-before", "-o", "--owner", "-c", "--color", "-j", "--threads", "--max-results", "--base-directory", "--path-separator", "--search-path", "--ignore-file", "--format"}, t):
			i++
		case strings.HasPrefix(t, "-") && t != "-":
		default:
			ops = append(ops, args[i])
		}
	}
	query := ""
	if len(ops) > 0 {
		query, ops = ops[0].text, ops[1:]
	}
	listStage(a, s, ops, query)
}

// cmdLs: ls [-l] [FILE|DIR]...
func cmdLs(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "IwT", []string{"ignore", "width", "tabsize", "hide", "block-size", "color", "format", "sort", "time", "time-style", "indicator-style", "quoting-style"})
	s.rank, s.category, s.class = 3, FileSearch, FileLevel
	s.passes = true
	s.operands = true
	s.format = formLsLong | formLsShort
	if v, ok := optVal(opts, "format"); ok && (v == "long" || v == "verbose") || hasOpt(opts, "l", "n", "o", "g") {
		s.format = formLsLong
	}
	if hasOpt(opts, "1") && s.format != formLsLong {
		s.format = formLsLong | formPaths
	}
	dirs := 0
	var dir shellWord
	for _, w := range ops {
		if p, ok := a.path(w, s.dir, FromText); ok {
			a.col.addFile(p, false, false, false)
			continue
		}
		dirs++
		dir = w
	}
	switch {
	case len(ops) == 0:
		s.lsDir = s.dir
	case dirs == 1 && len(ops) == 1 && !dir.dynamic && !dir.glob && !hasOpt(opts, "d", "directory"):
		s.lsDir = joinDir(s.dir, dir.text)
	default:
		s.lsDir = s.dir
	}
}

// cmdTree: tree [DIR]; entries are joined to the directory drawn.
func cmdTree(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "LPIoHT", []string{"filelimit", "timefmt", "charset", "sort"})
	s.rank, s.category, s.class = 3, FileSearch, FileLevel
	s.passes = true
	s.operands = true
	s.format = formTree
	s.treeFull = hasOpt(opts, "f")
	if v, ok := optVal(opts, "o"); ok {
		a.written(shellWord{text: v}, s.dir)
		s.stdoutGone = true
	}
	if len(ops) == 1 && !ops[0].dynamic && !ops[0].glob {
		s.treeRoot = ops[0].text
	}
}

// cmdMeta: wc, stat, file, du, checksums name files without showing them.
func cmdMeta(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	_, ops := parseArgs(args, "cf", []string{"format", "printf", "files0-from"})
	s.rank, s.category, s.class = 2, FileSearch, FileLevel
	s.operands = len(ops) > 0
	for _, w := range ops {
		a.surfaced(w, s.dir, FromText)
	}
	if s.name == "wc" {
		s.format = formCounts
	}
}
