package events

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentretrieval/agentretrieval/internal/lazyre"
)

// Shell parsing bounds. Scripts are parsed with mvdan.cc/sh/v3/syntax, the
// bash parser of shfmt; these caps bound its work and ours on generated
// input:
//
//   - maxShellBytes: a script is read up to 1 MiB.
//   - maxShellOpeners: the parser recurses once per level of nesting, with
//     no limit of its own (up to 4.5 KB of stack per level), so a script is
//     handed to it in pieces of at most this many openers (brackets, !, ?
//     and compound keywords), cut at line ends. Counting every opener,
//     quoted or not, bounds the depth of that recursion whatever the
//     quoting: ~75 MB of stack at worst. Nesting the count leaves out
//     (unary operators, assignments and && inside arithmetic and [[ ]])
//     costs under 150 bytes of stack per byte of script. Real command
//     lines, here-documents of a few thousand lines of source included,
//     stay below the cap and are parsed whole.
//   - maxShellParses: a script the parser rejects is parsed again, closed
//     (an unterminated quote, substitution or here-document) or cut at the
//     error; at most this many attempts are made per script.
//   - maxShellDepth: command substitutions (and bash -c scripts, see
//     shellAnalyzer.script) nest at most this deep.
//   - maxShellCommands: at most this many simple commands are kept per
//     call (real command lines have a handful; generated ones can have
//     hundreds of thousands).
const (
	maxShellBytes    = 1 << 20
	maxShellOpeners  = 16384
	maxShellParses   = 16
	maxShellDepth    = 8
	maxShellCommands = 10000
)

// A shellWord is one word of a command line after quote removal.
type shellWord struct {
	text string
	// glob is set when the word has an unquoted *, ? or [ that the shell
	// would expand: it names a pattern, not one file.
	glob bool
	// dynamic is set when part of the word comes from a variable or a
	// command substitution, so its value is unknown. Its text holds the
	// literal parts only.
	dynamic bool
}

// A shellRedirect is one redirection of a simple command.
type shellRedirect struct {
	fd     int    // the file descriptor written before the operator, -1 when none
	op     string // ">", ">>", ">|", "&>", "&>>", "<", "<<", "<<-", "<<<", ">&", "<&", "<>"
	target shellWord
	// body is a here-document's text (as written, not expanded) or a
	// here-string's word.
	body string
}

// A simpleCommand is a list of words and redirections.
type simpleCommand struct {
	words  []shellWord
	redirs []*shellRedirect
}

// A shellPipeline is commands joined by "|".
type shellPipeline struct {
	cmds []simpleCommand
}

// parseShell parses a script into the pipelines it runs, in order. The
// commands of a command substitution (or process substitution) are listed
// before the pipeline that contains them, since they run first. Lists
// (&&, ||, ;, &, newlines) give one pipeline per element; compound
// commands (subshells, groups, if, while, for, case, function bodies)
// give the pipelines inside them, and the output redirections of the
// compound command as a command of its own. Here-document bodies are kept
// as text, not parsed.
//
// Agents write broken shell; a script the parser rejects is read as far
// as it goes: an unterminated quote, substitution or here-document is
// closed at the end of the script, missing keywords (fi, done) are
// supplied by the parser, and other errors cut the script at the
// offending token, whose two sides are parsed on their own.
func parseShell(src string) []shellPipeline {
	if pls, ok := plainShell(src); ok {
		return pls
	}
	return parseShellTree(src)
}

// parseShellTree is parseShell by the parser alone.
func parseShellTree(src string) []shellPipeline {
	if len(src) > maxShellBytes {
		src = src[:maxShellBytes]
	}
	budget := maxShellCommands
	c := &shellConv{budget: &budget, parses: maxShellParses}
	for _, piece := range openerPieces(src) {
		c.script(piece)
	}
	return c.out
}

// openerPieces cuts src at line ends into pieces of at most
// maxShellOpeners openers. Counting every opener, quoted or not,
// overestimates the nesting, never underestimates it. A single line over
// the limit is dropped.
func openerPieces(src string) []string {
	if len(src) <= maxShellOpeners {
		return []string{src} // each opener takes a byte at least
	}
	var pieces []string
	start, count := 0, 0
	lineStart, lineCount := 0, 0
	for i := 0; i <= len(src); i++ {
		if i == len(src) || src[i] == '\n' {
			if lineCount > maxShellOpeners {
				if lineStart > start {
					pieces = append(pieces, src[start:lineStart])
				}
				start, count = i, 0
			} else if count+lineCount > maxShellOpeners {
				pieces = append(pieces, src[start:lineStart])
				start, count = lineStart, lineCount
			} else {
				count += lineCount
			}
			lineStart, lineCount = i, 0
			continue
		}
		switch src[i] {
		case '(', '{', '[', '`', '!', '?':
			// Brackets, and the negations and conditionals the parser
			// nests inside [[ ]] and arithmetic.
			lineCount++
		case 'i', 'w', 'u', 'f', 'c', 's', 'e', 't':
			// if, while, until, for, function, case, coproc, select,
			// elif and time open commands the parser nests.
			if i == 0 || !isWordByte(src[i-1]) {
				for _, kw := range shellCompoundKeywords {
					if strings.HasPrefix(src[i:], kw) && (i+len(kw) == len(src) || !isWordByte(src[i+len(kw)])) {
						lineCount++
						break
					}
				}
			}
		}
	}
	if start < len(src) {
		pieces = append(pieces, src[start:])
	}
	return pieces
}

var shellCompoundKeywords = []string{"if", "while", "until", "for", "function", "case", "coproc", "select", "elif", "time"}

func isWordByte(c byte) bool {
	return c == '_' || isAlpha(c) || isDigit(c)
}

// shellConv turns syntax trees into pipelines.
type shellConv struct {
	src    string // the text the positions of the tree being read refer to
	depth  int    // command substitutions entered
	budget *int   // simple commands still allowed
	parses int    // parse attempts still allowed
	out    []shellPipeline
}

// shellParsers keeps parsers for reuse: each holds 2 KiB of buffers, more
// than most command lines it parses.
var shellParsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// script parses src and converts its statements, recovering from syntax
// errors as parseShell describes.
func (c *shellConv) script(src string) {
	if c.parses <= 0 || *c.budget <= 0 || strings.TrimSpace(src) == "" {
		return
	}
	c.parses--
	p := shellParsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	shellParsers.Put(p)
	if err == nil {
		c.file(src, f)
		return
	}
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return
	}
	if closer, ok := shellCloser(pe.Text); ok {
		c.script(src + closer)
		return
	}
	if pe.Incomplete && c.parses > 0 {
		// A list that ends early ("if x; then cat a", "cat a |"): the
		// parser supplies the missing tokens.
		c.parses--
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false), syntax.RecoverErrors(maxShellParses)).Parse(strings.NewReader(src), "")
		if err == nil {
			c.file(src, f)
			return
		}
	}
	off := min(int(pe.Pos.Offset()), len(src))
	c.script(src[:off])
	if off < len(src) {
		c.script(src[off+tokenLen(src[off:]):])
	}
}

// tokenLen returns the length of the token src starts with: one operator
// byte, or a word up to the next blank or operator.
func tokenLen(src string) int {
	const stops = " \t\n;&|()<>"
	if strings.IndexByte(stops[3:], src[0]) >= 0 {
		return 1
	}
	n := strings.IndexAny(src, stops)
	if n <= 0 {
		return len(src)
	}
	return n
}

// shellEOFError matches the parser's messages for a construct still open
// at the end of the script, capturing what closes it.
var shellEOFError = lazyre.New("^(?:reached EOF without (?:closing quote|matching .+ with) |unclosed here-document )(`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\")$")

// shellCloser returns the text that closes what a parse error says is
// still open at the end of the script.
func shellCloser(msg string) (string, bool) {
	m := shellEOFError().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	tok := m[1]
	if tok[0] == '`' {
		tok = tok[1 : len(tok)-1]
	} else if s, err := strconv.Unquote(tok); err == nil {
		tok = s
	} else {
		return "", false
	}
	if strings.HasPrefix(msg, "unclosed here-document") {
		return "\n" + tok + "\n", true
	}
	return tok, tok != ""
}

func (c *shellConv) file(src string, f *syntax.File) {
	prev := c.src
	c.src = src
	c.stmts(f.Stmts)
	c.src = prev
}

func (c *shellConv) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

// stmt converts one statement into the pipelines it runs.
func (c *shellConv) stmt(s *syntax.Stmt) {
	var pl shellPipeline
	c.pipeElem(s, &pl)
	c.flush(&pl)
}

func (c *shellConv) flush(pl *shellPipeline) {
	if len(pl.cmds) > 0 {
		c.out = append(c.out, *pl)
	}
	*pl = shellPipeline{}
}

// pipeElem adds statement s to the pipeline being built.
func (c *shellConv) pipeElem(s *syntax.Stmt, pl *shellPipeline) {
	if s == nil || *c.budget <= 0 {
		return
	}
	switch cmd := s.Cmd.(type) {
	case nil:
		// A bare redirection ("> out.log"), or a statement the parser
		// supplied when recovering.
		c.add(pl, simpleCommand{}, s.Redirs)
		return
	case *syntax.CallExpr:
		sc := simpleCommand{words: make([]shellWord, 0, len(cmd.Assigns)+len(cmd.Args))}
		for _, a := range cmd.Assigns {
			sc.words = append(sc.words, c.assign(a))
		}
		for _, w := range cmd.Args {
			sc.words = append(sc.words, c.word(w))
		}
		c.add(pl, sc, s.Redirs)
		return
	case *syntax.DeclClause:
		sc := simpleCommand{words: []shellWord{{text: cmd.Variant.Value}}}
		for _, a := range cmd.Args {
			sc.words = append(sc.words, c.assign(a))
		}
		c.add(pl, sc, s.Redirs)
		return
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			c.pipeElem(cmd.X, pl)
			c.pipeElem(cmd.Y, pl)
			return
		}
		c.flush(pl)
		c.stmt(cmd.X)
		c.stmt(cmd.Y)
		return
	case *syntax.TimeClause:
		c.pipeElem(cmd.Stmt, pl)
		return
	}
	// A compound command ends the pipeline being built; its statements
	// are pipelines of their own.
	c.flush(pl)
	switch cmd := s.Cmd.(type) {
	case *syntax.Subshell:
		c.stmts(cmd.Stmts)
	case *syntax.Block:
		c.stmts(cmd.Stmts)
	case *syntax.IfClause:
		for ic := cmd; ic != nil; ic = ic.Else {
			c.stmts(ic.Cond)
			c.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		c.stmts(cmd.Cond)
		c.stmts(cmd.Do)
	case *syntax.ForClause:
		c.substitutions(cmd.Loop)
		c.stmts(cmd.Do)
	case *syntax.CaseClause:
		c.word(cmd.Word)
		for _, item := range cmd.Items {
			c.stmts(item.Stmts)
		}
	case *syntax.FuncDecl:
		c.stmt(cmd.Body)
	case *syntax.CoprocClause:
		c.stmt(cmd.Stmt)
	case *syntax.TestDecl:
		c.stmt(cmd.Body)
	default:
		// [[ ]], (( )), let: no command of their own, but substitutions
		// inside them run.
		c.substitutions(cmd)
	}
	// Output redirections of the compound command write their files.
	var redirs []*syntax.Redirect
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
			redirs = append(redirs, r)
		}
	}
	if len(redirs) > 0 {
		var own shellPipeline
		c.add(&own, simpleCommand{}, redirs)
		c.flush(&own)
	}
}

// add appends a simple command with its redirections to the pipeline.
func (c *shellConv) add(pl *shellPipeline, sc simpleCommand, redirs []*syntax.Redirect) {
	for _, r := range redirs {
		sc.redirs = append(sc.redirs, c.redirect(r))
	}
	if (len(sc.words) == 0 && len(sc.redirs) == 0) || *c.budget <= 0 {
		return
	}
	*c.budget--
	pl.cmds = append(pl.cmds, sc)
}

func (c *shellConv) redirect(r *syntax.Redirect) *shellRedirect {
	out := &shellRedirect{fd: -1, op: r.Op.String()}
	if r.N != nil && len(r.N.Value) <= 4 && allDigits(r.N.Value) {
		out.fd, _ = strconv.Atoi(r.N.Value)
	}
	if r.Word != nil {
		out.target = c.word(r.Word)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		out.body = c.hdocBody(r.Hdoc)
	case syntax.WordHdoc:
		out.body = out.target.text
	}
	return out
}

// hdocBody returns a here-document's body as written: the source from
// its first line up to, not including, the closing delimiter's line.
func (c *shellConv) hdocBody(w *syntax.Word) string {
	if w == nil || !w.Pos().IsValid() || !w.End().IsValid() {
		return ""
	}
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start > end || end > len(c.src) {
		return ""
	}
	text := c.src[start:end]
	i := strings.LastIndexByte(text, '\n')
	if i < 0 {
		return ""
	}
	return text[:i+1]
}

func (c *shellConv) assign(a *syntax.Assign) shellWord {
	var w shellWord
	if a.Value != nil {
		w = c.word(a.Value)
	}
	if a.Array != nil {
		c.substitutions(a.Array)
		w.dynamic = true
	}
	if a.Index != nil {
		c.substitutions(a.Index)
	}
	if a.Name != nil && !a.Naked {
		op := "="
		if a.Append {
			op = "+="
		}
		w.text = a.Name.Value + op + w.text
	} else if a.Name != nil {
		w.text = a.Name.Value
	}
	return w
}

// word interprets a word: quotes removed, escapes resolved, and the parts
// whose value is known only when the command runs (parameters, command
// substitutions, arithmetic) marked dynamic. Substitutions' commands are
// converted before the word's command.
func (c *shellConv) word(w *syntax.Word) shellWord {
	var out shellWord
	if w == nil {
		return out
	}
	if len(w.Parts) == 1 {
		// Most words are one literal or one quoted string without an
		// escape: their text is the parser's own string.
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') < 0 {
				out.text, out.glob = p.Value, strings.ContainsAny(p.Value, "*?[")
				return out
			}
		case *syntax.SglQuoted:
			out.text = p.Value
			return out
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				if l, ok := p.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
					out.text = l.Value
					return out
				}
			}
		}
	}
	return c.wordParts(w)
}

// wordParts is word for any word, built part by part.
func (c *shellConv) wordParts(w *syntax.Word) shellWord {
	var out shellWord
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			glob := unescapeLit(&b, p.Value, false)
			out.glob = out.glob || glob
		case *syntax.SglQuoted:
			// $'...' keeps its escapes as written.
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					unescapeLit(&b, l.Value, true)
					continue
				}
				out.dynamic = true
				c.dynamicPart(q)
			}
		case *syntax.ExtGlob:
			out.glob = true
			b.WriteString(p.Op.String())
			if p.Pattern != nil {
				b.WriteString(p.Pattern.Value)
			}
			b.WriteByte(')')
		default:
			out.dynamic = true
			c.dynamicPart(part)
		}
	}
	out.text = b.String()
	return out
}

// dynamicPart converts the commands a parameter expansion, command or
// process substitution or arithmetic expansion runs.
func (c *shellConv) dynamicPart(part syntax.WordPart) {
	switch p := part.(type) {
	case *syntax.CmdSubst:
		c.subst(p.Stmts)
	case *syntax.ProcSubst:
		c.subst(p.Stmts)
	default:
		c.substitutions(part)
	}
}

// substitutions converts the command and process substitutions anywhere
// inside node.
func (c *shellConv) substitutions(node syntax.Node) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			c.subst(n.Stmts)
			return false
		case *syntax.ProcSubst:
			c.subst(n.Stmts)
			return false
		}
		return *c.budget > 0
	})
}

func (c *shellConv) subst(stmts []*syntax.Stmt) {
	if c.depth >= maxShellDepth {
		return
	}
	c.depth++
	c.stmts(stmts)
	c.depth--
}

// unescapeLit writes a literal with its backslash escapes resolved, and
// reports whether it has an unescaped glob character. Inside double
// quotes only \$, \`, \", \\ and a backslash-newline are escapes, and
// nothing is a glob.
func unescapeLit(b *strings.Builder, s string, quoted bool) (glob bool) {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			next := s[i+1]
			switch {
			case next == '\n':
			case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
				b.WriteByte(next)
			default:
				b.WriteByte(ch)
				b.WriteByte(next)
			}
			i++
		case !quoted && (ch == '*' || ch == '?' || ch == '['):
			glob = true
			b.WriteByte(ch)
		default:
			b.WriteByte(ch)
		}
	}
	return glob
}
