package events

import (
	"strings"
)

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
