package events

import (
	"slices"
	"strings"
)

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
		s.rank, s.category, s.class = rankWrite, FileWrite, Edit
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
		s.rank, s.category, s.class = rankWrite, FileWrite, Edit
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
