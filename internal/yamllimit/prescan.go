package yamllimit

// prescan estimates the nesting depth and the number of tokens of a YAML
// document from its bytes, without building tokens, and returns the
// 1-based line and column where an estimate first exceeds its limit, with
// the limit exceeded, or none.
//
// goccy/go-yaml's scanner keeps every token of a line, and of a whole flow
// collection, before returning any, and the parser then needs all the
// tokens of the document at once, at a few hundred bytes each: a line of a
// million brackets, or a flow list of five million one-character items,
// takes gigabytes before the checks in tokenize see the first token. This
// scan refuses such documents first, in constant memory per level.
//
// Depth counts:
//
//   - flow collections: "[" and "{" where a node may start (at the start of
//     a line, after ": ", "- ", "? ", ",", "[" or "{", or after an anchor or
//     a tag there), and inside a flow collection every "[", "{", "]" and
//     "}" outside quotes, since plain scalars cannot hold them there;
//   - block collections: the indentation of each line and each "- " or
//     "? " that opens a nested entry on the same line.
//
// Tokens counted are the scalars, anchors, tags and brackets where a node
// may start, the indicators ("- ", "? ", ": "), the commas, colons and
// brackets inside flow collections, and comments.
//
// Quoted scalars and comments are skipped. Lines of a block scalar are
// taken as lines of the document, and words of a plain scalar that look
// like indicators as indicators, which can only raise the estimates; the
// limits are generous for that reason. tokenize counts again, exactly, on
// the tokens.
func prescan(data []byte, maxDepth, maxTokens int) (line, col int, p problem) {
	var block []int // indentation columns of the open block levels
	flow := 0
	tokens := 0
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
	// token counts a token starting at i and reports whether the count is
	// within maxTokens.
	token := func() bool {
		tokens++
		return tokens <= maxTokens
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
					return line, i - lineStart + 1, tooDeep
				}
				// "- - - x" and "? - x" open a level per indicator.
				for i+1 < len(data) && (data[i] == '-' || data[i] == '?') && isBlank(data[i+1]) {
					if !token() {
						return line, i - lineStart + 1, tooManyTokens
					}
					i++
					for i < len(data) && isBlank(data[i]) {
						i++
					}
					if i < len(data) && !isBreak(data[i]) && data[i] != '#' && !push(i-lineStart) {
						return line, i - lineStart + 1, tooDeep
					}
				}
			}
			continue
		}
		c := data[i]
		// Every token the scanner makes starts at a character this
		// counts: a comment, an indicator, a bracket, a comma in a flow
		// collection, or the first character of a scalar, an anchor or a
		// tag.
		if !isBlank(c) && !isBreak(c) && (nodeStart || flow > 0 && (isFlowIndicator(c) || c == ':') ||
			c == '#' && (i == lineStart || isBlank(data[i-1])) || isIndicator(data, i)) && !token() {
			return line, i - lineStart + 1, tooManyTokens
		}
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
				return line, i - lineStart + 1, tooDeep
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
		case isIndicator(data, i) || flow > 0 && c == ':':
			i++
			nodeStart = true
			continue
		}
		i++
		nodeStart = false
	}
	return 0, 0, none
}

// A problem is the limit a document exceeds.
type problem int

const (
	none problem = iota
	tooDeep
	tooManyTokens
)

// isIndicator reports whether data[i] is a block indicator: ":", "-" or "?"
// followed by a blank, a line break or the end.
func isIndicator(data []byte, i int) bool {
	c := data[i]
	return (c == ':' || c == '-' || c == '?') && (i+1 >= len(data) || isBlank(data[i+1]) || isBreak(data[i+1]))
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
