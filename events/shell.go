package events

import (
	"slices"
	"strings"
)

// stage is what one simple command of a pipeline does.
type stage struct {
	name string
	// rank orders commands for choosing the call's category: writing
	// (rankWrite) before reading, searching, listing and history (3)
	// before metadata (2). A call that writes any file is an edit,
	// whatever else it runs. 0 is unrecognized.
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
	// wrote is set when the command writes a file through a redirection.
	wrote bool
}

// rankWrite is the rank of a command that creates, changes or deletes a
// file.
const rankWrite = 4

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
	// plan lists the lines of single a content command prints, in the
	// order it prints them (End 0: to the end of the file); nil when they
	// are not known.
	plan []LineRange
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
	// inPipe is set while a command that reads the pipe of the one before
	// it is analyzed.
	inPipe bool
	// names lists the commands the call ran, whose error messages
	// ("sed: x: No such file or directory") are not file content.
	names []string
	// programs lists the operands of programs the call runs that are not
	// recognized (python x.py, pytest t.py, a linter): they name files.
	programs []programRun
}

// programRun is an unrecognized program and the file operands it named.
type programRun struct {
	name  string
	files []string
}

// shellInput is the command of a shell call: a script, or an argv array
// that runs without a shell (each element is one word, taken as written:
// no quotes, variables or globs), as Codex records {"command": ["cat",
// "x"]} or ["bash", "-lc", "SCRIPT"].
type shellInput struct {
	script  string
	argv    []string
	workdir string // the directory the command runs in ("" = session cwd)
}

// extractShell extracts one shell call: the script's commands, then its
// output read in the shape its commands print. What a command showed is
// measured from its output: the lines a content command (cat, sed -n,
// head) printed are placed on the lines it asked for, so a range past the
// end of the file, or cut by the agent framework, is not credited; a call
// that printed nothing read nothing. failed is set when the command exited
// non-zero: its output is still read.
func extractShell(col *collector, in shellInput, result string, toolError, failed bool) *shellAnalyzer {
	a := &shellAnalyzer{col: col, dir: strings.TrimSpace(in.workdir)}
	if in.argv != nil {
		a.argv(in.argv)
	} else {
		a.script(in.script, 0)
	}
	col.category, col.class = a.category, a.class
	col.setQuery(a.query)
	if toolError {
		return a
	}
	if blankOutput(result) {
		col.clearReads()
		return a
	}
	var known []shellOutput
	unknown := false
	for _, o := range a.outputs {
		if o.format != 0 {
			known = append(known, o)
		} else if !o.content {
			unknown = true
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
		lsDir, listings := "", 0
		for _, o := range known {
			forms |= o.format
			if o.dir != dir {
				dir = ""
			}
			if o.format&(formLsLong|formLsShort) != 0 {
				lsDir = o.lsDir
				listings++
			}
		}
		forms &= formGrep | formLsLong | formDiff | formTree
		if listings > 1 {
			// Entries of two listings cannot be told apart: their folders
			// are not known.
			forms &^= formLsLong
		}
		col.scanResult(result, resultScan{forms: forms, dir: dir, lsDir: lsDir, read: true, noRelative: a.dirUnknown})
	}
	if unknown || len(a.programs) > 0 {
		// Programs (tests, linters, compilers, scripts) name files in
		// tracebacks, diagnostics and headers; a frame or message that
		// quotes a line's text shows that line.
		diag := resultScan{forms: formDiag, dir: a.dir, read: true, noRelative: a.dirUnknown}
		head, tail := headTail(result, maxDiagBytes)
		col.scanResult(head, diag)
		if tail != "" {
			col.scanResult(tail, diag)
		}
		if unifiedDiff(result) {
			// diff -u, a review script: the diff shows its new side.
			col.scanResult(result, resultScan{forms: formDiff, dir: a.dir, read: true, noRelative: a.dirUnknown})
		}
		a.programWrites(result, failed)
	}
	// A command that prints one file's lines in order (cat, sed -n, head)
	// showed as many of them as its output has, when nothing else printed.
	if len(a.outputs) == 1 {
		if o := a.outputs[0]; o.content && o.single != "" && o.format&formNumbered == 0 && len(o.plan) > 0 {
			runs := shownOutput(result)
			if printedLines(runs, a.errorLine) == 0 {
				col.unread(o.single)
			} else {
				// Lines after a cut whose size is not known were shown, but
				// cannot be numbered: the file is read, with the lines that can.
				col.setArgRanges(o.single, mapShown(o.plan, runs, a.errorLine))
			}
		}
	}
	if len(a.outputs) > 1 {
		a.splitUnknown(result)
	}
	col.dropFolders()
	return a
}

// splitUnknown decides what several content commands of one call showed
// (sed -n '1,80p' a.ts && sed -n '1,80p' b.ts): their outputs run
// together, so where one ends is known only when each printed all it asked
// for. Unless the output is long enough for that, their files are read
// without lines.
func (a *shellAnalyzer) splitUnknown(result string) {
	need, open := 0, false
	var files []string
	for _, o := range a.outputs {
		if !o.content || o.single == "" || o.format&formNumbered != 0 || len(o.plan) == 0 {
			continue
		}
		files = append(files, o.single)
		for _, r := range o.plan {
			if r.End == 0 {
				open = true
			} else {
				need += r.End - r.Start + 1
			}
		}
	}
	if len(files) == 0 {
		return
	}
	if !open && printedLines(shownOutput(result), a.errorLine) >= need {
		return
	}
	for _, f := range files {
		a.col.setArgRanges(f, nil)
	}
}

// errorLine reports a line that is an error message of one of the call's
// commands ("sed: can't read x: No such file or directory"), not output.
func (a *shellAnalyzer) errorLine(line string) bool {
	for _, n := range a.names {
		rest, ok := strings.CutPrefix(line, n+": ")
		if ok && errorPhrase(rest) {
			return true
		}
	}
	return false
}

// unusablePhrases are what commands say of an operand that exists but
// cannot be used; with missingPhrases, they mark a command's own error
// message.
var unusablePhrases = []string{
	"Not a directory", "Is a directory", "Permission denied", "invalid option", "unrecognized option",
	"illegal option", "unknown option", "Could not find",
}

func errorPhrase(s string) bool {
	return containsAny(s, missingPhrases) || containsAny(s, unusablePhrases)
}

// argv analyzes a command given as an argv array: one simple command
// whose words are the elements, up to maxShellBytes of them. A
// `bash -c SCRIPT` argv runs its script through command.
func (a *shellAnalyzer) argv(argv []string) {
	var cmd simpleCommand
	size := 0
	for _, w := range argv {
		if size += len(w); size > maxShellBytes {
			break
		}
		cmd.words = append(cmd.words, shellWord{text: w})
	}
	a.pipeline(shellPipeline{cmds: []simpleCommand{cmd}}, 0)
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
	for j, cmd := range pl.cmds {
		a.inPipe = j > 0
		st, ok := a.command(cmd, depth)
		a.inPipe = false
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
			out.plan = []LineRange{{Path: out.single, Start: first, End: last}}
		case s.numbers:
			if out.content && out.wholeFrom == 1 && out.single != "" {
				out.format = formNumbered
			} else {
				out.format = 0
			}
			out.wholeFrom, out.plan = 0, nil
		default:
			out.wholeFrom, out.plan = 0, nil
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
	o := shellOutput{
		format: s.format, content: s.content, wholeFrom: s.wholeFrom, single: s.single,
		grepList: s.grepList, dir: s.dir, lsDir: s.lsDir, treeRoot: s.treeRoot, treeFull: s.treeFull,
	}
	if s.content && s.single != "" {
		for _, r := range s.ranges {
			if r.Path == s.single {
				o.plan = append(o.plan, r)
			}
		}
		if s.wholeFrom > 0 {
			o.plan = append(o.plan, LineRange{Path: s.single, Start: s.wholeFrom})
		}
	}
	return o
}

// note records a stage's category when it outranks what the call has. A
// filter that reads the output of the command before it (pip list | grep
// x) searches no file: the command it filters decides.
func (a *shellAnalyzer) note(s *stage) {
	if a.inPipe && s.passes && !s.operands && !s.xargs && s.rank < rankWrite {
		if s.query != "" && a.query == "" && s.rank == 3 {
			a.query = s.query
		}
		return
	}
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
			if r.fd == 2 && nullDevice(r.target.text) {
				continue
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
			s.rank, s.category, s.class = rankWrite, FileWrite, Edit
			a.note(&s)
		}
		return s, len(words) == 0 && len(cmd.redirs) > 0
	}
	s.name = name
	if len(a.names) < 64 && !slices.Contains(a.names, name) {
		a.names = append(a.names, name)
	}
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
	} else {
		a.program(&s, name, args)
	}
	if wrote {
		// printf ... > f, cat > f <<EOF, git diff > p.patch: a write
		// through a redirection makes the call an edit, whatever the
		// command printed.
		s.rank, s.category, s.class = rankWrite, FileWrite, Edit
		s.wrote = true
	}
	a.note(&s)
	return s, true
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

// written records a file the command writes. Devices (/dev/null, and
// nul on Windows) and temporary files outside the project are not files
// of the project.
func (a *shellAnalyzer) written(w shellWord, dir string) bool {
	if nullDevice(w.text) || allDigits(w.text) {
		return false
	}
	if p, ok := a.path(w, dir, FromArgument); ok {
		if scratchPath(p) {
			return false
		}
		return a.col.addFile(p, false, true, false)
	}
	return false
}

// nullDevice reports a redirection target that discards its input.
func nullDevice(t string) bool {
	return strings.HasPrefix(t, "/dev/") || strings.EqualFold(t, "nul") || strings.EqualFold(t, "nul:")
}

// scratchPath reports a normalized path that is a temporary file outside
// the project (a path inside it is relative by now).
func scratchPath(p string) bool {
	return strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/var/tmp/") || strings.HasPrefix(p, "/private/tmp/")
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

// maxDiagBytes bounds how much of a program's output is read for the files
// it names: that much of its start and of its end, where tracebacks,
// diagnostics and test summaries are. A build log of hundreds of MB costs
// no more than one of a few.
const maxDiagBytes = 1 << 20

// headTail returns the first and last max bytes of s, each cut at a line
// end; tail is empty when s is no longer than 2·max.
func headTail(s string, max int) (head, tail string) {
	if len(s) <= 2*max {
		return s, ""
	}
	head = s[:max]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1]
	}
	tail = s[len(s)-max:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return head, tail
}
