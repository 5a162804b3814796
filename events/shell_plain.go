package events

import (
	"strings"
	"unicode/utf8"
)

// maxPlainShellBytes bounds the command lines plainShell reads (a
// here-document's body aside): longer ones go to the parser, whose bounds
// (maxShellCommands) then apply.
const maxPlainShellBytes = 4096

// plainShell reads the commonest command lines without the parser: words
// of plain characters, single- and double-quoted strings without escapes
// or expansions, the operators |, &&, || and ; between commands, the
// redirections >, >> and < to a word, and one here-document with a quoted
// delimiter, whose body is text, as in `ls -la src/`,
// `cd app && npx tsc --noEmit`, `find . -name "*.ts" | grep -v test` or
// `cat > a.ts << 'EOF'` followed by the file. It gives what parseShell
// gives for such a script, and ok is false for anything else
// (substitutions, escapes, globs in brackets, comments, keywords,
// assignments, a newline outside a here-document, bytes outside printable
// ASCII, an operator without a command on either side, a file descriptor
// before a redirection, anything after a here-document), which
// parseShell then reads. Most command lines agents write are of this
// kind, and the parser builds a tree of several allocations per word for
// each of them, and copies a here-document's body.
func plainShell(src string) (pls []shellPipeline, ok bool) {
	if len(src) > maxShellBytes {
		return nil, false
	}
	line := src
	if i := strings.IndexByte(src, '\n'); i >= 0 {
		line = src[:i]
	}
	if len(line) > maxPlainShellBytes {
		return nil, false
	}
	var pl shellPipeline
	var cmd simpleCommand
	var hdoc *shellRedirect // the here-document whose body follows the line
	bodyRead := false
	// endCommand closes the command being read at an operator; a command
	// must have words on both sides of every operator.
	endCommand := func() bool {
		if len(cmd.words) == 0 || !plainCommandName(cmd.words[0].text) {
			return false
		}
		pl.cmds = append(pl.cmds, cmd)
		cmd = simpleCommand{}
		return true
	}
	first := true // the next word is a command's first
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case ' ', '\t':
			i++
			continue
		case '\n':
			if hdoc == nil {
				return nil, false
			}
			body, rest, ok := plainHeredocBody(src[i+1:], hdoc.target.text)
			if !ok || strings.TrimLeft(rest, " \t\n") != "" {
				return nil, false
			}
			hdoc.body, bodyRead = body, true
			i = len(src)
			continue
		case '>', '<':
			if i > 0 && src[i-1] != ' ' && src[i-1] != '\t' {
				// "2>x" names a file descriptor, "a>x" needs the parser's
				// word boundaries.
				return nil, false
			}
			r, n, ok := plainRedirect(src[i:])
			if !ok || r.op == "<<" && hdoc != nil {
				return nil, false
			}
			if r.op == "<<" {
				hdoc = r
			}
			cmd.redirs = append(cmd.redirs, r)
			i += n
			continue
		case '|', '&', ';':
			op := 1
			if i+1 < len(src) && src[i+1] == c && c != ';' {
				op = 2
			}
			if c == '&' && op == 1 || hdoc != nil {
				// A background job; a list after a here-document's
				// command, left to the parser.
				return nil, false
			}
			if !endCommand() {
				return nil, false
			}
			if c != '|' || op == 2 {
				pls = append(pls, pl)
				pl = shellPipeline{}
			}
			i += op
			first = true
			if c == ';' && strings.TrimLeft(src[i:], " \t") == "" {
				// A trailing ";" ends the last command.
				return pls, true
			}
			continue
		}
		w, n, ok := plainWord(src[i:])
		if !ok || first && (strings.IndexByte(src[i:i+n], '=') >= 0 || shellReserved(src[i:i+n])) {
			// An assignment or a keyword makes another kind of command.
			return nil, false
		}
		cmd.words = append(cmd.words, w)
		i += n
		first = false
	}
	if hdoc != nil && !bodyRead {
		return nil, false // a here-document without its body
	}
	if len(cmd.words) == 0 {
		// Nothing at all, or an operator at the end.
		return nil, len(pls) == 0 && len(pl.cmds) == 0 && len(cmd.redirs) == 0
	}
	if !endCommand() {
		return nil, false
	}
	return append(pls, pl), true
}

// plainRedirect reads the redirection src starts with: >, >> or < and a
// word, or << and a quoted delimiter ('EOF' or "EOF", of letters, digits
// and underscores), and returns the length of its source.
func plainRedirect(src string) (r *shellRedirect, n int, ok bool) {
	op := src[:1]
	if len(src) > 1 && src[1] == src[0] {
		op = src[:2]
	}
	n = len(op)
	if n < len(src) && strings.IndexByte("<>&|(-", src[n]) >= 0 {
		// <<<, <<-, >&, >|, <>, <(, >( and the like.
		return nil, 0, false
	}
	for n < len(src) && (src[n] == ' ' || src[n] == '\t') {
		n++
	}
	if n == len(src) {
		return nil, 0, false
	}
	r = &shellRedirect{fd: -1, op: op}
	if op == "<<" {
		q := src[n]
		end := strings.IndexByte(src[n+1:], q)
		if q != '\'' && q != '"' || end <= 0 {
			return nil, 0, false
		}
		delim := src[n+1 : n+1+end]
		for i := 0; i < len(delim); i++ {
			if !isWordByte(delim[i]) {
				return nil, 0, false
			}
		}
		n += end + 2
		if n < len(src) && src[n] != ' ' && src[n] != '\t' && src[n] != '\n' {
			return nil, 0, false
		}
		r.target.text = delim
		return r, n, true
	}
	w, wn, ok := plainWord(src[n:])
	if !ok {
		return nil, 0, false
	}
	r.target = w
	return r, n + wn, true
}

// plainHeredocBody cuts a here-document's body, the lines before the
// first that is delim alone, from src, which starts at the body's first
// line; rest is what follows the delimiter's line. ok is false when no
// line closes the body, or a byte in it is one the parser may read
// otherwise (a control character other than a tab, a carriage return).
func plainHeredocBody(src, delim string) (body, rest string, ok bool) {
	for i := 0; i < len(src); {
		end := strings.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += i
		}
		if src[i:end] == delim {
			body, rest = src[:i], ""
			if end < len(src) {
				rest = src[end+1:]
			}
			return body, rest, plainText(body)
		}
		i = end + 1
	}
	return "", "", false
}

// plainText reports whether s holds no control character but tabs and
// newlines, and is valid UTF-8.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// plainCommandName reports whether name, a command's first word, is run
// as a plain command and not read by the parser as a declaration or a
// test.
func plainCommandName(name string) bool {
	switch name {
	case "declare", "local", "export", "readonly", "typeset", "nameref", "let":
		return false
	}
	return true
}

// shellReserved reports whether a word is one of bash's reserved words,
// which begin or end compound commands in command position.
func shellReserved(w string) bool {
	switch w {
	case "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until",
		"for", "in", "select", "function", "time", "coproc":
		return true
	}
	return false
}

// plainWord reads the word src starts with, and returns it with the
// length of its source. ok is false when the word holds anything
// plainShell leaves to the parser.
func plainWord(src string) (w shellWord, n int, ok bool) {
	// A word of one part is that part of the source; only a word of
	// several parts is copied together.
	var text string
	var b strings.Builder
	parts := 0
	add := func(part string) {
		switch parts {
		case 0:
			text = part
		case 1:
			b.WriteString(text)
			fallthrough
		default:
			b.WriteString(part)
			text = ""
		}
		parts++
	}
	for n < len(src) {
		c := src[n]
		switch {
		case c == ' ' || c == '\t' || c == '|' || c == '&' || c == ';' || c == '<' || c == '>' || c == '\n':
			return plainWordEnd(w, text, &b, parts), n, parts > 0
		case c == '\'' || c == '"':
			end := strings.IndexByte(src[n+1:], c)
			if end < 0 {
				return w, n, false
			}
			body := src[n+1 : n+1+end]
			for i := 0; i < len(body); i++ {
				if b := body[i]; b < ' ' || b > '~' || c == '"' && (b == '\\' || b == '$' || b == '`') {
					return w, n, false
				}
			}
			add(body)
			n += end + 2
		case plainByte[c]:
			start := n
			for n < len(src) && plainByte[src[n]] {
				n++
			}
			if strings.ContainsAny(src[start:n], "*?") {
				w.glob = true
			}
			add(src[start:n])
		default:
			return w, n, false
		}
	}
	return plainWordEnd(w, text, &b, parts), n, parts > 0
}

func plainWordEnd(w shellWord, text string, b *strings.Builder, parts int) shellWord {
	w.text = text
	if parts > 1 {
		w.text = b.String()
	}
	return w
}

// plainByte marks the bytes an unquoted word may hold in a plain command
// line: none of them is special to the shell where plainShell allows it
// (a glob's * and ? mark the word; brackets, braces, ~, # and ! are left
// to the parser, which gives them meaning in some places).
var plainByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "_./,:+@%=-*?" {
		t[c] = true
	}
	return t
}()
