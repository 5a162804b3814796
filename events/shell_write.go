package events

import (
	"strings"
)

func setWrite(s *stage) {
	s.rank, s.category, s.class = rankWrite, FileWrite, Edit
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
		s.rank, s.category, s.class = rankWrite, FileWrite, Edit
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
