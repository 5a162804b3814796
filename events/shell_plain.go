package events

import "strings"

// maxPlainShellBytes bounds the scripts plainShell reads: longer ones go to
// the parser, whose bounds (maxShellCommands) then apply.
const maxPlainShellBytes = 4096

// plainShell reads the commonest command lines without the parser: words
// of plain characters, single- and double-quoted strings without escapes
// or expansions, and the operators |, &&, || and ; between commands, as in
// `ls -la src/`, `cd app && npx tsc --noEmit` or
// `find . -name "*.ts" | grep -v test`. It gives what parseShell gives
// for such a line, and ok is false for anything else (redirections,
// substitutions, escapes, globs in brackets, comments, keywords,
// assignments, newlines, bytes outside printable ASCII, an operator
// without a command on either side), which parseShell then reads. Most
// command lines agents write are of this kind, and the parser builds a
// tree of several allocations per word for each of them.
func plainShell(src string) (pls []shellPipeline, ok bool) {
	if len(src) > maxPlainShellBytes {
		return nil, false
	}
	var pl shellPipeline
	var cmd simpleCommand
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
		case '|', '&', ';':
			op := 1
			if i+1 < len(src) && src[i+1] == c && c != ';' {
				op = 2
			}
			if c == '&' && op == 1 {
				return nil, false // a background job
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
	if len(cmd.words) == 0 {
		// Nothing at all, or an operator at the end.
		return nil, len(pls) == 0 && len(pl.cmds) == 0
	}
	if !endCommand() {
		return nil, false
	}
	return append(pls, pl), true
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
		case c == ' ' || c == '\t' || c == '|' || c == '&' || c == ';':
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
