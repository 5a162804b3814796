package events

import (
	"slices"
	"strings"
)

// stage is what one simple command of a pipeline does.
type stage struct {
	name string
	// rank orders commands for choosing the call's category: reading,
	// searching, listing and history (3) before metadata (2) before
	// writing (1). 0 is unrecognized.
	rank     int
	category Category
	class    Class
	query    string
	// shows lists files whose content (whole, or matching lines) the
	// command prints; ranges the lines of them it prints, when known.
	shows  []string
	ranges []LineRange
	// content is set when the command prints file content (cat, head,
	// sed -n); wholeFrom > 0 when it prints the single file in shows from
	// that line to the end (cat: 1, tail -n +N: N, sed -n 'A,$p': A).
	content   bool
	wholeFrom int
	// format is the shape of what the command prints (0 when unknown).
	format   resultForm
	single   string // the file grep or numbered output is about
	grepList bool
	dir      string // the directory the command ran in
	lsDir    string
	treeRoot string
	treeFull bool
	// silent commands print nothing worth reading (cd, cp, grep -q).
	silent bool
	// filter commands read stdin when given no file operand; passes says
	// their output keeps the lines of their input (head, grep, sort).
	operands    bool
	passes      bool
	filterStart int // head -n N / sed -n 'A,Bp' over stdin keep lines
	filterEnd   int // filterStart..filterEnd of the stream
	numbers     bool
	// xargs is set when the command takes its operands from stdin.
	xargs bool
	// stdoutGone is set when stdout goes to a file (or /dev/null).
	stdoutGone bool
}

// shellOutput describes what one pipeline printed.
type shellOutput struct {
	format    resultForm
	content   bool
	wholeFrom int
	single    string
	grepList  bool
	dir       string
	lsDir     string
	treeRoot  string
	treeFull  bool
}

// shellAnalyzer walks the pipelines of one shell call.
type shellAnalyzer struct {
	col        *collector
	dir        string // current directory for relative paths ("" = session cwd)
	dirUnknown bool   // a cd to a directory whose name is not known
	bestRank   int
	category   Category
	class      Class
	query      string
	// outputs lists what each pipeline printed, unknown programs
	// included; silent commands (cd, cp) are left out.
	outputs []shellOutput
}

// extractShell extracts one shell call: the script's commands, then its
// output read in the shape its commands print. failed is set when the
// command exited non-zero: its output is still read, but an error message
// is not file content to count lines of.
func extractShell(col *collector, script, workdir, result string, toolError, failed bool) {
	a := &shellAnalyzer{col: col, dir: strings.TrimSpace(workdir)}
	a.script(script, 0)
	col.category, col.class = a.category, a.class
	col.setQuery(a.query)
	if toolError || strings.TrimSpace(result) == "" {
		return
	}
	var known []shellOutput
	for _, o := range a.outputs {
		if o.format != 0 {
			known = append(known, o)
		}
	}
	switch len(known) {
	case 0:
	case 1:
		o := known[0]
		col.scanResult(result, resultScan{
			forms: o.format, dir: o.dir, single: o.single, read: true, grepList: o.grepList,
			lsDir: o.lsDir, treeRoot: o.treeRoot, treeFull: o.treeFull, noRelative: a.dirUnknown,
		})
	default:
		// Several listings or searches in one call: read only the line
		// shapes that cannot be mistaken for other output.
		var forms resultForm
		dir := known[0].dir
		for _, o := range known {
			forms |= o.format
			if o.dir != dir {
				dir = ""
			}
		}
		forms &= formGrep | formLsLong | formDiff | formTree
		col.scanResult(result, resultScan{forms: forms, dir: dir, read: true, noRelative: a.dirUnknown})
	}
	// A command that prints one file to the end (cat, tail -n +N) shows as
	// many lines as the output has, when nothing else printed.
	if len(a.outputs) == 1 && !failed {
		if o := a.outputs[0]; o.content && o.wholeFrom > 0 && o.single != "" && o.format&formNumbered == 0 {
			if n := countLines(result); n > 0 {
				col.addArgRange(o.single, o.wholeFrom, o.wholeFrom+n-1)
			}
		}
	}
}

// script analyzes a script's pipelines in order.
func (a *shellAnalyzer) script(src string, depth int) {
	if depth > maxShellDepth {
		return
	}
	for _, pl := range parseShell(src) {
		a.pipeline(pl, depth)
	}
}

func (a *shellAnalyzer) pipeline(pl shellPipeline, depth int) {
	stages := make([]stage, 0, len(pl.cmds))
	for _, cmd := range pl.cmds {
		st, ok := a.command(cmd, depth)
		if !ok {
			// cd, a nested script: no output of its own in this pipeline.
			st = stage{silent: true, passes: false}
		}
		stages = append(stages, st)
	}
	if len(stages) == 0 {
		return
	}
	// Compose: a filter without operands transforms its input; a command
	// with operands (or fed by xargs) starts a new stream.
	src := 0
	out := outputOf(stages[0])
	for j := 1; j < len(stages); j++ {
		s := &stages[j]
		if s.xargs || s.operands || !s.passes {
			if s.xargs || s.operands {
				src = j
			}
			out = outputOf(*s)
			if !s.xargs && !s.operands {
				out.format, out.content, out.wholeFrom = 0, false, 0
			}
			continue
		}
		from := &stages[src]
		switch {
		case s.filterStart > 0 && out.content && out.wholeFrom > 0 && out.single != "":
			first := out.wholeFrom + s.filterStart - 1
			last := out.wholeFrom + s.filterEnd - 1
			from.ranges = append(from.ranges, LineRange{Path: out.single, Start: first, End: last})
			out.wholeFrom = 0
		case s.numbers:
			if out.content && out.wholeFrom == 1 && out.single != "" {
				out.format = formNumbered
			} else {
				out.format = 0
			}
			out.wholeFrom = 0
		default:
			out.wholeFrom = 0
		}
		if s.grepList {
			out.grepList = true
		}
	}
	// What each stage prints reaches the agent only when no later stage
	// swallows it (wc, xargs, an unknown program) or sends it to a file.
	for i := range stages {
		visible := !stages[i].stdoutGone
		for j := i + 1; j < len(stages) && visible; j++ {
			visible = stages[j].passes && !stages[j].xargs && !stages[j].operands && !stages[j].stdoutGone
		}
		if !visible {
			continue
		}
		for _, f := range stages[i].shows {
			a.col.addFile(f, true, false, false)
		}
		for _, r := range stages[i].ranges {
			a.col.addFile(r.Path, true, false, false)
			a.col.addArgRange(r.Path, r.Start, r.End)
		}
	}
	last := stages[len(stages)-1]
	if last.stdoutGone || last.silent && len(stages) == 1 {
		return
	}
	a.outputs = append(a.outputs, out)
}

func outputOf(s stage) shellOutput {
	return shellOutput{
		format: s.format, content: s.content, wholeFrom: s.wholeFrom, single: s.single,
		grepList: s.grepList, dir: s.dir, lsDir: s.lsDir, treeRoot: s.treeRoot, treeFull: s.treeFull,
	}
}

// note records a stage's category when it outranks what the call has.
func (a *shellAnalyzer) note(s *stage) {
	if s.rank > a.bestRank {
		a.bestRank, a.category, a.class = s.rank, s.category, s.class
	}
	if s.query != "" && a.query == "" && s.rank == 3 {
		a.query = s.query
	}
}

// command analyzes one simple command. It returns false for commands that
// do not take part in a pipeline's output (cd, nested scripts).
func (a *shellAnalyzer) command(cmd simpleCommand, depth int) (stage, bool) {
	dir := a.dir
	s := stage{dir: dir}
	// Redirections: writes into files, stdin from a file or a here-doc.
	var stdinFile shellWord
	hasStdinFile := false
	body := ""
	wrote := false
	for _, r := range cmd.redirs {
		switch r.op {
		case ">", ">>", ">|", "&>", "&>>":
			if r.fd == -1 || r.fd == 1 || r.op[0] == '&' {
				s.stdoutGone = true
			}
			wrote = a.written(r.target, dir) || wrote
		case ">&":
			if !allDigits(r.target.text) && r.target.text != "-" {
				s.stdoutGone = true
				wrote = a.written(r.target, dir) || wrote
			}
		case "<":
			stdinFile, hasStdinFile = r.target, true
		case "<<", "<<-", "<<<":
			body = r.body
		}
	}
	words := cmd.words
	name, args, xargs := unwrap(words)
	s.xargs = xargs
	if name == "" {
		if wrote {
			// A bare "> f" truncates f.
			s.rank, s.category, s.class = 1, FileWrite, Edit
			a.note(&s)
		}
		return s, len(words) == 0 && len(cmd.redirs) > 0
	}
	s.name = name
	switch name {
	case "cd", "pushd", "chdir":
		a.cd(args)
		return s, false
	case "popd":
		a.dirUnknown = true
		return s, false
	case "bash", "sh", "zsh", "dash", "ksh":
		if sc, ok := shellDashC(args); ok {
			a.script(sc, depth+1)
			return s, false
		}
		if body != "" && len(positional(args)) == 0 {
			a.script(body, depth+1)
			return s, false
		}
		return s, true
	}
	if handler := commandHandlers[name]; handler != nil {
		handler(a, &s, args, body)
		if hasStdinFile && !s.operands && !s.silent {
			// `head -n 5 < f`, `wc -l < f`: the file is the command's
			// input, as if it were an operand. A handler given no operand
			// has recorded nothing yet, so running it again is safe.
			s = stage{dir: dir, name: name, xargs: xargs, stdoutGone: s.stdoutGone}
			handler(a, &s, append(slices.Clone(args), stdinFile), body)
		}
	}
	if wrote && s.rank < 1 {
		// printf ... > f, cat > f <<EOF: a write through a redirection.
		s.rank, s.category, s.class = 1, FileWrite, Edit
	}
	a.note(&s)
	return s, true
}

// written records a file the command writes.
func (a *shellAnalyzer) written(w shellWord, dir string) bool {
	if strings.HasPrefix(w.text, "/dev/") || allDigits(w.text) {
		return false
	}
	if p, ok := a.path(w, dir, FromArgument); ok {
		return a.col.addFile(p, false, true, false)
	}
	return false
}

// path normalizes an operand, resolving it against the command's
// directory. Patterns and words with unknown values are not files.
func (a *shellAnalyzer) path(w shellWord, dir string, origin PathOrigin) (string, bool) {
	raw := w.text
	if w.dynamic || w.glob || strings.TrimSpace(raw) == "" || raw == "-" {
		return "", false
	}
	if !isAbsPath(raw) && !strings.HasPrefix(raw, "~") {
		if a.dirUnknown {
			return "", false
		}
		if dir != "" {
			raw = joinPath(dir, raw)
		}
	}
	return a.col.n.File(raw, origin)
}

// joinPath joins without path.Join's cleaning of a trailing slash, which
// marks a directory.
func joinPath(dir, p string) string {
	if dir == "" {
		return p
	}
	return strings.TrimSuffix(dir, "/") + "/" + p
}

// surfaced records an operand the command names without showing its
// content, and returns the normalized path.
func (a *shellAnalyzer) surfaced(w shellWord, dir string, origin PathOrigin) (string, bool) {
	p, ok := a.path(w, dir, origin)
	if ok && a.col.addFile(p, false, false, false) {
		return p, true
	}
	return "", false
}

func (a *shellAnalyzer) cd(args []shellWord) {
	ops := positional(args)
	if len(ops) == 0 {
		a.dir, a.dirUnknown = "~", false
		return
	}
	w := ops[0]
	switch {
	case w.dynamic || w.glob || w.text == "-":
		a.dirUnknown = true
	case isAbsPath(w.text) || strings.HasPrefix(w.text, "~"):
		a.dir, a.dirUnknown = cleanDir(w.text), false
	case a.dirUnknown:
	case len(a.dir)+len(w.text) > maxPathLen:
		// No real directory has such a name; stop resolving against it
		// rather than let a generated chain of cd's grow it.
		a.dir, a.dirUnknown = "", true
	default:
		a.dir = joinPath(a.dir, w.text)
		// Cleaning only when needed keeps a long chain of cd's linear.
		if strings.Contains(a.dir, "/.") || strings.Contains(a.dir, "//") || strings.HasPrefix(a.dir, ".") {
			a.dir = cleanDir(a.dir)
		}
	}
}

func cleanDir(d string) string {
	d = strings.TrimSpace(d)
	if d == "" {
		return ""
	}
	abs := strings.HasPrefix(d, "/")
	parts := strings.Split(d, "/")
	var out []string
	for _, p := range parts {
		switch p {
		case "", ".":
		case "..":
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
			} else if !abs {
				out = append(out, "..")
			}
		default:
			out = append(out, p)
		}
	}
	r := strings.Join(out, "/")
	if abs {
		return "/" + r
	}
	return r
}

// positional returns the words that do not start with "-".
func positional(args []shellWord) []shellWord {
	var out []shellWord
	for _, w := range args {
		if !strings.HasPrefix(w.text, "-") || w.text == "-" {
			out = append(out, w)
		}
	}
	return out
}

// shellDashC returns the script of `bash -c SCRIPT` / `bash -lc SCRIPT`.
func shellDashC(args []shellWord) (string, bool) {
	for i, w := range args {
		if strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "c") {
			if i+1 < len(args) {
				return args[i+1].text, true
			}
			return "", false
		}
		if !strings.HasPrefix(w.text, "-") {
			return "", false
		}
	}
	return "", false
}

// unwrap strips what runs before the real command: variable assignments,
// reserved words of compound commands, and wrappers (sudo, env, timeout,
// nohup, time, xargs...). It returns the command's base name, its
// arguments, and whether xargs supplies operands from stdin.
func unwrap(words []shellWord) (string, []shellWord, bool) {
	xargs := false
	for round := 0; round < 16 && len(words) > 0; round++ {
		w := words[0]
		if w.dynamic || w.glob {
			return "", nil, xargs
		}
		if isAssignment(w.text) {
			words = words[1:]
			continue
		}
		name := w.text
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		switch name {
		case "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "command", "builtin", "nohup", "exec", "unbuffer":
			words = skipOptions(words[1:], "", nil)
		case "fi", "done", "esac", "}", "for", "case", "select", "function", "in":
			return "", nil, xargs
		case "sudo", "doas":
			words = skipOptions(words[1:], "ugCDhprTU", []string{"user", "group", "chdir"})
		case "env":
			words = skipOptions(words[1:], "uCS", []string{"unset", "chdir", "split-string"})
		case "nice", "ionice", "chrt", "taskset":
			words = skipOptions(words[1:], "ncpt", []string{"adjustment", "class", "classdata"})
		case "timeout":
			words = skipOptions(words[1:], "sk", []string{"signal", "kill-after"})
			if len(words) > 0 {
				words = words[1:] // the duration
			}
		case "stdbuf":
			words = skipOptions(words[1:], "ioe", []string{"input", "output", "error"})
		case "xargs":
			xargs = true
			words = skipOptions(words[1:], "IiLlnPsdEea", []string{"replace", "max-lines", "max-args", "max-procs", "max-chars", "delimiter", "eof", "arg-file"})
		case "git":
			// git is recognized with its subcommand below.
			return "git", words[1:], xargs
		default:
			return name, words[1:], xargs
		}
	}
	return "", nil, xargs
}

func isAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c == '_' || isAlpha(c) || j > 0 && isDigit(c)) {
			return false
		}
	}
	return true
}

// skipOptions drops leading options (and the values of those listed as
// taking one) and assignments, returning the rest.
func skipOptions(words []shellWord, shortWithArg string, longWithArg []string) []shellWord {
	for len(words) > 0 {
		t := words[0].text
		switch {
		case t == "--":
			return words[1:]
		case isAssignment(t):
			words = words[1:]
		case strings.HasPrefix(t, "--"):
			words = words[1:]
			if !strings.Contains(t, "=") && contains(longWithArg, t[2:]) && len(words) > 0 {
				words = words[1:]
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			words = words[1:]
			if strings.IndexByte(shortWithArg, t[len(t)-1]) >= 0 && len(t) == 2 && len(words) > 0 {
				words = words[1:]
			}
		default:
			return words
		}
	}
	return words
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// An option parsed from a command line.
type option struct {
	name string // "n" for -n, "lines" for --lines
	val  string
}

// parseArgs separates options from operands. Short options listed in
// shortWithArg and long options in longWithArg take a value (attached or
// the next word). "--" ends options; "-" alone is an operand (stdin).
// Words starting with "-" followed by a digit are returned as option "#"
// (head -50).
func parseArgs(args []shellWord, shortWithArg string, longWithArg []string) ([]option, []shellWord) {
	var opts []option
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case t == "--":
			ops = append(ops, args[i+1:]...)
			return opts, ops
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t[2:], "=")
			if !hasVal && contains(longWithArg, name) && i+1 < len(args) {
				i++
				val = args[i].text
			}
			opts = append(opts, option{name: name, val: val})
		case len(t) > 1 && t[0] == '-' && isDigit(t[1]):
			opts = append(opts, option{name: "#", val: t[1:]})
		case len(t) > 1 && t[0] == '-':
			for k := 1; k < len(t); k++ {
				c := t[k]
				if strings.IndexByte(shortWithArg, c) >= 0 {
					val := t[k+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i].text
					}
					opts = append(opts, option{name: string(c), val: val})
					break
				}
				opts = append(opts, option{name: string(c)})
			}
		default:
			ops = append(ops, w)
		}
	}
	return opts, ops
}

func hasOpt(opts []option, names ...string) bool {
	for _, o := range opts {
		if contains(names, o.name) {
			return true
		}
	}
	return false
}

func optVal(opts []option, names ...string) (string, bool) {
	for _, o := range opts {
		if contains(names, o.name) {
			return o.val, true
		}
	}
	return "", false
}

// commandHandlers recognizes commands by base name. Each handler fills in
// the stage from the command's arguments and here-document body. The
// table is filled in init because cmdFind analyzes the command of -exec
// through it, which a variable initializer may not refer to.
var commandHandlers map[string]func(a *shellAnalyzer, s *stage, args []shellWord, body string)

func init() {
	commandHandlers = map[string]func(*shellAnalyzer, *stage, []shellWord, string){
		"cat": cmdCat, "less": cmdCat, "more": cmdCat, "most": cmdCat, "tac": cmdCat,
		"bat": cmdBat, "batcat": cmdBat,
		"nl":   cmdNl,
		"head": cmdHead,
		"tail": cmdTail,
		"sed":  cmdSed,
		"awk":  cmdAwk, "gawk": cmdAwk, "mawk": cmdAwk, "nawk": cmdAwk,
		"perl": cmdPerl,
		"jq":   cmdJq,
		"grep": cmdGrep, "egrep": cmdGrep, "fgrep": cmdGrep, "zgrep": cmdGrep,
		"rg": cmdRg,
		"ag": cmdAg, "ack": cmdAg,
		"find": cmdFind,
		"fd":   cmdFd, "fdfind": cmdFd,
		"ls": cmdLs, "dir": cmdLs, "exa": cmdLs, "eza": cmdLs,
		"tree": cmdTree,
		"git":  cmdGit,
		"wc":   cmdMeta, "stat": cmdMeta, "file": cmdMeta, "du": cmdMeta,
		"md5sum": cmdMeta, "sha1sum": cmdMeta, "sha256sum": cmdMeta, "cksum": cmdMeta,
		"touch": cmdTouch,
		"rm":    cmdRm,
		"cp":    cmdCopy, "mv": cmdCopy,
		"tee":         cmdTee,
		"patch":       cmdPatch,
		"apply_patch": cmdApplyPatch, "applypatch": cmdApplyPatch,
		"sort": cmdPass, "uniq": cmdPass, "cut": cmdPass, "tr": cmdPass, "column": cmdPass,
		"fold": cmdPass, "fmt": cmdPass, "expand": cmdPass, "rev": cmdPass,
		"mkdir": cmdSilent, "chmod": cmdSilent, "chown": cmdSilent, "export": cmdSilent,
		"true": cmdSilent, "sleep": cmdSilent, "set": cmdSilent, "unset": cmdSilent,
		"source": cmdSilent, ".": cmdSilent, "ln": cmdSilent, "clear": cmdSilent,
	}
}

func setRead(s *stage) {
	s.rank, s.category, s.class = 3, FileRead, FileLevel
}

// readOperands records operands whose content the command prints.
func (a *shellAnalyzer) readOperands(s *stage, ops []shellWord) {
	// "+N" and "+G" are options of tail, less and more, not files.
	ops = slices.DeleteFunc(slices.Clone(ops), func(w shellWord) bool { return strings.HasPrefix(w.text, "+") })
	for _, w := range ops {
		if p, ok := a.surfaced(w, s.dir, FromArgument); ok {
			s.shows = append(s.shows, p)
		}
	}
	s.operands = len(ops) > 0
	if len(s.shows) == 1 && len(ops) == 1 {
		s.single = s.shows[0]
	}
}

// cmdPass handles stream filters that keep lines (sort, uniq, cut).
func cmdPass(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	s.passes = true
	_, ops := parseArgs(args, "kdfcstwo", []string{"key", "delimiter", "fields", "characters", "field-separator", "output"})
	s.operands = len(ops) > 0 && s.name != "tr"
}

func cmdSilent(_ *shellAnalyzer, s *stage, _ []shellWord, _ string) {
	s.silent = true
}

// cmdCat: cat, less, more, tac print their operands; cat -n numbers them.
func cmdCat(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "", nil)
	s.passes = true
	if len(ops) == 0 {
		if hasOpt(opts, "n", "number", "b", "number-nonblank") {
			s.numbers = true
		}
		return
	}
	setRead(s)
	a.readOperands(s, ops)
	s.content = true
	if s.single != "" && s.name != "tac" {
		s.wholeFrom = 1
		if hasOpt(opts, "n", "number") && s.name == "cat" {
			s.format = formNumbered
		}
	}
}

// cmdBat: bat -r A:B prints a line range; bat -n numbers with a space.
func cmdBat(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "lHrmd", []string{"language", "highlight-line", "line-range", "map-syntax", "style", "theme", "tabs", "wrap", "terminal-width", "color", "paging", "italic-text", "decorations", "file-name"})
	s.passes = true
	if len(ops) == 0 {
		return
	}
	setRead(s)
	a.readOperands(s, ops)
	s.content = true
	if v, ok := optVal(opts, "r", "line-range"); ok && s.single != "" {
		first, last, ok := parseColonRange(v)
		switch {
		case ok && last > 0:
			s.ranges = append(s.ranges, LineRange{Path: s.single, Start: first, End: last})
		case ok:
			s.wholeFrom = first
		}
		return
	}
	if s.single != "" {
		s.wholeFrom = 1
	}
}

// parseColonRange reads bat's "A:B", "A:", ":B" and "A:+N".
func parseColonRange(v string) (int, int, bool) {
	a, b, ok := strings.Cut(v, ":")
	if !ok {
		n, j := leadingInt(v)
		return n, n, j > 0 && j == len(v) && n > 0
	}
	first := 1
	if a != "" {
		n, j := leadingInt(a)
		if j == 0 || j != len(a) || n < 1 {
			return 0, 0, false
		}
		first = n
	}
	if b == "" {
		return first, 0, true
	}
	plus := strings.HasPrefix(b, "+")
	n, j := leadingInt(strings.TrimPrefix(b, "+"))
	if j == 0 || j != len(strings.TrimPrefix(b, "+")) {
		return 0, 0, false
	}
	if plus {
		return first, first + n, true
	}
	return first, n, n >= first
}

// cmdNl: nl prints the file with numbers; with -ba every line is numbered
// with its own line number ("     1<TAB>text", like cat -n).
func cmdNl(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "bdfhilnsvw", []string{"body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"})
	all := false
	if v, ok := optVal(opts, "b", "body-numbering"); ok && v == "a" {
		all = true
	}
	s.passes = true
	if len(ops) == 0 {
		s.numbers = all
		return
	}
	setRead(s)
	a.readOperands(s, ops)
	s.content = true
	if s.single != "" {
		s.wholeFrom = 1
		if all {
			s.format = formNumbered
		}
	}
}

// lineCount reads head/tail's count: -n N, -N, --lines=N, -n +N.
func lineCount(opts []option) (n int, plus bool, given bool, ok bool) {
	v, given := optVal(opts, "n", "lines", "#")
	if hasOpt(opts, "c", "bytes") {
		return 0, false, true, false
	}
	if !given {
		return 10, false, false, true
	}
	plus = strings.HasPrefix(v, "+")
	v = strings.TrimPrefix(v, "+")
	n, j := leadingInt(v)
	if j == 0 || j != len(v) {
		return 0, false, true, false
	}
	return n, plus, true, true
}

// cmdHead: head -n N prints lines 1..N.
func cmdHead(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "nc", []string{"lines", "bytes"})
	n, _, _, ok := lineCount(opts)
	s.passes = true
	if len(ops) == 0 {
		if ok && n > 0 {
			s.filterStart, s.filterEnd = 1, n
		}
		return
	}
	setRead(s)
	a.readOperands(s, ops)
	s.content = true
	if ok && n > 0 {
		for _, f := range s.shows {
			s.ranges = append(s.ranges, LineRange{Path: f, Start: 1, End: n})
		}
	}
}

// cmdTail: tail -n +N prints from line N; tail -n N prints an unknown
// range (the file's length is not known).
func cmdTail(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "ncsF", []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"})
	n, plus, _, ok := lineCount(opts)
	s.passes = true
	if len(ops) == 0 {
		return
	}
	setRead(s)
	a.readOperands(s, ops)
	s.content = true
	if ok && plus && n > 0 && s.single != "" {
		s.wholeFrom = n
	}
}

// cmdSed: sed -n 'A,Bp' prints lines A..B; sed Nq prints 1..N; sed -i
// edits its operands in place.
func cmdSed(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	var scripts []string
	quiet, inPlace := false, false
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case t == "-n" || t == "--quiet" || t == "--silent":
			quiet = true
		case strings.HasPrefix(t, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(t, "--expression="))
		case t == "--expression" || t == "-e":
			if i+1 < len(args) {
				i++
				scripts = append(scripts, args[i].text)
			}
		case strings.HasPrefix(t, "--in-place"):
			inPlace = true
		case t == "-f" || t == "--file" || t == "-l" || t == "--line-length":
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && t[0] == '-':
			// A cluster: "-ne", "-i.bak" (-i takes an attached suffix).
		cluster:
			for k := 1; k < len(t); k++ {
				switch t[k] {
				case 'n':
					quiet = true
				case 'i':
					inPlace = true
					break cluster
				case 'e':
					if rest := t[k+1:]; rest != "" {
						scripts = append(scripts, rest)
					} else if i+1 < len(args) {
						i++
						scripts = append(scripts, args[i].text)
					}
					break cluster
				case 'f', 'l':
					if t[k+1:] == "" {
						i++
					}
					break cluster
				}
			}
		default:
			ops = append(ops, args[i])
		}
	}
	if len(scripts) == 0 && len(ops) > 0 {
		scripts, ops = []string{ops[0].text}, ops[1:]
	}
	ranges, toEnd, pure := sedRanges(scripts, quiet)
	if inPlace {
		for _, w := range ops {
			a.written(w, s.dir)
		}
		s.rank, s.category, s.class = 1, FileWrite, Edit
		s.silent = true
		s.operands = len(ops) > 0
		return
	}
	s.passes = true
	if len(ops) == 0 {
		if pure && len(ranges) == 1 {
			s.filterStart, s.filterEnd = ranges[0][0], ranges[0][1]
		}
		return
	}
	setRead(s)
	a.readOperands(s, ops)
	s.content = true
	if !pure {
		return
	}
	for _, f := range s.shows {
		for _, r := range ranges {
			s.ranges = append(s.ranges, LineRange{Path: f, Start: r[0], End: r[1]})
		}
	}
	if toEnd > 0 && s.single != "" {
		s.wholeFrom = toEnd
	}
}

// sedRanges reads scripts made only of line-address prints ("10,20p",
// "5p", "10,+5p", "30,$p") and quits ("20q"). pure is false when any
// command is something else; toEnd is A of an "A,$p".
func sedRanges(scripts []string, quiet bool) (ranges [][2]int, toEnd int, pure bool) {
	if len(scripts) == 0 {
		return nil, 0, false
	}
	for _, sc := range scripts {
		for _, part := range strings.FieldsFunc(sc, func(r rune) bool { return r == ';' || r == '\n' }) {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			a, i := leadingInt(part)
			if i == 0 || a < 1 {
				return nil, 0, false
			}
			rest := strings.TrimSpace(part[i:])
			switch {
			case rest == "q" && !quiet:
				ranges = append(ranges, [2]int{1, a})
				continue
			case rest == "p" && quiet:
				ranges = append(ranges, [2]int{a, a})
				continue
			case !quiet || !strings.HasPrefix(rest, ","):
				return nil, 0, false
			}
			rest = strings.TrimSpace(rest[1:])
			switch {
			case strings.HasPrefix(rest, "$"):
				if strings.TrimSpace(rest[1:]) != "p" {
					return nil, 0, false
				}
				toEnd = a
			case strings.HasPrefix(rest, "+"):
				n, j := leadingInt(rest[1:])
				if j == 0 || strings.TrimSpace(rest[1+j:]) != "p" {
					return nil, 0, false
				}
				ranges = append(ranges, [2]int{a, a + n})
			default:
				b, j := leadingInt(rest)
				if j == 0 || strings.TrimSpace(rest[j:]) != "p" {
					return nil, 0, false
				}
				if b < a {
					b = a // sed prints only line A when B < A
				}
				ranges = append(ranges, [2]int{a, b})
			}
		}
	}
	return ranges, toEnd, len(ranges) > 0 || toEnd > 0
}

// cmdAwk: awk 'NR>=A && NR<=B' prints lines A..B.
func cmdAwk(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "Fvf", []string{"field-separator", "assign", "file"})
	program := ""
	if _, ok := optVal(opts, "f", "file"); !ok && len(ops) > 0 {
		program, ops = ops[0].text, ops[1:]
	}
	var files []shellWord
	for _, w := range ops {
		if !isAssignment(w.text) {
			files = append(files, w)
		}
	}
	first, last, ok := awkRange(program)
	s.passes = true
	if len(files) == 0 {
		if ok {
			s.filterStart, s.filterEnd = first, last
		}
		return
	}
	setRead(s)
	a.readOperands(s, files)
	s.content = true
	if ok {
		for _, f := range s.shows {
			s.ranges = append(s.ranges, LineRange{Path: f, Start: first, End: last})
		}
	}
}

// awkRange reads a program whose only condition bounds NR: "NR>=10 &&
// NR<=20", "NR==5", "NR>9&&NR<21 {print}".
func awkRange(program string) (int, int, bool) {
	cond := program
	if i := strings.IndexByte(cond, '{'); i >= 0 {
		body := strings.TrimSpace(cond[i:])
		if body != "{print}" && body != "{ print }" && body != "{print $0}" && body != "{ print $0 }" {
			return 0, 0, false
		}
		cond = cond[:i]
	}
	if strings.Contains(cond, "||") || strings.TrimSpace(cond) == "" {
		return 0, 0, false
	}
	lo, hi := 0, 0
	for _, part := range strings.Split(cond, "&&") {
		part = strings.ReplaceAll(strings.TrimSpace(part), " ", "")
		rest, ok := strings.CutPrefix(part, "NR")
		if !ok {
			return 0, 0, false
		}
		var op string
		for _, o := range []string{"==", ">=", "<=", ">", "<"} {
			if strings.HasPrefix(rest, o) {
				op = o
				break
			}
		}
		if op == "" {
			return 0, 0, false
		}
		n, j := leadingInt(rest[len(op):])
		if j == 0 || j != len(rest)-len(op) {
			return 0, 0, false
		}
		switch op {
		case "==":
			lo, hi = n, n
		case ">=":
			lo = n
		case ">":
			lo = n + 1
		case "<=":
			hi = n
		case "<":
			hi = n - 1
		}
	}
	if lo < 1 || hi < lo {
		return 0, 0, false
	}
	return lo, hi, true
}

// cmdPerl: perl -i edits its operands in place; perl -ne/-pe reads them.
func cmdPerl(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	inPlace, script := false, false
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if len(t) > 1 && t[0] == '-' && !strings.HasPrefix(t, "--") {
			for k := 1; k < len(t); k++ {
				if t[k] == 'i' {
					inPlace = true
					break
				}
				if t[k] == 'e' || t[k] == 'E' {
					script = true
					if t[k+1:] == "" {
						i++
					}
					break
				}
			}
			continue
		}
		ops = append(ops, args[i])
	}
	if !script {
		return // perl script.pl runs a program
	}
	if inPlace {
		for _, w := range ops {
			a.written(w, s.dir)
		}
		s.rank, s.category, s.class = 1, FileWrite, Edit
		s.silent = true
		s.operands = len(ops) > 0
		return
	}
	s.passes = len(ops) == 0
	if len(ops) > 0 {
		setRead(s)
		a.readOperands(s, ops)
		s.content = true
	}
}

// cmdJq: jq FILTER FILE... prints (a transformation of) the files.
func cmdJq(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--arg" || t == "--argjson" || t == "--slurpfile" || t == "--rawfile":
			i += 2
		case t == "-f" || t == "--from-file" || t == "--indent" || t == "-L":
			i++
		case strings.HasPrefix(t, "-") && t != "-":
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) <= 1 {
		return
	}
	setRead(s)
	a.readOperands(s, ops[1:])
	s.content = true
}

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

func setWrite(s *stage) {
	s.rank, s.category, s.class = 1, FileWrite, Edit
	s.silent = true
	s.operands = true
}

// cmdTouch creates or updates its operands.
func cmdTouch(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	_, ops := parseArgs(args, "dtr", []string{"date", "reference"})
	setWrite(s)
	for _, w := range ops {
		a.written(w, s.dir)
	}
}

// cmdRm removes its operands; with -r they may be directories.
func cmdRm(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "", nil)
	setWrite(s)
	origin := FromArgument
	if hasOpt(opts, "r", "R", "recursive") {
		origin = FromText
	}
	for _, w := range ops {
		if p, ok := a.path(w, s.dir, origin); ok {
			a.col.addFile(p, false, true, false)
		}
	}
}

// cmdCopy: cp and mv write their destination; mv also removes sources.
func cmdCopy(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	opts, ops := parseArgs(args, "tS", []string{"target-directory", "suffix", "backup"})
	setWrite(s)
	target, hasTarget := optVal(opts, "t", "target-directory")
	var sources []shellWord
	var dest shellWord
	switch {
	case hasTarget:
		sources, dest = ops, shellWord{text: target + "/"}
	case len(ops) >= 2:
		sources, dest = ops[:len(ops)-1], ops[len(ops)-1]
	default:
		return
	}
	for _, w := range sources {
		if p, ok := a.path(w, s.dir, FromText); ok {
			a.col.addFile(p, false, s.name == "mv", false)
		}
	}
	toDir := strings.HasSuffix(dest.text, "/") || len(sources) > 1 || !looksFile(dest.text)
	if !toDir {
		a.written(dest, s.dir)
		return
	}
	for _, w := range sources {
		if w.dynamic || w.glob {
			continue
		}
		base := w.text
		if i := strings.LastIndexByte(strings.TrimSuffix(base, "/"), '/'); i >= 0 {
			base = base[i+1:]
		}
		if looksFile(base) {
			a.written(shellWord{text: joinPath(dest.text, base), dynamic: dest.dynamic, glob: dest.glob}, s.dir)
		}
	}
}

// cmdTee writes its operands and passes its input through.
func cmdTee(a *shellAnalyzer, s *stage, args []shellWord, _ string) {
	_, ops := parseArgs(args, "", []string{"output-error"})
	s.passes = true
	if len(ops) > 0 {
		s.rank, s.category, s.class = 1, FileWrite, Edit
	}
	for _, w := range ops {
		a.written(w, s.dir)
	}
}

// cmdPatch: patch applies a diff from a here-document; the files it names
// after "+++" are written.
func cmdPatch(a *shellAnalyzer, s *stage, args []shellWord, body string) {
	_, ops := parseArgs(args, "pidoDrBFzVYg", []string{"strip", "input", "directory", "output", "reject-file", "prefix", "suffix", "fuzz"})
	setWrite(s)
	for _, w := range ops {
		if !strings.Contains(w.text, "\n") {
			a.written(w, s.dir)
		}
	}
	a.patchBody(body, s.dir)
}

func (a *shellAnalyzer) patchBody(body, dir string) {
	for _, line := range strings.Split(capResult(body), "\n") {
		if p, ok := strings.CutPrefix(line, "+++ "); ok {
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			if np, ok := a.col.n.File(p, FromDiff); ok {
				a.col.addFile(np, false, true, false)
			}
		}
	}
}

// cmdApplyPatch: Codex's apply_patch takes "*** Update File: path" blocks
// as its argument or from a here-document.
func cmdApplyPatch(a *shellAnalyzer, s *stage, args []shellWord, body string) {
	setWrite(s)
	text := body
	if len(args) > 0 {
		text = args[0].text + "\n" + body
	}
	for _, line := range strings.Split(capResult(text), "\n") {
		line = strings.TrimSpace(line)
		for _, marker := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, marker); ok {
				a.written(shellWord{text: strings.TrimSpace(p)}, s.dir)
			}
		}
	}
}

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
