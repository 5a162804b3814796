package yamllimit

import "bytes"

// prescanDepth estimates the nesting depth of a YAML document from its
// bytes, without building tokens, and returns the 1-based line and column
// where the estimate first exceeds maxDepth (ok false), or ok true.
//
// goccy/go-yaml's scanner keeps every token of a line, and of a whole flow
// collection, before returning any: a single line of a million brackets
// takes hundreds of megabytes before the token check in tokenize sees
// the first one. This scan refuses such documents first, in constant
// memory per level. It counts:
//
//   - flow collections: "[" and "{" where a node may start (at the start of
//     a line, after ": ", "- ", "? ", ",", "[" or "{", or after an anchor or
//     a tag there), and inside a flow collection every "[", "{", "]" and
//     "}" outside quotes, since plain scalars cannot hold them there;
//   - block collections: the indentation of each line and each "- " or
//     "? " that opens a nested entry on the same line.
//
// Quoted scalars and comments are skipped. Lines of a block scalar are
// taken as lines of the document, which can only raise the estimate; the
// limit is generous for that reason. tokenize counts again, exactly, on the
// tokens.
func prescanDepth(data []byte, maxDepth int) (line, col int, ok bool) {
	var block []int // indentation columns of the open block levels
	flow := 0
	line = 1
	lineStart := 0
	i := 0
	bol := true       // i is at the beginning of a line
	nodeStart := true // a node may start at i
	push := func(c int) bool {
		for len(block) > 0 && block[len(block)-1] > c {
			block = block[:len(block)-1]
		}
		if len(block) == 0 || block[len(block)-1] < c {
			block = append(block, c)
		}
		return flow+len(block) <= maxDepth
	}
	for i < len(data) {
		if bol {
			bol = false
			for i < len(data) && data[i] == ' ' {
				i++
			}
			nodeStart = true
			// A line that starts a flow collection is counted by its
			// brackets only.
			if flow == 0 && i < len(data) && !isBreak(data[i]) && data[i] != '#' && data[i] != '[' && data[i] != '{' {
				if !push(i - lineStart) {
					return line, i - lineStart + 1, false
				}
				// "- - - x" and "? - x" open a level per indicator.
				for i+1 < len(data) && (data[i] == '-' || data[i] == '?') && isBlank(data[i+1]) {
					i++
					for i < len(data) && isBlank(data[i]) {
						i++
					}
					if i < len(data) && !isBreak(data[i]) && data[i] != '#' && !push(i-lineStart) {
						return line, i - lineStart + 1, false
					}
				}
			}
			continue
		}
		c := data[i]
		switch {
		case c == '\n':
			i++
			line++
			lineStart = i
			bol = true
			continue
		case c == '\r' || isBlank(c):
			i++
			continue
		case c == '#' && (i == lineStart || isBlank(data[i-1])):
			for i < len(data) && data[i] != '\n' {
				i++
			}
			continue
		case (c == '"' || c == '\'') && nodeStart:
			i, line, lineStart = skipQuoted(data, i, line, lineStart)
			nodeStart = false
			continue
		case (c == '&' || c == '!') && nodeStart:
			// An anchor or a tag: the node starts after it.
			for i < len(data) && !isBlank(data[i]) && !isBreak(data[i]) && (flow == 0 || !isFlowIndicator(data[i])) {
				i++
			}
			continue
		case (c == '[' || c == '{') && (nodeStart || flow > 0):
			flow++
			if flow+len(block) > maxDepth {
				return line, i - lineStart + 1, false
			}
			i++
			nodeStart = true
			continue
		case (c == ']' || c == '}') && flow > 0:
			flow--
		case c == ',' && flow > 0:
			i++
			nodeStart = true
			continue
		case (c == ':' || c == '-' || c == '?') && (i+1 >= len(data) || isBlank(data[i+1]) || isBreak(data[i+1]) || flow > 0 && c == ':'):
			i++
			nodeStart = true
			continue
		}
		i++
		nodeStart = false
	}
	return 0, 0, true
}

// skipQuoted returns the position after the quoted scalar starting at i,
// with the line and line start it ends on.
func skipQuoted(data []byte, i, line, lineStart int) (int, int, int) {
	q := data[i]
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '\n':
			line++
			lineStart = i + 1
		case c == '\\' && q == '"':
			i++
			if i < len(data) && data[i] == '\n' {
				line++
				lineStart = i + 1
			}
		case c == q:
			if q == '\'' && i+1 < len(data) && data[i+1] == '\'' {
				i++ // '' is a quote inside single quotes
				continue
			}
			return i + 1, line, lineStart
		}
	}
	return i, line, lineStart
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isBreak(c byte) bool { return c == '\n' || c == '\r' }

func isFlowIndicator(c byte) bool {
	return c == '[' || c == ']' || c == '{' || c == '}' || c == ','
}

// prescanTokens bounds from above the number of tokens goccy/go-yaml's
// scanner makes of data, without making them, and returns the 1-based line
// and column where the bound first exceeds maxTokens (ok false), or ok
// true.
//
// The scanner holds every token of a line, and of a whole flow collection,
// before returning any, and the parser needs all the tokens of the
// document at once, at a few hundred bytes each: a 10 MB flow list of five
// million items took gigabytes before tokenize could count them. The
// bound counts each run of word characters (letters, digits, "_", "-",
// ".", "/" and UTF-8) as one token and every other character outside
// blanks and line breaks as one, since the scanner never starts a token
// inside such a run; a block scalar's indicator ("|" or ">") counts twice,
// as the scanner makes a token of the text even when it is empty, and so
// does a word starting with a document marker ("---", "..."). A tab among the
// blanks that start a line counts one, as the scanner makes an invalid
// token of it. Quoted
// scalars and comments are counted like the rest, so the bound may be a few
// times the scanner's count for prose; the limit is generous for that
// reason, and tokenize counts again, exactly, on the tokens.
func prescanTokens(data []byte, maxTokens int) (line, col int, ok bool) {
	tokens := 0
	line = 1
	lineStart := 0
	inWord := false
	indent := true // only blanks since the start of the line
	for i, c := range data {
		if !isBlank(c) && !isBreak(c) {
			indent = false
		}
		switch {
		case c == '\n':
			line++
			lineStart = i + 1
			inWord, indent = false, true
			continue
		case c == '\t' && indent:
			// The scanner makes an invalid token of a tab that indents.
			inWord = false
		case c == '\r':
			inWord, indent = false, true
			continue
		case isBlank(c):
			inWord = false
			continue
		case isWordChar(c):
			if inWord {
				continue
			}
			inWord = true
			// A document marker at the start of a line ends a token.
			if (i == 0 || isBreak(data[i-1])) && (bytes.HasPrefix(data[i:], []byte("---")) || bytes.HasPrefix(data[i:], []byte("..."))) {
				tokens++
			}
		default:
			inWord = false
			if c == '|' || c == '>' {
				tokens++
			}
		}
		if tokens++; tokens > maxTokens {
			return line, i - lineStart + 1, false
		}
	}
	return 0, 0, true
}

// isWordChar reports whether c is a character inside which the scanner
// never starts a token.
func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '/' || c >= 0x80
}
