package events

import (
	"slices"
	"strings"
)

// Programs the shell analysis does not know (a script, a test runner, a
// linter) still name files: `python repro.py` runs repro.py, `sqlfluff
// lint q.sql` lints q.sql. Their file operands are named, never read: what
// a program prints is its own output. A program that rewrites files in
// place (a formatter, `sqlfluff fix`) writes them, and one whose output
// says which file it saved ("Saved report to out.docx") wrote that file.

// textOperandPrograms print or install their operands: words, package
// names and messages, not files of the project.
var textOperandPrograms = map[string]bool{
	"echo": true, "printf": true, "pip": true, "pip3": true, "pipx": true, "uv": true, "poetry": true,
	"apt": true, "apt-get": true, "apk": true, "yum": true, "dnf": true, "brew": true, "conda": true,
	"mamba": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "bun": true, "gem": true,
	"cargo": true, "go": true, "which": true, "whereis": true, "type": true, "man": true, "help": true,
	"kill": true, "pkill": true, "ps": true, "curl": true, "wget": true, "ssh": true, "scp": true,
	"docker": true, "kubectl": true, "systemctl": true, "service": true, "date": true, "id": true,
	"whoami": true, "uname": true, "hostname": true, "env": true, "printenv": true, "test": true, "[": true,
	"[[": true, "read": true, "return": true, "exit": true, "alias": true, "history": true,
}

// inPlaceFixers rewrite their file operands. The value, when not empty,
// is the subcommand or option that makes them write (`ruff check` only
// reports; `ruff check --fix` and `ruff format` rewrite).
var inPlaceFixers = map[string][]string{
	"sqlfluff": {"fix", "format"}, "black": nil, "isort": nil, "autopep8": {"-i", "--in-place"},
	"yapf": {"-i", "--in-place"}, "autoflake": {"-i", "--in-place"}, "ruff": {"format", "--fix"},
	"prettier": {"--write", "-w"}, "eslint": {"--fix"}, "gofmt": {"-w"}, "goimports": {"-w"},
	"clang-format": {"-i"}, "rustfmt": nil, "dos2unix": nil, "unix2dos": nil, "shfmt": {"-w", "--write"},
	"stylua": nil, "terraform": {"fmt"}, "pyupgrade": nil, "docformatter": {"-i", "--in-place"},
}

// program records the file operands of a command no handler knows.
func (a *shellAnalyzer) program(s *stage, name string, args []shellWord) {
	if textOperandPrograms[name] || len(a.programs) >= 64 {
		return
	}
	run := programRun{name: name}
	fixer, isFixer := inPlaceFixers[name]
	writes := isFixer && len(fixer) == 0
	skipNext := false
	for _, w := range args {
		if skipNext {
			skipNext = false
			continue
		}
		t := w.text
		if isFixer && slices.Contains(fixer, t) {
			writes = true
		}
		if strings.HasPrefix(t, "-") {
			// -c CODE, -m MODULE, -e EXPR take a value that is no file.
			if t == "-c" || t == "-m" || t == "-e" || t == "--command" || t == "--eval" {
				skipNext = true
			}
			continue
		}
		// A test id (tests/a.py::test_x) names its file.
		if k := strings.Index(t, "::"); k > 0 {
			w.text = t[:k]
		}
		if p, ok := a.path(w, s.dir, FromText); ok {
			run.files = append(run.files, p)
		}
	}
	for _, p := range run.files {
		a.col.addFile(p, false, false, false)
	}
	if writes && len(run.files) > 0 {
		for _, p := range run.files {
			a.col.addFile(p, false, true, false)
		}
		s.rank, s.category, s.class = rankWrite, FileWrite, Edit
	}
	a.programs = append(a.programs, run)
}

// saveVerbs start an output line that reports a file a program wrote.
var saveVerbs = []string{"saved", "wrote", "written", "writing", "created", "generated", "exported", "fixed", "reformatted"}

// programWrites records the files a program's output says it wrote
// ("Saved filled offer letter to /root/out.docx", "FIXED q.sql",
// "reformatted a.py"). A failed call wrote nothing.
func (a *shellAnalyzer) programWrites(result string, failed bool) {
	if failed || len(a.programs) == 0 {
		return
	}
	wrote := false
	lines := 0
	for line := range strings.Lines(capResult(result)) {
		line = strings.TrimRight(line, "\r\n")
		if lines++; lines > 2000 {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" || len(t) > 300 {
			continue
		}
		if rest, ok := cutWordFold(t, "successfully"); ok {
			t = rest
		}
		if !slices.ContainsFunc(saveVerbs, func(v string) bool { _, ok := cutWordFold(t, v); return ok }) {
			continue
		}
		f := strings.Fields(t)
		last := strings.Trim(f[len(f)-1], "'\"`.,;()[]")
		if strings.HasSuffix(f[len(f)-1], ".") && !looksFile(last) {
			continue
		}
		if p, ok := a.path(shellWord{text: last}, a.dir, FromText); ok && !scratchPath(p) {
			a.col.addFile(p, false, true, true)
			wrote = true
		}
	}
	if wrote && a.bestRank < rankWrite {
		a.bestRank, a.category, a.class = rankWrite, FileWrite, Edit
		a.col.category, a.col.class = FileWrite, Edit
	}
}

// cutWordFold cuts word and the space after it from the start of s,
// ignoring case.
func cutWordFold(s, word string) (string, bool) {
	if len(s) > len(word) && s[len(word)] == ' ' && strings.EqualFold(s[:len(word)], word) {
		return s[len(word)+1:], true
	}
	return s, false
}
