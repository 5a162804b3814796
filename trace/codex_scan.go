package trace

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// codexScan is the lineScan of both Codex readers, with the reading of
// Codex's token usage.
type codexScan struct{ lineScan }

// codexRecords is a reader of Codex lines: parse reads a line with the
// scanner, leaving any problem in its error; apply adds a parsed line to
// the session.
type codexRecords interface {
	parse(line []byte)
	apply(n int)
}

// codexLines reads the lines of a Codex trace into rec, and warns about
// each line rec could not parse. A last line cut mid-record is reported as
// such: the agent was stopped while writing it. It returns the number of
// lines that were JSON objects.
func codexLines(r io.Reader, sess *Session, name string, s *codexScan, rec codexRecords, maxResult int) (objects int, err error) {
	lr := newLineReader(r)
	lr.skip = func(n int, msg string) { sess.Warnf(n, "%s", msg) }
	lr.cutLongLines(maxResult, lr.skip)
	cutLine, cutWarning := 0, 0
	last := 0
	for {
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("%s:%d: reading %s trace: %w", sess.Source, n+1, name, err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if len(bytes.TrimLeft(line, " \t\r")) == 0 {
			continue
		}
		last = n
		rec.parse(line)
		if err := s.sc.Err(); err != nil {
			msg, object, cut := s.lineProblem(line, err)
			if object {
				objects++
			}
			if cut {
				cutLine, cutWarning = n, len(sess.Warnings)
			}
			sess.Warnf(n, "%s", msg)
			continue
		}
		objects++
		rec.apply(n)
	}
	if cutLine > 0 && cutLine == last && cutWarning < len(sess.Warnings) {
		sess.Warnings[cutWarning].Message = "the last line ends mid-record (the trace was cut while being written); line skipped"
	}
	return objects, nil
}

// codexObjectArgs returns the raw arguments of a call: the object a JSON
// string holds when it holds one (how Codex records function_call
// arguments), the raw value when it is an object, and otherwise the value as
// a JSON string (a freeform or broken argument text stays visible).
func codexObjectArgs(raw []byte) []byte {
	if len(raw) == 0 {
		return nil
	}
	var sc jsonscan.Scanner
	sc.Reset(raw)
	switch sc.Peek() {
	case jsonscan.Object:
		return bytes.Clone(raw)
	case jsonscan.String:
		s, _ := sc.AppendString(nil, -1)
		if isJSONObject(s) {
			return s
		}
		return bytes.Clone(raw)
	case jsonscan.Null:
		return nil
	}
	return bytes.Clone(raw)
}

// isJSONObject reports whether b is exactly one JSON object.
func isJSONObject(b []byte) bool {
	var sc jsonscan.Scanner
	sc.Reset(b)
	if sc.Peek() != jsonscan.Object {
		return false
	}
	sc.Skip()
	sc.End()
	return sc.Err() == nil
}

// cutUTF8 cuts s to at most max bytes (max < 0: no limit) without
// splitting a UTF-8 character.
func cutUTF8(s []byte, max int) []byte {
	if max < 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// codexTime parses a Codex timestamp (RFC 3339 with milliseconds).
func codexTime(ts string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, ts)
	return t, err == nil
}

// codexUsage is a Codex token usage object: input_tokens includes
// cached_input_tokens, output_tokens includes reasoning tokens.
type codexUsage struct {
	set                   bool
	input, cached, output int64
}

func (u codexUsage) usage() Usage {
	return Usage{InputTokens: u.input, OutputTokens: u.output, CacheReadTokens: u.cached}
}

// codexMaxTokens bounds a token count: far above any real session, and
// low enough that sums never overflow.
const codexMaxTokens = 1 << 50

// readUsage reads a usage object (total_token_usage, or exec's usage).
func (s *codexScan) readUsage(field string) codexUsage {
	if !s.object(field) {
		return codexUsage{}
	}
	u := codexUsage{set: true}
	for key, ok := s.sc.NextKey(); ok; key, ok = s.sc.NextKey() {
		switch string(key) {
		case "input_tokens":
			u.input = s.tokens(field + ".input_tokens")
		case "cached_input_tokens":
			u.cached = s.tokens(field + ".cached_input_tokens")
		case "output_tokens":
			u.output = s.tokens(field + ".output_tokens")
		default:
			s.sc.Skip()
		}
	}
	return u
}

// tokens reads a token count: an integer from 0 to codexMaxTokens.
func (s *codexScan) tokens(field string) int64 {
	v, ok := s.integer(field)
	if ok && (v < 0 || v > codexMaxTokens) {
		s.fail(field, "a token count", jsonscan.Number)
		return 0
	}
	return v
}

// codexShellResult unwraps the output text Codex gives the model for a
// shell command. The structured shell tools return the JSON text
// {"output": "...", "metadata": {"exit_code": N, ...}}; the freeform ones
// put a header of "Key: value" lines before an "Output:" line ("Exit code:
// N", "Wall time: ...", and for exec_command "Chunk ID: ...", "Process
// exited with code N", "Process running with session ID N", "Original token
// count: N", "Total output lines: N"). It returns the command output, cut
// to max bytes (max < 0: all of it), and the exit code when the text has
// one of these shapes; any other text is returned as it is, cut. A decoded
// output is appended to buf, which is returned grown for reuse.
func codexShellResult(text, buf []byte, max int) (out, grown []byte, exit int64, hasExit bool) {
	if len(text) > 0 && text[0] == '{' {
		if out, exit, hasExit, ok := codexStructuredOutput(text, buf[:0], max); ok {
			return out, out[:0], exit, hasExit
		}
		return cutUTF8(text, max), buf, 0, false
	}
	out, exit, hasExit = codexFreeformOutput(text)
	return cutUTF8(out, max), buf, exit, hasExit
}

// codexStructuredOutput reads {"output": string, "metadata": {"exit_code":
// N}}, appending the output (at most max bytes) to dst; ok is false for any
// other text.
func codexStructuredOutput(text, dst []byte, max int) (out []byte, exit int64, hasExit, ok bool) {
	var sc jsonscan.Scanner
	sc.Reset(text)
	if !sc.Object() {
		return nil, 0, false, false
	}
	sawOutput := false
	out = dst
	for key, more := sc.NextKey(); more; key, more = sc.NextKey() {
		switch string(key) {
		case "output":
			if sawOutput {
				sc.Skip()
				break
			}
			out, _ = sc.AppendString(dst, max)
			sawOutput = sc.Err() == nil
		case "metadata":
			if sc.Peek() != jsonscan.Object {
				sc.Skip()
				break
			}
			sc.Object()
			for k, more := sc.NextKey(); more; k, more = sc.NextKey() {
				if string(k) == "exit_code" && sc.Peek() == jsonscan.Number {
					exit, hasExit = sc.Int()
				} else {
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
	sc.End()
	if sc.Err() != nil || !sawOutput {
		return nil, 0, false, false
	}
	return out, exit, hasExit, true
}

// codexHeaderKeys start the header lines Codex writes before "Output:".
// exit marks the ones whose value is the exit code.
var codexHeaderKeys = []struct {
	prefix []byte
	exit   bool
}{
	{[]byte("Exit code: "), true},
	{[]byte("Process exited with code "), true},
	{[]byte("Wall time: "), false},
	{[]byte("Chunk ID: "), false},
	{[]byte("Process running with session ID "), false},
	{[]byte("Original token count: "), false},
	{[]byte("Total output lines: "), false},
}

func codexFreeformOutput(text []byte) (out []byte, exit int64, hasExit bool) {
	rest := text
	for i := 0; len(rest) > 0; i++ {
		line, after, found := bytes.Cut(rest, []byte{'\n'})
		if bytes.Equal(line, []byte("Output:")) && i > 0 {
			return after, exit, hasExit
		}
		if !found {
			break
		}
		known := false
		for _, k := range codexHeaderKeys {
			v, ok := bytes.CutPrefix(line, k.prefix)
			if !ok {
				continue
			}
			known = true
			if k.exit {
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil {
					return text, 0, false
				}
				exit, hasExit = n, true
			}
			break
		}
		if !known {
			break
		}
		rest = after
	}
	return text, 0, false
}
